"""TL408 through the document's cache: while the edits stay inside one plain value with no
``torch`` in it, the last version's near misses are moved, not searched for again; every
version's findings are a fresh check's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.lint import misspelled
from torch_logs_lsp.lint.pipeline import check_document

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

#: What is typed into the value: plain text, text that names or reads a near miss (then
#: the search runs again), quotes and expansions (the value is not plain then).
TYPED = st.sampled_from(
    ["x", ",guards", "", "torch", "TORCH_LOG", "%TORCH_LOG%", "$TORCH_LOG", '"', "'", " ", "-"]
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.sampled_from(DOCUMENTS),
    st.lists(st.tuples(TYPED, st.integers(0, 20), st.integers(0, 3)), min_size=1, max_size=6),
)
def test_typing_in_a_value_gives_a_fresh_checks_near_misses(
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
        assert [d for d in kept.document if d.code == "TL408"] == [
            d for d in fresh.document if d.code == "TL408"
        ]


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
