"""Overwritten values in a ``.env`` file (:meth:`.interface.Host.overwritten`).

python-dotenv reads the whole file into one dict before anything uses it
(``dotenv_values``; ``load_dotenv`` sets ``os.environ`` from that dict), so a later line of
the same variable replaces an earlier one: the earlier value reaches no process. The one
way an earlier value is still read is interpolation (``${NAME}``, ``${NAME:-x}`` in a later
value, ``dotenv/variables.py``): a reference to the variable between the two lines (or in
the later line) keeps both. Offsets are code points into the document.
"""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.model.spans import ValueSpan, set_again

_WHY = "python-dotenv keeps only the last {name} of the file"


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """Each span followed by a later span of the same variable, with no ``$``-reference
    to the variable from the earlier value's end to the later value's end. Never raises."""
    out: list[Overwrite] = []
    for before, i in set_again(spans):
        span = spans[i]
        reference = re.compile(r"\$\{?\s*" + re.escape(span.variable) + r"\b")
        if reference.search(text, spans[before].raw_end, span.raw_end) is None:
            out.append(Overwrite(before, i, _WHY.format(name=span.variable)))
    return out


__all__ = ["overwritten"]
