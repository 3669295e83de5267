"""PowerShell string literals and bare command arguments, decoded with document offsets.

The rules are those of the PowerShell tokenizer (``ScanStringLiteral``,
``ScanStringExpandable``, ``ScanHereStringLiteral``/``Expandable``, ``Backtick`` in
``src/System.Management.Automation/engine/parser/tokenizer.cs`` of PowerShell/PowerShell)
as the language specification states them (PowerShell Language Specification 3.0, §2.3.5.2
"String literals":
https://learn.microsoft.com/powershell/scripting/lang-spec/chapter-02#2352-string-literals;
about_Quoting_Rules:
https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_quoting_rules;
about_Special_Characters:
https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_special_characters):

- a *single-quote-character* is ``'`` or one of U+2018 U+2019 U+201A U+201B, a
  *double-quote-character* ``"`` or one of U+201C U+201D U+201E; any member of the class
  closes a string any member opened;
- ``'...'`` is verbatim; two single-quote-characters in a row are one (the second);
- ``"..."`` is expandable: two double-quote-characters in a row are one (the second); a
  backtick escapes the next character (`` `0 `a `b `f `n `r `t `v `` are control
  characters, any other character stands for itself: `` `$ `` is ``$``); ``$`` followed by
  a variable, ``{`` or ``(`` expands (the value is then not static); `` `e `` and
  `` `u{...} `` exist from PowerShell 6 only (5.1 reads ``e`` and ``u``): not static;
- here-strings ``@'`` / ``@"``: the header is followed by blanks and a line break; the
  body ends at a line that starts with the closing quote and ``@`` (the line break before
  it is not part of the value; other line breaks are kept as written, CRLF too); the
  verbatim one has no escapes, the expandable one has backtick escapes and expansions but
  no doubled quotes.

All offsets are **code points into the document**.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: PowerShell's single-quote-characters and double-quote-characters (spec §2.3.5.2).
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b"
DOUBLE_QUOTES = '"\u201c\u201d\u201e'
#: What PowerShell's ``IsWhitespace`` skips after a here-string header (spec §2.2.4:
#: tab, vertical tab, form feed and the Unicode separators Zs, Zl, Zp: ``char.IsSeparator``).
_BLANKS = (
    " \t\v\f\u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)
#: `` `x `` -> the character (tokenizer.cs ``Backtick``); `` `e `` and `` `u `` are left
#: out (PowerShell 6+ only).
BACKTICK = {"0": "\0", "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
BACKTICK["v"] = "\v"
_VERSIONED = "eu"
#: A bare command argument whose characters are its value: no blank, escape, expansion,
#: quote, control character, array comma, separator, redirection, splat, comment or
#: bracket in it (a leading ``-`` makes it a parameter: checked apart).
BARE = re.compile(
    "[^\\s\\x00-\\x1f\\x7f-\\x9f`$'\"\u2018\u2019\u201a\u201b\u201c\u201d\u201e,;(){}|&<>@#\\[\\]!]+"
)


@dataclass
class Decoded:
    """A string read at ``raw_start``: ``value`` (``None`` when not static), the source
    range of each decoded code point, the content between the quotes, the end of the
    literal (``raw_end``), its ``quote`` (``"'"``, ``'"'``, ``"@'"``, ``'@"'``, ``""``
    for a bare word) and whether it was closed."""

    value: str | None
    starts: list[int]
    ends: list[int]
    content_start: int
    content_end: int
    raw_start: int
    raw_end: int
    quote: str
    terminated: bool = True


def _line_end(text: str, pos: int) -> int:
    m = re.compile(r"[\r\n]").search(text, pos)
    return m.start() if m else len(text)


def _open(text: str, start: int, quote: str) -> Decoded:
    """A string opened at ``start`` and never closed: its content to the end of the line
    (the user is typing; PowerShell cannot parse the file)."""
    body = start + len(quote)
    end = _line_end(text, body)
    return Decoded(None, [], [], body, end, start, end, quote, False)


def _verbatim(text: str, start: int, limit: int | None = None) -> Decoded:
    """``'...'`` at ``start``; with ``limit`` (a quote never closed: the end of its line)
    the value up to there, not terminated."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    n = len(text) if limit is None else limit
    i = start + 1
    while i < n:
        c = text[i]
        if c in SINGLE_QUOTES:
            if i + 1 < n and text[i + 1] in SINGLE_QUOTES:
                out.append(text[i + 1])
                starts.append(i)
                ends.append(i + 2)
                i += 2
                continue
            return Decoded("".join(out), starts, ends, start + 1, i, start, i + 1, "'")
        out.append(c)
        starts.append(i)
        ends.append(i + 1)
        i += 1
    if limit is None:
        return _verbatim(text, start, _line_end(text, start + 1))
    return Decoded("".join(out), starts, ends, start + 1, n, start, n, "'", False)


