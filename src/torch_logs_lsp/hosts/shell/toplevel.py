"""Re-parse only the edited top-level statements of a shell script.

tree-sitter-bash re-parses a 10,000-line script in 50-80 ms even with the previous tree
(its external scanner state limits reuse), while the few lines around an edit parse in
well under a millisecond. :func:`window` finds the smallest run of whole lines around an
edit that holds only whole top-level statements of the previous parse (a *window*); when
the window, parsed on its own, is free of errors, the document outside it parses as before
and only the window's assignments need to be found again.

That holds because bash reads a script statement by statement, and tree-sitter-bash does
too as long as the edit only changes characters inside words (:data:`_WORDISH`: typing a
value); anything else (a quote, whose token tree-sitter's lexer may look for far past the
window; a blank, ``=`` or operator, which can make tree-sitter join the next line to a
command) makes :func:`window` decline. It also declines when the window holds a
here-document (whose body follows its line) or ends in a backslash-newline, when the
window parsed alone has an error, and when the statement after the window, parsed with
it, is no longer the same statement (the edit reached past the window). Then the caller
parses the whole document. Tested: random edit sequences give exactly the spans of a
fresh parse (``tests/hosts/test_incremental.py``).

All offsets here are **bytes** of the UTF-8 document (tree-sitter's unit).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.incremental import Edit, diff, near_escape
from torch_logs_lsp.hosts.shell.bash_parse import parse_bash

if TYPE_CHECKING:
    import tree_sitter

#: What an edit may remove and insert for a window: characters that only ever continue a
#: word (typing a value). Quotes, backslashes, ``$``, ``=``, blanks and operators can move
#: where tree-sitter-bash ends a token or a command, even past the window (its lexer
#: reads ahead to the next quote; a newline after an assignment-only command can join the
#: next line): found by the property test, so such edits re-parse the whole document.
_WORDISH = re.compile(rb"[A-Za-z0-9_,.+\-/:@%]*")

#: A window larger than this (bytes) is not worth it: the whole document is re-parsed.
MAX_WINDOW = 64 * 1024


@dataclass
class Statements:
    """A parsed shell document: its bytes and the byte ranges of its parse's top-level
    statements (``starts[i]``, ``ends[i]``, end exclusive, sorted, not overlapping). The
    tree itself is not kept: a declined window means a fresh parse of the whole document.
    ``clean``: the last whole parse had no error, the precondition for windows."""

    data: bytes
    starts: list[int]
    ends: list[int]
    clean: bool

    @classmethod
    def of(cls, data: bytes, tree: tree_sitter.Tree) -> Statements:
        """The statements of a whole parse of ``data``."""
        root = tree.root_node
        kids = root.children
        return cls(
            data,
            [k.start_byte for k in kids],
            [k.end_byte for k in kids],
            not root.has_error,
        )


@dataclass(frozen=True)
class Window:
    """An accepted window: ``old[start:old_end]`` became ``new[start:new_end]`` and
    ``tree`` is the parse of the new window's bytes alone (offsets relative to ``start``)."""

    start: int
    old_end: int
    new_end: int
    tree: tree_sitter.Tree


def _spanning(st: Statements, pos: int) -> int | None:
    """End of the statement that starts before ``pos`` and reaches it, if any."""
    k = bisect_right(st.starts, pos - 1) - 1
    if k >= 0 and st.ends[k] >= pos:
        return st.ends[k]
    return None


def _line_end_after(st: Statements, pos: int) -> int:
    """The first line end at or after ``pos`` that is a statement boundary not preceded
    by a backslash-newline (the position after its ``\\n``, or the end of the data)."""
    data = st.data
    end = pos
    while True:
        nl = data.find(b"\n", end)
        if nl < 0:
            return len(data)
        end = nl + 1
        reach = _spanning(st, end)
        if reach is not None:
            end = reach
        elif not (end >= 2 and data[end - 2 : end] == b"\\\n"):
            return end


def _bounds(st: Statements, edit: Edit) -> tuple[int, int, int | None]:
    """The smallest line-aligned range of the old bytes around ``edit`` whose ends are
    statement boundaries not preceded by a backslash-newline, extended by the statement
    that follows it (the *guard*, whose index is returned; ``None`` at the end)."""
    data = st.data
    start = data.rfind(b"\n", 0, edit.start) + 1
    while True:
        k = bisect_right(st.starts, start - 1) - 1
        if k >= 0 and st.ends[k] >= start:
            start = data.rfind(b"\n", 0, st.starts[k]) + 1
        elif start >= 2 and data[start - 2 : start] == b"\\\n":
            start = data.rfind(b"\n", 0, start - 1) + 1
        else:
            break
    end = _line_end_after(st, edit.old_end)
    guard = bisect_left(st.starts, end)
    if guard >= len(st.starts):
        return start, end, None
    return start, _line_end_after(st, st.ends[guard]), guard


def window(st: Statements, new: bytes) -> Window | None:
    """The window for going from the parsed bytes to ``new``, parsed; ``None`` when the
    whole document must be re-parsed (see the module docstring). Does not change ``st``."""
    if not st.clean:
        return None
    edit = diff(st.data, new)
    if edit is None:
        return None
    removed, inserted = st.data[edit.start : edit.old_end], new[edit.start : edit.new_end]
    if not (_WORDISH.fullmatch(removed) and _WORDISH.fullmatch(inserted)):
        return None
    if near_escape(new, edit.start):
        return None
    start, old_end, guard = _bounds(st, edit)
    new_end = old_end + edit.delta
    if new_end - start > MAX_WINDOW:
        return None
    old_bytes, new_bytes = st.data[start:old_end], new[start:new_end]
    if b"<<" in old_bytes or b"<<" in new_bytes or new_bytes.endswith(b"\\\n"):
        return None
    tree = parse_bash(new_bytes)
    root = tree.root_node
    if root.has_error:
        return None
    if guard is not None:
        # The statement after the edited ones is unchanged text: it must still be a
        # statement of its own, where it was (else the edit reaches past the window, e.g.
        # a newline that tree-sitter-bash now reads as part of a longer command).
        at = (st.starts[guard] + edit.delta - start, st.ends[guard] + edit.delta - start)
        if not any((k.start_byte, k.end_byte) == at for k in root.children):
            return None
    return Window(start, old_end, new_end, tree)


def apply(st: Statements, new: bytes, win: Window) -> None:
    """Make ``st`` describe ``new``: the window's statements replace the old ones, the
    later ones move."""
    delta = win.new_end - win.old_end
    i = bisect_left(st.starts, win.start)
    j = bisect_left(st.starts, win.old_end)
    kids = win.tree.root_node.children
    starts = [win.start + k.start_byte for k in kids]
    ends = [win.start + k.end_byte for k in kids]
    st.starts[i:] = starts + [s + delta for s in st.starts[j:]]
    st.ends[i:] = ends + [e + delta for e in st.ends[j:]]
    st.data = new
