"""Offset <-> LSP position conversion in each encoding (emoji, combining marks, CRLF)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from torch_logs_lsp.server.positions import PositionMapper

TEXT = "a🙂é\u0301b\r\nx😀y\rz\n"


@pytest.mark.parametrize(
    ("encoding", "offset", "line", "character"),
    [
        ("utf-16", 1, 0, 1),
        ("utf-16", 2, 0, 3),  # after the emoji: two UTF-16 units
        ("utf-16", 4, 0, 5),  # é + combining acute: one unit each
        ("utf-8", 2, 0, 5),  # emoji: four UTF-8 bytes
        ("utf-8", 4, 0, 9),  # a 1 + 🙂 4 + é 2 + U+0301 2 bytes
        ("utf-32", 4, 0, 4),
        ("utf-16", 7, 1, 0),  # after \r\n
        ("utf-16", 9, 1, 3),
        ("utf-16", 11, 2, 0),  # a lone \r ends a line too
    ],
)
def test_round_trip(encoding: str, offset: int, line: int, character: int):
    m = PositionMapper(TEXT, encoding)
    assert m.position(offset) == types.Position(line=line, character=character)
    assert m.offset(types.Position(line=line, character=character)) == offset


def test_positions_inside_a_surrogate_pair_and_beyond_the_line():
    m = PositionMapper(TEXT, "utf-16")
    assert m.offset(types.Position(line=0, character=2)) == 1  # inside 🙂 -> its start
    assert m.offset(types.Position(line=0, character=99)) == 5  # clamped before \r\n
    assert m.offset(types.Position(line=99, character=0)) == len(TEXT)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_fast_paths_agree_with_counting_each_character(encoding: str):
    text = "x" * 50 + "é🙂\ud800a\r\n" + "b" * 20 + "\n🙂🙂c"
    m = PositionMapper(text, encoding)
    step = {
        "utf-16": lambda c: 2 if ord(c) > 0xFFFF else 1,
        "utf-8": lambda c: len(c.encode("utf-8", "surrogatepass")),
        "utf-32": lambda c: 1,
    }[encoding]
    for offset in range(len(text) + 1):
        line, column = m.index.position(offset)
        start = m.index.starts[line]
        expected = sum(step(c) for c in text[start : start + column])
        pos = m.position(offset)
        assert (pos.line, pos.character) == (line, expected)
        if text[offset - 1 : offset] != "\r":  # between \r and \n is not a position
            assert m.offset(pos) == offset
