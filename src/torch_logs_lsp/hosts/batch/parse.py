"""The commands of a batch file: ``set``, ``setx`` and what runs between them.

Reads the cells of :mod:`.batch_lines` as cmd's phase 2 builds commands (jeb's and
dbenham's model, https://stackoverflow.com/questions/4094699, answer 4095133): commands
are separated by the unquoted, unescaped operators ``&``, ``&&``, ``||`` and ``|``
(a pipe runs each side in a new ``cmd.exe``: what a ``set`` there sets is lost); ``<``
and ``>`` redirect (and are removed from anywhere in the command: such a ``set`` is not
read); ``(`` at the start of a command opens a block whose commands are separated by
line ends too, and the first unescaped, unquoted ``)`` in it closes it; ``rem`` and
``:label`` lines (``::``) are comments; ``if <condition> command`` and
``for ... in (...) do command`` run their command conditionally. ``setlocal
EnableDelayedExpansion``/``DisableDelayedExpansion`` and ``endlocal`` are followed in
document order (a ``goto`` is not: delayed expansion counts as off only after a
``DisableDelayedExpansion`` outside any block or condition; cmd's default depends on the
registry and on ``cmd /V``, so ``!`` otherwise counts as expanding).

Offsets are code points into the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from torch_logs_lsp.hosts.batch.lines import ESC, INQ, NL, QCHAR, UNSURE, Cell, Lexer, is_op

#: Token delimiters of cmd (``if``/``for`` operands, the command word).
_DELIMS = " \t,;="
#: What ends the command word (``set/a``, ``set"X=1"``, ``echo(``).
_WORD_END = _DELIMS + '/"(+'
_COMPARE = frozenset({"equ", "neq", "lss", "leq", "gtr", "geq"})
_ONE_OPERAND = frozenset({"exist", "defined", "errorlevel", "cmdextversion"})
#: What keeps a physical line from the fast path (:meth:`_Parser._plain_line`).
_NOT_PLAIN = re.compile(r"(?i)set|endlocal|[()\x1a]|\^$|^[ \t,;=@]*\^")
#: A line that runs nothing: blank, a comment or a label.
_COMMENT = re.compile(r"(?i)[ \t,;=@]*(?:rem(?:[ \t,;=/\"+&|<>].*)?|:.*)?")
#: Deepest nesting of blocks, ``if`` and ``for`` followed; a command nested deeper is
#: skipped (its value is not read: no finding).
MAX_NESTING = 64


@dataclass
class Command:
    """A ``set`` (``kind`` ``"set"``, ``option`` ``""``, ``"a"`` or ``"p"``) or ``setx``
    (``kind`` ``"setx"``) with its argument cells (after the blanks that follow the
    command word), where it stands (``depth``: blocks around it; ``cond``: inside an
    ``if``/``for``; ``in_for``: inside a FOR body), what makes its value unknown
    (``redirect``, ``piped``), the delayed-expansion state before it (``"off"`` or
    ``"maybe"``), and ``whole_line``: the command alone on its physical line (a leading
    ``@`` and blanks aside)."""

    kind: str
    option: str
    args: list[Cell]
    depth: int
    cond: bool
    in_for: bool
    delayed: str
    start: int
    redirect: bool = False
    piped: bool = False
    whole_line: bool = False


@dataclass
class Reading:
    """The commands of a document: ``commands`` (``set``/``setx``, in order) and
    ``events``, the top-level unconditional commands in the order they run: an index
    into ``commands``, or ``-1`` for any other command (a program, ``call``, a block)."""

    commands: list[Command] = field(default_factory=list)
    events: list[int] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str, fast: bool = True) -> None:
        self.fast = fast
        self.lex = Lexer(text)
        self.text = text
        self.out = Reading()
        self.delayed = ["maybe"]
        self.piped = False
        self.line_start = True  # the current command is the first of its physical line
        self.nesting = 0

    # -- cells ------------------------------------------------------------------
    def peek(self) -> Cell | None:
        return self.lex.peek()

    def skip_blanks(self) -> None:
        while (c := self.peek()) is not None and c[0] in " \t" and not c[3] & (INQ | NL):
            self.lex.advance()

    def token(self) -> str:
        """An ``if``/``for`` operand: cells up to a delimiter, operator or line end."""
        self.skip_blanks()
        chars: list[str] = []
        while (c := self.peek()) is not None:
            if c[3] & NL or is_op(c) or (c[0] in _DELIMS and not c[3] & (INQ | QCHAR | ESC)):
                break
            chars.append(c[0])
            self.lex.advance()
        return "".join(chars)

    def to_end(self, depth: int, keep: bool = True) -> tuple[list[Cell], bool]:
        """The cells up to the end of the command (not consumed) and whether they
        redirect; ``keep=False`` passes over plain runs without making cells."""
        cells: list[Cell] = []
        redirect = False
        lex = self.lex
        stops = "&|)" if depth else "&|"
        while True:
            if not keep:
                lex.skip_run()
            c = lex.peek()
            if c is None:
                break
            flags = c[3]
            if flags & NL:
                break
            if not flags & (ESC | INQ | QCHAR):
                if c[0] in stops:
                    break
                if c[0] in "<>":
                    redirect = True
            if keep:
                cells.append(c)
            lex.advance()
        return cells, redirect

    # -- structure ---------------------------------------------------------------
    def run(self) -> Reading:
        while True:
            if self.fast and self.line_start and self._plain_line():
                continue
            if self.peek() is None:
                break
            self.sequence(0, False, False)
            c = self.peek()
            if c is None:
                break
            if c[3] & NL:
                self.lex.advance()
                self.line_start = True
                self.piped = False
            elif is_op(c, ")"):  # a `)` at the top level: the rest of the line is skipped
                self.lex.skip_physical_line()
            else:
                self.lex.advance()  # (cannot happen: a sequence stops only there)
        return self.out

    def _plain_line(self) -> bool:
        """Pass over a physical line that holds no ``set``, ``setx``, ``setlocal``,
        ``endlocal``, parenthesis, Ctrl-Z or line continuation at once: only other
        commands (one event) or a comment (none). A fast path with the same result."""
        bounds = self.lex.clean_line()
        if bounds is None:
            return False
        start, end = bounds
        if start >= len(self.text):
            return False
        line = self.text[start:end].rstrip("\r")
        if "\r" in line or _NOT_PLAIN.search(line):
            return False  # (a CR inside a line is removed: `r\rem` is `rem`)
        if _COMMENT.fullmatch(line) is None:
            self.event(-1, 0, False)
        self.lex.jump(end + 1)  # (past its LF)
        return True

    def sequence(self, depth: int, cond: bool, in_for: bool) -> None:
        """Commands joined by operators (and line ends inside a block)."""
        while True:
            while (c := self.peek()) is not None:
                if c[3] & NL and depth:
                    self.lex.advance()
                    self.line_start = True
                    self.piped = False
                elif (c[0] in _DELIMS or c[0] == "@") and not c[3] & (INQ | NL):
                    self.lex.advance()
                else:
                    break
            c = self.peek()
            if c is None or c[3] & NL or is_op(c, ")"):
                return
            before = len(self.out.commands)
            kind = self.command(depth, cond, in_for)
            if kind == "block":
                self.to_end(depth, keep=False)  # redirections after the block
            c = self.peek()
            self.piped = False
            self.line_start = False
            if c is not None and is_op(c, "&|"):
                self.lex.advance()
                second = self.peek()
                if second is not None and second[0] == c[0] and is_op(second, "&|"):
                    self.lex.advance()
                elif c[0] == "|":
                    self.piped = True
                    for command in self.out.commands[before:]:
                        command.piped = True  # the left side runs in a new cmd.exe too

    def event(self, index: int, depth: int, cond: bool) -> None:
        if depth == 0 and not cond and not self.piped:
            self.out.events.append(index)

    def command(self, depth: int, cond: bool, in_for: bool) -> str:
        """One command; returns ``"block"`` for a parenthesised block."""
        if self.nesting >= MAX_NESTING:
            self.event(-1, depth, cond)
            while (c := self.peek()) is not None and not c[3] & NL:
                self.lex.advance()  # (the rest of the line, blocks and all)
            return "simple"
        self.nesting += 1
        try:
            return self._command(depth, cond, in_for)
        finally:
            self.nesting -= 1

    def _command(self, depth: int, cond: bool, in_for: bool) -> str:
        c = self.peek()
        assert c is not None
        if is_op(c, "("):
            self.event(-1, depth, cond)
            self.lex.advance()
            self.sequence(depth + 1, cond, in_for)
            c = self.peek()
            if c is not None and is_op(c, ")"):
                self.lex.advance()
            return "block"
        whole = self.line_start
        start = c[1]
        chars: list[str] = []
        while (c := self.peek()) is not None:
            if c[3] & NL or is_op(c) or (c[0] in _WORD_END and not c[3] & (INQ | ESC)):
                break
            chars.append(c[0])
            self.lex.advance()
        word = "".join(chars).lower()
        if word.startswith(":") or word == "rem":
            self.lex.skip_physical_line()  # a label or comment (its carets join nothing)
            return "comment"
        if word == "if":
            self.event(-1, depth, cond)
            return self.if_(depth, in_for)
        if word == "for":
            self.event(-1, depth, cond)
            return self.for_(depth)
        if word in ("set", "setx"):
            return self.set_(word, depth, cond, in_for, start, whole)
        if word in ("setlocal", "endlocal"):
            args, _ = self.to_end(depth)
            self.event(-1, depth, cond)
            self.setlocal(word, "".join(a[0] for a in args).lower(), bool(depth) or cond)
            return "simple"
        self.event(-1, depth, cond)
        self.to_end(depth, keep=False)
        return "simple"

    def setlocal(self, word: str, args: str, conditional: bool) -> None:
        if word == "endlocal":
            if len(self.delayed) > 1:
                self.delayed.pop()
            return
        state = self.delayed[-1]
        if "enabledelayedexpansion" in args:
            state = "maybe"
        elif "disabledelayedexpansion" in args:
            state = "maybe" if conditional else "off"
        self.delayed.append(state)

    def if_(self, depth: int, in_for: bool) -> str:
        tok = self.token()
        if tok.lower() == "/i":
            tok = self.token()
        if tok.lower() == "not":
            tok = self.token()
        if tok.lower() in _ONE_OPERAND:
            self.token()
        else:
            self.skip_blanks()
            c = self.peek()
            if c is not None and c[0] == "=" and not c[3] & (INQ | ESC):
                while (c := self.peek()) is not None and c[0] == "=" and not c[3] & (INQ | ESC):
                    self.lex.advance()
                self.token()
            elif self.token().lower() in _COMPARE:
                self.token()
            else:
                self.to_end(depth, keep=False)
                return "simple"
        self.skip_blanks()
        c = self.peek()
        if c is None or c[3] & NL or is_op(c, "&|)"):
            return "simple"
        kind = self.command(depth, True, in_for)
        if kind == "block":
            self.skip_blanks()
            if self._word_ahead("else"):
                self.skip_blanks()
                c = self.peek()
                if c is not None and not c[3] & NL and not is_op(c, "&|)"):
                    return self.command(depth, True, in_for)
        return kind

    def _word_ahead(self, word: str) -> bool:
        """Consume ``word`` (any case) when the next cells spell it and a delimiter follows."""
        t = self.text
        c = self.peek()
        if c is None or c[3]:
            return False
        at = c[1]
        end = at + len(word)
        if t[at:end].lower() != word or t[end : end + 1] not in (" ", "\t", "("):
            return False
        for _ in word:
            self.lex.advance()
        return True

    def for_(self, depth: int) -> str:
        for _ in range(12):
            tok = self.token()
            if tok.lower() == "in" or not tok:
                break
        else:
            tok = ""
        self.skip_blanks()
        c = self.peek()
        if tok.lower() != "in" or c is None or not is_op(c, "("):
            self.to_end(depth, keep=False)
            return "simple"
        self.lex.advance()
        while (c := self.peek()) is not None and not c[3] & NL and not is_op(c, ")"):
            self.lex.advance()
        if c is None or c[3] & NL:
            return "simple"
        self.lex.advance()
        if self.token().lower() != "do":
            self.to_end(depth, keep=False)
            return "simple"
        self.skip_blanks()
        c = self.peek()
        if c is None or c[3] & NL or is_op(c, "&|)"):
            return "simple"
        return self.command(depth, True, True)

    def set_(self, word: str, depth: int, cond: bool, in_for: bool, start: int, whole: bool) -> str:
        self.skip_blanks()
        option = ""
        c = self.peek()
        if word == "set" and c is not None and c[0] == "/" and not c[3] & INQ:
            self.lex.advance()
            c = self.peek()
            option = c[0].lower() if c is not None and not c[3] & NL else "?"
            if option != "?":
                self.lex.advance()
            self.skip_blanks()
        args, redirect = self.to_end(depth)
        end = self.peek()
        alone = whole and (end is None or bool(end[3] & NL))
        command = Command(
            word,
            option,
            args,
            depth,
            cond,
            in_for,
            self.delayed[-1],
            start,
            redirect,
            self.piped,
            alone,
        )
        self.out.commands.append(command)
        self.event(len(self.out.commands) - 1, depth, cond)
        return "simple"


@lru_cache(maxsize=4)
def read(text: str) -> Reading:
    """The ``set``/``setx`` commands of a batch document and the top-level order of
    commands (see :class:`Reading`; kept for the few texts in use: the spans, notes and
    overwritten values of one check read it once; do not change it). Never raises for
    any text."""
    return _Parser(text).run()


def read_slowly(text: str) -> Reading:
    """:func:`read` without the fast path over plain lines (for the tests)."""
    return _Parser(text, fast=False).run()


def unsure(cells: list[Cell]) -> bool:
    """Whether an expansion earlier on the line may change how ``cells`` read."""
    return any(c[3] & UNSURE for c in cells)


__all__ = ["Command", "Reading", "read", "unsure"]
