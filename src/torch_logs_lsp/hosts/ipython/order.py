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

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.interface import Note
from torch_logs_lsp.hosts.ipython.escapes import Escape
from torch_logs_lsp.hosts.python.order import (
    _REREAD,
    _REREAD_TORCH_LOGS,
    LATE,
    READ_AT_IMPORT,
    _imports_torch,
    _torch_import,
)
from torch_logs_lsp.model.spans import ValueSpan

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


# -- across cells (for the notebook reader, notebook/reader.py) ---------------------------

#: What an earlier cell that imported torch looks like to the rules above.
_EARLIER = "import torch\n"


def torch_imported(view: str) -> int | None:
    """Where the first unconditional top-level ``import torch``/``from torch ...`` of a
    cell's Python view ends (a code point offset), or ``None``. Never raises."""
    if not _imports_torch(view):
        return None
    try:
        src = Source(view, lone_cr_is_lf=True)
        imported = _torch_import(src.data, src.parse("python").root_node)
    except Exception:  # a bug must not cost the other checks
        log.exception("ipython: reading the import order failed")
        return None
    return None if imported is None else src.cp(imported.end_byte)


def late_after_earlier_import(
    text: str, view: str, spans: list[ValueSpan], mine: list[int], escapes: list[Escape]
) -> list[int]:
    """The indexes of ``spans`` (a cell's, ``mine`` its ``%env`` and shell spans) whose
    value is set in the kernel's process where torch, imported by an earlier cell, no
    longer reads it: the rules of TL501 (:func:`late_env`, :func:`.python_order.late_writes`)
    as if the cell started with ``import torch``. Never raises."""
    from torch_logs_lsp.hosts.python.order import late_writes

    n = len(_EARLIER)
    moved = [s.moved(n) for s in spans]
    taken = set(mine)
    py = [i for i in range(len(spans)) if i not in taken]
    try:
        found = {
            py[note.span_index]
            for note in late_writes(_EARLIER + view, [moved[i] for i in py], None)
        }
    except Exception:
        log.exception("ipython: reading the import order failed")
        found = set()
    shifted = [e._replace(start=e.start + n, end=e.end + n) for e in escapes]
    found |= {
        note.span_index for note in late_env(_EARLIER + text, _EARLIER + view, moved, mine, shifted)
    }
    return sorted(found)


# -- set_logs() after `%env TORCH_LOGS=...` in the same cell (TL631) --------------------

_WRITE = "os.environ['TORCH_LOGS'] = ''"


def env_set_before_calls(
    view: str, spans: list[ValueSpan], escapes: list[Escape], calls: list[int]
) -> dict[int, int]:
    """For each ``set_logs(...)`` call starting at ``calls[i]`` (code points) that
    certainly runs with ``TORCH_LOGS`` in ``os.environ`` because a top-level
    ``%env TORCH_LOGS ...`` line (``spans``: the cell's own spans) set it before: its start
    -> the 1-based line of that ``%env``. Decided by the Python host's rule
    (:func:`.python_order.torch_logs_set_before`) on the view with each such line written
    as ``os.environ['TORCH_LOGS'] = ''``. Never raises."""
    from torch_logs_lsp.hosts.python import host as python
    from torch_logs_lsp.hosts.python.order import torch_logs_set_before

    lines = [
        e
        for e in escapes
        if e.kind == "%"
        and (e.start == 0 or view[e.start - 1] in "\r\n")
        and not any(c in view[e.start : e.end] for c in "\r\n")
        and any(s.variable == "TORCH_LOGS" and e.start <= s.name_start < e.end for s in spans)
    ]
    if not lines or not calls:
        return {}
    try:
        parts, shifts, pos = [], [], 0
        for e in lines:
            parts += [view[pos : e.start], _WRITE]
            shifts.append((e.end, len(_WRITE) - (e.end - e.start)))
            pos = e.end
        text = "".join(parts) + view[pos:]

        def moved(offset: int) -> int:
            return offset + sum(d for end, d in shifts if end <= offset)

        where = {moved(c): c for c in calls}
        found = torch_logs_set_before(text, python.extract(text), None, list(where))
    except Exception:  # a bug must not cost the other checks
        log.exception("ipython: reading %env before set_logs failed")
        return {}
    return {where[c]: line for c, line in found.items() if c in where}
