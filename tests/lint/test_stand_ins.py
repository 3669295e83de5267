"""``lint/stand_ins.py``: words of a document replaced by family names in a copy the host
extracts, the spans found there moved back to document offsets; TL421-TL424 and TL441
share one extraction per check."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.lint.knob_values import knob_assignments, knob_value_diagnostics
from torch_logs_lsp.lint.knobs import assignments
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.lint.stand_ins import compiler_spans, knob_words, owned_words, stand_in_spans
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY


def _words(text: str, *names: str) -> list[tuple[int, int]]:
    """Every whole-word occurrence of ``names`` in ``text``, in document order."""
    pattern = "|".join(re.escape(n) for n in names)
    return [m.span() for m in re.finditer(rf"(?<!\w)(?:{pattern})(?!\w)", text)]


@pytest.fixture
def extractions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts :func:`hosts.extract` is asked to extract while the test runs."""
    seen: list[str] = []
    real = hosts.extract

    def counting(
        host: HostKind, text: str, cache: DocumentCache | None = None
    ) -> list[hosts.ValueSpan]:
        seen.append(text)
        return real(host, text, cache)

    monkeypatch.setattr(hosts, "extract", counting)
    yield seen


def test_offsets_come_back_past_astral_and_multi_byte_characters():
    marker = uuid.uuid4().hex  # a text no earlier call kept
    text = (
        f"# {marker} 😀 café 𝔘𝔫𝔦\n"
        "AB=x😀y\n"  # a word shorter than the stand-in
        "K=é\n"
        "A_RATHER_LONG_NAME_FOR_A_VARIABLE='𝔘 v'  # longer than it\n"
        "AB=\n"  # empty: the insertion point
        "𝔘=1\n"
        "MID=é😀é\n"
    )
    words = _words(text, "AB", "A_RATHER_LONG_NAME_FOR_A_VARIABLE", "MID")
    assert len(words) == 4
    hits = stand_in_spans("dotenv", text, words, "TORCH_LOGS_OUT")
    assert [h.word for h in hits] == [0, 1, 2, 3]
    values = []
    for hit in hits:
        span = hit.span
        assert not hit.changed
        assert (span.name_start, span.name_end) == words[hit.word]
        assert text[span.content_start : span.content_end] == span.value
        assert span.value is not None
        for i, ch in enumerate(span.value):
            assert text[span.char_starts[i] : span.char_ends[i]] == ch
        values.append(span.value)
    assert values == ["x😀y", "𝔘 v", "", "é😀é"]
    raw = hits[1].span
    assert text[raw.raw_start : raw.raw_end] == "'𝔘 v'"


def test_a_stand_in_per_word_must_be_the_variable_at_the_word():
    text = "😀\nNAME_ONE=a\nNAME_TWO=b\n"
    words = _words(text, "NAME_ONE", "NAME_TWO")
    hits = stand_in_spans("shell", text, words, ["TORCH_LOGS", "TORCH_TRACE"])
    assert [(h.word, h.span.variable, h.span.value) for h in hits] == [
        (0, "TORCH_LOGS", "a"),
        (1, "TORCH_TRACE", "b"),
    ]
    assert [text[h.span.content_start : h.span.content_end] for h in hits] == ["a", "b"]
    # a read, a comment: no assignment of the stand-in at the word
    text = 'echo "$NAME_ONE"\n# NAME_TWO=b\n'
    assert stand_in_spans("shell", text, _words(text, "NAME_ONE", "NAME_TWO"), "TORCH_LOGS") == ()


def test_a_value_whose_text_holds_a_replaced_word_is_marked_changed():
    text = "😀=1\nFIRST=SECOND\nTHIRD=plain𝔘\n"
    words = _words(text, "FIRST", "SECOND", "THIRD")
    hits = stand_in_spans("dotenv", text, words, "TORCH_LOGS_OUT")
    assert [(h.word, h.changed) for h in hits] == [(0, range(1, 2)), (2, range(0))]
    changed = hits[0].span
    assert changed.value == "TORCH_LOGS_OUT"  # decoded from the copy: not the document's
    assert text[changed.content_start : changed.content_end] == "SECOND"
    assert (changed.name_start, changed.name_end) == words[0]
    assert text[hits[1].span.content_start : hits[1].span.content_end] == "plain𝔘"


def test_a_knob_value_a_replacement_changed_is_not_judged():
    text = "X=😀\nTORCHINDUCTOR_MAX_AUTOTUNE=TORCHINDUCTOR_FX_GRAPH_CACHE\n"
    assert knob_assignments("dotenv", text, "2.13") == []
    assert knob_value_diagnostics("dotenv", text, "2.13") == []


