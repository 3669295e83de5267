"""``torch-logs check`` on a Jupyter notebook (``.ipynb``): its cells checked as documents
(:func:`torch_logs_lsp.notebook.cells.notebook_findings`), and ``--fix`` written back into
the cells' JSON strings only (:func:`torch_logs_lsp.notebook.edits.source_edits`).

Positions are printed as ruff prints them for notebooks, ``PATH:cell N:ROW:COL``: ``N``
is the 1-based index of the cell among all cells, markdown and raw ones included (ruff's
``raw_cell_index``, ``ruff_notebook/src/index.rs``; Jupyter shows the same order), ``ROW``
and ``COL`` 1-based inside the cell's source (columns in code points, as for files).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from torch_logs_lsp.cli.paths import writable_here
from torch_logs_lsp.cli.text import shown, value_text
from torch_logs_lsp.cli.torch_options import context_for, print_notes, project_dir
from torch_logs_lsp.files import (
    MAX_FILE_BYTES,
    ChangedOnDisk,
    NotWritten,
    SkippedFile,
    read_regular,
    read_snapshot,
    replace_file,
)
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.fixer import fix_document, read_only
from torch_logs_lsp.notebook.cells import CellFinding, notebook_findings
from torch_logs_lsp.notebook.edits import ByteEdit, apply_byte_edits, source_edits
from torch_logs_lsp.notebook.reader import (
    CELL_HOST,
    MAX_NOTEBOOK_BYTES,
    Notebook,
    NotNotebook,
    read_notebook,
)

#: One value changed by :func:`fix_notebook`: the 1-based cell number, the 0-based line
#: in the cell, what was changed (a variable, or "set_logs"), the old and the new value.
Fixed = tuple[int, int, str, str, str]


def check_notebook(
    path: Path,
    args: argparse.Namespace,
    skipped: Callable[[SkippedFile], None],
    noted: set[str],
    ignore: frozenset[str] = frozenset(),
) -> tuple[list[CellFinding], int] | None:
    """``check`` (and ``--fix``) of one notebook file: its findings and the number of
    values ``--fix`` changed; ``None`` when it was not checked (handed to ``skipped``:
    unreadable, too large, not a notebook we read, or a kernel that is not Python).
    ``ignore``: codes whose fixes ``--fix`` skips."""
    try:
        data = read_regular(path, MAX_NOTEBOOK_BYTES)
        notebook = read_notebook(data)
    except SkippedFile as exc:
        skipped(exc)
        return None
    except NotNotebook as exc:
        skipped(SkippedFile(str(path), f"not a notebook we read: {exc.reason}"))
        return None
    if not notebook.is_python:
        reason = f"a notebook of {notebook.language} cells, not Python"
        skipped(SkippedFile(str(path), reason))
        return None
    # one line per cell: a pin comment at the end of a cell must not run into the next
    code_text = "\n".join(c.text for c in notebook.code_cells)
    if len(code_text) > MAX_FILE_BYTES:  # outputs do not count: only what is read
        reason = f"its code cells hold more than {MAX_FILE_BYTES // 2**20} MiB (as a file would)"
        skipped(SkippedFile(str(path), reason))
        return None
    context = context_for(args, code_text, path)
    print_notes(context, noted)
    fixed = 0
    if args.fix and writable_here(path, args.paths):
        notebook, fixed = _fix(path, notebook, context.registry, args.format, ignore)
    roots = (os.getcwd(), project_dir(path))
    found = notebook_findings(
        notebook,
        context.registry,
        base_dir=os.getcwd(),
        roots=roots,
        context=context,
        path=os.path.abspath(path),
    )
    return found, fixed


def fix_notebook(
    data: bytes, registry: Registry, ignore: frozenset[str] = frozenset()
) -> tuple[bytes, list[Fixed]]:
    """Fix-all (:func:`.fixer.fix_document`) applied to each code cell of a notebook's
    bytes: the new bytes and one :data:`Fixed` per value changed. Only the changed
    characters of the changed source strings differ from ``data``; a cell whose change
    cannot be written that way (:func:`.notebook_edits.source_edits` is ``None``) is left as
    it was, and so is the whole notebook should the new JSON not read back as the fixed
    cells (never expected: each edit re-encodes exactly its characters). Raises
    :class:`.notebook.NotNotebook` for bytes that are not a notebook. ``ignore``: codes
    whose fixes are skipped."""
    notebook = read_notebook(data)
    edits: list[ByteEdit] = []
    changed: list[Fixed] = []
    wanted = {c.index: c.text for c in notebook.cells}
    for cell in notebook.code_cells if notebook.is_python else []:
        new_text, changes = fix_document(cell.text, CELL_HOST, registry, ignore=ignore)
        cell_edits = source_edits(cell, new_text) if changes else None
        if not cell_edits:
            continue
        edits += cell_edits
        wanted[cell.index] = new_text
        for c in changes:
            what = c.span.variable if c.span is not None else "set_logs"
            changed.append((cell.index + 1, c.line, what, c.old, c.new))
    if not edits:
        return data, []
    new = apply_byte_edits(data, sorted(edits, key=lambda e: e.start))
    if [c.text for c in read_notebook(new).cells] != [wanted[c.index] for c in notebook.cells]:
        return data, []
    return new, changed


def _fix(
    path: Path, notebook: Notebook, registry: Registry, fmt: str, ignore: frozenset[str]
) -> tuple[Notebook, int]:
    """``--fix`` of one notebook file: write the fixed bytes safely (the file as read,
    :func:`.files.replace_file`), print each change; return the notebook to check and the
    number of values changed."""

    out = sys.stdout if fmt == "text" else sys.stderr
    name = shown(path)
    try:
        snapshot = read_snapshot(path, MAX_NOTEBOOK_BYTES)
        new, changed = fix_notebook(snapshot.data, registry, ignore)
    except (SkippedFile, NotNotebook) as exc:
        print(f"{name}: {getattr(exc, 'reason', exc)}; not fixed", file=sys.stderr)
        return notebook, 0
    if not changed:
        return notebook, 0
    if read_only(snapshot.mode, snapshot.uid, snapshot.gid):
        print(f"{name}: read-only; not fixed", file=sys.stderr)
        return notebook, 0
    try:
        replace_file(path, new, snapshot)
    except ChangedOnDisk:
        print(f"{name}: changed on disk while being fixed; not fixed", file=sys.stderr)
        return notebook, 0
    except NotWritten as exc:
        print(f"{name}: {exc.reason}; the file is unchanged, not fixed", file=sys.stderr)
        return notebook, 0
    for cell, line, what, old, value in changed:
        old_s, new_s = value_text(old), value_text(value)
        print(f"{name}:cell {cell}:{line + 1}: fixed {what}: {old_s} -> {new_s}", file=out)
    return read_notebook(new), len(changed)


__all__ = [
    "Fixed",
    "check_notebook",
    "fix_notebook",
]
