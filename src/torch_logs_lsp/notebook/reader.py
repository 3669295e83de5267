"""Jupyter notebooks (``.ipynb``, nbformat 4) read from their JSON text with positions.

A notebook is not a host's document: its code cells are (each one document of
:data:`CELL_HOST`). :func:`read_notebook` finds every cell's ``cell_type`` and ``source``
in the file's bytes and decodes only those strings (and the kernel's language); everything
else (outputs, often megabytes of base64 images, attachments, cell metadata) is skipped
over by a bracket-matching scan that only recognises strings, never decoded. Skipped
values are not validated beyond their brackets and strings; what is read is strict JSON.

tree-sitter-json is not used here: it parsed a generated 19 MB notebook with 200 cells in
3.4 s (``json.loads`` takes 0.29 s); this scanner reads it in ~0.1 s (``scripts/bench.py``
prints the numbers of its ``notebook-20mb`` input).

Offsets: :class:`SourcePart` ``start``/``end`` are byte offsets into the file; a cell's
``text`` is the concatenation of its source strings, decoded, and its offsets are code
points into that text. :func:`.notebook_edits.source_edits` maps a new cell text back to byte
edits of the file that touch only the changed characters of the changed strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from torch_logs_lsp.hosts.jsonc.strings import ScannedString, scan_string
from torch_logs_lsp.model.host_kind import HostKind

#: The host kind each code cell is checked as: the IPython cell host (magics, ``!``
#: lines, ``%%bash`` cells, and the rest as Python).
CELL_HOST: HostKind = "ipython"
#: Largest notebook read, bytes: outputs (base64 images) make notebooks far larger than
#: the source files :data:`torch_logs_lsp.files.MAX_FILE_BYTES` is meant for; they are
#: skipped cheaply.
MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024

#: The kind of a ``.ipynb`` file in :func:`.checker.iter_files` (not a host kind).
NOTEBOOK: Final = "notebook"
#: The kind of a file :func:`torch_logs_lsp.project.walk.iter_files` finds: a host kind, or
#: :data:`NOTEBOOK`.
FileKind = HostKind | Literal["notebook"]

#: Kernel languages whose code cells are Python (``metadata.language_info.name``, else
#: ``metadata.kernelspec.language``; a notebook that names neither is taken as Python).
PYTHON_LANGUAGES = frozenset({"python", "python3", "python2", "ipython", "ipython3"})

_WS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"', re.S)
_SCALAR = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
# Everything up to the next bracket that is not inside a string (strings matched whole,
# unrolled so that an unterminated one cannot backtrack for long).
_RUN = re.compile(rb'[^"\[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"\[\]{}]*)*', re.S)
_BRACKETS = (b"[", b"]", b"{", b"}")
_BRACKET = re.compile(rb"[\[\]{}]")
_CLOSE = {ord("["): ord("]"), ord("{"): ord("}")}
#: Deepest nesting of a skipped value (an output's JSON); deeper is refused as broken.
MAX_DEPTH = 10_000


def is_notebook(path: str) -> bool:
    """Whether a file name (or path) names a Jupyter notebook (``*.ipynb``, any case)."""
    return path.lower().endswith(".ipynb")


class NotNotebook(Exception):
    """The bytes are not a notebook we read: ``reason`` is a short lower-case phrase for
    a message ("not valid JSON at byte 120", "not nbformat 4: no cells list")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SourcePart:
    """One JSON string of a cell's ``source``: ``start``/``end`` byte offsets of the
    string token in the file (quotes included), ``raw`` its text (quotes included),
    ``scanned`` its decoding (:func:`.hosts.json_strings.scan_string`; offsets are code
    points into ``raw``), ``offset`` where its value starts in the cell text (code
    points)."""

    start: int
    end: int
    raw: str
    scanned: ScannedString
    offset: int

    @property
    def value(self) -> str:
        """The decoded string."""
        return self.scanned.value


@dataclass(frozen=True)
class Cell:
    """A notebook cell: ``index`` 0-based among all cells (``index + 1`` is the number
    Jupyter and ruff show: every cell counts, markdown too), ``kind`` its ``cell_type``,
    ``text`` its source (the strings joined), ``parts`` those strings, ``listed`` whether
    ``source`` was a list of strings (nbformat's usual form, one line each) rather than
    one string."""

    index: int
    kind: str
    text: str
    parts: tuple[SourcePart, ...]
    listed: bool


@dataclass(frozen=True)
class Notebook:
    """A notebook as :func:`read_notebook` read it: its ``cells`` in document order and
    the kernel ``language`` (lower case; ``None`` when the metadata names none)."""

    cells: tuple[Cell, ...]
    language: str | None

    @property
    def is_python(self) -> bool:
        """Whether the code cells are Python (see :data:`PYTHON_LANGUAGES`)."""
        return self.language is None or self.language in PYTHON_LANGUAGES

    @property
    def code_cells(self) -> list[Cell]:
        """The code cells, in document order."""
        return [c for c in self.cells if c.kind == "code"]