def test_another_rules_word_in_a_value_gets_a_copy_of_its_own(extractions: list[str]):
    # TORCHDYNAMO_NOT_A_KNOB is owned (TL421 looks at it), not a knob: the shared copy
    # changes the knob's value, so TL441 extracts its own copy and reads the real value.
    marker = uuid.uuid4().hex
    text = f"# {marker} 😀\nTORCHINDUCTOR_MAX_AUTOTUNE=TORCHDYNAMO_NOT_A_KNOB\n"
    (found,) = knob_assignments("dotenv", text, "2.13")
    assert found.span.value == "TORCHDYNAMO_NOT_A_KNOB"
    assert text[found.span.content_start : found.span.content_end] == found.span.value
    assert len(extractions) == 2  # the shared copy, then the knobs' own (kept after)
    (owned,) = compiler_spans("dotenv", text, "2.13", "owned")
    assert owned[0].group() == "TORCHINDUCTOR_MAX_AUTOTUNE"
    assert len(extractions) == 2


def test_the_same_question_twice_extracts_once(extractions: list[str]):
    marker = uuid.uuid4().hex
    text = f"# {marker}\nNAME=1\n"
    words = _words(text, "NAME")
    first = stand_in_spans("dotenv", text, words, "TORCH_TRACE")
    assert stand_in_spans("dotenv", text, words, "TORCH_TRACE") == first
    assert len(extractions) == 1
    other = stand_in_spans("dotenv", text, words, "TORCH_LOGS")
    assert [h.span.variable for h in other] == ["TORCH_LOGS"]
    assert len(extractions) == 2


@pytest.mark.parametrize("host", ["dotenv", "shell"])
def test_a_check_extracts_one_copy_for_knob_names_and_values(
    host: HostKind, extractions: list[str]
):
    marker = uuid.uuid4().hex
    text = (
        f"# {marker} 😀\n"
        "TORCH_LOGS=+dynamo\n"
        "TORCHINDUCTOR_MAX_AUTOTUNE=true\n"  # TL441
        "TORCHINDUCTOR_FORCE_DISABLE_CACHE=1\n"  # TL421
        "TORCHDYNAMO_VERBOSE=1\n"  # TL441? no: "1" is on; TL424? no: TORCH_LOGS is set
    )
    checked = check_document(text, host)
    codes = sorted(d.code for d in checked.document)
    assert codes == ["TL421", "TL441"]
    copies = [t for t in extractions if t != text]
    assert len(copies) == 1  # the document itself, and one copy for TL421-TL424 and TL441
    assert "TORCHINDUCTOR" not in copies[0]
    # each rule alone finds what the check found
    assert [a.name for a in assignments(host, text, "2.13")] == [
        "TORCHINDUCTOR_MAX_AUTOTUNE",
        "TORCHINDUCTOR_FORCE_DISABLE_CACHE",
        "TORCHDYNAMO_VERBOSE",
    ]


# -- the word scans: the same words as the plain definitions, found faster ----------------
_REFERENCE_OWNED = re.compile(
    r"(?<![A-Za-z0-9_])(?:TORCH_LOGS|TORCH_D?TRACE|TORCH_COMPILE|TORCHDYNAMO|TORCHINDUCTOR)"
    r"(?:_[A-Z0-9]+)*(?![A-Za-z0-9_])"
)
_REFERENCE_KNOB = re.compile(r"(?<![A-Za-z0-9_])(?:TORCH|INDUCTOR_)[A-Z0-9_]*(?![A-Za-z0-9_])")
_PIECES = (
    "TORCH",
    "INDUCTOR_",
    "TORCHINDUCTOR_",
    "TORCH_LOGS",
    "TORCH_TRACE",
    "TORCHDYNAMO_",
    "_",
    "A",
    "MAX",
    "x",
    "9",
    " ",
    "=",
    "é",
    "\n",
    "TORCH_COMPILE_DEBUG",
    "TORCHINDUCTOR_MAX_AUTOTUNE",
)


@settings(max_examples=examples(300))
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_word_scans_find_what_the_plain_patterns_find(pieces: list[str]) -> None:
    text = "".join(pieces)
    expected = [m.span() for m in _REFERENCE_OWNED.finditer(text) if m.group() not in FAMILY]
    assert [m.span() for m in owned_words(text)] == expected
    assert all(m.group() == text[slice(*m.span())] for m in owned_words(text))
    names = {
        n: None
        for n in (
            "TORCHINDUCTOR_MAX_AUTOTUNE",
            "TORCH_COMPILE_DEBUG",
            "INDUCTOR_A",
            "TORCH",
            "TORCH_LOGS",
            "TORCHINDUCTOR_",
        )
    }
    knob_spans = [  # no family name is a knob
        m.span()
        for m in _REFERENCE_KNOB.finditer(text)
        if m.group() in names and m.group() not in FAMILY
    ]
    assert [m.span() for m in knob_words(text, names)] == knob_spans  # type: ignore[arg-type]
