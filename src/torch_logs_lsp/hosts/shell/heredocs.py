"""Heredoc bodies tree-sitter-bash does not see: a ``<<EOF`` before the command name.

tree-sitter-bash 0.25 reads ``<<EOF cat`` (a heredoc redirect that opens a simple command,
which bash allows: redirections may come anywhere in a command) as an ``ERROR`` node for
the first ``<`` and a ``<EOF`` file redirect; the body lines after it are then parsed as
commands, so ``TORCH_LOGS=r`` in the body looked like an assignment. bash reads that body
as the command's standard input (``bash -c $'<<EOF cat\\nTORCH_LOGS=r\\nEOF'`` prints
``TORCH_LOGS=r``). :func:`bodies` finds such bodies so that nothing in them is read as
shell code. Offsets are **code points into the text** given.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

_OPEN = re.compile(rb"<<(-?)[ \t]*")
_META = frozenset(" \t\n;&|<>()")


def _delimiter(text: str, pos: int) -> tuple[str, int] | None:
    """The heredoc word at ``text[pos:]`` with quotes and backslashes removed (bash's
    delimiter), and where the word ends; ``None`` for no word or an unclosed quote."""
    out: list[str] = []
    i, n = pos, len(text)
    while i < n and text[i] not in _META:
        c = text[i]
        if c in "'\"":
            close = text.find(c, i + 1)
            if close < 0:
                return None
            out.append(text[i + 1 : close])
            i = close + 1
        elif c == "\\" and i + 1 < n:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return ("".join(out), i) if i > pos else None


def _error_at(root: tree_sitter.Node, at: int) -> bool:
    node = root.descendant_for_byte_range(at, at + 1)
    parent = node.parent if node is not None and node.type == "<" else None
    return parent is not None and parent.type == "ERROR"


def bodies(src: Source, root: tree_sitter.Node) -> list[tuple[int, int]]:
    """``[start, end)`` of each heredoc body (terminator line included) whose ``<<``
    tree-sitter-bash took for an ``ERROR`` (see the module docstring), in order, as code
    points into ``src.text``; ``root`` is the root of ``src``'s tree. A body without a
    terminator runs to the end of the text (bash reads it so, with a warning). Never
    raises."""
    out: list[tuple[int, int]] = []
    if b"<<" not in src.data:
        return out
    text = src.text
    for m in _OPEN.finditer(src.data):
        start = m.start()
        if not any(_error_at(root, at) for at in (start, start + 1)):
            continue  # `3<<EOF cmd`: the second `<` is the ERROR
        at = src.cp(m.end())
        found = _delimiter(text, at)
        if found is None:
            continue
        name, word_end = found
        nl = text.find("\n", word_end)
        if nl < 0:
            continue
        body = nl + 1
        if out and out[-1][0] <= body < out[-1][1]:
            body = out[-1][1]  # a second heredoc of the line: its body follows the first
        end = pos = body
        while pos < len(text):
            nl = text.find("\n", pos)
            stop = len(text) if nl < 0 else nl + 1
            line = text[pos:stop].rstrip("\n")
            if (line.lstrip("\t") if m.group(1) else line) == name:
                end = stop
                break
            pos = end = stop
        out.append((body, end))
    return out


def inside(regions: list[tuple[int, int]], offset: int) -> bool:
    """Whether ``offset`` lies in one of the ``[start, end)`` ``regions``."""
    return any(a <= offset < b for a, b in regions)
