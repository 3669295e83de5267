"""YAML block scalars (``|`` literal, ``>`` folded) decoded with the offset of every code
point; used by :mod:`.yaml_scalars` (see there for the offset conventions).

YAML 1.2.2 spec section 8.1: a header (``|``/``>``, an indentation indicator ``1``-``9``
and a chomping indicator ``-``/``+`` in either order, then an optional comment), then
lines indented by at least the content indentation. Line breaks (CRLF, CR, LF) become
``\\n``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from torch_logs_lsp.hosts.yaml.decoded import Scalar
from torch_logs_lsp.hosts.yaml.encode import UNSURE

_HEADER = re.compile(r"([|>])(?:([1-9])([-+])?|([-+])([1-9])?)?([ \t]+(?:#[^\r\n]*)?)?")


def _lines(text: str, i: int) -> Iterator[tuple[int, int, int]]:
    """The lines from offset ``i`` (a line start) on, lazily: (start, end before the
    break, end after the break)."""
    n = len(text)
    while i < n:
        j = i
        while j < n and text[j] not in "\r\n":
            j += 1
        k = j + 2 if text.startswith("\r\n", j) else j + 1 if j < n else j
        yield i, j, k
        i = k


def _spaces(text: str, start: int, end: int) -> int:
    j = start
    while j < end and text[j] == " ":
        j += 1
    return j - start


def next_token_ok(text: str, i: int, n: int = -2) -> bool:
    """Whether what follows a scalar from offset ``i`` is fine for both PyYAML and the
    spec as far as the scalar is concerned: no tab in the whitespace and comment lines up
    to the next token (PyYAML rejects one; YAML 1.2 does not) and, unless ``n`` is -2,
    that token on a new line indented at most ``n`` columns (a more indented line after a
    block scalar is an error)."""
    j = i
    size = len(text)
    line_start = i
    new_line = i == 0 or text[i - 1] in "\r\n"
    while j < size:
        c = text[j]
        if c == "\t":
            return False
        if c in "\r\n":
            j += 1
            line_start = j
            new_line = True
            continue
        if c == " ":
            j += 1
            continue
        if c == "#" and (j == line_start or text[j - 1] in " \t"):
            while j < size and text[j] not in "\r\n":
                j += 1
            continue
        return n == -2 or not new_line or j - line_start <= n
    return True


def decode_block(text: str, start: int, indent: int) -> Scalar:
    """Decode the block scalar whose header (``|`` or ``>``) is at ``start``; ``indent``:
    the parent block node's indentation (columns; -1 at top level). The content ends at
    the first non-empty line indented less than the content (or a document marker at
    column 0). ``value`` is ``None`` for an invalid header, where the spec and PyYAML
    read the indentation differently, or for a character a loader rejects or reads as a
    YAML 1.1 line break."""

    kind = text[start]
    m = _HEADER.match(text, start)
    header_end = m.end() if m else start + 1
    eol = header_end
    while eol < len(text) and text[eol] not in "\r\n":
        eol += 1
    body = eol + 2 if text.startswith("\r\n", eol) else eol + 1 if eol < len(text) else eol
    if m is None or header_end != eol:
        return Scalar(None, (), (), body, body, kind, True)
    digit = m.group(2) or m.group(5)
    chomp = m.group(3) or m.group(4) or ""
    n = max(indent, -1)
    width, unsure = _width(text, _lines(text, body), n, int(digit) if digit else 0)
    # Each line of the scalar: (content start or -1 for an empty line, end, break end).
    kept: list[tuple[int, int, int]] = []
    stop = len(text)  # the end of the line after the scalar (NEL there could continue it)
    for s, e, k in _lines(text, body):
        sp = _spaces(text, s, e)
        if sp == e - s and sp <= width:
            kept.append((-1, s, k))
            continue
        marker = width == 0 and text.startswith(("---", "..."), s)
        if sp < width or (marker and text[s + 3 : s + 4] in "\r\n \t"):
            stop = e
            unsure = unsure or not next_token_ok(text, s, -2 if marker else n)
            break
        kept.append((s + width, e, k))
    out = _assemble(kind, chomp, kept, text)
    if out is None:
        return Scalar(None, (), (), body, body, kind, True)
    value, starts, ends, content_end = out
    if unsure or UNSURE.search(text, start, stop) is not None:
        return Scalar(None, (), (), body, max(content_end, body), kind, True)
    return Scalar(value, starts, ends, body, max(content_end, body), kind, True)


def _width(
    text: str, lines: Iterator[tuple[int, int, int]], n: int, digit: int
) -> tuple[int, bool]:
    """The content indentation (columns) and whether the spec and PyYAML may differ."""
    if digit:
        # PyYAML reads the indicator from at least column 1 (at top level ``|2`` is
        # 2 columns; the spec says 1).
        return n + digit, n < 0
    most = 0
    for s, e, _ in lines:
        sp = _spaces(text, s, e)
        if sp == e - s:
            most = max(most, sp)
            continue
        if sp <= n:
            break  # the scalar has no content line
        # Spec: an error when a leading empty line has more spaces (PyYAML reads those);
        # PyYAML never reads column 0 (the spec does at top level).
        return sp, most > sp or sp == 0
    return max(most, n + 1), False


def _assemble(
    kind: str, chomp: str, kept: list[tuple[int, int, int]], text: str
) -> tuple[str, tuple[int, ...], tuple[int, ...], int] | None:
    """The value, its offsets and the content end from the scalar's lines."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def add(c: str, s: int, e: int) -> None:
        chars.append(c)
        starts.append(s)
        ends.append(e)

    last = max((i for i, line in enumerate(kept) if line[0] >= 0), default=-1)
    prev = -1  # index of the previous content line
    for i, (cs, e, _k) in enumerate(kept[: last + 1]):
        if cs < 0:
            continue
        if prev < 0:
            for _, s0, k0 in kept[:i]:  # leading empty lines
                if k0 > s0 and text[k0 - 1] in "\r\n":
                    add("\n", s0, k0)
        else:
            _between(kind, kept, prev, i, text, add)
        for j in range(cs, e):
            add(text[j], j, j + 1)
        prev = i
    if last < 0:  # no content line
        if chomp != "+":
            return "", (), (), kept[0][1] if kept else -1
        for _, s0, k0 in kept:
            if k0 > s0 and text[k0 - 1] in "\r\n":
                add("\n", s0, k0)
        return "".join(chars), tuple(starts), tuple(ends), (ends[-1] if ends else -1)
    _, e, k = kept[last]
    content_end = e
    if chomp != "-" and k > e:
        add("\n", e, k)
        content_end = k
    if chomp == "+":
        for _, s0, k0 in kept[last + 1 :]:
            if k0 > s0 and text[k0 - 1] in "\r\n":
                add("\n", s0, k0)
                content_end = k0
    return "".join(chars), tuple(starts), tuple(ends), content_end


def _between(
    kind: str,
    kept: list[tuple[int, int, int]],
    a: int,
    b: int,
    text: str,
    add: Callable[[str, int, int], None],
) -> None:
    """The line breaks between content lines ``a`` and ``b`` (with empty lines between)."""
    _, e, k = kept[a]
    empties = kept[a + 1 : b]
    folds = kind == ">" and text[kept[a][0]] not in " \t" and text[kept[b][0]] not in " \t"
    if folds and not empties:
        add(" ", e, k)
        return
    if not folds:
        add("\n", e, k)
        for _, s0, k0 in empties:
            add("\n", s0, k0)
        return
    # Folded: the first break is trimmed, each empty line is a newline.
    add("\n", e, empties[0][2])
    for _, s0, k0 in empties[1:]:
        add("\n", s0, k0)
