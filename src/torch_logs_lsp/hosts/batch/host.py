"""The cmd host: Windows batch files (``*.bat``, ``*.cmd``).

Commands are read as cmd.exe's batch parser reads them (:mod:`.batch_lines`,
:mod:`.batch_parse`; no cmd.exe runs here, so the rules follow the documentation cited
there and in ``tests/hosts/batch/test_host.py``). What ``set`` does with its argument is
documented by ``set /?`` and https://learn.microsoft.com/windows-server/administration/
windows-commands/set_1:

- ``set NAME=value``: the value is everything after the first ``=`` up to the end of the
  command (the line end, or an unquoted, unescaped ``&``, ``&&``, ``||``, ``|``): quotes
  and trailing blanks are part of it (``set X=a & echo`` sets ``a `` with its blank);
- ``set "NAME=value"``: the value ends at the last ``"`` of the command; what follows
  it is ignored;
- ``set NAME=`` (nothing after ``=``) removes the variable: not a value (no span);
- variable names are not case sensitive (``set torch_logs=x`` sets ``TORCH_LOGS``: the
  span names the family variable, its ``name_start..name_end`` the text as written);
- ``set /a`` (arithmetic) and ``set /p`` (reads stdin): a span whose value is not static;
- ``%X%``, ``%1``, ``%~dp0`` (phase 1) and ``!X!`` (when delayed expansion may be on)
  make a value not static; ``%%`` is ``%`` (in a FOR body ``%%i`` is the loop variable);
  a ``set`` whose command redirects (``>``, ``<``) or is part of a pipe (each side runs
  in a new cmd.exe) is not static either.

``setx NAME value`` writes the user's environment for processes started later (not this
script's commands, https://learn.microsoft.com/windows-server/administration/
windows-commands/setx): its value is read with the C runtime's argument rules (quotes
removed; a backslash before a quote makes it not static) and :func:`notes` says where it
goes (TL503). All offsets are **code points into the document**.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from torch_logs_lsp.hosts.batch.lines import BANG, DYN, PCT2, UNSURE, Cell
from torch_logs_lsp.hosts.batch.parse import Command, read
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Note, Overwrite, line_before, line_bounds, no_path_facts
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan
from torch_logs_lsp.value.paths import PathFacts

SPEC = HostSpec(
    "batch",
    ("*.bat", "*.cmd"),
    ("bat",),
    # ``rem`` is the documented comment (it also works inside a parenthesised block, where
    # ``::`` labels misbehave), so new comments are written with it
    line_comments=("rem", "::"),
    vscode_languages=("bat",),
)
HOST: HostKind = "batch"
DESCRIPTION = "batch files"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
#: ``set "X=abc`` without its closing quote: cmd's outcome is not documented.
NEVER_SET: str | None = None
STRIPS_TRAILING_BLANKS = False
RUNS_ON = "windows"
COMMENT_GRAMMAR: str | None = None
LINE_COMMENTS = True

_NAMES = {name.upper(): name for name in FAMILY}
_NEEDLE = re.compile(r"(?i)torch_?(?:logs|trace|compile_debug)")

# cmd keeps typographic quotes as characters; a straight pair around an unquoted value
# would be part of the value too, so the fix removes them.
quote_findings = kept_findings(False)


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: a batch file is known by its name."""
    return False


def may_hold_values(text: str) -> bool:
    """Whether ``text`` names a family variable in any case (cmd's names are not case
    sensitive)."""
    return _NEEDLE.search(text) is not None


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """A batch file runs on Windows: its paths are judged only when the checker runs
    there too."""
    if os.name == "nt":
        return no_path_facts(text, spans)
    return [PathFacts(runs_elsewhere="a batch file (it runs on Windows)")] * len(spans)


class Found:
    """A span with the command it came from."""

    __slots__ = ("command", "span")

    def __init__(self, span: ValueSpan, command: Command) -> None:
        self.span = span
        self.command = command


def _static(command: Command, cells: list[Cell]) -> bool:
    """Whether ``cells`` read the same whatever the environment: no ``%`` expansion (or
    text after one on its line), no line feed, no ``!`` unless delayed expansion is
    certainly off, no ``%%`` in a FOR body (the loop variable)."""
    for c in cells:
        flags = c[3]
        if flags & (DYN | UNSURE) or c[0] == "\n":
            return False
        if flags & BANG and command.delayed != "off":
            return False
        if flags & PCT2 and command.in_for:
            return False
    return True