def _subexpression_end(text: str, i: int, here: bool) -> int:
    """The end of ``$(...)`` whose ``(`` is at ``i`` (tokenizer.cs ``ScanSubExpression``:
    parentheses are counted, a doubled quote is skipped), or ``len(text)``."""
    n = len(text)
    depth = 0
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif (c == "`" or c in DOUBLE_QUOTES) and not here and text[i + 1 : i + 2] in DOUBLE_QUOTES:
            i += 1
            if i >= n:
                break
        i += 1
    return n


def _braced_end(text: str, i: int) -> int:
    """The end of ``${...}`` whose ``{`` is at ``i`` (a backtick escapes one character)."""
    n = len(text)
    i += 1
    while i < n:
        if text[i] == "}":
            return i + 1
        i += 2 if text[i] == "`" else 1
    return n


def _dollar(text: str, i: int, here: bool) -> int | None:
    """At a ``$`` (index ``i``) in an expandable string: the end of the expansion it
    starts, or ``None`` when it is a literal ``$`` (followed by a blank, a quote, a line
    break or the end). Any other following character is taken as a variable start, so a
    literal ``$`` we do not know to be one makes the value not static."""
    nxt = text[i + 1 : i + 2]
    if nxt == "" or nxt in _BLANKS or nxt in "\r\n" or nxt in DOUBLE_QUOTES:
        return None
    if nxt == "(":
        return _subexpression_end(text, i + 1, here)
    if nxt == "{":
        return _braced_end(text, i + 1)
    if nxt in "?^$":
        return i + 2  # $?, $^, $$
    j = i + 1
    n = len(text)
    while j < n and (text[j].isalnum() or text[j] in "_:"):
        j += 1
    return j  # (just after the `$` for a character we do not know: still not static)


