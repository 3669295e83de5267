"""Conversion between document offsets and LSP positions: the only place it happens.

Document offsets are code points into the document text (what ``core`` uses). An LSP
``Position`` counts lines split at ``\\n``, ``\\r\\n`` or ``\\r`` and characters in the
position encoding negotiated at initialize: UTF-16 code units unless the client offered
``utf-8`` (or ``utf-32``), as pygls chose it (``Workspace.position_encoding``).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from lsprotocol import types

from torch_logs_lsp.lint.checker import LineIndex


def _units(ch: str, encoding: str) -> int:
    cp = ord(ch)
    if encoding == types.PositionEncodingKind.Utf8:
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    if encoding == types.PositionEncodingKind.Utf32:
        return 1
    return 2 if cp >= 0x10000 else 1


def encoding_name(kind: object) -> str:
    """A ``PositionEncodingKind`` as its wire value (``"utf-16"``, ``"utf-8"``,
    ``"utf-32"``), whether pygls holds the enum member or a plain string; ``None`` is
    UTF-16. (``str()`` of the enum member is ``"PositionEncodingKind.Utf8"``.)"""
    if kind is None:
        return types.PositionEncodingKind.Utf16.value
    return str(getattr(kind, "value", kind))


def column_offset(line: str, character: int, encoding: str) -> int:
    """Code points of ``line`` (one line's text, without its line break) before the LSP
    ``character``, counted in ``encoding`` code units (a ``PositionEncodingKind`` value).
    Clamped to ``[0, len(line)]``; a ``character`` inside a character's code units (half a
    surrogate pair) gives that character's start."""
    character = max(0, character)
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return min(character, len(line))
    units = 0
    for i, ch in enumerate(line):
        units += _units(ch, encoding)
        if units > character:
            return i
    return len(line)


class PositionMapper:
    """Maps offsets of one document version to LSP positions and back.

    ``encoding`` is a ``PositionEncodingKind`` value (``"utf-16"``, ``"utf-8"``,
    ``"utf-32"``). Never raises: positions beyond a line or the document are clamped.
    """

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding
        self.index = LineIndex(text)
        self._ascii = text.isascii()
        self._units_cache: dict[int, list[int] | None] = {}

    def _line_end(self, line: int) -> int:
        starts = self.index.starts
        end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
        while end > starts[line] and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def position(self, offset: int) -> types.Position:
        """LSP position of a document offset (code points)."""
        line, character = self.line_character(offset)
        return types.Position(line=line, character=character)

    def line_character(self, offset: int) -> tuple[int, int]:
        """``(line, character)`` of a document offset (code points): the fields of its LSP
        position, without building a ``Position`` (the diagnostics' fast path)."""
        offset = max(0, min(offset, len(self.text)))
        line, column = self.index.position(offset)
        if self._ascii or self.encoding == types.PositionEncodingKind.Utf32:
            return line, column
        units = self._line_units(line)
        return line, units[column] if units else column

    def _line_units(self, line: int) -> list[int] | None:
        """Cumulative code units of a line (``None`` for an ASCII line), built once per
        line so that each position costs O(1) even on a 100k-character line."""
        if line not in self._units_cache:
            starts = self.index.starts
            end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
            segment = self.text[starts[line] : end]
            self._units_cache[line] = (
                None
                if segment.isascii()
                else list(accumulate((_units(c, self.encoding) for c in segment), initial=0))
            )
        return self._units_cache[line]

    def range(self, start: int, end: int) -> types.Range:
        """LSP range of the document offsets ``[start, end)``."""
        return types.Range(start=self.position(start), end=self.position(end))

    def offset(self, position: types.Position) -> int:
        """Document offset (code points) of an LSP position; a ``character`` inside a
        surrogate pair or a multi-byte UTF-8 sequence maps to that code point's start;
        beyond the line's end it clamps to the end (before the line break)."""
        if position.line >= len(self.index.starts):
            return len(self.text)
        start = self.index.starts[position.line]
        width = self._line_end(position.line) - start
        units = None
        if not self._ascii and self.encoding != types.PositionEncodingKind.Utf32:
            units = self._line_units(position.line)
        if units is None:
            return start + max(0, min(position.character, width))
        return start + min(width, bisect_right(units, max(0, position.character)) - 1)
