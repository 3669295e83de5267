"""The value parser: table of syntax problems, and agreement with torch's regex."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.value.parser import is_torch_valid, parse_value

CASES = [
    # value, [(code, start, end)], [item texts]
    ("+dynamo,guards", [], ["+dynamo", "guards"]),
    ("+dynamo, guards,\t-aot", [], ["+dynamo", "guards", "-aot"]),
    ("+dynamo ,guards", [("TL102", 7, 8)], ["+dynamo", "guards"]),
    ("+dynamo,", [("TL104", 7, 8)], ["+dynamo"]),
    ("+dynamo, ", [("TL104", 7, 9)], ["+dynamo"]),
    (" dynamo", [("TL101", 0, 1)], ["dynamo"]),
    ("dynamo  ", [("TL101", 6, 8)], ["dynamo"]),
    ("   ", [("TL101", 0, 3)], []),
    ("dynamo,,aot", [("TL103", 7, 8)], ["dynamo", "aot"]),
    (",dynamo", [("TL103", 0, 1)], ["dynamo"]),
    ("dynamo, ,aot", [("TL103", 7, 9)], ["dynamo", "aot"]),
    ("++dynamo", [("TL105", 1, 2)], ["+dynamo"]),
    ("+-+dynamo", [("TL105", 1, 3)], ["+dynamo"]),
    ("+", [("TL103", 0, 1)], ["+"]),
    ("graph-breaks", [("TL106", 5, 6)], ["graph-breaks"]),
    ("dynamo;aot", [("TL106", 6, 7)], ["dynamo;aot"]),
    ("dynamo aot", [("TL106", 6, 7)], ["dynamo aot"]),
    ("dynamo=1", [("TL106", 6, 7)], ["dynamo=1"]),
    ("dyn'amo", [("TL106", 3, 4)], ["dyn'amo"]),
    ('"dynamo"', [("TL107", 0, 8)], ["dynamo"]),  # one mistake: one finding over the pair
    ("'+dynamo,aot'", [("TL107", 0, 13)], ["+dynamo", "aot"]),
    ("dynamo+", [("TL106", 6, 7)], ["dynamo+"]),
    ("éàü,ß", [], ["éàü", "ß"]),
    ("dynamo,\u00a0aot", [], ["dynamo", "aot"]),
    ("dynamo\u00a0,aot", [("TL102", 6, 7)], ["dynamo", "aot"]),
    ("torch._dynamo.guards", [], ["torch._dynamo.guards"]),
    ("🙂", [("TL106", 0, 1)], ["🙂"]),
]


@pytest.mark.parametrize(("value", "problems", "items"), CASES)
def test_problems_and_items(value: str, problems: list[tuple[str, int, int]], items: list[str]):
    parsed = parse_value(value)
    assert [(p.code, p.start, p.end) for p in parsed.problems] == problems
    assert [i.text for i in parsed.items] == items
    assert parsed.valid == (not problems)


def test_item_offsets_point_at_the_text():
    parsed = parse_value("+dynamo, -aot,\tguards")
    for item in parsed.items:
        assert parsed.text[item.start : item.end] == item.text
        assert parsed.text[item.name_start : item.end] == item.name
    assert [i.index for i in parsed.items] == [0, 1, 2]


ALPHABET = st.sampled_from(
    [*"ab._+-, \t\n;\"'é1Z=|:\u00a0\u3000\x1f", "dynamo", "guards", "aot_g", "🙂"]
)


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(ALPHABET, max_size=14).map("".join))
def test_problems_agree_with_torch_regex(value: str):
    """A value has a syntax problem exactly when torch's regex rejects it."""
    parsed = parse_value(value)
    if value == "":
        return
    assert parsed.valid == is_torch_valid(value)
    assert parsed.valid == (not parsed.problems), parsed.problems
    for p in parsed.problems:
        assert 0 <= p.start < p.end <= len(value)


def test_carriage_return_is_named():
    (problem,) = parse_value("+dynamo\r").problems
    assert problem.code == "TL101" and "CRLF" in problem.message
