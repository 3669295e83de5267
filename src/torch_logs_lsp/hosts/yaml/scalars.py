"""YAML scalars decoded from a document's text, with the source offsets of every code point.

Pure Python (no tree-sitter here): the YAML host finds a scalar's range with
tree-sitter-yaml and hands it to :func:`decode_scalar`. Follows the YAML 1.2.2 spec,
chapters 6-8. Where a YAML 1.1 loader (PyYAML's ``SafeLoader``, the test oracle) and the
spec read the text differently, or a loader rejects it, the value is ``None`` ("not
static here"), never a guess:

- a tab inside a plain scalar or in the whitespace just before or after a scalar
  (PyYAML rejects a tab between tokens; YAML 1.2 does not);
- NEL, LS, PS (U+0085, U+2028, U+2029: line breaks in YAML 1.1 only) in the scalar or in
  the line after a plain or block scalar; a BOM in or after a plain scalar (PyYAML reads
  it as content, tree-sitter-yaml as a separator);
- ``\\u``/``\\U`` escapes of surrogates (PyYAML: a lone surrogate) or beyond U+10FFFF,
  an invalid escape;
- block scalars whose leading empty lines are more indented than the first content
  line (spec: error; PyYAML: a wider indentation), and at top level an indentation
  indicator or content at column 0 (PyYAML never reads column 0);
- characters both reject (C0/C1 controls but tab/LF/CR/NEL, DEL, surrogates,
  U+FFFE/U+FFFF), a document marker line inside a flow scalar, or an invalid
  continuation: text after a closing quote, ``:`` after a multi-line scalar, a
  non-comment line after a block scalar indented more than its parent.

Offsets are code points into the document. Every decoded code point maps to the range
of source it came from (ascending, non-overlapping, inside ``[content_start,
content_end]``): an escape maps to the whole escape, ``''`` to both quotes, a kept line
break to its one or two (CRLF) code points, a newline from an empty line of a block
scalar to that whole line. A folded line break of a flow scalar (a break that becomes a
space, or the first of ``n`` newlines from ``n + 1`` breaks) maps to the whole run it
replaced: the stripped trailing whitespace, the breaks and the stripped leading
whitespace of the next line; in a folded block scalar (``>``) to its break(s). Exception
to "a range of width 1 holds the decoded character": a lone ``\\n`` or ``\\r`` may be
read as ``" "`` (folded) or ``"\\n"`` (a lone CR).
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from torch_logs_lsp.hosts.yaml.block_scalars import decode_block, next_token_ok
from torch_logs_lsp.hosts.yaml.decoded import Scalar
from torch_logs_lsp.hosts.yaml.encode import (
    UNSURE,
    core_schema_string,
    encode_part,
    plain_is_string,
)

__all__ = ["Scalar", "core_schema_string", "decode_scalar", "encode_part", "plain_is_string"]

_BREAKS = "\r\n"
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_WIDTH = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")


class _Out:
    """Decoded code points and their source ranges, being built."""

    __slots__ = ("chars", "ends", "starts")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, char: str, start: int, end: int) -> None:
        self.chars.append(char)
        self.starts.append(start)
        self.ends.append(end)


def _break_end(text: str, i: int) -> int:
    """End of the line break starting at ``i`` (CRLF, CR or LF)."""
    return i + 2 if text.startswith("\r\n", i) else i + 1


def _fold_run(text: str, i: int, stop: int) -> tuple[list[int], int]:
    """The line break at ``i`` and the empty lines after it: the end of each break and the
    offset after the next line's leading whitespace."""
    breaks: list[int] = []
    j = i
    while True:
        j = _break_end(text, j)
        breaks.append(j)
        while j < stop and text[j] in " \t":
            j += 1
        if not (j < stop and text[j] in _BREAKS):
            return breaks, j


def _fold(out: _Out, ws_start: int, breaks: list[int], j: int) -> None:
    """Add the folded form of a run of line breaks (``breaks``: the end of each) that
    starts with stripped whitespace at ``ws_start`` and ends at ``j``."""
    if len(breaks) == 1:
        out.add(" ", ws_start, j)
        return
    start = ws_start
    for k in range(1, len(breaks)):
        out.add("\n", start, j if k == len(breaks) - 1 else breaks[k])
        start = breaks[k]


