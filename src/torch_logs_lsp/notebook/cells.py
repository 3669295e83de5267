"""A notebook's cells as documents, for ``torch-logs check`` and the language server alike.

Each code cell is checked as a document of :data:`.reader.CELL_HOST` by the one pipeline
(:func:`torch_logs_lsp.lint.pipeline.check_document`); what needs more than one cell (the
import order across cells, ``TL501`` naming the cell that imports torch:
:mod:`.order`) is :func:`cross_cell_diagnostics`, passed to the pipeline's output as a
cell's ``extra`` diagnostics. The CLI reads the cells from the ``.ipynb`` file
(:func:`notebook_findings`); the server from notebook sync (``server/notebooks.py``).
Each code cell is asked about once per (its text, the cell that imports torch): an edit
of one cell of a large notebook reads that cell again, not all of them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from torch_logs_lsp.hosts.python.order import READ_AT_IMPORT
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.checker import Finding
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.notebook.order import (
    cell_order_notes,
    child_start,
    imports_torch,
    note_findings,
    rereads,
)
from torch_logs_lsp.notebook.reader import CELL_HOST, Notebook
from torch_logs_lsp.torch_env.context import TorchContext
from torch_logs_lsp.torch_env.modules import ModuleFinder

log = logging.getLogger(__name__)

#: Cells up to this many code points have their results remembered (at most
#: :data:`_REMEMBERED` of them); larger cells are read each time (memory stays bounded).
_CACHED_TEXT = 100_000
_REMEMBERED = 1024


@dataclass(frozen=True)
class CellText:
    """One cell of a notebook, in the notebook's order: ``number`` (1-based, counting every
    cell, markdown too, as the notebook file does), its ``text``, and whether it is a code
    cell read as Python (``code``; markdown and raw cells are not)."""

    number: int
    text: str
    code: bool


def cross_cell_diagnostics(cells: Sequence[CellText]) -> dict[int, list[Diagnostic]]:
    """Diagnostics that need more than one cell, by index into ``cells``: the TL501
    warnings of :func:`~torch_logs_lsp.notebook.order.cell_order_notes` (a write in
    a code cell after the first code cell that imports torch, naming that cell; not when
    a later cell may read the variables again), over each value. Offsets: code points
    into the cell's text. Never raises (a failing cell is logged and skipped)."""
    out: dict[int, list[Diagnostic]] = {}
    code = [i for i, c in enumerate(cells) if c.code]
    reread_after: dict[int, bool] = {}
    child_after: dict[int, tuple[tuple[str, str | None], ...]] = {}
    later = False
    child: dict[str, str | None] = dict.fromkeys(sorted(READ_AT_IMPORT))
    for i in reversed(code):
        reread_after[i] = later
        child_after[i] = tuple(child.items())
        later = later or _rereads(cells[i].text)
        child = {v: _child_start(cells[i].text, v) or c for v, c in child.items()}
    first: int | None = None  # the number of the first cell that imports torch
    for i in code:
        cell = cells[i]
        if first is not None and not reread_after[i]:
            try:
                found = _cross_notes(cell.text, first, cell.number, child_after[i])
            except Exception:  # a bug must not take the server down
                log.exception("the import order of cell %d failed", cell.number)
                found = ()
            if found:
                out[i] = list(found)
        if first is None and _imports_torch(cell.text):
            first = cell.number
    return out


def _remembered(text: str) -> bool:
    return len(text) <= _CACHED_TEXT


@lru_cache(maxsize=_REMEMBERED)
def _imports_torch_cached(text: str) -> bool:
    return imports_torch(text)


def _imports_torch(text: str) -> bool:
    return _imports_torch_cached(text) if _remembered(text) else imports_torch(text)


def _rereads(text: str) -> bool:
    return rereads(text)


def _read_cross_notes(
    text: str, first: int, number: int, child: tuple[tuple[str, str | None], ...]
) -> tuple[Diagnostic, ...]:
    cells = ["import torch\n", text]
    notes = cell_order_notes(cells, CELL_HOST, [first, number], dict(child)).get(1, [])
    return tuple(
        Diagnostic(f.diagnostic.code, f.diagnostic.severity, f.diagnostic.message, f.start, f.end)
        for f in note_findings(text, CELL_HOST, notes)
    )


_cross_notes_cached = lru_cache(maxsize=_REMEMBERED)(_read_cross_notes)


def _cross_notes(
    text: str, first: int, number: int, child: tuple[tuple[str, str | None], ...]
) -> tuple[Diagnostic, ...]:
    """The TL501 diagnostics of a cell read after cell ``first`` imported torch (TL505
    where ``child``, variable -> what starts a child process that inherits it in a later
    cell, names one); remembered per (text, first, number, child) for a cell up to
    :data:`_CACHED_TEXT`."""
    if _remembered(text):
        return _cross_notes_cached(text, first, number, child)
    return _read_cross_notes(text, first, number, child)


@lru_cache(maxsize=_REMEMBERED)
def _child_start_cached(text: str, variable: str) -> str | None:
    return child_start(text, variable)


def _child_start(text: str, variable: str) -> str | None:
    if _remembered(text):
        return _child_start_cached(text, variable)
    return child_start(text, variable)


@dataclass(frozen=True)
class CellFinding:
    """A finding in a notebook: ``cell`` the 1-based cell number (every cell counts),
    ``finding`` placed in that cell's source text (offsets code points into it, 0-based
    line and column)."""

    cell: int
    finding: Finding

    @property
    def diagnostic(self) -> Diagnostic:
        """The finding's diagnostic."""
        return self.finding.diagnostic


def notebook_findings(
    notebook: Notebook,
    registry: Registry,
    finder: ModuleFinder | None = None,
    base_dir: str | None = None,
    roots: tuple[str, ...] | None = None,
    context: TorchContext | None = None,
    path: str | None = None,
) -> list[CellFinding]:
    """Every finding of a saved notebook's code cells, in cell order, then by offset: each
    cell checked as a document (:func:`.pipeline.check_document`, paths judged as there)
    with its :func:`cross_cell_diagnostics`, suppression comments applied. ``[]`` for a
    notebook whose kernel is not Python. ``context``: the user's torch, used instead of
    ``registry`` and ``finder`` when given (a cell's pin comment may get ``TL902``).
    ``path``: the notebook's file (its directory is the kernel's working directory, where
    module names are looked for first). Never raises for any cell text."""
    if not notebook.is_python:
        return []
    cells = [CellText(c.index + 1, c.text, c.kind == "code") for c in notebook.cells]
    across = cross_cell_diagnostics(cells)
    out: list[CellFinding] = []
    for i, cell in enumerate(cells):
        if not cell.code:
            continue
        checked = check_document(
            cell.text,
            CELL_HOST,
            registry,
            finder,
            context=context,
            base_dir=base_dir,
            roots=roots,
            path=path,
        )
        out += [CellFinding(cell.number, f) for f in checked.findings(across.get(i, ()))]
    return out


__all__ = ["CellFinding", "CellText", "cross_cell_diagnostics", "notebook_findings"]
