"""Text as make reads it, with each character's place in the document, and where a make
reference ends: shared by the makefile reader (:mod:`.lines`) and its values
(:mod:`.values`)."""

from __future__ import annotations

from typing import NamedTuple


class Chars(NamedTuple):
    """Text as make reads it: ``text[i]`` comes from the document's
    ``[starts[i], ends[i])`` (code points)."""

    text: str
    starts: list[int]
    ends: list[int]

    def sub(self, start: int, end: int) -> Chars:
        """``text[start:end]`` with its offsets."""
        return Chars(self.text[start:end], self.starts[start:end], self.ends[start:end])


def ref_end(text: str, i: int) -> int:
    """The end of the make reference starting with ``$`` at ``i``: ``$(...)``/``${...}``
    (make counts only its own kind of parenthesis), ``$$`` or ``$X``."""
    if i + 1 >= len(text):
        return i + 1
    op = text[i + 1]
    if op not in "({":
        return i + 2
    close = ")" if op == "(" else "}"
    depth = 0
    for j in range(i + 1, len(text)):
        if text[j] == op:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


__all__ = ["Chars", "ref_end"]
