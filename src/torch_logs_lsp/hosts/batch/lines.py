"""cmd.exe's batch line reader, as a lexer of cells (:class:`Lexer`).

No parser of batch files exists on PyPI and no ``cmd.exe`` runs here, so the reading
follows the documented phases of cmd's batch line parser (the model of jeb and dbenham,
"How does the Windows Command Interpreter (CMD.EXE) parse scripts?",
https://stackoverflow.com/questions/4094699, answer 4095133):

- phase 0: a line is read through the first LF; ``<Ctrl-Z>`` (0x1A) reads as LF;
- phase 1: ``%%`` is a literal ``%``; ``%1``, ``%*``, ``%~dp0`` and ``%NAME%`` expand
  (here: a cell flagged :data:`DYN`, never static); a lone ``%`` is removed (also
  :data:`DYN`). What an expansion yields may hold ``"`` or ``&``, so every later cell of
  the physical line is flagged :data:`UNSURE`;
- phase 1.5: every CR is removed (a CRLF file reads like an LF one);
- phase 2: ``"`` toggles the quote flag; outside quotes ``^`` escapes the next
  character and is removed, and a ``^`` at the end of a line joins the next line, whose
  first character is then escaped; an LF ends the line and the quote flag;
- phase 5: ``!NAME!`` expands when delayed expansion is on (a cell flagged :data:`BANG`;
  the parser decides).

A cell is ``(char, start, end, flags)``: one character the later phases see, with the
document range that produced it (code points; ``^&`` is one ``&`` cell of two code
points, a CR produces none). Special characters (``& | < > ( )``) are operators only
without :data:`ESC` and :data:`INQ`.
"""

from __future__ import annotations

import re

#: A ``^``-escaped character (not special).
ESC = 1
#: Inside double quotes (not special).
INQ = 2
#: A ``"`` that toggled the quote flag.
QCHAR = 4
#: Text an expansion replaces (``%X%``, ``%1``, a lone ``%``): never static.
DYN = 8
#: A ``%`` written ``%%`` (a FOR variable ``%%i`` inside a FOR body).
PCT2 = 16
#: A ``!`` (delayed expansion, when on).
BANG = 32
#: After an expansion on the same physical line: its text may change the reading.
UNSURE = 64
#: A line end (LF or Ctrl-Z).
NL = 128

Cell = tuple[str, int, int, int]

#: ``%*``, ``%0``..``%9``, ``%~[modifiers]N`` and ``%NAME%`` (``%NAME:a=b%`` too).
_PERCENT = re.compile(r"%(?:[*0-9]|~[A-Za-z$:]*[0-9*]|[^%\n\r\x1a]+%)?")
#: Characters with no meaning to phases 0-2 and 5 (a run of them is copied at once).
_PLAIN = re.compile(r"[^\"^%!\n\r\x1a&|<>()]+")
#: A run :meth:`Lexer.skip_run` passes over, outside and inside quotes (CRs are dropped).
_RUN = re.compile(r"[^\"^%!\n\x1a&|<>()]+")
_RUN_QUOTED = re.compile(r"[^\"%!\n\x1a]+")
OPERATORS = "&|<>()"
_SPECIAL = '"^%!\n\x1a' + OPERATORS


