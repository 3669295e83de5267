"""Edits of a decoded TORCH_LOGS value and the bookkeeping that keeps fixing a value
near-linear in its length (a value may be 100 KB or hold 10,000 items): item lookups by
bisection, change checks without building the new value, clash checks by bisection.
All offsets are code points into the decoded value."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable
from dataclasses import dataclass

from torch_logs_lsp.value.parser import Item, ParsedValue

_SEPARATORS = re.compile(r"[\s;|]")
_SEPARATOR_RUNS = re.compile(r"[\s;|]+")


@dataclass(frozen=True)
class ValueEdit:
    """Replace the decoded value's ``[start, end)`` (code points) with ``text``."""

    start: int
    end: int
    text: str


def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` replacement applied (code points,
    non-overlapping ranges), in O(len(text) + edits): the text is built once. Equal ranges
    land in the order applying them one by one from the end would give (the later edit of
    two insertions at one offset comes first)."""
    pieces: list[str] = []
    at = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True)[::-1]:
        pieces += (text[at:start], new)
        at = max(at, end)
    pieces.append(text[at:])
    return "".join(pieces)


def apply_edits(value: str, edits: Iterable[ValueEdit]) -> str:
    """``value`` with ``edits`` applied (non-overlapping; O(n + edits), built once)."""
    return splice(value, ((e.start, e.end, e.text) for e in edits))


class ItemIndex:
    """Lookups over a value's items in O(log n) (a value may have 10,000 items): the item
    holding a diagnostic, and the last earlier valid item of the same name."""

    def __init__(self, parsed: ParsedValue) -> None:
        self.items = parsed.items
        self.starts = [item.start for item in parsed.items]
        self.earlier: dict[int, Item] = {}
        self.separators: dict[int, bool] = {}
        self.text = parsed.text
        self.runs: list[tuple[int, int]] | None = None  # separator runs, found once
        last: dict[str, Item] = {}
        for item in parsed.items:
            if item.valid:
                if item.name in last:
                    self.earlier[item.index] = last[item.name]
                last[item.name] = item

    def has_separator(self, item: Item) -> bool:
        """Whether the item's name holds ``;``, ``|`` or whitespace (once per item: an
        item with thousands of problems is searched once, not once per problem)."""
        found = self.separators.get(item.index)
        if found is None:
            found = self.separators[item.index] = bool(_SEPARATORS.search(item.name))
        return found

    def separator_run(self, pos: int) -> tuple[int, int] | None:
        """The maximal run ``[start, end)`` of ``;``, ``|`` and whitespace code points
        holding ``pos`` (an offset into the value), ``None`` when ``text[pos]`` is none of
        them. O(log n) after one O(n) pass: a run of 100,000 spaces has one diagnostic per
        code point and each asks for its run (a scan per diagnostic was quadratic)."""
        if self.runs is None:
            self.runs = [m.span() for m in _SEPARATOR_RUNS.finditer(self.text)]
            self.run_starts = [start for start, _ in self.runs]
        i = bisect_right(self.run_starts, pos) - 1
        if i >= 0 and pos < self.runs[i][1]:
            return self.runs[i]
        return None

    def at(self, start: int, end: int) -> Item | None:
        """The item whose range holds ``[start, end)`` (items do not overlap)."""
        i = bisect_right(self.starts, start) - 1
        if i < 0:
            return None
        item = self.items[i]
        if item.start <= start and end <= item.end and start < item.end:
            return item
        return None


class ValueChanges:
    """Whether edits change a value and leave something in it, without building the new
    value (O(edits) per fix after O(n) once)."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.solid = [0]  # solid[i]: non-whitespace code points in value[:i]
        for ch in value:
            self.solid.append(self.solid[-1] + (not ch.isspace()))

    def keeps_a_value(self, edits: tuple[ValueEdit, ...]) -> bool:
        """``apply_edits(value, edits)`` differs from the value and is not blank."""
        if len(edits) != 1:  # only the quotes' removal: once per value
            new = apply_edits(self.value, edits)
            return bool(new.strip()) and new != self.value
        e = edits[0]
        if self.value[e.start : e.end] == e.text:
            return False
        return bool(e.text.strip()) or self.solid[e.end] - self.solid[e.start] < self.solid[-1]


def non_overlapping(fixes: Iterable[tuple[ValueEdit, ...]]) -> list[ValueEdit]:
    """Edits of as many edit groups (one fix's edits each, sorted) as fit without
    overlapping, first come first served (a group is all or nothing).

    ``chosen`` stays sorted; chosen ranges do not overlap, so their ends grow with their
    starts and one neighbour (found by bisection) decides a clash: O(log n) per edit.
    """
    chosen: list[tuple[int, int]] = []
    edits: list[ValueEdit] = []

    def clashes(e: ValueEdit) -> bool:
        i = bisect_left(chosen, (e.end, -1))  # chosen[:i] start before e ends
        if i > 0 and chosen[i - 1][1] > e.start:
            return True  # the last of them overlaps e (or holds e's position)
        j = bisect_left(chosen, (e.start, e.end))
        return j < len(chosen) and chosen[j] == (e.start, e.end)

    for group in fixes:
        if not any(clashes(e) for e in group):
            for e in group:
                insort(chosen, (e.start, e.end))
            edits += group
    return edits


__all__ = ["ItemIndex", "ValueChanges", "ValueEdit", "apply_edits", "non_overlapping", "splice"]