def _expandable(text: str, start: int, here: bool, limit: int | None = None) -> Decoded:
    """``"..."`` at ``start`` or the body of ``@"`` starting at ``start`` (``here``); with
    ``limit`` (a quote never closed: the end of its line) the value up to there."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    static = True
    n = len(text) if limit is None else limit
    i = start if here else start + 1
    while i < n:
        c = text[i]
        if here and c in "\r\n":
            brk = 2 if text[i : i + 2] == "\r\n" else 1
            after = i + brk
            if text[after : after + 1] in DOUBLE_QUOTES and text[after + 1 : after + 2] == "@":
                return Decoded(
                    "".join(out) if static else None,
                    starts if static else [],
                    ends if static else [],
                    start,
                    i,
                    start,
                    after + 2,
                    '@"',
                )
            for k in range(i, after):
                out.append(text[k])
                starts.append(k)
                ends.append(k + 1)
            i = after
            continue
        if not here and c in DOUBLE_QUOTES:
            if i + 1 < n and text[i + 1] in DOUBLE_QUOTES:
                out.append(text[i + 1])
                starts.append(i)
                ends.append(i + 2)
                i += 2
                continue
            value = "".join(out) if static else None
            return Decoded(
                value,
                starts if static else [],
                ends if static else [],
                start + 1,
                i,
                start,
                i + 1,
                '"',
            )
        if c == "$":
            end = _dollar(text, i, here)
            if end is not None:
                static = False
                i = end
                continue
        elif c == "`" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in _VERSIONED:
                static = False
            out.append(BACKTICK.get(nxt, nxt))
            starts.append(i)
            ends.append(i + 2)
            i += 2
            continue
        out.append(c)
        starts.append(i)
        ends.append(i + 1)
        i += 1
    if here:
        return _open(text, start, '"')
    if limit is None:
        return _expandable(text, start, False, _line_end(text, start + 1))
    value = "".join(out) if static else None
    s, e = (starts, ends) if static else ([], [])
    return Decoded(value, s, e, start + 1, n, start, n, '"', False)


def _here(text: str, start: int) -> Decoded | None:
    """A here-string whose ``@`` is at ``start``; ``None`` when the header is not followed
    by blanks and a line break (not a here-string PowerShell accepts)."""
    quote = text[start + 1]
    i = start + 2
    n = len(text)
    while i < n and text[i] in _BLANKS:
        i += 1
    if i >= n:
        return _open(text, start, "@" + ("'" if quote in SINGLE_QUOTES else '"'))
    if text[i] not in "\r\n":
        return None
    i += 2 if text[i : i + 2] == "\r\n" else 1
    if quote in DOUBLE_QUOTES:
        if text[i : i + 1] in DOUBLE_QUOTES and text[i + 1 : i + 2] == "@":
            return Decoded("", [], [], i, i, start, i + 2, '@"')  # an empty body
        found = _expandable(text, i, True)
        if not found.terminated:
            return _open(text, start, '@"')
        found.raw_start = start
        return found
    if text[i : i + 1] in SINGLE_QUOTES and text[i + 1 : i + 2] == "@":
        return Decoded("", [], [], i, i, start, i + 2, "@'")
    pos = i
    while True:
        m = re.compile(r"\r\n|\r|\n").search(text, pos)
        if m is None:
            return _open(text, start, "@'")
        after = m.end()
        if text[after : after + 1] in SINGLE_QUOTES and text[after + 1 : after + 2] == "@":
            starts = list(range(i, m.start()))
            return Decoded(
                text[i : m.start()],
                starts,
                [k + 1 for k in starts],
                i,
                m.start(),
                start,
                after + 2,
                "@'",
            )
        pos = after


def read_string(text: str, start: int) -> Decoded | None:
    """The string literal starting at ``start`` (a quote character or ``@`` and one), or
    ``None`` when none starts there."""
    c = text[start : start + 1]
    if c == "":
        return None
    if c in SINGLE_QUOTES:
        return _verbatim(text, start)
    if c in DOUBLE_QUOTES:
        return _expandable(text, start, False)
    if (
        c == "@"
        and text[start + 1 : start + 2]
        and text[start + 1] in SINGLE_QUOTES + DOUBLE_QUOTES
    ):
        return _here(text, start)
    return None


def read_bare(text: str, start: int, end: int) -> Decoded:
    """A bare command argument ``text[start:end]``: its characters are the value when it
    is plain (:data:`BARE`), else not static."""
    word = text[start:end]
    if BARE.fullmatch(word) is None or word.startswith("-"):
        return Decoded(None, [], [], start, end, start, end, "")
    if _NUMBER_LIKE.match(word) and _SMALL_INT.fullmatch(word) is None:
        # PowerShell reads an argument that parses as a number as that number
        # (``1kb`` is 1024, ``1e3`` 1000, ``010`` 10, ``+5`` 5): not its characters
        return Decoded(None, [], [], start, end, start, end, "")
    starts = list(range(start, end))
    return Decoded(word, starts, [k + 1 for k in starts], start, end, start, end, "")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` written between ``quote`` (a span's quote), exact or ``None``: in
    ``'...'`` every single-quote-character doubled; in ``"..."`` a backtick before each
    backtick, ``$`` and double-quote-character; in a here-string the value itself on one
    line (not starting with the footer); a bare word only when plain."""
    if quote == "'":
        return "".join(c + c if c in SINGLE_QUOTES else c for c in value)
    if quote == '"':
        return "".join("`" + c if c in "`$" + DOUBLE_QUOTES else c for c in value)
    if quote in ("@'", '@"'):
        if "\n" in value or "\r" in value:
            return None
        close = SINGLE_QUOTES if quote == "@'" else DOUBLE_QUOTES
        if value[:1] in close and value[1:2] == "@":
            return None
        if quote == '@"':
            return "".join("`" + c if c in "`$" else c for c in value)
        return value
    if quote == "":  # a bare word: one that starts as a word does (tree-sitter agrees)
        if BARE.fullmatch(value) is None or _PLAIN_WORD.fullmatch(value) is None:
            return None
        if _NUMBER_LIKE.match(value) and _SMALL_INT.fullmatch(value) is None:
            return None
        return value
    return None


_NUMBER_LIKE = re.compile(r"[+-]?\.?[0-9]")
_SMALL_INT = re.compile(r"0|[1-9][0-9]{0,8}")
#: A bare word that every reader takes as one argument (tree-sitter too: found by
#: hypothesis, it reads ``:``, ``+`` or a NUL alone otherwise).
_PLAIN_WORD = re.compile(r"\+?\w[\w+.:/\\=%~^-]*")
