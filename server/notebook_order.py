"""The import-order rule across the cells of a notebook (TL501 naming the cell).

A notebook runs as one module, top to bottom in the order of its cells: an ``import torch``
in an earlier cell makes a later in-process write of a variable torch reads only at import
(``os.environ["TORCH_LOGS"] = ...``) ineffective, exactly as in one file (see
:mod:`torch_logs_lsp.core.hosts.python_order`, whose rule this applies unchanged to each
cell read as if the import stood right before it).

This is the seam between the server's notebook sync (:mod:`.notebooks`) and the rule:
:func:`cross_cell_diagnostics` takes the ordered cell texts and returns the extra
diagnostics per cell. It knows nothing of LSP. Until the CLI's notebook module (issue 15)
provides the same function for IPython cells (``%env`` after the import), this minimal
version reads each code cell as plain Python: a cell with magics parses with error regions,
in which nothing is reported (no guess).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from torch_logs_lsp.core import hosts
from torch_logs_lsp.core.diagnostic import Diagnostic, Severity
from torch_logs_lsp.core.hosts._ts import Source
from torch_logs_lsp.core.hosts.python_order import (
    LATE,
    _imports_torch,
    _torch_import,
    late_writes,
)

log = logging.getLogger(__name__)

#: What a cell is read after when an earlier cell imported torch.
_PREFIX = "import torch\n"
#: A later mention of these may read the variables again: then nothing is reported.
_REREAD = re.compile(r"\b(?:_init_logs|set_logs)\b")


@dataclass(frozen=True)
class CellText:
    """One cell of a notebook, in the notebook's order: ``number`` (1-based, counting every
    cell, markdown too, as the notebook file does), its ``text``, and whether it is a code
    cell read as Python (``code``; markdown and raw cells are not)."""

    number: int
    text: str
    code: bool


#: Cells up to this many code points have their results remembered (at most
#: :data:`_REMEMBERED` of them): an edit of one cell of a large notebook reads only that
#: cell again. Larger cells are read each time (the memory stays bounded).
_CACHED_TEXT = 100_000
_REMEMBERED = 1024


def torch_import_line(text: str) -> int | None:
    """The 1-based line of the first unconditional module-level ``import torch`` /
    ``from torch... import`` of a cell's ``text``; ``None`` without one. Never raises."""
    if len(text) <= _CACHED_TEXT:
        return _torch_import_line_cached(text)
    return _torch_import_line(text)


def _torch_import_line(text: str) -> int | None:
    if not _imports_torch(text):
        return None
    try:
        src = Source(text, lone_cr_is_lf=True)
        node = _torch_import(src.data, src.parse("python").root_node)
    except Exception:  # a parser bug must not take the server down
        log.exception("looking for `import torch` in a cell failed")
        return None
    return None if node is None else node.start_point[0] + 1


_torch_import_line_cached = lru_cache(maxsize=_REMEMBERED)(_torch_import_line)


def _late_in_cell(text: str) -> set[int]:
    """Where the names of the writes that ``text`` as it is reports as TL501 start."""
    spans = hosts.extract("python", text)
    return {
        spans[n.span_index].name_start for n in late_writes(text, spans, None) if n.code == LATE
    }


def cross_cell_diagnostics(cells: Sequence[CellText]) -> dict[int, list[Diagnostic]]:
    """Diagnostics that need more than one cell, by index into ``cells``: a TL501 warning
    over the value of each in-process write in a code cell after the first code cell that
    imports torch (the message names that cell and line), when the cell itself does not
    already report it (its own ``import torch`` before the write) and no later cell
    mentions ``set_logs``/``_init_logs``. Offsets: code points into the cell's text.
    Never raises (a failing cell is logged and skipped)."""
    out: dict[int, list[Diagnostic]] = {}
    first: tuple[int, int] | None = None  # (cell number, line) of the first import
    rereads = [i for i, c in enumerate(cells) if c.code and _REREAD.search(c.text)]
    for index, cell in enumerate(cells):
        if not cell.code:
            continue
        if first is not None and not any(i > index for i in rereads):
            try:
                found = _cross_notes(cell.text, first)
            except Exception:  # a bug must not take the server down
                log.exception("the import order of cell %d failed", cell.number)
                found = ()
            if found:
                out[index] = list(found)
        if first is None:
            line = torch_import_line(cell.text)
            if line is not None:
                first = (cell.number, line)
    return out


def _cross_notes(text: str, first: tuple[int, int]) -> tuple[Diagnostic, ...]:
    """TL501 for the writes of a cell read after ``first`` (cell number, line); remembered
    per (text, first) for a cell up to :data:`_CACHED_TEXT` (the same diagnostic objects
    then come back for an unchanged cell)."""
    if len(text) <= _CACHED_TEXT:
        return _cross_notes_cached(text, first)
    return _read_cross_notes(text, first)


def _read_cross_notes(text: str, first: tuple[int, int]) -> tuple[Diagnostic, ...]:
    if "TORCH" not in text:
        return ()
    joined = _PREFIX + text
    spans = hosts.extract("python", joined)
    notes = [n for n in late_writes(joined, spans, None) if n.code == LATE]
    if not notes:
        return ()
    own = _late_in_cell(text)  # the cell's own import comes first: reported already
    shift = len(_PREFIX)
    number, line = first
    out: list[Diagnostic] = []
    for note in notes:
        span = spans[note.span_index]
        if span.value is None or span.name_start < shift or span.name_start - shift in own:
            continue
        start, end = span.document_range(0, len(span.value))
        message = note.message.replace(
            "`import torch` (line 1)", f"`import torch` (cell {number}, line {line})", 1
        )
        out.append(Diagnostic(LATE, Severity.WARNING, message, start - shift, end - shift))
    return tuple(out)


_cross_notes_cached = lru_cache(maxsize=_REMEMBERED)(_read_cross_notes)


__all__ = ["CellText", "cross_cell_diagnostics", "torch_import_line"]
