"""Suggestions from descriptions and known aliases, not only spelling:
the first "did you mean" of TL201 and its quick fix."""

from __future__ import annotations

import pytest

from torch_logs_lsp.knowledge.aliases import alias_index, key
from torch_logs_lsp.knowledge.registry import load_registry, releases
from torch_logs_lsp.knowledge.suggest import suggest
from torch_logs_lsp.value.analysis import analyse
from torch_logs_lsp.value.fixes import value_fixes

R = load_registry("2.13")


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        # names people write for the real ones
        ("aot_autograd", "aot"),  # aot's description opens with AOTAutograd
        ("inductor_output_code", "output_code"),  # a component word before a name
        ("recompile", "recompiles"),
        ("graph_break", "graph_breaks"),
        ("dynamo_guards", "guards"),
        # our own
        ("torch_dynamo", "dynamo"),  # TorchDynamo
        ("TorchInductor", "inductor"),
        ("dynamic_shapes", "dynamic"),  # "Dynamic shapes: ..."
        ("distributed_data_parallel", "ddp"),  # DistributedDataParallel
        ("cuda_graphs", "cudagraphs"),  # equal without `_`
        ("recompilation", "recompiles"),  # a known alias
        ("inductor_fusion", "fusion"),
        ("aot_graph", "aot_graphs"),  # a prefix still beats the component word
        ("dynamo_recompiles", "recompiles"),
    ],
)
def test_first_suggestion(typed: str, first: str):
    (d,) = analyse(typed, R).diagnostics
    assert d.code == "TL201"
    assert d.suggestions[0] == first, d.suggestions
    assert f"did you mean `{first}`" in d.message
    fixes = [f for f in value_fixes(analyse(typed, R), R) if f.diagnostics]
    assert fixes[0].title == f"Change to `{first}`"


def test_spelling_still_counts():
    assert suggest("gaurds", R.known_tuple, aliases=R.aliases)[0] == "guards"
    assert suggest("aot_g", R.known_tuple, aliases=R.aliases)[:2] == [
        "aot_graphs",
        "aot_graphs_effects",
    ]
    assert suggest("zzzzzz", R.known_tuple, aliases=R.aliases) == []


def test_alias_keys():
    assert key("AOTAutograd") == key("aot_autograd") == "aotautograd"
    assert key("TorchDynamo") == "dynamo" and key("torch") == "torch"


@pytest.mark.parametrize("release", releases())
def test_aliases_name_only_registered_names(release: str):
    reg = load_registry(release)
    for names in alias_index(reg).values():
        assert set(names) <= reg.known_set


def test_suggestions_are_computed_once_per_name_across_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file repeating a few misspelled names over many values computes each name's
    suggestions once, not once per value; every value still gets the same answer."""
    from torch_logs_lsp.knowledge import suggest as module

    calls: list[str] = []
    real = module.suggest

    def counted(name: str, *args: object, **kwargs: object) -> list[str]:
        calls.append(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "_shared", {}, raising=False)
    monkeypatch.setattr(module, "suggest", counted)
    registry = load_registry()
    names = ["gaurds", "dynamoo", "recompile", "graphbreak", "fooo", "barr", "bazz", "quxx"]
    messages = set()
    for i in range(500):
        value = ",".join(names[i % 8 :] + names[: i % 8])  # every order of the 8 names
        messages.add(frozenset(d.message for d in analyse(value, registry).diagnostics))
    assert len(calls) == len(set(calls)) == 8
    assert len(messages) == 1
