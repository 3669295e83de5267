"""Tree-sitter plumbing shared by the tree-sitter hosts (imported lazily by them).

Tree-sitter works on UTF-8 bytes; value spans use code points. :class:`Source` encodes a
document once and converts byte offsets back to code-point offsets.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

import tree_sitter

_SURROGATE = re.compile("[\ud800-\udfff]")
_languages: dict[str, tree_sitter.Language] = {}


def _language(name: str) -> tree_sitter.Language:
    lang = _languages.get(name)
    if lang is None:
        if name == "json":
            import tree_sitter_json

            lang = tree_sitter.Language(tree_sitter_json.language())
        else:
            import tree_sitter_bash

            lang = tree_sitter.Language(tree_sitter_bash.language())
        _languages[name] = lang
    return lang


def _utf8_len(cp: int) -> int:
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


class Source:
    """A document as tree-sitter sees it, with byte -> code point conversion.

    Lone surrogates (possible in a Python ``str``) are encoded as U+FFFD, which has the same
    UTF-8 length (3 bytes) as a surrogate would, so every code point keeps its byte width
    and the bytes are valid UTF-8.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            self.data = _SURROGATE.sub("\ufffd", text).encode("utf-8")
        self._starts: list[int] | None = None
        if len(self.data) != len(text):
            # _starts[i] = byte offset of code point i; last entry = len(data).
            self._starts = list(accumulate(map(_utf8_len, map(ord, text)), initial=0))

    def cp(self, byte_offset: int) -> int:
        """The code point offset of ``byte_offset`` (rounded down inside a sequence)."""
        if self._starts is None:
            return byte_offset
        return max(0, bisect_right(self._starts, byte_offset) - 1)

    def parse(self, language: str) -> tree_sitter.Tree:
        """Parse with the named grammar (``"json"`` or ``"bash"``)."""
        parser = tree_sitter.Parser(_language(language))
        return parser.parse(self.data)


def walk(
    root: tree_sitter.Node, wanted: Callable[[tree_sitter.Node], bool]
) -> list[tree_sitter.Node]:
    """All nodes under ``root`` (pre-order, iterative) for which ``wanted`` is true."""
    found: list[tree_sitter.Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None and wanted(node):
            found.append(node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found
