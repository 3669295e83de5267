"""Python string literals decoded from a document's text, with the offset of every code
point.

Used by the Python host (:mod:`.python`); follows the Python reference, "Lexical
analysis: String and Bytes literals" (CPython 3.10-3.14 read them alike): prefixes
``r u R U`` (``b`` is bytes, ``f``/``t`` are not static), ``'``, ``"``, ``'''``, ``\"\"\"``;
escapes ``\\<newline> \\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v \\ooo \\xhh \\uXXXX
\\UXXXXXXXX \\N{name}`` (an unknown escape keeps its backslash); a line break in the source
(``\\r\\n``, ``\\r``, ``\\n``) reads as ``\\n``, as the tokenizer translates it. The oracle
is ``ast.literal_eval`` (tests/hosts/python/test_host.py).
"""

from __future__ import annotations

import unicodedata

_SIMPLE = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n"}
_SIMPLE.update({"r": "\r", "t": "\t", "v": "\v"})
_OCT = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_PREFIXES = frozenset({"", "r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"})


class Literal:
    """One string literal (see :func:`decode_literal`); offsets are code points.

    ``kind``: ``"str"``, ``"bytes"`` or ``"format"`` (f- and t-strings). ``value``: the
    decoded ``str``, ``None`` for bytes, f-strings and a literal Python rejects (an invalid
    escape, an unknown prefix). ``starts``/``ends``: each decoded code point's source.
    ``quote``: the quote delimiter (``'``, ``"``, ``'''``, ``\"\"\"``), ``prefix`` as
    written. ``content_start``/``content_end``: the body between the quotes.
    """

    __slots__ = (
        "content_end",
        "content_start",
        "ends",
        "kind",
        "prefix",
        "quote",
        "starts",
        "terminated",
        "value",
    )

    def __init__(self) -> None:
        self.kind = "str"
        self.value: str | None = None
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.quote = '"'
        self.prefix = ""
        self.content_start = 0
        self.content_end = 0
        self.terminated = True


def _hex(text: str, i: int, n: int, limit: int) -> int | None:
    digits = text[i : i + n]
    if i + n <= limit and len(digits) == n and all(c in _HEX for c in digits):
        return int(digits, 16)
    return None


def _escape(text: str, i: int, limit: int) -> tuple[str, int] | None:
    """The escape at ``text[i] == "\\\\"`` (not raw): ``(decoded, end)``; ``decoded`` is
    ``""`` for a line continuation and ``"\\\\"`` alone (end ``i + 1``) for an unknown
    escape. ``None`` for an escape Python rejects."""
    nxt = text[i + 1 : i + 2] if i + 1 < limit else ""
    simple = _SIMPLE.get(nxt)
    if simple is not None:
        return simple, i + 2
    if nxt == "\n":
        return "", i + 2
    if nxt == "\r":
        return "", i + 3 if text[i + 2 : i + 3] == "\n" and i + 2 < limit else i + 2
    if nxt in _OCT:
        j = i + 1
        while j < min(i + 4, limit) and text[j] in _OCT:
            j += 1
        return chr(int(text[i + 1 : j], 8)), j
    width = {"x": 2, "u": 4, "U": 8}.get(nxt)
    if width is not None:
        cp = _hex(text, i + 2, width, limit)
        if cp is None or cp > 0x10FFFF:
            return None
        return chr(cp), i + 2 + width
    if nxt == "N":
        close = text.find("}", i + 3, limit)
        if text[i + 2 : i + 3] != "{" or close < 0:
            return None
        try:
            char = unicodedata.lookup(text[i + 3 : close])
        except (KeyError, UnicodeError):  # no such name; a lone surrogate in the name
            return None
        return (char, close + 1) if len(char) == 1 else None  # not a named sequence
    return "\\", i + 1


def decode_body(
    text: str, start: int, end: int, raw: bool
) -> tuple[str, list[int], list[int]] | None:
    """Decode the body ``text[start:end]`` of a ``str`` literal: (value, starts, ends);
    ``None`` when Python rejects an escape in it."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = start
    while i < end:
        c = text[i]
        if c == "\\" and not raw:
            found = _escape(text, i, end)
            if found is None:
                return None
            decoded, j = found
        elif c == "\r":
            decoded, j = "\n", i + 2 if text[i + 1 : i + 2] == "\n" and i + 1 < end else i + 1
        else:
            decoded, j = c, i + 1
        if decoded:
            chars.append(decoded)
            starts.append(i)
            ends.append(j)
        i = j
    return "".join(chars), starts, ends


def decode_literal(text: str, start: int, end: int, terminated: bool = True) -> Literal:
    """Decode the literal written at ``text[start:end]`` (prefix and quotes included, as
    tree-sitter-python delimits a ``string`` node). ``terminated=False``: the closing
    quote is missing and the body runs to ``end``. Never raises."""
    lit = Literal()
    k = start
    while k < end and text[k].isalpha():
        k += 1
    lit.prefix = text[start:k]
    lower = lit.prefix.lower()
    quote = text[k : k + 3] if text[k : k + 3] in ('"""', "'''") else text[k : k + 1]
    lit.quote = quote or '"'
    lit.kind = "bytes" if "b" in lower else "format" if "f" in lower or "t" in lower else "str"
    lit.content_start = min(k + len(quote), end)
    closed = (
        terminated
        and end - lit.content_start >= len(quote)
        and text[end - len(quote) : end] == quote
    )
    lit.terminated = closed
    lit.content_end = end - len(quote) if closed else end
    if lit.kind != "str" or lower not in _PREFIXES or quote not in ("'", '"', "'''", '"""'):
        return lit
    body = decode_body(text, lit.content_start, lit.content_end, "r" in lower)
    if body is not None:
        lit.value, lit.starts, lit.ends = body
    return lit


__all__ = ["Literal", "decode_body", "decode_literal"]
