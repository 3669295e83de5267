"""Fuzz the core entry points for a fixed number of examples (``scripts/fuzz.py`` runs
the same properties for minutes): the value parser and analysis, each host extractor."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.hosts.test_incremental import SEEDS
from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp import hosts
from torch_logs_lsp.model.limits import MAX_DIAGNOSTICS, MAX_QUOTED
from torch_logs_lsp.value.analysis import analyse
from torch_logs_lsp.value.parser import parse_value

_value_chars = st.sampled_from(
    [*"+-,. \t\n_", "dynamo", "guards", "aot_g", "all", "help", "json", "os.path", "é", "😀"]
)
values = st.one_of(st.text(max_size=40), st.lists(_value_chars, max_size=15).map("".join))
#: Long values: a short piece repeated up to 12,000 times (as the benchmark's 24 KB, 100 KB
#: and 10,000-item values), so that anything quadratic shows up as a slow example.
long_values = st.builds(
    lambda piece, n: piece * n,
    st.lists(_value_chars, min_size=1, max_size=4).map("".join),
    st.integers(1000, 12_000),
)

#: The benchmark's long values, always run (the fuzz corpus).
LONG_EXAMPLES = (
    "+a." * 8000 + "b",  # 24 KB, one item with 7,999 illegal `+`
    "+a." * 33_333 + "b",  # 100 KB
    ",".join(["+dynamo"] * 10_000),  # 10,000 items
    ",".join(f"name{i}" for i in range(10_000)),  # 10,000 distinct unknown names
    "a." * 50_000 + "b",  # a 100 KB dotted module name (its parents were sliced per part)
    ",".join(["torch._dynamo.guards"] * 5000),  # 5,000 module items of the known list
)


def check_value(value: str) -> None:
    """Parsing and analysing never raise; diagnostics lie inside the value, sorted."""
    parse_value(value)
    result = analyse(value)
    for d in result.diagnostics:
        assert 0 <= d.start <= d.end <= len(value), d
    keys = [(d.start, d.end, d.code) for d in result.diagnostics]
    assert keys == sorted(keys)
    assert (result.config is not None) == (result.outcome == "ok")
    assert len(result.diagnostics) <= MAX_DIAGNOSTICS + 1
    for d in result.diagnostics:  # quotes are excerpts: a message is short whatever the value
        assert len(d.message) <= 500, d.message[:100]
        assert all(len(q) <= MAX_QUOTED for q in d.message.split("`")[1::2]), d.message[:100]


_doc_pieces = st.sampled_from(
    [*"\"'\\{}[]:,=#$`()\n\r\t /*-+_aé😀\x00\ud800", "TORCH_LOGS=", '"TORCH_LOGS": "', "${X}"]
)


def documents(host: str) -> st.SearchStrategy[str]:
    """Junk, and the host's seed document with random cuts and insertions."""

    @st.composite
    def edited(draw: st.DrawFn) -> str:
        text = SEEDS[host]
        for _ in range(draw(st.integers(1, 5))):
            i = draw(st.integers(0, len(text)))
            j = min(len(text), i + draw(st.integers(0, 8)))
            text = text[:i] + "".join(draw(st.lists(_doc_pieces, max_size=6))) + text[j:]
        return text

    return st.one_of(
        st.text(max_size=80), st.lists(_doc_pieces, max_size=60).map("".join), edited()
    )


def check_host(host: str, text: str) -> None:
    """Extraction never raises and every span is well formed."""
    check_spans(text, hosts.extract(host, text), exact_name=host != "jsonc")


@settings(max_examples=examples(300), deadline=None)
@given(values)
def test_fuzz_value(value: str) -> None:
    check_value(value)


@settings(max_examples=10, deadline=None)
@given(long_values)
@example(LONG_EXAMPLES[0])
@example(LONG_EXAMPLES[1])
@example(LONG_EXAMPLES[2])
@example(LONG_EXAMPLES[3])
@example(LONG_EXAMPLES[4])
@example(LONG_EXAMPLES[5])
def test_fuzz_long_value(value: str) -> None:
    check_value(value)


@pytest.mark.parametrize("host", sorted(SEEDS))
@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_fuzz_host(host: str, data: st.DataObject) -> None:
    check_host(host, data.draw(documents(host)))
