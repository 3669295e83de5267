"""The server's text documents apply changes per the LSP specification (server/workspace)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec

from torch_logs_lsp.server.pygls_fixes import workspace
from torch_logs_lsp.server.pygls_fixes.workspace import SpecTextDocument, spec_lines, spec_offset

CHARS = st.sampled_from(["a", "é", "😀", "\n", "\r", "\r\n", "\u2028", "\x0b", "\x85", "\x1c"])
TEXTS = st.lists(CHARS, max_size=30).map("".join)


def model_offset(text: str, line: int, character: int, encoding: str) -> int:
    """The specification, spelled out: walk the text counting line ends and code units."""
    i, current = 0, 0
    while current < line:
        if i >= len(text):
            return len(text)
        if text[i] == "\r" and text[i + 1 : i + 2] == "\n":
            i += 1
        if text[i] in "\r\n":
            current += 1
        i += 1
    units = 0
    while i < len(text) and text[i] not in "\r\n":
        width = len(text[i].encode("utf-16-le" if encoding == "utf-16" else "utf-8"))
        width = width // 2 if encoding == "utf-16" else width
        if units + width > character:
            break
        units += width
        i += 1
    return i


@given(
    TEXTS,
    st.integers(0, 8),
    st.integers(0, 12),
    st.sampled_from(["utf-16", "utf-8"]),
    st.sampled_from([1, 2, 3, 5, workspace.BLOCK]),
)
def test_offsets_follow_the_specification(
    text: str, line: int, character: int, encoding: str, block: int
):
    """Also with tiny blocks: line ends counted across block boundaries (a \r\n split by
    one)."""
    pos = types.Position(line=line, character=character)
    saved, workspace.BLOCK = workspace.BLOCK, block
    try:
        assert spec_offset(text, pos, encoding) == model_offset(text, line, character, encoding)
    finally:
        workspace.BLOCK = saved


@given(TEXTS)
def test_lines_end_only_at_lsp_line_ends(text: str):
    lines = spec_lines(text)
    assert "".join(lines) == text
    for line in lines[:-1]:
        assert line.endswith(("\n", "\r"))
        assert "\n" not in line[:-1] and "\r" not in line[:-1].rstrip("\r")


@given(
    TEXTS,
    st.integers(0, 8),
    st.integers(0, 12),
    st.integers(0, 3),
    st.text(max_size=3),
    st.sampled_from(
        [types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16, "utf-16", "utf-8"]
    ),
)
def test_incremental_change(
    text: str, line: int, character: int, more: int, new: str, kind: object
):
    """In the encoding pygls holds, an enum member or a string."""
    encoding = str(getattr(kind, "value", kind))
    assert encoding in ("utf-8", "utf-16")
    doc = SpecTextDocument("file:///w/.env", text, 1, position_codec=PositionCodec(kind))
    start = types.Position(line=line, character=character)
    end = types.Position(line=line + more // 2, character=character + more)
    doc.apply_change(
        types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)
    )
    a = model_offset(text, start.line, start.character, encoding)
    b = model_offset(text, end.line, end.character, encoding)
    a, b = min(a, b), max(a, b)
    assert doc.source == text[:a] + new + text[b:]


@given(
    TEXTS,
    st.lists(
        st.tuples(st.integers(0, 8), st.integers(0, 6), st.integers(0, 3), st.text(max_size=3)),
        max_size=12,
    ),
    st.sampled_from([1, 2, 3, workspace.BLOCK]),
)
def test_a_sequence_of_changes(
    text: str, changes: list[tuple[int, int, int, str]], block: int
) -> None:
    """Each change finds its line from where the last one's line starts (when it is not
    before it): the text after every change is the specification's."""
    doc = SpecTextDocument("file:///w/run.sh", text, 1)
    saved, workspace.BLOCK = workspace.BLOCK, block
    try:
        for line, character, more, new in changes:
            start = types.Position(line=line, character=character)
            end = types.Position(line=line + more // 2, character=character + more)
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=end), text=new
            )
            doc.apply_change(change)
            a = model_offset(text, start.line, start.character, "utf-16")
            b = model_offset(text, end.line, end.character, "utf-16")
            a, b = min(a, b), max(a, b)
            text = text[:a] + new + text[b:]
            assert doc.source == text
    finally:
        workspace.BLOCK = saved
