"""Where a notebook finding is in the ``.ipynb`` file itself: the line and column of the
cell text's characters inside the cell's JSON source strings, for outputs whose readers
know only files (``--format sarif`` regions, ``--format github`` annotations).

Offsets: a finding's ``start``/``end`` are code points into its cell's text; the result
is 1-based lines of the file and 1-based columns in code points and in UTF-16 code
units (columns count the raw JSON text: an escape such as ``\\u002b`` is six columns).
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass

from torch_logs_lsp.files import SkippedFile, read_regular
from torch_logs_lsp.notebook.cells import CellFinding
from torch_logs_lsp.notebook.reader import (
    MAX_NOTEBOOK_BYTES,
    Cell,
    NotNotebook,
    SourcePart,
    read_notebook,
)


@dataclass(frozen=True)
class FilePlace:
    """A finding's place in the notebook file: 1-based ``line``/``end_line``, columns in
    code points (``column``, ``end_column``, exclusive end) and in UTF-16 code units."""

    line: int
    column: int
    end_line: int
    end_column: int
    utf16_column: int
    utf16_end_column: int


def _byte(cell: Cell, offset: int, is_end: bool) -> int | None:
    """The file byte offset of the cell text's code point ``offset`` (``is_end``: the
    end of a range, kept in the string before a string boundary)."""
    parts = cell.parts
    if not parts:
        return None
    starts = [p.offset for p in parts]
    i = max(0, bisect_right(starts, offset) - 1)
    if is_end and i > 0 and offset == starts[i]:
        i -= 1
    part: SourcePart = parts[i]
    k = min(max(offset - part.offset, 0), len(part.value))
    scanned = part.scanned
    raw = scanned.starts[k] if k < len(scanned.starts) else scanned.content_end
    return part.start + len(part.raw[:raw].encode("utf-8", "surrogatepass"))


def _units(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def file_place(data: bytes, cell: Cell, start: int, end: int) -> FilePlace | None:
    """The place in the file ``data`` of the cell text range ``[start, end)``; ``None``
    for a cell without source strings. Never raises for offsets inside the cell."""
    a = _byte(cell, start, False)
    b = _byte(cell, end, True) if end > start else a
    if a is None or b is None:
        return None
    b = max(a, b)

    def at(pos: int) -> tuple[int, int, int]:
        line_start = data.rfind(b"\n", 0, pos) + 1
        before = data[line_start:pos].decode("utf-8", "replace")
        return data.count(b"\n", 0, pos) + 1, len(before) + 1, _units(before) + 1

    line, column, u_column = at(a)
    end_line, end_column, u_end = at(b)
    return FilePlace(line, column, end_line, end_column, u_column, u_end)


def notebook_places(
    path: str | os.PathLike[str], found: list[CellFinding]
) -> list[FilePlace | None]:
    """The file place of each of ``found`` (findings of the notebook at ``path``, as
    :func:`.notebook_cli.check_notebook` returned them), the file read again; ``None``
    for each when it can no longer be read as a notebook."""
    try:
        data = read_regular(path, MAX_NOTEBOOK_BYTES)
        notebook = read_notebook(data)
    except (SkippedFile, NotNotebook):
        return [None] * len(found)
    cells = {c.index + 1: c for c in notebook.cells}
    out: list[FilePlace | None] = []
    for item in found:
        cell = cells.get(item.cell)
        f = item.finding
        out.append(file_place(data, cell, f.start, f.end) if cell is not None else None)
    return out


__all__ = ["FilePlace", "file_place", "notebook_places"]
