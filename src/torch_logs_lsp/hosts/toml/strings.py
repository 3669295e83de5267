"""TOML strings decoded from the document text, with a map from every decoded code point
to its source, and values re-encoded for each string style (for the TOML host).

The rules are TOML 1.0's (https://toml.io/en/v1.0.0#string), as Python's ``tomllib``
(3.11, the reader of pytest, pytest-env and tox) applies them:

- basic ``"..."``: escapes ``\\b \\t \\n \\f \\r \\" \\\\ \\uXXXX \\UXXXXXXXX`` (a
  Unicode scalar value: no surrogate, at most U+10FFFF); no line break; no control
  character but tab (U+0000-U+0008, U+000A-U+001F, U+007F are errors);
- literal ``'...'``: no escapes, no ``'``, no line break, the same control characters;
- multi-line basic ``\"\"\"...\"\"\"``: a line break right after the opening delimiter is
  trimmed; a line-ending backslash (``\\`` then blanks, a line break) removes every blank
  and line break up to the next other character; CRLF reads as LF; up to two ``"``
  may end the content right before the closing delimiter (``\"\"\"\"\"`` = ``"`` + close);
- multi-line literal ``'''...'''``: the same without escapes.

``tomllib`` is the oracle (``tests/hosts/toml/test_strings.py`` compares generated
strings). All offsets are code points into the document.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: The ``put(ch, start, end)`` callback of :func:`decode`.
_Put = Callable[[str, int, int], None]

#: The string styles, as :attr:`~.base.ValueSpan.quote`.
STYLES: tuple[str, ...] = ('"""', "'''", '"', "'")

_SIMPLE = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_HEX = frozenset("0123456789abcdefABCDEF")


def _control(ch: str) -> bool:
    """A character TOML forbids in a string (tab is allowed)."""
    o = ord(ch)
    return (o < 0x20 and ch != "\t") or o == 0x7F


@dataclass(frozen=True)
class TomlString:
    """A decoded TOML string token.

    ``quote``: its style (one of :data:`STYLES`); ``start``/``end``: the token with its
    delimiters (``end`` exclusive; for an unterminated string the end of its line, or of
    the document for a multi-line one); ``content_start``/``content_end``: between the
    delimiters; ``value``: the decoded text; ``starts``/``ends``: per decoded code point
    its source range; ``terminated``: a closing delimiter was found; ``valid``: tomllib
    accepts it (no bad escape, no forbidden character)."""

    quote: str
    start: int
    end: int
    content_start: int
    content_end: int
    value: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    terminated: bool
    valid: bool


def style_at(text: str, start: int) -> str | None:
    """The string style that opens at ``text[start]``, or ``None`` when none does."""
    for q in STYLES:
        if text.startswith(q, start):
            return q
    return None


#: A one-line string's content up to its closing delimiter with nothing to decode: no
#: escape, line break or forbidden character (read as written, one code point each).
_PLAIN = {
    '"': re.compile(r'[^"\\\x00-\x08\x0a-\x1f\x7f]*"'),
    "'": re.compile(r"[^'\x00-\x08\x0a-\x1f\x7f]*'"),
}


