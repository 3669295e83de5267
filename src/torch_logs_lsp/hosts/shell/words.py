"""Bash words as bash 5.2 reads them (the shell host's decoder, :func:`scan_word`).

Follows the bash manual ("Quoting", "Shell Expansions"): backslash escapes and line
continuations, single quotes, double quotes (where a backslash escapes only ``$ ` " \\``
and newline), ``$'...'`` ANSI-C quoting (a NUL ends the string), ``$"..."`` (read as a
double-quoted string) and concatenations of these. Offsets are code points into the text.
"""

from __future__ import annotations

import re

_META = frozenset(" \t\n;&|<>()")
#: A run of characters that stand for themselves outside quotes (no metacharacter, quote,
#: escape, expansion, tilde, colon, glob or brace): read as one part, in bulk.
_PLAIN_RUN = re.compile(r"[^ \t\n;&|<>()\\'\"$`~:*?\[{]+")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_SPECIAL_PARAMS = frozenset("0123456789@*#?-$!")
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n"}
_ANSI_SIMPLE.update({"r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})
_OCT = frozenset("01234567")
_HEXD = frozenset("0123456789abcdefABCDEF")
_DQ_ESCAPES = frozenset('$`"\\')


class Word:
    """A decoded shell word (see :func:`scan_word`); offsets are code points."""

    def __init__(self, start: int) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.static = True
        self.end = start
        self.terminated = True
        self.parts: list[tuple[str, int, int]] = []  # (quote, content_start, content_end)

    def add(self, ch: str, start: int, end: int) -> None:
        self.chars.append(ch)
        self.starts.append(start)
        self.ends.append(end)

    def add_run(self, text: str, start: int, end: int) -> None:
        """Each character of ``text[start:end]`` as itself (one code point each)."""
        self.chars.extend(text[start:end])
        self.starts.extend(range(start, end))
        self.ends.extend(range(start + 1, end + 1))


def _skip_balanced(text: str, i: int, limit: int, close: str) -> int:
    """Index after the ``close`` matching an opener just before ``i`` (quotes honoured)."""
    opener = "(" if close == ")" else "{"
    depth = 1
    while i < limit:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1, limit)
            i = limit if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_dq(text, i + 1, limit)
            continue
        if c == opener:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return limit


def _skip_dq(text: str, i: int, limit: int) -> int:
    while i < limit:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text[i + 1 : i + 2] in ("(", "{"):
            i = _skip_balanced(text, i + 2, limit, ")" if text[i + 1] == "(" else "}")
        else:
            i += 1
    return limit


def _expansion_end(text: str, i: int, limit: int) -> int:
    """If ``text[i] == "$"`` starts an expansion, its end; else ``i`` ($ is literal)."""
    nxt = text[i + 1 : i + 2] if i + 1 < limit else ""
    if nxt in ("(", "{"):
        return _skip_balanced(text, i + 2, limit, ")" if nxt == "(" else "}")
    if nxt and nxt in _SPECIAL_PARAMS:
        return i + 2
    if nxt and nxt in _NAME_START:
        j = i + 2
        while j < limit and (text[j] in _NAME_START or (text[j].isdigit() and text[j].isascii())):
            j += 1
        return j
    return i


def _ansi_c(text: str, i: int, limit: int, w: Word) -> int:
    """Decode ``$'...'`` whose body starts at ``i``; return the index after the closing
    quote (or ``limit`` when unterminated)."""
    nul = False
    while i < limit:
        c = text[i]
        if c == "'":
            return i + 1
        if c != "\\":
            if not nul:
                w.add(c, i, i + 1)
            i += 1
            continue
        nxt = text[i + 1 : i + 2] if i + 1 < limit else ""
        cp: int | None = None
        width = 2
        if nxt in _ANSI_SIMPLE:
            cp = ord(_ANSI_SIMPLE[nxt])
        elif nxt in _OCT and nxt:
            j = i + 1
            while j < min(i + 4, limit) and text[j] in _OCT:
                j += 1
            cp, width = int(text[i + 1 : j], 8) & 0xFF, j - i
        elif nxt in ("x", "u", "U"):
            most = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i + 2
            while j < min(i + 2 + most, limit) and text[j] in _HEXD:
                j += 1
            if j > i + 2:
                cp, width = int(text[i + 2 : j], 16), j - i
                if (nxt == "x" and cp >= 0x80) or cp > 0x10FFFF or 0xD800 <= cp < 0xE000:
                    w.static = False  # a raw byte, or no character
        elif nxt == "c" and i + 2 < limit:
            # bash's lexer first finds the closing quote (a backslash pairs with any next
            # character), then decodes the body (lib/sh/strtrans.c, TOCTRL)
            ctl = text[i + 2]
            if ctl == "'":  # the quote closes the string: "\c" at its end stays as is
                if not nul:
                    w.add("\\", i, i + 1)
                    w.add("c", i + 1, i + 2)
                return i + 3
            if ctl == "\\":
                # control-backslash; $'\c\\' takes both backslashes (POSIX); otherwise the
                # character paired with this backslash stays literal ($'\c\'' is 0x1c, ')
                after = text[i + 3] if i + 3 < limit else ""
                if not nul and w.static:
                    w.add("\x1c", i, i + (4 if after == "\\" else 3))
                if after and after != "\\" and not nul:
                    w.add(after, i + 3, i + 4)
                i += 4 if after else 3
                continue
            if not ctl.isascii():
                w.static = False  # bash takes the first byte of a multibyte character
            cp, width = (0x7F if ctl == "?" else ord(ctl.upper()) & 0x1F), 3
        if cp is None:  # not an escape: the backslash stays
            if not nul:
                w.add("\\", i, i + 1)
            i += 1
            continue
        if cp >= 0x80 and nxt in _OCT:
            w.static = False
        if cp == 0:
            nul = True  # bash's string ends here; the rest of $'...' is dropped
        elif not nul and w.static:
            w.add(chr(cp), i, i + width)
        i += width
    w.terminated = False
    return limit


def scan_word(text: str, start: int, limit: int, *, command_word: bool = False) -> Word:
    """Decode the shell word (an assignment's value) starting at ``start``.

    Reads up to the first unquoted metacharacter (or ``limit``). ``command_word`` is set
    for ``env`` operands, which also undergo brace and pathname expansion. A quote still
    open at ``limit`` gives ``terminated=False``. Never raises.
    """
    w = Word(start)
    i = start
    after_colon = True  # tilde expansion applies at the start and after an unquoted ':'
    if text[i : i + 1] == "(":
        w.static = False  # an array assignment
        i = _skip_balanced(text, i + 1, limit, ")")
    while i < limit:
        run = _PLAIN_RUN.match(text, i, limit)
        if run is not None and run.end() - i > 1:
            w.add_run(text, i, run.end())
            w.parts.append(("", i, run.end()))
            after_colon = False
            i = run.end()
            continue
        c = text[i]
        tilde_ok, after_colon = after_colon, False
        if c in _META:
            break
        if c == "\\":
            if text[i + 1 : i + 2] == "\n" and i + 1 < limit:
                i += 2  # line continuation: removed
                after_colon = tilde_ok
                continue
            if i + 1 < limit:
                w.add(text[i + 1], i, i + 2)
                w.parts.append(("", i, i + 2))
                i += 2
            else:
                w.add("\\", i, i + 1)
                w.parts.append(("", i, i + 1))
                i += 1
            continue
        if c == "'" or (c == "$" and text[i + 1 : i + 2] == "'" and i + 1 < limit):
            ansi = c == "$"
            body = i + 2 if ansi else i + 1
            if ansi:
                i = _ansi_c(text, body, limit, w)
            else:
                j = text.find("'", body, limit)
                i = limit if j < 0 else j + 1
                w.terminated = j >= 0
                for k in range(body, j if j >= 0 else limit):
                    w.add(text[k], k, k + 1)
            end = i - 1 if w.terminated else i
            w.parts.append(("$'" if ansi else "'", body, end))
            if not w.terminated:
                break
            continue
        if c == '"' or (c == "$" and text[i + 1 : i + 2] == '"' and i + 1 < limit):
            body = i + 2 if c == "$" else i + 1
            i = _double_quoted(text, body, limit, w)
            end = i - 1 if w.terminated else i
            w.parts.append(('"', body, end))
            if not w.terminated:
                break
            continue
        if c == "$":
            j = _expansion_end(text, i, limit)
            if j > i:
                w.static = False
                w.parts.append(("", i, j))
                i = j
                continue
        elif c == "`":
            j = text.find("`", i + 1, limit)
            w.static = False
            w.parts.append(("", i, limit if j < 0 else j + 1))
            i = limit if j < 0 else j + 1
            continue
        elif (c == "~" and tilde_ok) or (command_word and c in "*?[{"):
            w.static = False
        w.add(c, i, i + 1)
        w.parts.append(("", i, i + 1))
        after_colon = c == ":"
        i += 1
    w.end = i
    return w


def _double_quoted(text: str, i: int, limit: int, w: Word) -> int:
    """Decode a double-quoted body starting at ``i``; return the index after the quote."""
    while i < limit:
        c = text[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < limit:
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt in _DQ_ESCAPES:
                w.add(nxt, i, i + 2)
                i += 2
                continue
        elif c == "$":
            j = _expansion_end(text, i, limit)
            if j > i:
                w.static = False
                i = j
                continue
        elif c == "`":
            w.static = False
            j = text.find("`", i + 1, limit)
            i = limit if j < 0 else j + 1
            continue
        w.add(c, i, i + 1)
        i += 1
    w.terminated = False
    return limit
