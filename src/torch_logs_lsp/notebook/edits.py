"""Fixes written back into a notebook's JSON: a cell's new text as byte edits of the
``.ipynb`` file inside the cell's source strings (:func:`source_edits`), every other byte
kept. Offsets: :class:`ByteEdit` bytes into the file; cell offsets code points into the
cell's text (:class:`.notebook.Cell`)."""

from __future__ import annotations

import difflib
from bisect import bisect_right
from dataclasses import dataclass

from torch_logs_lsp.hosts.jsonc.edits import encode_part
from torch_logs_lsp.notebook.reader import Cell, SourcePart

#: Largest cell (code points) compared whole when a fix changes its number of lines
#: (``difflib`` is quadratic at worst); a fix that keeps the lines compares line by line.
MAX_WHOLE_DIFF = 20_000


def _changes(old: str, new: str) -> list[tuple[int, int, str]] | None:
    """The changed runs of ``old`` -> ``new``: ``(start, end, replacement)`` with
    ``old`` offsets, in order; compared line by line when the line count is kept, else
    whole (``None`` past :data:`MAX_WHOLE_DIFF`)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(old_lines) == len(new_lines):
        pairs, at = [], 0
        for a, b in zip(old_lines, new_lines, strict=True):
            if a != b:
                pairs.append((at, a, b))
            at += len(a)
    elif len(old) <= MAX_WHOLE_DIFF:
        pairs = [(0, old, new)]
    else:
        return None
    out: list[tuple[int, int, str]] = []
    for at, a, b in pairs:
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for tag, a1, a2, b1, b2 in matcher.get_opcodes():
            if tag != "equal":
                out.append((at + a1, at + a2, b[b1:b2]))
    return out


@dataclass(frozen=True)
class ByteEdit:
    """Replace the file's bytes ``[start, end)`` with ``new``."""

    start: int
    end: int
    new: bytes


def _raw_offset(part: SourcePart, k: int) -> int:
    """The code point offset in ``part.raw`` where the value's code point ``k`` starts
    (``k == len(value)``: the closing quote)."""
    scanned = part.scanned
    return scanned.starts[k] if k < len(scanned.starts) else scanned.content_end


def source_edits(cell: Cell, new_text: str) -> list[ByteEdit] | None:
    """Byte edits of the notebook file that turn ``cell``'s source into ``new_text``:
    each changed run of characters re-encoded as a JSON string body (``encode_part``)
    in place of the characters it replaces, inside one source string; every other byte
    (escapes such as ``\\u002b`` outside the change, indentation, outputs) is kept.
    ``None`` when a change spans two source strings, or adds or removes a line break
    in a list-form source (each string is one line there): the caller leaves the cell
    as it is. Sorted by ``start``, non-overlapping."""
    if new_text == cell.text:
        return []
    starts = [p.offset for p in cell.parts]
    out: list[ByteEdit] = []
    regions = _changes(cell.text, new_text)
    if regions is None:
        return None
    for a1, a2, new in regions:
        if cell.listed and ("\n" in new or "\n" in cell.text[a1:a2] or "\r" in new):
            return None
        if not cell.parts:
            return None
        i = max(0, bisect_right(starts, a1) - 1)
        if a1 == a2 and i > 0 and a1 == starts[i] and not cell.parts[i - 1].value.endswith("\n"):
            i -= 1  # an insertion at the end of a line's string, not before the next line
        part = cell.parts[i]
        if a2 - part.offset > len(part.value):
            return None  # the change runs into the next string
        body = encode_part('"', new)
        if body is None:  # pragma: no cover - '"' always encodes
            return None
        lo = _raw_offset(part, a1 - part.offset)
        hi = _raw_offset(part, a2 - part.offset)
        start = part.start + len(part.raw[:lo].encode("utf-8"))
        end = part.start + len(part.raw[:hi].encode("utf-8"))
        out.append(ByteEdit(start, end, body.encode("utf-8")))
    return sorted(out, key=lambda e: e.start)


def apply_byte_edits(data: bytes, edits: list[ByteEdit]) -> bytes:
    """``data`` with ``edits`` (sorted, non-overlapping) applied."""
    out: list[bytes] = []
    at = 0
    for e in edits:
        out += [data[at : e.start], e.new]
        at = e.end
    out.append(data[at:])
    return b"".join(out)


__all__ = ["MAX_WHOLE_DIFF", "ByteEdit", "apply_byte_edits", "source_edits"]