def _broken(data: bytes, pos: int, what: str = "not valid JSON") -> NotNotebook:
    return NotNotebook(f"{what} at byte {min(pos, len(data))}")


def _ws(data: bytes, pos: int) -> int:
    return _WS.match(data, pos).end()  # type: ignore[union-attr]  # always matches


def _string(data: bytes, pos: int) -> tuple[str, ScannedString, int]:
    """The JSON string token at ``pos``: its text, its decoding and its end (bytes)."""
    m = _STRING.match(data, pos)
    if m is None:
        raise _broken(data, pos)
    try:
        raw = m.group().decode("utf-8")
    except UnicodeDecodeError:
        raise _broken(data, pos, "not UTF-8") from None
    scanned = scan_string(raw, 0)
    if not scanned.valid or not scanned.terminated or scanned.raw_end != len(raw):
        raise _broken(data, pos)
    return raw, scanned, m.end()


def _key(data: bytes, pos: int) -> tuple[str, int]:
    """The decoded JSON string at ``pos`` (an object's key) and its end."""
    m = _STRING.match(data, pos)
    if m is not None and b"\\" not in m.group():
        try:
            return m.group()[1:-1].decode("utf-8"), m.end()
        except UnicodeDecodeError:
            raise _broken(data, pos, "not UTF-8") from None
    _, scanned, end = _string(data, pos)
    return scanned.value, end


def _skip(data: bytes, pos: int) -> int:
    """The end (byte offset) of the JSON value at ``pos``, without decoding it."""
    first = data[pos : pos + 1]
    if first == b'"':
        m = _STRING.match(data, pos)
    elif first not in (b"[", b"{"):
        m = _SCALAR.match(data, pos)
    else:
        return _skip_brackets(data, pos)
    if m is None:
        raise _broken(data, pos)
    return m.end()


def _skip_brackets(data: bytes, pos: int) -> int:
    """The end of the array or object at ``pos``: from bracket to bracket, a segment
    with an even number of ``"`` leaves the string state as it was (a quote in a string
    is always escaped, so while no ``\\"`` occurs every ``"`` opens or closes one). A few
    C-speed passes over each segment (:func:`_next_bracket`, two counts), however many
    strings it holds; a segment with a ``\\"`` falls back to :func:`_skip_strings`."""
    stack: list[int] = []
    in_string = False
    i = pos
    while True:
        j = _next_bracket(data, i)
        if j < 0:
            raise _broken(data, len(data))
        c = data[j]
        if data.count(b'\\"', i, j):
            return _skip_strings(data, pos)
        in_string ^= data.count(b'"', i, j) & 1 == 1
        i = j + 1
        if in_string:
            continue
        if c in _CLOSE:
            stack.append(_CLOSE[c])
            if len(stack) > MAX_DEPTH:
                raise _broken(data, j, "nested too deeply")
        elif not stack or c != stack.pop():
            raise _broken(data, j)
        elif not stack:
            return i


def _next_bracket(data: bytes, i: int) -> int:
    """The offset of the next bracket byte at or after ``i``, or -1. Near ones are found
    by a regular expression (little overhead per call); past a short distance each of
    the four bytes is searched with ``bytes.find`` (memchr speed) in a window that doubles
    while none is found, so that a long string is crossed fast and no search runs far
    past the bracket found (a byte absent from the rest of a large file would otherwise
    be searched for to its end on every call)."""
    size = len(data)
    near = min(size, i + 256)
    m = _BRACKET.search(data, i, near)
    if m is not None:
        return m.start()
    start, window = near, 4096
    while start < size:
        stop = min(size, start + window)
        hits = [at for c in _BRACKETS if (at := data.find(c, start, stop)) >= 0]
        if hits:
            return min(hits)
        start, window = stop, window * 2
    return -1


def _skip_strings(data: bytes, pos: int) -> int:
    """:func:`_skip_brackets` string by string (a regular expression matches each)."""
    stack: list[int] = []
    i = pos
    while i < len(data):
        c = data[i]
        if c in _CLOSE:
            stack.append(_CLOSE[c])
            if len(stack) > MAX_DEPTH:
                raise _broken(data, i, "nested too deeply")
        elif not stack or c != stack.pop():  # a closing bracket, or an open string
            raise _broken(data, i)
        elif not stack:
            return i + 1
        i = _RUN.match(data, i + 1).end()  # type: ignore[union-attr]  # always matches
    raise _broken(data, i)


