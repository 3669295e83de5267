"""TL501 for a ``%env`` line of a cell (for :mod:`.ipython`): ``%env`` sets
``os.environ`` of the kernel's process (``OSMagics.set_env``), so after an unconditional
``import torch`` earlier in the cell it has no effect on this process's logging, like
an ``os.environ`` write there (:mod:`.python_order`, whose rules and message it shares).
Only a ``%env`` line at the cell's top level counts (an indented one is in a block that
may not run), and not when torch's ``_init_logs``/``set_logs`` is called after it (it
reads the variable again). Offsets are code points into the cell.
"""

from __future__ import annotations

import logging

from ._ts import Source
from .base import ValueSpan
from .interface import Note
from .ipython_escapes import Escape
from .python_order import (
    _REREAD,
    _REREAD_TORCH_LOGS,
    LATE,
    READ_AT_IMPORT,
    _imports_torch,
    _torch_import,
)

log = logging.getLogger(__name__)


def late_env(
    text: str, view: str, spans: list[ValueSpan], mine: list[int], escapes: list[Escape]
) -> list[Note]:
    """The TL501 notes of the ``%env`` spans among ``spans[i] for i in mine`` (``view``:
    the cell's Python view, ``escapes``: its escapes). Never raises."""
    candidates = [i for i in mine if spans[i].variable in READ_AT_IMPORT and spans[i].quote == ""]
    if not candidates or not _imports_torch(view):
        return []
    try:
        src = Source(view, lone_cr_is_lf=True)
        imported = _torch_import(src.data, src.parse("python").root_node)
    except Exception:  # a bug must not cost the other notes
        log.exception("ipython: reading the import order failed")
        return []
    if imported is None:
        return []
    after = src.cp(imported.end_byte)
    line = imported.start_point[0] + 1
    out = []
    for i in candidates:
        span = spans[i]
        esc = next((e for e in escapes if e.start <= span.name_start < e.end), None)
        if esc is None or esc.kind != "%" or esc.start < after:
            continue
        line_start = max(text.rfind(c, 0, esc.start) for c in "\n\r") + 1
        if line_start != esc.start:
            continue  # indented: in a block
        reread = _REREAD_TORCH_LOGS if span.variable == "TORCH_LOGS" else _REREAD
        if any(m.start() >= esc.end for m in reread.finditer(view)):
            continue
        message = (
            f"{span.variable} is set after `import torch` (line {line}): torch reads it once,"
            " at import, so this has no effect in this process; set it before the import"
        )
        out.append(Note(i, LATE, message))
    return out


__all__ = ["late_env"]
