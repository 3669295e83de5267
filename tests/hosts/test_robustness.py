"""Every extractor survives any input: junk, partial edits of valid documents, huge lines."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.dotenv import host as dotenv
from torch_logs_lsp.hosts.jsonc import host as jsonc
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.hosts.shell import host as shell
from torch_logs_lsp.model.spans import ValueSpan

Extractor = Callable[[str], list[ValueSpan]]
EXTRACTORS: dict[str, Extractor] = {
    "dotenv": dotenv.extract,
    "jsonc": jsonc.extract,
    "shell": shell.extract,
    "python": python.extract,
}

VALID = {
    "dotenv": 'export TORCH_LOGS="+dynamo,\\tguards" # c\r\nTORCH_TRACE=/tmp/t\n',
    "jsonc": '{"configurations": [{"env": {"TORCH_LOGS": "+dyn\\u0061mo", // c\n'
    ' "TORCH_TRACE": "/t",},},]}\n',
    "shell": "export TORCH_LOGS=\"+dynamo,\"'guards' \\\n  TORCH_TRACE=$'/t\\x41'\n"
    "TORCH_LOGS=aot env -i TORCH_LOGS_OUT=x python train.py\n",
    "python": 'import os\nos.environ["TORCH_LOGS"] = ("+dyn" r"amo,\\x"\n  "\\N{PLUS SIGN}g")\n'
    'subprocess.run(c, env=dict(os.environ, TORCH_TRACE="""/t\r\nx"""))\n',
}

_junk_chars = st.sampled_from(
    [*"\"'\\{}[]:,=#$`()\n\r\t /*-+_ aeTORCH_LOGS", "\x00", "\ud800", "\udfff", "😀", "\u0301", "é"]
)
_junk = st.lists(_junk_chars, max_size=80).map("".join)


@st.composite
def _edited(draw: st.DrawFn, host: str) -> str:
    """A valid document with a few characters deleted or inserted (the user typing)."""
    text = VALID[host]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:i] + text[i + draw(st.integers(1, 6)) :]
        else:
            text = text[:i] + draw(_junk) + text[i:]
    return text


@pytest.mark.parametrize("host", sorted(EXTRACTORS))
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_never_raises(host: str, data: st.DataObject) -> None:
    text = data.draw(st.one_of(_junk, _edited(host), st.text(max_size=60)))
    spans = EXTRACTORS[host](text)
    check_spans(text, spans, exact_name=host != "jsonc")


@pytest.mark.parametrize("host", sorted(EXTRACTORS))
def test_every_prefix_of_a_valid_document(host: str) -> None:
    """The user typing the document from the start: every prefix is extractable."""
    text = VALID[host]
    for i in range(len(text) + 1):
        check_spans(text[:i], EXTRACTORS[host](text[:i]), exact_name=host != "jsonc")


BIG = 100_000


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("dotenv", "TORCH_LOGS=" + "a," * BIG),
        ("dotenv", 'TORCH_LOGS="' + "\\n" * BIG),
        ("jsonc", '{"configurations":[{"env":{"TORCH_LOGS":"' + "\\u0061" * BIG + '"}}]}'),
        ("jsonc", "[" * BIG),
        ("jsonc", '{"configurations":[{"env":{"TORCH_LOGS":"' + "😀" * BIG),
        ("shell", "TORCH_LOGS=" + "a\\ " * BIG),
        ("shell", "TORCH_LOGS='" + "x" * BIG),
        ("shell", "$(" * 1000 + "TORCH_LOGS=a"),  # deeper: not read (test_nesting.py)
        ("python", 'os.environ["TORCH_LOGS"] = "' + "\\x61" * BIG + '"'),
        ("python", 'os.environ["TORCH_LOGS"] = (' + '"a" ' * BIG + ")"),
        ("python", "(" * 5000 + 'os.environ["TORCH_LOGS"] = "a"'),
    ],
)
def test_huge_inputs(host: str, text: str) -> None:
    spans = EXTRACTORS[host](text)
    assert spans or host in ("jsonc", "python")
    for span in spans:
        assert 0 <= span.raw_start <= span.raw_end <= len(text)


@pytest.mark.parametrize("host", sorted(EXTRACTORS))
def test_binary_junk(host: str) -> None:
    text = bytes(range(256)).decode("latin-1") * 20 + "\ud800TORCH_LOGS=\x00\n"
    check_spans(text, EXTRACTORS[host](text), exact_name=host != "jsonc")
