"""Rules over the whole document through its cache: while the edits stay inside one plain
value that cannot hold what a rule looks for, the rule's last result is moved, not
searched for again: TL408's near misses (no ``torch`` in the value), the compiler names'
assignments of TL421-TL424 and TL441 (no ``TORCH``, no ``INDUCTOR_``). Every version's
findings are a fresh check's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.lint import misspelled
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.lint.stand_ins import COMPILER_STAND_IN
from torch_logs_lsp.model.spans import ValueSpan

#: Documents with a near miss (TORCH_LOG, TORCH_LOGS_FMT) before and after a TORCH_LOGS
#: value, per host: ``(host, text, the value's text)``.
DOCUMENTS = [
    (
        "shell",
        "export TORCH_LOG=recompiles\nexport TORCH_LOGS=+dynamo\n"
        "TORCH_LOGS_FMT=short python a.py\n",
        "+dynamo",
    ),
    (
        "python",
        'import os\nos.environ["TORCH_LOG"] = "x"\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
        'os.environ["TORCH_LOGS_FMT"] = "short"\n',
        "+dynamo",
    ),
    ("dotenv", "TORCH_LOG=x\nTORCH_LOGS=+dynamo\nTORCH_LOGS_FMT=short\n", "+dynamo"),
    (
        "batch",
        "set TORCH_LOG=x\r\nset TORCH_LOGS=+dynamo\r\nset TORCH_LOGS_FMT=short\r\n",
        "+dynamo",
    ),
]

#: Documents with compiler names (an unread name, knobs with values TL441 judges,
#: TORCH_DTRACE beside TORCH_TRACE, TORCHDYNAMO_VERBOSE) around a TORCH_LOGS value.
COMPILER_DOCUMENTS = [
    (
        "shell",
        "export TORCHINDUCTOR_FORCE_DISABLE_CACHE=1\nexport TORCH_LOGS=+dynamo\n"
        "export TORCHINDUCTOR_MAX_AUTOTUNE=true\nTORCH_DTRACE=/tmp/d TORCH_TRACE=/tmp/t "
        "python a.py\nTORCHDYNAMO_VERBOSE=1 python b.py\n",
        "+dynamo",
    ),
    (
        "dotenv",
        "TORCH_LOGS=+dynamo\nTORCHINDUCTOR_MAX_AUTOTUNE=true\nTORCHDYNAMO_VERBOSE=1\n"
        "TORCHINDUCTOR_FORCE_DISABLE_CACHE=1\nTORCH_LOGS_OUT=logs/x\n",
        "+dynamo",
    ),
    (
        "yaml",
        "services:\n  a:\n    environment:\n      TORCH_LOGS: +dynamo\n"
        "      TORCHINDUCTOR_MAX_AUTOTUNE: 'true'\n      TORCH_DTRACE: /tmp/d\n"
        "      TORCH_TRACE: /tmp/t\n",
        "+dynamo",
    ),
]

#: Documents with the hosts' notes on where values sit: a write after ``import torch``
#: (TL501), an empty ``TORCH_LOGS`` in PowerShell (TL001), a batch file's ``setx`` (TL503).
NOTE_DOCUMENTS = [
    (
        "python",
        'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
        'os.environ["TORCH_TRACE"] = "/tmp/t"\n',
        "+dynamo",
    ),
    (
        "powershell",
        "$env:TORCH_LOGS = '+dynamo'\npython a.py\n$env:TORCH_LOGS = ''\npython b.py\n",
        "+dynamo",
    ),
    ("batch", "set TORCH_LOGS=+dynamo\r\nsetx TORCH_TRACE C:\\t\r\n", "+dynamo"),
]

#: What is typed into the value: plain text, text that names or reads a near miss (then
#: the search runs again), quotes and expansions (the value is not plain then).
TYPED = st.sampled_from(
    [
        "x",
        ",guards",
        "",
        "torch",
        "TORCH_LOG",
        "%TORCH_LOG%",
        "$TORCH_LOG",
        '"',
        "'",
        " ",
        "-",
        "TORCHINDUCTOR_X",
        "INDUCTOR_MAX",
        "~",
        "TORCH_DTRACE",
    ]
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.sampled_from(DOCUMENTS + COMPILER_DOCUMENTS + NOTE_DOCUMENTS),
    st.lists(st.tuples(TYPED, st.integers(0, 20), st.integers(0, 3)), min_size=1, max_size=6),
)
def test_typing_in_a_value_gives_a_fresh_checks_findings(
    document: tuple[str, str, str], edits: list[tuple[str, int, int]]
) -> None:
    host, text, value = document
    cache = DocumentCache()
    at = text.index(value)
    end = at + len(value)
    for typed, where, removed in edits:
        cut = at + min(where, end - at)
        gone = min(removed, end - cut)
        text = text[:cut] + typed + text[cut + gone :]
        end += len(typed) - gone
        kept = check_document(text, host, extraction=cache)
        fresh = check_document(text, host)
        assert kept.placed() == fresh.placed()
        assert kept.document == fresh.document


def test_typing_plain_text_in_a_value_does_not_search_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searches: list[str] = []
    real = misspelled.near_misses

    def counting(host: str, text: str, release: str) -> list[misspelled.NearMiss]:
        searches.append(text)
        return real(host, text, release)  # type: ignore[arg-type]

    monkeypatch.setattr(misspelled, "near_misses", counting)
    cache = DocumentCache()
    text = "export TORCH_LOGS=+dynamo\nexport TORCH_LOG=recompiles\n"
    found = []
    for typed in ("+dynamox", "+dynamoxy", "+dynamoxy,guards"):
        text = text.replace(text.split("=")[1].split("\n")[0], typed, 1)
        checked = check_document(text, "shell", extraction=cache)
        found.append([(d.code, d.start, d.end) for d in checked.document if d.code == "TL408"])
    assert len(searches) == 1
    # the near miss after the value moved with each edit
    starts = [f[0][1] for f in found]
    assert starts == sorted(starts) and len(set(starts)) == 3
    text = text.replace("+dynamoxy,guards", "torch")  # a value naming torch: searched again
    check_document(text, "shell", extraction=cache)
    assert len(searches) == 2


def test_typing_plain_text_in_a_value_does_not_extract_compiler_names_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copies: list[str] = []
    real = hosts.extract

    def counting(host: str, text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
        if cache is None and COMPILER_STAND_IN in text and "TORCHINDUCTOR" not in text:
            copies.append(text)  # the copy with the compiler names replaced
        return real(host, text, cache)  # type: ignore[arg-type]

    monkeypatch.setattr(hosts, "extract", counting)
    cache = DocumentCache()
    text = "export TORCH_LOGS=+dynamo\nexport TORCHINDUCTOR_MAX_AUTOTUNE=true\n"
    found = []
    for typed in ("+dynamox", "+dynamoxy", "+dynamoxy,guards"):
        text = text.replace(text.split("=")[1].split("\n")[0], typed, 1)
        checked = check_document(text, "shell", extraction=cache)
        found.append([(d.code, d.start) for d in checked.document])
    assert len(copies) == 1
    assert [f[0][0] for f in found] == ["TL441"] * 3
    assert len({f[0][1] for f in found}) == 3  # moved with each edit
    text = text.replace("+dynamoxy,guards", "TORCH_X")  # a compiler word: extracted again
    check_document(text, "shell", extraction=cache)
    assert len(copies) == 2


@pytest.mark.parametrize(
    "document", DOCUMENTS + COMPILER_DOCUMENTS + NOTE_DOCUMENTS, ids=lambda d: d[0]
)
def test_each_document_has_findings_of_the_rules(document: tuple[str, str, str]) -> None:
    host, text, _ = document
    checked = check_document(text, host)
    codes = {d.code for d in checked.document} | {p.diagnostic.code for p in checked.placed()}
    assert codes & {"TL408", "TL421", "TL423", "TL441", "TL501", "TL001", "TL503"}
