"""Reading a cell's text (for :mod:`.ipython`): a cell magic's first line decides what its
body is (IPython 9's ``cell_magic`` line transform, after it drops leading blank lines
and dedents the cell; ``ScriptMagics``, ``ExecutionMagics``); any other cell is read by
:mod:`.ipython_escapes`, and its escapes give this host's own spans (:mod:`.ipython_values`).

All offsets are **code points into the document text** (the cell).
"""

from __future__ import annotations

import logging
import re
import shlex
from typing import NamedTuple

from torch_logs_lsp.hosts.embedded import EmbeddedCode
from torch_logs_lsp.hosts.ipython.escapes import Escape, _dedented, _lines, read_cell
from torch_logs_lsp.hosts.ipython.values import LINE_ENDS, bang_spans, cell_spans, env_span
from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: Cell magics whose body is a shell script read from stdin (``ScriptMagics``).
SHELL_CELLS = frozenset({"bash", "sh"})
#: Cell magics that run their body as a cell in this process (``ExecutionMagics``).
PYTHON_CELLS = frozenset({"time", "timeit", "capture"})
#: ``ScriptMagics`` options (``--out x``, ``--bg``): they do not change the script.
_SCRIPT_FLAGS = frozenset({"--bg", "--no-raise-error"})
_SCRIPT_OPTIONS = frozenset({"--out", "--err", "--proc"})
_SHELLS = frozenset({"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/sh"})
_MAX_DEPTH = 8  # `%%time` inside `%%capture` inside ...
_NOTEBOOK_JSON = re.compile(r'\A\s*\{\s*"(?:cells|metadata|nbformat(?:_minor)?)"\s*:')


class Reading(NamedTuple):
    """A cell as read: the Python ``view`` (same length), this host's own spans (``%env``
    and shell values, document order), the escapes found (document order) and where the
    cell's code starts (after a ``%%time`` line: an import added before it would end the
    cell magic)."""

    view: str
    own: list[ValueSpan]
    escapes: list[Escape]
    start: int = 0


def _blank(text: str) -> str:
    """``text`` with every code point but line breaks replaced by a blank."""
    return "".join(c if c in LINE_ENDS else " " for c in text)


def _shell_magic(magic: str, args: str) -> bool:
    """Whether ``%%magic args`` runs its body with bash or sh."""
    try:
        words = shlex.split(args)
    except ValueError:
        return False
    rest: list[str] = []
    i = 0
    while i < len(words):
        if words[i] in _SCRIPT_FLAGS:
            i += 1
        elif words[i] in _SCRIPT_OPTIONS:
            i += 2
        elif words[i].startswith("-"):
            return False  # an option the magic refuses, or that changes the script
        else:
            rest.append(words[i])
            i += 1
    if magic in SHELL_CELLS:
        return not rest
    return magic == "script" and len(rest) == 1 and rest[0] in _SHELLS


def _read(text: str, base: int, depth: int) -> Reading:
    lines = _lines(text)
    first = next((i for i, line in enumerate(lines) if line and not line.isspace()), None)
    if first is not None:
        cuts = _dedented(lines[first:])
        head = lines[first][cuts[0] :] if cuts is not None else ""
        if head.startswith("%%") and not re.match(r"%%\w+\?", head):
            return _cell_magic(text, base, depth, lines, first, cuts or [])
    cell = read_cell(text, base)
    if cell is None:
        return Reading(_blank(text), [], [], base)
    own: list[ValueSpan] = []
    for esc in cell.escapes:
        if esc.kind in ("!", "!!", "=!"):
            own += bang_spans(esc.code)
        elif esc.kind in ("%", "=%"):
            name, sep, _ = esc.code.text.partition(" ")
            if name in ("env", "set_env") and sep:
                k = len(name) + 1
                args = EmbeddedCode(
                    esc.code.text[k:], esc.code.starts[k:], esc.code.ends[k:], esc.code.end, ""
                )
                found = env_span(args)
                own += [found] if found is not None else []
    return Reading(cell.view, own, cell.escapes, base)


def _cell_magic(
    text: str, base: int, depth: int, lines: list[str], first: int, cuts: list[int]
) -> Reading:
    head = lines[first][cuts[0] :]
    magic, _, args = head[2:].rstrip().partition(" ")
    head_end = sum(len(line) for line in lines[: first + 1])
    if magic in PYTHON_CELLS and depth < _MAX_DEPTH and not any(cuts) and head_end < len(text):
        inner = _read(text[head_end:], base + head_end, depth + 1)
        return Reading(_blank(text[:head_end]) + inner.view, inner.own, inner.escapes, inner.start)
    if not _shell_magic(magic, args):
        return Reading(_blank(text), [], [])
    chars: list[str] = []
    starts: list[int] = []
    pos = head_end
    for line, cut in zip(lines[first + 1 :], cuts[1:], strict=True):
        for k in range(cut, min(len(line), len(text) - pos)):
            chars.append(line[k])
            starts.append(base + pos + k)
        pos += len(line)
    code = EmbeddedCode("".join(chars), starts, [s + 1 for s in starts], base + len(text), None)
    return Reading(_blank(text), cell_spans(code), [])


_last: list[tuple[str, Reading]] = []


def read(text: str) -> Reading:
    """The cell ``text`` as read (the last few readings are remembered: the server asks
    for the spans, the notes and the fixes of one version in a row). Never raises: a
    failure reads as nothing (logged)."""
    for seen, found in _last:
        if seen is text or seen == text:
            return found
    if _NOTEBOOK_JSON.match(text):
        found = Reading(_blank(text), [], [])  # a notebook FILE is notebook/reader.py's
    else:
        try:
            found = _read(text, 0, 0)
        except Exception:  # bad input never crashes the server
            log.exception("ipython: reading a cell failed")
            found = Reading(_blank(text), [], [])
    _last[:] = [(text, found), *_last[:1]]
    return found