def decode(text: str, start: int) -> TomlString | None:
    """The TOML string starting at ``text[start]`` (its opening delimiter), or ``None``
    when no string opens there. Never raises."""
    quote = style_at(text, start)
    if quote is None:
        return None
    if len(quote) == 1:
        plain = _PLAIN[quote].match(text, start + 1)
        if plain is not None:
            cs, ce = start + 1, plain.end() - 1
            return TomlString(
                quote, start, ce + 1, cs, ce, text[cs:ce],
                tuple(range(cs, ce)), tuple(range(cs + 1, ce + 1)), True, True,
            )  # fmt: skip
    multi = len(quote) == 3
    basic = quote[0] == '"'
    delim = quote[0]
    i = start + len(quote)
    n = len(text)
    if multi:  # a line break right after the opening delimiter is trimmed
        if text.startswith("\r\n", i):
            i += 2
        elif text.startswith("\n", i):
            i += 1
    content_start = i
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    valid = True

    def put(ch: str, s: int, e: int) -> None:
        out.append(ch)
        starts.append(s)
        ends.append(e)

    while i < n:
        ch = text[i]
        if ch == delim:
            if not multi:
                return TomlString(
                    quote, start, i + 1, content_start, i, "".join(out),
                    tuple(starts), tuple(ends), True, valid,
                )  # fmt: skip
            run = 0
            while i + run < n and text[i + run] == delim:
                run += 1
            if run >= 3:  # the last three close; up to two before them are content
                extra = min(run - 3, 2)
                for k in range(extra):
                    put(delim, i + k, i + k + 1)
                close = i + extra
                valid = valid and run - 3 <= 2
                return TomlString(
                    quote, start, close + 3, content_start, close, "".join(out),
                    tuple(starts), tuple(ends), True, valid,
                )  # fmt: skip
            for k in range(run):
                put(delim, i + k, i + k + 1)
            i += run
            continue
        if ch in "\r\n":
            if not multi:
                break  # unterminated: the string ends with its line
            if text.startswith("\r\n", i):
                put("\n", i, i + 2)
                i += 2
            elif ch == "\n":
                put("\n", i, i + 1)
                i += 1
            else:  # a lone CR is an error
                valid = False
                put(ch, i, i + 1)
                i += 1
            continue
        if basic and ch == "\\":
            i, ok = _escape(text, i, multi, put)
            valid = valid and ok
            continue
        if _control(ch):
            valid = False
        put(ch, i, i + 1)
        i += 1
    return TomlString(
        quote, start, i, content_start, i, "".join(out), tuple(starts), tuple(ends), False, False
    )


def _escape(text: str, i: int, multi: bool, put: _Put) -> tuple[int, bool]:
    """Decode the escape at ``text[i]`` (a backslash): the offset after it, whether it
    is valid. An invalid escape puts the backslash itself (the value is then unused)."""
    n = len(text)
    nxt = text[i + 1] if i + 1 < n else ""
    if nxt in _SIMPLE and nxt:
        put(_SIMPLE[nxt], i, i + 2)
        return i + 2, True
    if nxt in ("u", "U"):
        width = 4 if nxt == "u" else 8
        digits = text[i + 2 : i + 2 + width]
        if len(digits) == width and all(c in _HEX for c in digits):
            cp = int(digits, 16)
            if cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
                put(chr(cp), i, i + 2 + width)
                return i + 2 + width, True
        put("\\", i, i + 1)
        return i + 1, False
    if multi:  # a line-ending backslash: blanks, a line break, then all whitespace
        j = i + 1
        while j < n and text[j] in " \t":
            j += 1
        if text.startswith(("\n", "\r\n"), j):  # a lone CR is no line break in TOML
            while j < n and (text[j] in " \t\n" or text.startswith("\r\n", j)):
                j += 2 if text[j] == "\r" else 1
            return j, True
    put("\\", i, i + 1)
    return i + 1, False


_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"'}


def encode_part(quote: str, value: str) -> str | None:
    """``value`` written as the body of a TOML string of style ``quote`` (without the
    delimiters), so that :func:`decode` reads exactly ``value`` back; ``None`` when the
    style cannot hold it (a literal string with a ``'`` or a control character, a
    one-line literal with a line break; an unknown style)."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return None  # a lone surrogate cannot be written in UTF-8
    if quote == '"':
        return "".join(_basic_char(c) for c in value)
    if quote == '"""':
        body = "".join(_basic_char(c) if c != "\n" else "\n" for c in value)
        # A leading line break would be trimmed; one at the start is written escaped.
        if body.startswith("\n"):
            body = "\\n" + body[1:]
        return body
    if quote == "'":
        ok = not any(c == "'" or _control(c) for c in value)
        return value if ok else None
    if quote == "'''":
        ok = "'''" not in value and not value.startswith("\n")
        ok = ok and not any(_control(c) and c != "\n" for c in value)
        return value if ok else None
    return None


def _basic_char(c: str) -> str:
    if c in _ESCAPES:
        return _ESCAPES[c]
    if c == "\\":
        return "\\\\"
    return f"\\u{ord(c):04x}" if _control(c) else c