class Lexer:
    """Cells of a batch document on demand (see the module docstring). ``peek()`` gives
    the current cell or ``None`` at the end; ``advance()`` moves past it;
    ``skip_physical_line()`` drops the rest of the physical line unread (``rem``, a
    label: their carets do not join lines)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0  # the raw position of the next cell to lex
        self.inq = False
        self.unsure = False
        self._cell: Cell | None = None
        self._buffer: list[Cell] = []

    def peek(self) -> Cell | None:
        """The current cell (``None`` at the end of the document)."""
        if self._cell is None:
            if not self._buffer:
                self._lex()
            if self._buffer:
                self._cell = self._buffer.pop()
        return self._cell

    def advance(self) -> None:
        """Move past the current cell."""
        if self._cell is None:
            self.peek()
        self._cell = None

    def skip_run(self) -> None:
        """Pass over the plain characters ahead (no cells made: a command whose text is
        not read). The next cell is special, a quote, an expansion or a line end."""
        if self._cell is not None and self._cell[0] not in _SPECIAL:
            self._cell = None
        if self._cell is not None:
            return
        self._buffer.clear()  # (only plain characters of a run wait there)
        m = (_RUN_QUOTED if self.inq else _RUN).match(self.text, self.pos)
        if m is not None:
            self.pos = m.end()

    def clean_line(self) -> tuple[int, int] | None:
        """The physical line ahead (start, end before its LF) when nothing of it is
        lexed yet, else ``None``."""
        if self._cell is not None or self._buffer or self.inq:
            return None
        end = self.text.find("\n", self.pos)
        return self.pos, len(self.text) if end < 0 else end

    def jump(self, pos: int) -> None:
        """Continue lexing at ``pos`` (after a line :meth:`clean_line` gave)."""
        self.pos = pos
        self.unsure = False

    def skip_physical_line(self) -> None:
        """Drop the rest of the physical line: the next cell is its line end."""
        cell = self.peek()
        if cell is None or cell[3] & NL:
            return
        start = cell[1]
        nl = _next_line_end(self.text, start)
        self._buffer.clear()
        self._cell = None
        self.pos = nl
        self.inq = False

    def _lex(self) -> None:
        """Lex the next cell(s) into the buffer (in reverse order)."""
        t, p = self.text, self.pos
        n = len(t)
        while p < n and t[p] == "\r":
            p += 1
        if p >= n:
            self.pos = n
            return
        ch = t[p]
        if ch in "\n\x1a":
            self.pos, self.inq, self.unsure = p + 1, False, False
            self._buffer.append(("\n", p, p + 1, NL))
            return
        base = (INQ if self.inq else 0) | (UNSURE if self.unsure else 0)
        if ch == "%":
            self._percent(p, p, base)
        elif ch == '"':
            self.inq = not self.inq
            self.pos = p + 1
            self._buffer.append(('"', p, p + 1, base | QCHAR))
        elif ch == "!":
            self.pos = p + 1
            self._buffer.append(("!", p, p + 1, base | BANG))
        elif ch == "^" and not self.inq:
            self._caret(p, base)
        else:
            m = _PLAIN.match(t, p)
            end = m.end() if m else p + 1
            self.pos = end
            self._buffer.extend((t[i], i, i + 1, base) for i in range(end - 1, p - 1, -1))

    def _percent(self, start: int, p: int, flags: int) -> None:
        t = self.text
        if t.startswith("%%", p):
            self.pos = p + 2
            self._buffer.append(("%", start, p + 2, flags | PCT2))
            return
        m = _PERCENT.match(t, p)
        end = m.end() if m else p + 1
        self.pos = end
        self.unsure = True
        self._buffer.append(("%", start, end, flags | DYN))

    def _caret(self, p: int, base: int) -> None:
        t = self.text
        n = len(t)
        q = p + 1
        while q < n and t[q] == "\r":
            q += 1
        if q < n and t[q] in "\n\x1a":  # a line continuation
            q += 1
            while q < n and t[q] == "\r":
                q += 1
            if q < n and t[q] in "\n\x1a":  # an escaped line end: a LF in the value
                self.pos = q + 1
                self._buffer.append(("\n", p, q + 1, base | ESC | DYN))
                return
            self.unsure = False  # a new physical line
            base &= ~UNSURE
        if q >= n:
            self.pos = n
            return
        if t[q] == "%":
            self._percent(p, q, base | ESC)
            return
        self.pos = q + 1
        self._buffer.append((t[q], p, q + 1, base | ESC))


_LINE_END = re.compile("[\n\x1a]")


def _next_line_end(text: str, start: int) -> int:
    """The position of the first LF or Ctrl-Z at or after ``start`` (or the end)."""
    m = _LINE_END.search(text, start)
    return m.start() if m else len(text)


def is_op(cell: Cell, chars: str = OPERATORS) -> bool:
    """Whether ``cell`` is one of the operator ``chars``, unescaped and unquoted."""
    return cell[0] in chars and not cell[3] & (ESC | INQ | NL | QCHAR)


__all__ = ["BANG", "DYN", "ESC", "INQ", "NL", "PCT2", "QCHAR", "UNSURE", "Cell", "Lexer", "is_op"]
