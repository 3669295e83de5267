"""A tree-sitter tree read once where it is asked about: :class:`TreeIndex`.

tree-sitter finds a node's parent, its next sibling and the node at a byte range by
descending from the root: each costs the depth of the tree. A long ``a && \\`` chain
in a shell script is one statement nested as deep as it is long, so doing that for each
of its values was quadratic (16,000 lines: minutes). The index walks each top-level
statement that is asked about once with a cursor (linear in its size; statements not
asked about are not walked) and answers from what it saw. Offsets are bytes of the
parsed source.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

#: A node seen by the walk: (start byte, end byte, depth under its statement, node).
_Seen = tuple[int, int, int, "tree_sitter.Node"]


class TreeIndex:
    """Parents, next siblings and byte-range lookups in the tree under ``root`` (the tree
    must not change while the index is used). :meth:`descendant` queries must come with
    non-decreasing start bytes; others fall back to tree-sitter's own lookup."""

    def __init__(self, root: tree_sitter.Node) -> None:
        self.root = root
        self._parent: dict[int, tree_sitter.Node] = {}
        self._next: dict[int, tree_sitter.Node] = {}
        self._top = root.children
        for a, b in zip(self._top, self._top[1:], strict=False):
            self._next[a.id] = b
        for kid in self._top:
            self._parent[kid.id] = root
        self._starts = [kid.start_byte for kid in self._top]
        self._walked: set[int] = set()  # indexes into _top
        self._current = -1  # the top-level statement of the sweep
        self._order: list[_Seen] = []
        self._at = 0  # the next node of _order to open
        self._stack: list[_Seen] = []
        self._last = -1

    def _walk(self, k: int) -> list[_Seen]:
        """Every node under top-level statement ``k`` in pre-order, its parents and next
        siblings recorded."""
        out: list[_Seen] = []
        path: list[tree_sitter.Node] = []
        cursor = self._top[k].walk()
        while True:
            node = cursor.node
            assert node is not None  # a cursor is always on a node
            if path:
                self._parent[node.id] = path[-1]
            out.append((node.start_byte, node.end_byte, len(path), node))
            if cursor.goto_first_child():
                path.append(node)
                continue
            while not (path and cursor.goto_next_sibling()):
                if not path:  # back at the statement: every node seen
                    self._walked.add(k)
                    return out
                cursor.goto_parent()
                node = path.pop()
            sibling = cursor.node
            assert sibling is not None
            self._next[node.id] = sibling

    def parent(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """``node.parent`` (tree-sitter's own lookup for a node not walked)."""
        found = self._parent.get(node.id)
        return found if found is not None else node.parent

    def next_sibling(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """``node.next_sibling`` (tree-sitter's own lookup for a node not walked)."""
        found = self._next.get(node.id)
        if found is not None and found.start_byte != found.end_byte:
            return found
        if found is None and node.id in self._parent:
            return None
        return node.next_sibling  # (tree-sitter skips some empty MISSING nodes: its own)

    def descendant(self, start: int, end: int) -> tree_sitter.Node | None:
        """``root.descendant_for_byte_range(start, end)`` for a non-empty range: the
        deepest node with ``start_byte <= start < end_byte`` and ``end_byte >= end``."""
        k = bisect.bisect_right(self._starts, start) - 1
        if (
            end <= start
            or start < self._last
            or k < 0
            or not (start < self._top[k].end_byte and end <= self._top[k].end_byte)
        ):
            return self.root.descendant_for_byte_range(start, end)
        self._last = start
        if k != self._current:
            if k in self._walked:  # (queries go forward: a statement is swept once)
                return self.root.descendant_for_byte_range(start, end)
            self._current, self._order, self._at, self._stack = k, self._walk(k), 0, []
        order, stack = self._order, self._stack
        while self._at < len(order) and order[self._at][0] <= start:
            item = order[self._at]
            del stack[item[2] :]
            stack.append(item)
            self._at += 1
        for s, e, _, node in reversed(stack):  # the deepest first: nested, so one stops
            if s <= start < e and e >= end:
                return node
        return self.root.descendant_for_byte_range(start, end)
