"""IPython's tokenizer side (for :mod:`.ipython_escapes`): ``make_tokens_by_line`` and
the ``find`` of each token transformer of ``IPython/core/inputtransformer2.py`` (IPython
9), ported line for line on :mod:`tokenize` (the same tokenizer IPython uses, through the
same error handling), plus a start from the middle of a cell (:func:`groups`).

Positions are ``tokenize``'s: 1-based rows and code point columns of the lines given.
"""

from __future__ import annotations

import sys
import tokenize
from collections.abc import Iterator
from typing import NamedTuple

ESCAPE_SINGLES = frozenset({"!", "?", "%", ",", ";", "/"})
#: The tokenizer errors IPython's ``generate_tokens_catch_errors`` turns into an
#: ERRORTOKEN (``IPython/utils/tokenutil.py``, plus ``make_tokens_by_line``'s extra).
_CAUGHT = (
    "unterminated string literal",
    "invalid non-printable character",
    "after line continuation character",
    "invalid decimal literal",
    "invalid binary literal",
    "invalid octal literal",
    "invalid hexadecimal literal",
    "in binary literal",
    "in octal literal",
    "expected EOF",
)


class Group(NamedTuple):
    """A logical line's tokens (rows as in the cell's lines, 1-based), the 0-based row of
    its first token and the indentation stack before it (the INDENT strings)."""

    tokens: list[tokenize.TokenInfo]
    row: int
    stack: tuple[str, ...]


def groups(lines: list[str], row0: int = 0, stack0: tuple[str, ...] = ()) -> Iterator[Group]:
    """``make_tokens_by_line``: the tokens grouped into logical lines, lazily. From line
    ``row0`` on when given: it must start a logical line whose indentation stack is
    ``stack0`` (recreated by synthetic lines fed first, whose tokens are dropped), so that
    the tokens are those a tokenization from the start gives."""
    prefix = []
    if stack0:
        prefix = ["if 1:\n"] + [s + "if 1:\n" for s in stack0[:-1]] + [stack0[-1] + "pass\n"]
    shift = row0 - len(prefix)
    group: Group | None = None
    current: list[tokenize.TokenInfo] = []
    stack: list[str] = []
    level = 0
    try:
        for tok in _generate(prefix + lines[row0:]):
            if shift:
                tok = tok._replace(
                    start=(tok.start[0] + shift, tok.start[1]), end=(tok.end[0] + shift, tok.end[1])
                )
            if not current:
                group = Group(current, tok.start[0] - 1, tuple(stack))
            current.append(tok)
            if tok.type == tokenize.INDENT:
                stack.append(tok.string)
            elif tok.type == tokenize.DEDENT and stack:
                stack.pop()
            if tok.type == tokenize.NEWLINE or (tok.type == tokenize.NL and level <= 0):
                if group is not None and group.row >= row0:
                    yield group
                current, group = [], None
            elif tok.type == tokenize.OP and tok.string in {"(", "[", "{"}:
                level += 1
            elif tok.type == tokenize.OP and tok.string in {")", "]", "}"}:
                level = max(0, level - 1)
    except tokenize.TokenError:
        pass  # input ended in a multi-line string or expression (IPython: fine)
    if group is not None and group.row >= row0:
        yield group


def _generate(lines: list[str]) -> Iterator[tokenize.TokenInfo]:
    """``generate_tokens_catch_errors``."""
    tokens: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(iter(lines).__next__):
            tokens.append(tok)
            yield tok
    except tokenize.TokenError as exc:
        if not any(e in str(exc.args[0]) for e in _CAUGHT):
            raise
        if tokens:
            start = (tokens[-1].start[0], tokens[-1].end[0])
            yield tokenize.TokenInfo(tokenize.ERRORTOKEN, "", start, start, tokens[-1].line)
        else:
            yield tokenize.TokenInfo(tokenize.ERRORTOKEN, "", (1, 0), (1, 0), "")


def _assign_op(line: list[tokenize.TokenInfo]) -> int | None:
    """``_find_assign_op``: the first ``=`` outside brackets."""
    level = 0
    for i, tok in enumerate(line):
        if tok.string == "=" and level == 0:
            return i
        if tok.string in {"(", "[", "{"}:
            level += 1
        elif tok.string in {")", "]", "}"} and level > 0:
            level -= 1
    return None


def _find_magic_assign(by_line: list[list[tokenize.TokenInfo]]) -> tuple[int, int] | None:
    for line in by_line:
        i = _assign_op(line)
        if i is None or len(line) <= i + 2:
            continue
        if line[i + 1].string == "%" and line[i + 2].type == tokenize.NAME:
            return line[i + 1].start
    return None


def _find_system_assign(by_line: list[list[tokenize.TokenInfo]]) -> tuple[int, int] | None:
    for line in by_line:
        i = _assign_op(line)
        if i is None or line[i].line.strip().startswith("=") or len(line) < i + 2:
            continue
        if sys.version_info >= (3, 12):
            if line[i + 1].type == tokenize.OP and line[i + 1].string == "!":
                return line[i + 1].start
            continue
        if len(line) > i + 1 and line[i + 1].type == tokenize.ERRORTOKEN:
            j = i + 1
            while j < len(line) and line[j].type == tokenize.ERRORTOKEN:
                if line[j].string == "!":
                    return line[j].start
                if not line[j].string.isspace():
                    break
                j += 1
    return None


def _find_escaped(by_line: list[list[tokenize.TokenInfo]]) -> tuple[int, int] | None:
    for line in by_line:
        i = 0
        while i < len(line) and line[i].type in {tokenize.INDENT, tokenize.DEDENT}:
            i += 1
        if i < len(line) and line[i].string in ESCAPE_SINGLES:
            return line[i].start
    return None


def _find_help(
    by_line: list[list[tokenize.TokenInfo]],
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    for line in by_line:
        if len(line) > 2 and line[-2].string == "?":
            i = 0
            while line[i].type in {tokenize.INDENT, tokenize.DEDENT}:
                i += 1
            return line[i].start, line[-2].start
    return None


Candidate = tuple[tuple[int, int, int], str, tuple[int, int]]


def candidates(by_line: list[list[tokenize.TokenInfo]]) -> list[Candidate]:
    """Each finder's first match, earliest first: ((row, col, priority), kind, position)."""
    found: list[Candidate] = []
    for finder, kind in (
        (_find_magic_assign, "=%"),
        (_find_system_assign, "=!"),
        (_find_escaped, "esc"),
    ):
        pos = finder(by_line)
        if pos is not None:
            found.append(((pos[0] - 1, pos[1], 10), kind, pos))
    help_at = _find_help(by_line)
    if help_at is not None:
        start, q = help_at
        found.append(((start[0] - 1, start[1], 5), "help", q))
    return sorted(found, key=lambda c: c[0])


__all__ = ["ESCAPE_SINGLES", "Candidate", "Group", "candidates", "groups"]
