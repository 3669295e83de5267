"""Where IPython's own syntax stands in a code cell, found the way IPython 9 finds it
(``IPython/core/inputtransformer2.py``, ``TransformerManager.transform_cell``), for
:mod:`.ipython`.

IPython tokenizes the cell as Python and transforms one piece of special syntax at a
time (the earliest, then it tokenizes again): ``a = %magic`` (``MagicAssign``),
``a = !cmd`` (``SystemAssign``), a logical line starting with ``!``, ``!!``, ``%``,
``?``, ``??``, ``,``, ``;`` or ``/`` (``EscapedCommand``), ``obj?`` (``HelpEnd``). A
line is joined with the next while it ends with a backslash and ``\\n``
(``assemble_continued_line``: the pieces are right-stripped, joined with a space). This
module runs the same loop with the same tokenizer (:mod:`tokenize`, through the same
error handling), and where IPython writes a call it writes a Python expression of the
same length (``_()`` and blanks), so every offset stays where it was: the result is the
cell as the Python host should read it (:attr:`Cell.view`) plus the escapes.

Before that, IPython drops leading blank lines, dedents the cell (``leading_indent``)
and strips pasted prompts (``>>>``, ``In [1]:``). A cell with prompts is not read
(:func:`read_cell` gives ``None``: its offsets would move); a dedented cell is read with
each line's offset shifted.

All offsets are **code points into the document text** (the cell).
"""

from __future__ import annotations

import re
import sys
import textwrap
import tokenize
from collections.abc import Iterator
from typing import NamedTuple

from .embedded import EmbeddedCode

_ESCAPE_SINGLES = frozenset({"!", "?", "%", ",", ";", "/"})
_ESCAPE_DOUBLES = ("!!", "??")
#: IPython's TRANSFORM_LOOP_LIMIT: a cell needing more transforms fails to run.
_LOOP_LIMIT = 500
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
_HELP_END = re.compile(
    r"""(%{0,2}
    (?!\d)[\w*]+            # Variable name
    (\.(?!\d)[\w*]+|\[-?[0-9]+\])*       # .etc.etc or [0], we only support literal integers.
    )
    (\?\??)$                # ? or ??
    """,
    re.VERBOSE,
)
_CLASSIC_PROMPT = re.compile(r"^\s*>>>")
_IPYTHON_PROMPT = re.compile(r"^(((\[nav\]|\[ins\])?\ )?In\ \[\d+\]:\ |\s*\.{3,}:\ ?)")
_LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines splits


class Escape(NamedTuple):
    """One piece of IPython syntax in a cell.

    ``kind``: ``"!"``, ``"!!"``, ``"%"``, ``"?"``, ``"??"``, ``","``, ``";"``, ``"/"``
    (a line starting with it), ``"=!"`` (``a = !cmd``), ``"=%"`` (``a = %magic``),
    ``"help"`` (``obj?``). ``start``: the offset of the escape character (of the help
    target). ``end``: where its last line ends, before the line break. ``code``: what
    IPython passes on after the escape (the command of ``!``, ``"name args"`` of ``%``),
    continued lines joined as IPython joins them, mapped to the document (each joining
    blank maps to the backslash and line break it replaces).
    """

    kind: str
    start: int
    end: int
    code: EmbeddedCode


class Cell(NamedTuple):
    """A cell's escapes in document order and its Python ``view``: the cell with every
    escape's text replaced by a Python expression of the same length and its line breaks
    kept (so Python-host offsets are cell offsets)."""

    view: str
    escapes: list[Escape]


def _lines(text: str) -> list[str]:
    """The cell's lines as ``transform_cell`` splits them (a final ``\\n`` added)."""
    return (text if text.endswith("\n") else text + "\n").splitlines(keepends=True)


def _body(line: str) -> str:
    return line.rstrip(_LINE_ENDS) if line.endswith(tuple(_LINE_ENDS)) else line


