"""The batch host survives any input and reads in linear time; its fast path over plain
lines reads what the line-by-line parser reads (see tests/hosts/batch/test_host.py for the
cited rules)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.growth import growth
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.batch import host as batch
from torch_logs_lsp.hosts.batch import parse as batch_parse

# -- robustness ----------------------------------------------------------------------

_JUNK = st.sampled_from(
    [
        *'"^%!&|<>()@:=\n\r\t /',
        "set ",
        "TORCH_LOGS",
        "torch_logs=",
        "\x1a",
        "\x00",
        "\ud800",
        "😀",
        "if ",
        "for ",
        " do ",
        "setlocal ",
        "(",
        ")",
        "rem ",
        "setx ",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_JUNK, max_size=40).map("".join))
def test_never_raises(text: str) -> None:
    spans = batch.extract(text)
    check_spans(text, spans, exact_name=False)
    batch.overwritten(text, spans)
    batch.notes(text, spans)
    for span in spans:
        batch.removal(text, span)


def _collapsed(events: list[int]) -> list[int]:
    return [e for i, e in enumerate(events) if e >= 0 or i == 0 or events[i - 1] != -1]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.one_of(_JUNK, st.sampled_from(["echo a", "rEm x", ",;rem", "\r\n", "\n"])), max_size=40
    ).map("".join)
)
def test_fast_path_reads_the_same(text: str) -> None:
    """Plain lines are passed over at once (``_plain_line``): the same commands, and the
    same order of commands (runs of other commands count as one)."""
    fast, slow = batch_parse.read(text), batch_parse.read_slowly(text)
    assert fast.commands == slow.commands
    assert _collapsed(fast.events) == _collapsed(slow.events)


def test_every_prefix() -> None:
    text = (
        '@echo off\r\nif "%1"=="x" (\r\n  set "TORCH_LOGS=+dynamo"\r\n) else set TORCH_LOGS=a^&b'
        '\r\nfor %%i in (1) do set TORCH_TRACE=t\r\nsetx TORCH_LOGS "x"\r\n'
    )
    for i in range(len(text) + 1):
        check_spans(text[:i], batch.extract(text[:i]), exact_name=False)


BIG = 100_000


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("set TORCH_LOGS=" + "a," * BIG, True),
        ('set "TORCH_LOGS=' + "^" * BIG, True),
        ("set TORCH_LOGS=" + "^&" * BIG, True),
        ("set TORCH_LOGS=" + "%A%" * BIG, True),
        ("set TORCH_LOGS=a^\n" * 20_000, True),
        # nested deeper than MAX_NESTING: skipped, not a RecursionError
        ("(" * BIG + "set TORCH_LOGS=a", False),
        ("if 1==1 " * 20_000 + "set TORCH_LOGS=a", False),
    ],
)
def test_huge_inputs(text: str, found: bool) -> None:
    spans = batch.extract(text)
    assert bool(spans) == found
    for span in spans:
        assert 0 <= span.raw_start <= span.raw_end <= len(text)


@pytest.mark.parametrize(
    "unit",
    [
        "rem x\n",  # comments inside a block: each skipped to its own line end only
        "set TORCH_LOGS=a\n",
        "echo %A% & set TORCH_LOGS=!b! ^& (x)\n",
        '"',
        "%a ",
    ],
)
def test_linear_time(unit: str) -> None:
    """A document 4 times longer costs about 4 times more (not 16: no rescans)."""

    def make(n: int) -> Callable[[], object]:
        text = "(\n" + unit * n + ")\nset TORCH_LOGS=a\n"
        return lambda: (batch_parse.read.cache_clear(), batch_parse.read(text))

    assert growth(make, 2000) < 8


def test_binary_junk() -> None:
    text = bytes(range(256)).decode("latin-1") * 20 + "\ud800set TORCH_LOGS=\x00\n"
    check_spans(text, extract("batch", text), exact_name=False)