def _span(
    command: Command,
    text: str,
    name: list[Cell],
    value: list[Cell],
    at: int,
    quote: str,
    terminated: bool = True,
) -> ValueSpan | None:
    """The span of ``name`` = ``value`` (cells; ``at``: the insertion point of an empty
    value), or ``None`` when the name is not a family name written plainly."""
    if not name:
        return None
    written = "".join(c[0] for c in name)
    variable = _NAMES.get(written.upper())
    start, end = name[0][1], name[-1][2]
    if variable is None or text[start:end] != written:
        return None
    static = (
        command.option == ""
        and not command.redirect
        and not command.piped
        and _static(command, name + value)
    )
    content_start = value[0][1] if value else at
    content_end = value[-1][2] if value else at
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=start,
        name_end=end,
        value="".join(c[0] for c in value) if static else None,
        char_starts=tuple(c[1] for c in value) if static else (),
        char_ends=tuple(c[2] for c in value) if static else (),
        content_start=content_start,
        content_end=content_end,
        raw_start=content_start,
        raw_end=content_end,
        quote=quote,
        terminated=terminated,
    )


def _set_span(command: Command, text: str) -> ValueSpan | None:
    args = command.args
    if not args:
        return None
    quote = ""
    terminated = True
    if args[0][0] == '"' and command.option == "":
        quote = '"'
        last = max(i for i, c in enumerate(args) if c[0] == '"')
        if last == 0:
            terminated = False
            inner = args[1:]
        else:
            inner = args[1:last]
    else:
        inner = args
    eq = next((i for i, c in enumerate(inner) if c[0] == "="), None)
    if eq is None:
        return None  # `set X` lists variables
    name, value = inner[:eq], inner[eq + 1 :]
    if command.option == "a":
        name = _trimmed(name)
    if not value and command.option == "":
        return None  # `set X=` removes X
    return _span(command, text, name, value, inner[eq][2], quote, terminated)


def _trimmed(cells: list[Cell]) -> list[Cell]:
    """``cells`` without blanks and quotes around them (a ``set /a`` name)."""
    lo, hi = 0, len(cells)
    while lo < hi and cells[lo][0] in ' \t"':
        lo += 1
    while hi > lo and cells[hi - 1][0] in ' \t"+-*/%&|^<>':
        hi -= 1
    return cells[lo:hi]


def _setx_span(command: Command, text: str) -> ValueSpan | None:
    """``setx NAME value`` (two arguments, or a trailing ``/m``): the C runtime's argv."""
    words: list[list[Cell]] = []
    raw: list[list[Cell]] = []
    current: list[Cell] | None = None
    inq = False
    for c in command.args:
        if c[0] in " \t" and not inq:
            current = None
            continue
        if current is None:
            current = []
            words.append(current)
            raw.append([])
        raw[-1].append(c)
        if c[0] == '"':
            inq = not inq
            continue
        current.append(c)
    if len(words) not in (2, 3) or (len(words) == 3 and "".join(w[0] for w in words[2]) != "/m"):
        return None
    if any(c[0] == '"' for c in raw[0]):
        return None
    value_raw = raw[1]
    text_raw = "".join(c[0] for c in value_raw)
    if "\\" in text_raw and '"' in text_raw:
        return None  # a backslash before a quote: argv's rules, not followed
    quoted = [i for i, c in enumerate(value_raw) if c[0] == '"']
    if not quoted:
        quote = ""
    elif quoted == [0, len(value_raw) - 1]:
        quote = '"'
    else:
        return None
    if not words[1]:
        return None  # `setx X ""` (an empty value: not a value torch reads)
    at = value_raw[0][2] if quote else value_raw[0][1]  # (between the quotes)
    return _span(command, text, words[0], words[1], at, quote)


