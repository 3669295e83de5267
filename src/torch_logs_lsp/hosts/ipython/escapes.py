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
import textwrap
from typing import NamedTuple

from torch_logs_lsp.hosts.embedded import EmbeddedCode
from torch_logs_lsp.hosts.ipython.tokens import candidates, groups

_ESCAPE_DOUBLES = ("!!", "??")
#: IPython's TRANSFORM_LOOP_LIMIT: a cell needing more transforms fails to run.
_LOOP_LIMIT = 500
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
        self.resume: tuple[int, tuple[str, ...]] = (0, ())  # see step()
        self.failed = False

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
        """One ``do_one_token_transform``; ``False`` when nothing more is transformed.

        IPython tokenizes the whole cell and takes the earliest candidate of its finders;
        the logical lines before the one transformed last are unchanged and hold none, so
        here the tokenization starts there and stops at the first logical line holding a
        candidate (a later line cannot hold an earlier one). Once a candidate fails to
        transform (IPython tries the next, and finds the failing one first every time),
        every step is IPython's whole one."""
        if not self.failed:
            for group in groups(self.lines, *self.resume):
                found = candidates([group.tokens])
                if not found:
                    continue
                for (row, col, _), kind, pos in found:
                    if self._transform(row, col, kind, pos):
                        self.resume = (group.row, group.stack)
                        return True
                self.failed = True
                break
            else:
                return False
        for (row, col, _), kind, pos in candidates([g.tokens for g in groups(self.lines)]):
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
