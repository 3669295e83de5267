"""Inlay hints and Compose never raise on junk documents, in any encoding: hints lie in the
document, after an item; a compose edit, when there is one, makes the document read the
assignments it answers (and nothing else changes)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from tests.server.test_features_robust import OPENERS, PIECES, URIS
from tests.support.budget import examples
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.checker import analyse_span
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.server.documents import build_state
from torch_logs_lsp.server.features.compose import compose_edit
from torch_logs_lsp.server.features.inlay_hints import MAX_HINTS, inlay_hints


@settings(max_examples=examples(200), deadline=None)
@given(
    host=st.sampled_from(sorted(URIS)),
    opener=st.integers(min_value=0, max_value=4),
    tail=st.lists(PIECES, max_size=12).map("".join),
    encoding=st.sampled_from(["utf-16", "utf-8"]),
    at=st.integers(min_value=0, max_value=200),
    recipes=st.lists(st.sampled_from(["recompiles", "output_code", "bug_report", "x"])),
    items=st.lists(st.sampled_from(["+dynamo", "guards", "-inductor", "no_such", "a b"])),
)
def test_hints_and_compose_never_raise(host, opener, tail, encoding, at, recipes, items):
    openers = OPENERS[host]
    text = openers[opener % len(openers)] + tail
    registry = load_registry()
    state = build_state(URIS[host], 1, text, "", registry, encoding)
    hints = inlay_hints(state, registry, 0, len(text), lambda s: analyse_span(s, registry))
    lines = text.count("\n") + text.count("\r") + 1
    for h in hints:
        assert 0 <= h.position.line < lines and h.position.character >= 0
        assert h.label
    answer = compose_edit(state, registry, min(at, len(text)), items, recipes)
    if answer["edit"] is None:
        return
    ((edit,),) = answer["edit"]["changes"].values()
    r = edit["range"]
    start = state.mapper.offset(_pos(r["start"]))
    end = state.mapper.offset(_pos(r["end"]))
    new = apply_text_edits(text, [TextEdit(start, end, edit["newText"])])
    before = Counter((s.variable, s.value) for s in extract(state.host, text))
    after = Counter((s.variable, s.value) for s in extract(state.host, new))
    for variable, value in answer["assignments"]:
        assert after[(variable, value)] >= 1
    written = {variable for variable, _ in answer["assignments"]}
    assert all(variable in written for variable, _ in before - after)  # only rewritten


def _pos(p: dict) -> types.Position:
    return types.Position(line=p["line"], character=p["character"])


def test_hints_of_a_huge_value_are_capped():
    registry = load_registry()
    text = "TORCH_LOGS=" + ",".join(["+dynamo", "guards"] * 3000) + "\n"
    state = build_state("file:///w/.env", 1, text, "", registry, "utf-16")
    hints = inlay_hints(state, registry, 0, len(text), lambda s: analyse_span(s, registry))
    assert len(hints) == MAX_HINTS
    assert [h.label for h in hints[:2]] == ["DEBUG", "artifact"]
