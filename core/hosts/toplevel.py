"""Re-parse only the edited top-level statements of a shell script.

tree-sitter-bash re-parses a 10,000-line script in 50-80 ms even with the previous tree
(its external scanner state limits reuse), while the few lines around an edit parse in
well under a millisecond. :func:`window` finds the smallest run of whole lines around an
edit that holds only whole top-level statements of the previous parse (a *window*); when
the window, parsed on its own, is free of errors, the document outside it parses as before
and only the window's assignments need to be found again.

That holds because bash reads a script statement by statement: the text before a
statement boundary at a line start is not influenced by what follows, and unchanged text
after the window starts at a statement boundary again, as long as nothing carries state
across it. What could (a here-document, whose body follows its line; a backslash-newline
that joins two lines; anything tree-sitter marks as an error) makes :func:`window` decline,
and the caller parses the whole document incrementally. Tested: random edit sequences
give exactly the spans of a fresh parse (``tests/hosts/test_incremental.py``).

All offsets here are **bytes** of the UTF-8 document (tree-sitter's unit).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import tree_sitter

from ._ts import Parsed, edit_tree, parse_bytes
from .incremental import Edit, diff

#: A window larger than this (bytes) is not worth it: the whole document is re-parsed.
MAX_WINDOW = 64 * 1024


@dataclass
class Statements:
    """A parsed shell document (``parsed``: its bytes and tree) and the byte ranges of the
    root's children (``starts[i]``, ``ends[i]``, end exclusive, sorted, not overlapping).

    The tree is kept edited to match the bytes but is re-parsed only when a window is
    declined, so it stays usable as the old tree of an incremental parse.
    ``clean``: the last whole parse had no error, the precondition for windows."""

    parsed: Parsed
    starts: list[int]
    ends: list[int]
    clean: bool

    @classmethod
    def of(cls, data: bytes, tree: tree_sitter.Tree) -> Statements:
        """The statements of a whole parse of ``data``."""
        root = tree.root_node
        kids = root.children
        return cls(
            Parsed(data, tree),
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
    edit: Edit


def _spanning(st: Statements, pos: int) -> int | None:
    """End of the statement that starts before ``pos`` and reaches it, if any."""
    k = bisect_right(st.starts, pos - 1) - 1
    if k >= 0 and st.ends[k] >= pos:
        return st.ends[k]
    return None


def _bounds(st: Statements, edit: Edit) -> tuple[int, int]:
    """The smallest line-aligned range of the old bytes around ``edit`` whose ends are
    statement boundaries not preceded by a backslash-newline."""
    data = st.parsed.data
    start = data.rfind(b"\n", 0, edit.start) + 1
    while True:
        k = bisect_right(st.starts, start - 1) - 1
        if k >= 0 and st.ends[k] >= start:
            start = data.rfind(b"\n", 0, st.starts[k]) + 1
        elif start >= 2 and data[start - 2 : start] == b"\\\n":
            start = data.rfind(b"\n", 0, start - 1) + 1
        else:
            break
    end = edit.old_end
    while True:
        nl = data.find(b"\n", end)
        if nl < 0:
            return start, len(data)
        end = nl + 1
        reach = _spanning(st, end)
        if reach is not None:
            end = reach
        elif end >= 2 and data[end - 2 : end] == b"\\\n":
            continue
        else:
            return start, end


def window(st: Statements, new: bytes) -> Window | None:
    """The window for going from the parsed bytes to ``new``, parsed; ``None`` when the
    whole document must be re-parsed (see the module docstring). Does not change ``st``."""
    if not st.clean:
        return None
    edit = diff(st.parsed.data, new)
    if edit is None:
        return None
    start, old_end = _bounds(st, edit)
    new_end = old_end + edit.delta
    if new_end - start > MAX_WINDOW:
        return None
    old_bytes, new_bytes = st.parsed.data[start:old_end], new[start:new_end]
    if b"<<" in old_bytes or b"<<" in new_bytes or new_bytes.endswith(b"\\\n"):
        return None
    tree = parse_bytes("bash", new_bytes)
    if tree.root_node.has_error:
        return None
    return Window(start, old_end, new_end, tree, edit)


def apply(st: Statements, new: bytes, win: Window) -> None:
    """Make ``st`` describe ``new``: the window's statements replace the old ones, the
    later ones move, and the kept tree gets the edit (not re-parsed: stale)."""
    delta = win.new_end - win.old_end
    i = bisect_left(st.starts, win.start)
    j = bisect_left(st.starts, win.old_end)
    kids = win.tree.root_node.children
    starts = [win.start + k.start_byte for k in kids]
    ends = [win.start + k.end_byte for k in kids]
    st.starts[i:] = starts + [s + delta for s in st.starts[j:]]
    st.ends[i:] = ends + [e + delta for e in st.ends[j:]]
    edit_tree(st.parsed, new, win.edit)
