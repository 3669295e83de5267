"""Overwritten values in a TOML file (:meth:`.interface.Host.overwritten`).

pytest-env (1.8.7, ``_apply_entries``) applies the entries of an ``env`` list in order,
each one ``os.environ[key] = value``, before any test runs: an entry followed in the
same list by an entry of the same variable never reaches a test, unless the later one
has the ``D:`` flag (it is then skipped, the variable being set). Only two items of one
array count (a multi-line string's lines are left alone). A key given twice in a
``[tool.pytest_env]`` or ``set_env`` table is a TOML error (tomllib rejects the file),
not an overwrite. Offsets are code points.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts import pytest_env
from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.model.spans import ValueSpan

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

_WHY = "{name} is set again by a later entry of this env list (pytest-env applies them in order)"


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """Each pytest-env entry followed, in the same ``env`` array, by an entry of the
    same variable without ``D:`` (the first such). Never raises (a failure gives ``[]``, logged)."""
    entries = [i for i, s in enumerate(spans) if LAYER in (s.quote or "")]
    if len(entries) < 2 or len({spans[i].variable for i in entries}) == len(entries):
        return []
    try:
        src = Source(text)
        root = src.parse("toml").root_node
        items = {i: _item(src, root, spans[i]) for i in entries}
        out: list[Overwrite] = []
        for n, i in enumerate(entries):
            a = items[i]
            if a is None:
                continue
            for j in entries[n + 1 :]:
                b = items[j]
                if spans[j].variable != spans[i].variable or b is None or b[0] != a[0]:
                    continue
                if b[1] == a[1] or _skips(text, b[1]):
                    continue  # a line of the same string; a D: entry (skipped when set)
                out.append(Overwrite(i, j, _WHY.format(name=spans[j].variable)))
                break
        return out
    except Exception:  # bad input never crashes the checker
        log.exception("finding overwritten TOML values failed")
        return []


def _skips(text: str, start: int) -> bool:
    """Whether the entry in the string at ``start`` may be skipped (``D:``), or cannot
    be read (then it is not claimed to overwrite anything)."""
    s = toml_strings.decode(text, start)
    return s is None or not s.valid or pytest_env.parse_entry(s.value).skip_if_set


def _item(src: Source, root: tree_sitter.Node, span: ValueSpan) -> tuple[int, int] | None:
    """(the array's start byte, the item string's start code point) of an entry span,
    or ``None`` when it is no array item."""
    if LAYER not in (span.quote or "") or span.name_start >= len(src.text):
        return None
    at = src.byte(span.name_start)
    node = root.named_descendant_for_byte_range(at, at)
    while node is not None and node.type != "string":
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "array":
        return None
    return node.parent.start_byte, src.cp(node.start_byte)