def _members(
    data: bytes, pos: int, read: dict[str, Callable[[int], int]] | None = None
) -> tuple[dict[str, int], int]:
    """The members of the object at ``pos``: key -> byte offset of its value (the last
    one for a repeated key, as ``json.loads``), and the object's end. The value of a key
    in ``read`` is read by its function (given the value's offset, it returns its end);
    the others are skipped (:func:`_skip`), so each byte is scanned once."""
    if data[pos : pos + 1] != b"{":
        raise _broken(data, pos)
    out: dict[str, int] = {}
    i = _ws(data, pos + 1)
    if data[i : i + 1] == b"}":
        return out, i + 1
    while True:
        key, i = _key(data, i)
        i = _ws(data, i)
        if data[i : i + 1] != b":":
            raise _broken(data, i)
        value = _ws(data, i + 1)
        out[key] = value
        reader = read.get(key) if read else None
        i = _ws(data, reader(value) if reader else _skip(data, value))
        if data[i : i + 1] == b"}":
            return out, i + 1
        if data[i : i + 1] != b",":
            raise _broken(data, i)
        i = _ws(data, i + 1)


def _elements(
    data: bytes, pos: int, read: Callable[[int], int] | None = None
) -> tuple[list[int], int]:
    """The byte offsets of the elements of the array at ``pos`` and the array's end;
    each element is read by ``read`` (given its offset, it returns its end), else
    skipped."""
    if data[pos : pos + 1] != b"[":
        raise _broken(data, pos)
    out: list[int] = []
    i = _ws(data, pos + 1)
    if data[i : i + 1] == b"]":
        return out, i + 1
    while True:
        out.append(i)
        i = _ws(data, read(i) if read else _skip(data, i))
        if data[i : i + 1] == b"]":
            return out, i + 1
        if data[i : i + 1] != b",":
            raise _broken(data, i)
        i = _ws(data, i + 1)


def _text_at(data: bytes, members: dict[str, int], key: str) -> str | None:
    """The decoded string value of ``key`` (``None`` when absent or not a string)."""
    at = members.get(key)
    if at is None or data[at : at + 1] != b'"':
        return None
    return _string(data, at)[1].value


def _cell(data: bytes, index: int, pos: int) -> tuple[Cell, int]:
    """The cell object at ``pos`` and its end (its outputs skipped)."""
    if data[pos : pos + 1] != b"{":
        raise _broken(data, pos, "a cell that is not an object")
    parts: list[SourcePart] = []

    def part(start: int) -> int:
        raw, scanned, end = _string(data, start)
        offset = parts[-1].offset + len(parts[-1].value) if parts else 0
        parts.append(SourcePart(start, end, raw, scanned, offset))
        return end

    def source(at: int) -> int:
        parts.clear()  # a repeated key: the last one counts
        if data[at : at + 1] == b'"':
            return part(at)
        if data[at : at + 1] != b"[":
            raise NotNotebook(f"cell {index + 1}'s source is not a string or a list of strings")
        return _elements(data, at, part)[1]

    members, end = _members(data, pos, {"source": source})
    kind = _text_at(data, members, "cell_type") or ""
    at = members.get("source")
    listed = at is not None and data[at : at + 1] == b"["
    return Cell(index, kind, "".join(p.value for p in parts), tuple(parts), listed), end


def read_notebook(data: bytes) -> Notebook:
    """The cells and kernel language of a notebook file's bytes (UTF-8 JSON, nbformat
    4; a UTF-8 BOM is allowed). Only the strings of ``cell_type``, ``source`` and the
    language are decoded; outputs and the rest are skipped (:func:`_skip`).

    Raises :class:`NotNotebook` for bytes that are not such a notebook: broken JSON where
    it is read, a top level that is not an object, no ``cells`` list, an ``nbformat``
    other than 4, a ``source`` that is neither a string nor a list of strings."""
    pos = _ws(data, 3 if data.startswith(b"\xef\xbb\xbf") else 0)
    cells: list[Cell] = []

    def cell(at: int) -> int:
        found, end = _cell(data, len(cells), at)
        cells.append(found)
        return end

    def cell_list(at: int) -> int:
        cells.clear()
        return _elements(data, at, cell)[1] if data[at : at + 1] == b"[" else _skip(data, at)

    top, end = _members(data, pos, {"cells": cell_list})
    if _ws(data, end) != len(data):
        raise _broken(data, _ws(data, end))
    version = top.get("nbformat")
    if version is not None and data[version : _skip(data, version)] != b"4":
        raise NotNotebook("not nbformat 4")
    if "cells" not in top or data[top["cells"] : top["cells"] + 1] != b"[":
        raise NotNotebook("not nbformat 4: no cells list")
    language = None
    meta_at = top.get("metadata")
    if meta_at is not None and data[meta_at : meta_at + 1] == b"{":
        meta = _members(data, meta_at)[0]
        for key, name in (("language_info", "name"), ("kernelspec", "language")):
            at = meta.get(key)
            if language is None and at is not None and data[at : at + 1] == b"{":
                language = _text_at(data, _members(data, at)[0], name)
    return Notebook(tuple(cells), language.lower() if language else None)


__all__ = [
    "CELL_HOST",
    "MAX_NOTEBOOK_BYTES",
    "NOTEBOOK",
    "PYTHON_LANGUAGES",
    "Cell",
    "FileKind",
    "NotNotebook",
    "Notebook",
    "SourcePart",
    "is_notebook",
    "read_notebook",
]