def _tokens_by_line(lines: list[str]) -> list[list[tokenize.TokenInfo]]:
    """``make_tokens_by_line``: the tokens grouped into logical lines."""
    out: list[list[tokenize.TokenInfo]] = [[]]
    level = 0
    try:
        for tok in _generate(lines):
            out[-1].append(tok)
            if tok.type == tokenize.NEWLINE or (tok.type == tokenize.NL and level <= 0):
                out.append([])
            elif tok.type == tokenize.OP and tok.string in {"(", "[", "{"}:
                level += 1
            elif tok.type == tokenize.OP and tok.string in {")", "]", "}"}:
                level = max(0, level - 1)
    except tokenize.TokenError:
        pass  # input ended in a multi-line string or expression (IPython: fine)
    if not out[-1]:
        out.pop()
    return out


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
        if i < len(line) and line[i].string in _ESCAPE_SINGLES:
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


def _continued_end(lines: list[str], row: int) -> int:
    """``find_end_of_continued_line`` (0-based rows)."""
    end = row
    while lines[end].endswith("\\\n"):
        end += 1
        if end >= len(lines):
            return end - 1
    return end


class _Reader:
    """The transform loop over the (dedented) lines; ``offsets[i]``: the document offset
    of the first code point of line ``i`` as IPython sees it."""

    def __init__(self, lines: list[str], offsets: list[int], size: int) -> None:
        self.lines, self.offsets, self.size = lines, offsets, size
        self.escapes: list[Escape] = []

    def at(self, row: int, col: int) -> int:
        return min(self.offsets[row] + col, self.size)

    def assemble(self, row: int, col: int, end: int) -> EmbeddedCode:
        """``assemble_continued_line`` from ``(row, col)`` to line ``end`` with its map."""
        text: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        for r in range(row, end + 1):
            c0 = col if r == row else 0
            piece = self.lines[r][c0:]
            keep = piece.rstrip()[:-1] if r < end else piece.rstrip()
            for k in range(len(keep)):
                text.append(keep[k])
                starts.append(self.at(r, c0 + k))
                ends.append(self.at(r, c0 + k + 1))
            if r < end:  # the joining blank: the backslash, blanks and line break
                text.append(" ")
                starts.append(self.at(r, c0 + len(keep)))
                ends.append(self.at(r + 1, 0))
        last = ends[-1] if ends else self.at(row, col)
        return EmbeddedCode("".join(text), starts, ends, last, None)

    def blank(self, row: int, col: int, end: int, keep_backslashes: bool) -> None:
        """Replace lines ``row``..``end`` from ``(row, col)`` with ``_()`` and blanks."""
        for r in range(row, end + 1):
            line = self.lines[r]
            c0 = col if r == row else 0
            body = _body(line)
            cont = keep_backslashes and r < end and line.endswith("\\\n")
            n = len(body) - c0 - (1 if cont else 0)
            fill = " " * max(n, 0)
            if r == row and n > 0:
                fill = ("_()" + " " * (n - 3)) if n >= 3 else ("0" + " " * (n - 1))
            # IPython's new line ends with "\n" (a lone CR or CRLF before it: same tokens)
            self.lines[r] = body[:c0] + fill + ("\\" if cont else "") + "\n"

    def step(self) -> bool:
        """One ``do_one_token_transform``; ``False`` when nothing more is transformed."""
        by_line = _tokens_by_line(self.lines)
        candidates: list[tuple[tuple[int, int, int], str, tuple[int, int]]] = []
        for finder, kind, priority in (
            (_find_magic_assign, "=%", 10),
            (_find_system_assign, "=!", 10),
            (_find_escaped, "esc", 10),
        ):
            pos = finder(by_line)
            if pos is not None:
                candidates.append(((pos[0] - 1, pos[1], priority), kind, pos))
        help_at = _find_help(by_line)
        if help_at is not None:
            start, q = help_at
            candidates.append(((start[0] - 1, start[1], 5), "help", q))
        for (row, col, _), kind, pos in sorted(candidates, key=lambda c: c[0]):
            if self._transform(row, col, kind, pos):
                return True
        return False

    def _transform(self, row: int, col: int, kind: str, pos: tuple[int, int]) -> bool:
        if kind == "help":
            q_row = pos[0] - 1
            piece = "".join(self.lines[row : q_row + 1])[col:]
            if _HELP_END.search(piece) is None:
                return False  # IPython: SyntaxError, the next candidate is tried
            start = self.at(row, col)
            end = self.at(q_row, len(_body(self.lines[q_row])))
            self.escapes.append(Escape("help", start, end, self.assemble(row, col, row)))
            self.blank(row, col, q_row, keep_backslashes=False)
            return True
        end_row = _continued_end(self.lines, row)
        code = self.assemble(row, col, end_row)
        if kind == "esc":
            kind = code.text[:2] if code.text[:2] in _ESCAPE_DOUBLES else code.text[:1]
            if kind == "/" and not code.text[1:].partition(" ")[0]:
                return False  # `/` without a callable name: IPython's SyntaxError
        elif kind == "=%" and not code.text.startswith("%"):
            return False
        skip = 1 if kind in ("=%", "=!") else len(kind)
        rest = EmbeddedCode(code.text[skip:], code.starts[skip:], code.ends[skip:], code.end, None)
        end = self.at(end_row, len(_body(self.lines[end_row])))
        self.escapes.append(Escape(kind, self.at(row, col), end, rest))
        self.blank(row, col, end_row, keep_backslashes=True)
        return True


