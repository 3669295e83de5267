"""Byte offset -> code point offset in :class:`Source` (the sparse map for mostly-ASCII
text) against the plain definition: the number of code points whose bytes start before
or at the offset, minus one, rounded down inside a multi-byte sequence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.hosts import _ts
from torch_logs_lsp.hosts._ts import Source

TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("ab =\n\"'"), st.sampled_from("éж€😀\ud800"), st.characters()
    ),
    max_size=60,
)


def _expected(text: str, byte_offset: int) -> int:
    at = 0
    for i, ch in enumerate(text):
        # a lone surrogate is sent to tree-sitter as U+FFFD: 3 bytes, like any BMP char
        width = 3 if "\ud800" <= ch <= "\udfff" else len(ch.encode("utf-8"))
        if byte_offset < at + width:
            return i
        at += width
    return len(text) + (byte_offset - at)


@settings(max_examples=examples(300), deadline=None)
@given(text=TEXT)
def test_cp_matches_the_definition(text: str) -> None:
    src = Source(text)
    for b in range(len(src.data) + 2):
        assert src.cp(b) == _expected(text, b), (text, b)


def test_load_grammar_compiles_the_declared_queries():
    # the server's warm-up loads each grammar with the queries the hosts declared, so the
    # first document of a kind does not compile them; a query is compiled once
    import torch_logs_lsp.hosts.shell.capture as capture

    _ts._queries.pop(("bash", capture._COMMANDS), None)
    _ts.load_grammar("bash")
    compiled = _ts._queries[("bash", capture._COMMANDS)]
    assert _ts.query("bash", capture._COMMANDS) is compiled