@lru_cache(maxsize=4)
def found(text: str) -> tuple[Found, ...]:
    """Every span of ``text`` with its command, in document order (kept for the few
    texts in use). Never raises."""
    out: list[Found] = []
    for command in read(text).commands:
        span = _set_span(command, text) if command.kind == "set" else _setx_span(command, text)
        if span is not None:
            out.append(Found(span, command))
    return tuple(out)


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured`: see :mod:`.batch.capture`."""
    from torch_logs_lsp.hosts.batch.capture import stderr_captured as captured

    return captured(text, spans)


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The family ``set``/``setx`` values of a batch document (see the module docstring),
    in document order; every offset a code point into ``text``. ``cache`` is not used
    (the reading is linear). Never raises."""
    if not may_hold_values(text):
        return []
    return [f.span for f in found(text)]


def encode_part(quote: str, value: str) -> str | None:
    """``value`` for ``set NAME=<here>`` (``quote`` ``""``: ``&|<>()^`` escaped with
    ``^`` outside quotes, a ``"`` in the value toggles cmd's quote flag) or
    ``set "NAME=<here>"`` (``'"'``: literal, no ``"``, no ``\\`` at the end for setx);
    ``%`` is written ``%%``. ``None`` for a line break or a ``!`` (delayed expansion
    may be on)."""
    if any(ch in value for ch in "\r\n\x1a!"):
        return None
    if quote == '"':
        if '"' in value or value.endswith("\\"):
            return None
        return value.replace("%", "%%")
    if quote != "":
        return None
    out: list[str] = []
    inq = False
    for ch in value:
        if ch == '"':
            inq = not inq
        elif ch == "%":
            ch = "%%"
        elif not inq and ch in "&|<>()^":
            ch = "^" + ch
        out.append(ch)
    return "".join(out)


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The whole line of a ``set`` that stands alone on it, outside any block or
    condition."""
    for f in found(text):
        if f.span.name_start != span.name_start:
            continue
        c = f.command
        if c.kind != "set" or c.depth or c.cond or not c.whole_line or c.option:
            return None
        ls, le, after = line_bounds(text, c.start, c.start)
        if span.raw_end > le or text[ls:le].rstrip(" \t\r").endswith("^"):
            return None  # a line continued onto the next
        return f"Remove the `set {span.variable}` line", TextEdit(ls, after, "")
    return None


_SETX_NOTE = (
    "setx writes {name} to the user's environment for processes started later (a new "
    "console): the commands of this script do not see it"
)


def notes(text: str, spans: list[ValueSpan]) -> list[Note]:
    """TL503 on every ``setx`` value."""
    kinds = {f.span.name_start: f.command.kind for f in found(text)} if spans else {}
    return [
        Note(i, "TL503", _SETX_NOTE.format(name=s.variable))
        for i, s in enumerate(spans)
        if kinds.get(s.name_start) == "setx"
    ]


_WHY = "{name} is set again before any command runs"


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """A top-level, unconditional ``set NAME=value`` followed by another of the same
    variable with only other plain ``set``s (no expansion) between them. Never raises."""
    if len(spans) < 2:
        return []
    reading = read(text)
    index = {s.name_start: i for i, s in enumerate(spans)}
    last: dict[str, int] = {}  # variable -> index into spans of its last plain set
    out: list[Overwrite] = []
    for event in reading.events:
        command = reading.commands[event] if event >= 0 else None
        if command is None or command.kind != "set" or command.option or command.piped:
            last.clear()
            continue
        span = _set_span(command, text)
        i = index.get(span.name_start) if span is not None else None
        if span is None or i is None or spans[i] != span:
            if not _static(command, command.args) or command.redirect:
                last.clear()  # it may read a variable
            elif _removes_family(command):
                last.clear()
            continue
        if span.value is None:
            last.clear()
            continue
        before = last.get(span.variable)
        if before is not None and before < i:
            out.append(Overwrite(before, i, _WHY.format(name=span.variable)))
        last[span.variable] = i
    return out


def _removes_family(command: Command) -> bool:
    """``set TORCH_LOGS=`` (a removal, no span): it ends a chain."""
    names = "".join(c[0] for c in command.args).lstrip('"').split("=", 1)[0]
    return names.upper() in _NAMES


_NAME_LINE = re.compile(
    r"(?i)(?:^|[&(])[ \t]*@?[ \t]*set[ \t]+\"?([A-Za-z_][A-Za-z0-9_]*)?$|^[ \t]*@?[ \t]*"
    r"(?:if\b.*[ \t])set[ \t]+\"?([A-Za-z_][A-Za-z0-9_]*)?$"
)


def typed_name(text: str, offset: int) -> str | None:
    """After ``set `` (or ``set "``) at the start of a command."""
    m = _NAME_LINE.search(line_before(text, offset))
    if m is None:
        return None
    return m.group(1) or m.group(2) or ""