def _escape(text: str, i: int, stop: int) -> tuple[str | None, int]:
    """The escape at ``i`` (a backslash) of a double-quoted scalar: its character (``None``
    when invalid or unsure) and its end."""
    nxt = text[i + 1] if i + 1 < stop else ""
    simple = _ESCAPES.get(nxt)
    if simple is not None:
        return simple, i + 2
    width = _HEX_WIDTH.get(nxt)
    if width is None:
        return None, i + 2
    digits = text[i + 2 : i + 2 + width]
    if len(digits) != width or i + 2 + width > stop or not all(c in _HEX for c in digits):
        return None, i + 2
    cp = int(digits, 16)
    if cp > 0x10FFFF or 0xD800 <= cp < 0xE000:
        return None, i + 2 + width  # PyYAML: lone surrogate or error; YAML 1.2: invalid
    return chr(cp), i + 2 + width


def _flow(text: str, start: int, stop: int, quote: str) -> tuple[_Out | None, int | None]:
    """Decode a flow scalar's body from ``start`` to ``stop``: the decoded code points
    (``None`` when not exact) and the closing quote's offset (``None`` when not found).
    ``quote`` ``""``: a plain scalar (ends at ``stop`` or a comment)."""
    out = _Out()
    pend: list[int] = []  # literal whitespace on the current line, not yet kept
    ok = True
    i = start
    while i < stop:
        c = text[i]
        if c in " \t":
            if quote == "" and c == "\t":
                ok = False  # PyYAML: a tab never continues a plain scalar; YAML 1.2 may
            pend.append(i)
            i += 1
            continue
        if c in _BREAKS:
            ws_start = pend[0] if pend else i
            breaks, j = _fold_run(text, i, stop)
            if quote == "" and (j >= stop or text[j] == "#"):
                break  # the end, or a comment line: it ends a plain scalar
            if quote == "" and "\t" in text[ws_start:j]:
                ok = False
            pend.clear()
            _fold(out, ws_start, breaks, j)
            i = j
            continue
        if quote == "" and c == "#" and (pend or i == start):
            break  # a comment
        if c == quote:
            if quote == "'" and i + 1 < stop and text[i + 1] == "'":
                _flush(out, text, pend)
                out.add("'", i, i + 2)
                i += 2
                continue
            _flush(out, text, pend)
            return (out if ok else None), i
        _flush(out, text, pend)
        if quote == '"' and c == "\\":
            if i + 1 < stop and text[i + 1] in _BREAKS:
                i = _escaped_break(text, out, i + 1, stop)
                continue
            char, end = _escape(text, i, stop)
            if char is None:
                ok = False
            else:
                out.add(char, i, end)
            i = end
            continue
        out.add(c, i, i + 1)
        i += 1
    if quote == "":
        return (out if ok else None), None
    _flush(out, text, pend)
    return (out if ok else None), None


def _flush(out: _Out, text: str, pend: list[int]) -> None:
    for p in pend:
        out.add(text[p], p, p + 1)
    pend.clear()


def _escaped_break(text: str, out: _Out, i: int, stop: int) -> int:
    """An escaped line break at ``i`` (the break after a backslash): it joins the lines;
    each empty line after it is a newline. Returns the offset after the next line's
    leading whitespace."""
    j = _break_end(text, i)
    while True:
        line = j
        while j < stop and text[j] in " \t":
            j += 1
        if j < stop and text[j] in _BREAKS:
            j = _break_end(text, j)
            out.add("\n", line, j)
            continue
        return j


def _clean_end(text: str, start: int, i: int) -> bool:
    """Whether a flow scalar at ``[start, i)`` is followed by what may follow it on its
    line (a comment, ``,``, ``]``, ``}``, the line's end, or ``:`` after a one-line key),
    with no tab in the whitespace up to the next token (PyYAML rejects a tab there; YAML
    1.2 does not)."""
    j = i
    while j < len(text) and text[j] == " ":
        j += 1
    follows = "\t\r\n,]}" + ("" if "\n" in text[start:i] or "\r" in text[start:i] else ":")
    if j < len(text) and text[j] not in follows and not (text[j] == "#" and j > i):
        return False
    return next_token_ok(text, i)


#: A document marker at a line start: it may not appear inside a flow scalar.
_MARKER = re.compile(r"(?<=[\r\n])(?:---|\.\.\.)(?=[ \t\r\n]|$)")


def _unsure(text: str, start: int, end: int) -> bool:
    return (
        UNSURE.search(text, start, end) is not None or _MARKER.search(text, start, end) is not None
    )