def _dedented(lines: list[str]) -> list[int] | None:
    """How many code points ``leading_indent`` (``textwrap.dedent``) removes from the
    start of each line, or ``None`` when that is not a plain prefix removal."""
    joined = "".join(lines)
    out = textwrap.dedent(joined)
    if out == joined:
        return [0] * len(lines)
    new = out.splitlines(keepends=True)
    if len(new) != len(lines):
        return None
    cut = []
    for old, line in zip(lines, new, strict=True):
        if not old.endswith(line) and not (line.strip() == "" and old.strip() == ""):
            return None
        cut.append(len(old) - len(line) if old.endswith(line) else len(_body(old)))
    return cut


def read_cell(text: str, base: int = 0) -> Cell | None:
    """The escapes and the Python view of the cell ``text`` (a cell magic's first line
    is not handled here: see :mod:`.ipython_cells`). ``base``: the document offset of
    ``text`` (every offset returned is shifted by it; the view is of ``text`` alone).
    ``None`` when IPython would strip prompts from the cell or cannot transform it
    (the offsets of what it runs are then not the cell's). Never raises."""
    try:
        return _read(text, base)
    except (SyntaxError, ValueError, RecursionError, IndexError):
        return None  # (tokenize's IndentationError: IPython fails the same way)


def _read(text: str, base: int) -> Cell | None:
    lines = _lines(text)
    if any(_CLASSIC_PROMPT.match(line) for line in lines):
        return None  # doctest prompts are stripped (classic_prompt)
    first = next((i for i, line in enumerate(lines) if line and not line.isspace()), None)
    if first is None:
        return Cell(text, [])
    body = lines[first:]
    if _IPYTHON_PROMPT.match(body[0]) or (len(body) > 1 and _IPYTHON_PROMPT.match(body[1])):
        return None
    cuts = _dedented(body)
    if cuts is None:
        return None
    offsets, pos = [], base + sum(len(line) for line in lines[:first])
    for line, cut in zip(body, cuts, strict=True):
        offsets.append(pos + cut)
        pos += len(line)
    work = [line[cut:] for line, cut in zip(body, cuts, strict=True)]
    if not _may_escape(text):
        return Cell(text, [])
    reader = _Reader(work, offsets, base + len(text))
    for _ in range(_LOOP_LIMIT):
        if not reader.step():
            break
    else:
        return None  # IPython raises RuntimeError: the cell does not run
    view = "".join(lines[:first]) + "".join(
        line[:cut] + _body(new) + line[len(_body(line)) :]
        for line, cut, new in zip(body, cuts, reader.lines, strict=True)
    )
    return Cell(view[: len(text)], sorted(reader.escapes, key=lambda e: e.start))


#: What may be IPython syntax: an escape first on a line (after any line break
#: ``str.splitlines`` knows), ``= %``/``= !``, or a ``?`` (help) anywhere. A cell without
#: any is plain Python (not tokenized).
_MAY_ESCAPE = re.compile(rf"(?:^|[{_LINE_ENDS}])[ \t\f]*[!?%,;/]|=[\s\\]*[!%]|\?")


def _may_escape(text: str) -> bool:
    return _MAY_ESCAPE.search(text) is not None


__all__ = ["Cell", "Escape", "read_cell"]
