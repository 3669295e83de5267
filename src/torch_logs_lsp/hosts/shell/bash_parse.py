"""Parse a shell script with tree-sitter-bash, corrected where its lexer and bash disagree.

tree-sitter-bash (0.23-0.25) ends an ANSI-C string ``$'...'`` at the first ``'`` not
preceded by a backslash, so ``$'a\\\\'`` (a backslash, escaped) is taken to go on past its
closing quote: ``A=$'a\\\\'' # c`` is one string to tree-sitter, while bash ends the string
after ``\\\\`` and opens a single-quoted string with the next ``'``. Every assignment after it
was then placed wrongly: ``check --fix`` edited text inside another variable's string and
broke the script. bash's rule (``parse.y``,
``parse_matched_pair`` with ``P_ALLOWESC``): inside ``$'...'`` a backslash pairs with the
next character, whatever it is; the first unpaired ``'`` closes the string.

:func:`parse_bash` parses, finds each ANSI-C string tree-sitter ends elsewhere than bash
would, and parses again with that string's escape pairs masked (each byte of a pair
becomes ``x``; the length is kept, so every offset stays valid). Values are always decoded
from the document's own text (``shell_words.scan_word``), never from the masked bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import parse_bytes

if TYPE_CHECKING:
    import tree_sitter

#: Rounds of correction before the tree is taken as it is (each round fixes at least the
#: first string tree-sitter got wrong; real scripts need one at most).
MAX_ROUNDS = 64


def ansi_c_end(data: bytes, body: int) -> int | None:
    """Byte offset just after the closing quote of an ANSI-C string whose body starts at
    ``body`` (after ``$'``), as bash lexes it; ``None`` when it is never closed."""
    i, n = body, len(data)
    while i < n:
        b = data[i]
        if b == 0x27:  # '
            return i + 1
        i += 2 if b == 0x5C else 1  # a backslash pairs with the next byte
    return None


def _first_wrong(data: bytes, tree: tree_sitter.Tree, start: int) -> tuple[int, int] | None:
    """The first ANSI-C string at or after byte ``start`` that tree-sitter ends elsewhere
    than bash: ``(body start, bash's end)``."""
    root = tree.root_node
    at = data.find(b"$'", start)
    while at >= 0:
        node = root.descendant_for_byte_range(at, at + 2)
        while node is not None and node.type != "ansi_c_string" and node.start_byte == at:
            node = node.parent
        if node is not None and node.type == "ansi_c_string" and node.start_byte == at:
            end = ansi_c_end(data, at + 2)
            if end is not None and end != node.end_byte:
                return at + 2, end
        at = data.find(b"$'", at + 2)
    return None


def _mask(data: bytearray, body: int, end: int) -> None:
    i = body
    while i < end - 1:
        if data[i] == 0x5C:
            data[i] = data[i + 1] = 0x78  # "xx": no backslash left for tree-sitter to misread
            i += 2
        else:
            i += 1


def parse_bash(data: bytes) -> tree_sitter.Tree:
    """A fresh tree-sitter-bash parse of UTF-8 ``data`` in which every ANSI-C string ends
    where bash ends it (see the module docstring). Node offsets are bytes into ``data``
    (the masked bytes have the same length); node *texts* may show the masking, so read
    texts from ``data``. Never raises for any bytes."""
    tree = parse_bytes("bash", data)
    if b"$'" not in data:
        return tree
    masked: bytearray | None = None
    start = 0
    for _ in range(MAX_ROUNDS):
        current = data if masked is None else bytes(masked)
        wrong = _first_wrong(current, tree, start)
        if wrong is None:
            break
        if masked is None:
            masked = bytearray(data)
        body, end = wrong
        _mask(masked, body, end)
        start = end
        tree = parse_bytes("bash", bytes(masked))
    return tree


__all__ = ["MAX_ROUNDS", "ansi_c_end", "parse_bash"]