def decode_scalar(text: str, start: int, end: int, indent: int = -1) -> Scalar:
    """Decode the YAML scalar at ``[start, end)`` of ``text`` (code points into the
    document).

    The range is the scalar's as tree-sitter-yaml gives it (``plain_scalar``,
    ``single_quote_scalar``, ``double_quote_scalar``, ``block_scalar`` — the latter from
    its ``|``/``>`` header; its end is not needed: the content's end is found here, with
    trailing empty lines for ``+`` chomping). ``indent``: the indentation in columns of
    the parent block node (``n`` in the spec), -1 at top level; used by block scalars
    only. A quoted scalar whose closing quote is not in the range is unterminated: its
    value is the rest of its line. Never raises.
    """
    n = len(text)
    start = max(0, min(start, n))
    end = max(start, min(end, n))
    try:
        if start >= end:
            return Scalar("", (), (), start, start, "", True)
        first = text[start]
        if first in "|>":
            sc = decode_block(text, start, indent)
        elif first in "'\"":
            sc = _quoted(text, start, end, first)
        else:
            sc = _plain(text, start, end)
        j = start
        while j > 0 and text[j - 1] in " \t\r\n":
            j -= 1
        if "\t" in text[j:start]:  # PyYAML rejects a tab between tokens; YAML 1.2 does not
            return sc._replace(value=None, starts=(), ends=())
        return sc
    except Exception:  # pragma: no cover - a bug must not take the host down
        return Scalar(None, (), (), start, end, "", True)


def _result(out: _Out | None, cs: int, ce: int, quote: str, terminated: bool) -> Scalar:
    if out is None:
        return Scalar(None, (), (), cs, ce, quote, terminated)
    value = "".join(out.chars)
    return Scalar(value, tuple(out.starts), tuple(out.ends), cs, ce, quote, terminated)


class _Marks(NamedTuple):
    """Where a text's line breaks, :data:`UNSURE` characters and BOMs are (sorted code
    point offsets): :func:`_plain` looks past each scalar to the end of the next line,
    which in a long flow mapping on one line is the rest of the document."""

    breaks: list[int]
    unsure: list[int]
    boms: list[int]

    def any_in(self, found: list[int], start: int, end: int) -> bool:
        """Whether an offset of ``found`` is in ``[start, end)``."""
        k = bisect.bisect_left(found, start)
        return k < len(found) and found[k] < end


_MARKS: list[tuple[str, _Marks]] = []  # the last text's (one entry)
_BLANKS = re.compile(r"[ \t]*")
_SPACE = re.compile(r"[ \t\r\n]*")


def _marks(text: str) -> _Marks:
    """The :class:`_Marks` of ``text`` (kept for the last text: its scalars come one
    after another)."""
    if _MARKS and _MARKS[0][0] is text:
        return _MARKS[0][1]
    marks = _Marks(
        [m.start() for m in re.finditer("[\r\n]", text)],
        [m.start() for m in UNSURE.finditer(text)],
        [m.start() for m in re.finditer("\ufeff", text)],
    )
    _MARKS[:] = [(text, marks)]
    return marks


def _plain(text: str, start: int, end: int) -> Scalar:
    out, _ = _flow(text, start, end, "")
    ce = out.ends[-1] if out is not None and out.ends else start
    if out is None:  # the content end without decoding: strip trailing whitespace
        ce = end
        while ce > start and text[ce - 1] in " \t\r\n":
            ce -= 1
    after = _BLANKS.match(text, ce).end()  # type: ignore[union-attr]
    # The end of the next non-blank line: the line that could have continued the scalar.
    marks = _marks(text)
    nxt = _SPACE.match(text, after).end()  # type: ignore[union-attr]
    k = bisect.bisect_left(marks.breaks, nxt)
    nxt = marks.breaks[k] if k < len(marks.breaks) else len(text)
    if (
        _unsure(text, start, ce)
        or marks.any_in(marks.unsure, ce, nxt)
        or not _clean_end(text, start, ce)
        or marks.any_in(marks.boms, start, nxt)
    ):
        # PyYAML: a tab after a plain scalar is an error; a BOM is content there, where
        # tree-sitter-yaml ends the scalar
        out = None
    return _result(out, start, ce, "", True)


def _quoted(text: str, start: int, end: int, quote: str) -> Scalar:
    out, close = _flow(text, start + 1, end, quote)
    if close is not None:
        if _unsure(text, start + 1, close) or not _clean_end(text, start, close + 1):
            out = None
        return _result(out, start + 1, close, quote, True)
    # Unterminated (being typed): the rest of the line.
    line_end = start + 1
    while line_end < len(text) and text[line_end] not in _BREAKS:
        line_end += 1
    out, close = _flow(text, start + 1, line_end, quote)
    if close is not None:  # cannot happen: no closing quote before ``end``; be safe
        line_end = close
    if _unsure(text, start + 1, line_end):
        out = None
    return _result(out, start + 1, line_end, quote, False)
