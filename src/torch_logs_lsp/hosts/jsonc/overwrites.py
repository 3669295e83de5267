"""Overwritten values in a JSONC file (:meth:`.interface.Host.overwritten`).

VS Code reads ``launch.json`` with jsonc-parser, whose ``parse`` assigns each property
to its object in document order, so a key given twice in one ``env`` object keeps its
last value (checked with jsonc-parser 3: ``{"env": {"TORCH_LOGS": "a", "TORCH_LOGS":
"b"}}`` gives ``b``); the earlier value reaches no process. Keys are compared decoded
(``"TORCH\\u005fLOGS"`` is ``TORCH_LOGS``). Only pairs that tree-sitter-json places in
the same well-formed object count (none inside an ERROR node). Offsets are code points.
"""

from __future__ import annotations

import logging

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.model.spans import ValueSpan, set_again

log = logging.getLogger(__name__)

_WHY = "{name} is given again in this object, and VS Code keeps the last"


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """Each span followed, in the same JSON object, by a span of the same variable.
    Never raises (a parse failure gives ``[]``, logged)."""
    if len(spans) < 2 or len({s.variable for s in spans}) == len(spans):
        return []
    if not _maybe_overwritten(text, spans):
        return []  # (no parse: ~25 ms for a 2,000-configuration launch.json)
    try:
        src = Source(text)
        root = src.parse("json").root_node
        last: dict[tuple[int, str], int] = {}
        out: list[Overwrite] = []
        for i, span in enumerate(spans):
            start = src.byte(span.name_start)
            node = root.named_descendant_for_byte_range(start, start)
            while node is not None and node.type != "pair":
                node = node.parent
            parent = node.parent if node is not None else None
            if parent is None or parent.type != "object":
                continue
            key = (parent.start_byte, span.variable)
            if key in last:
                out.append(Overwrite(last[key], i, _WHY.format(name=span.variable)))
            last[key] = i
        return out
    except Exception:  # bad input never crashes the checker
        log.exception("finding overwritten JSONC values failed")
        return []


def _maybe_overwritten(text: str, spans: list[ValueSpan]) -> bool:
    """A cheap test before the parse: whether two spans of one variable have no brace
    between them. ``False`` means none is overwritten, or only with a brace between them
    (a nested object, or a brace in a string): such a pair alone is left unreported."""
    for earlier, later in set_again(spans):
        between = text[spans[earlier].raw_end : spans[later].name_start]
        if "{" not in between and "}" not in between:
            return True
    return False


__all__ = ["overwritten"]
