"""Analysis: diagnostics with codes, severities, ranges and suggestions; effective config."""

from __future__ import annotations

import pytest

from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.value.analysis import Severity, analyse

E, W, INFO, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

CASES = [
    ("+dynamo,guards,output_code", "ok", []),
    ("aot_g", "invalid", [("TL201", E, 0, 5)]),
    ("Dynamo", "invalid", [("TL201", E, 0, 6)]),
    ("+dynamo ,guards", "invalid", [("TL102", E, 7, 8)]),
    ("+dynamo,", "invalid", [("TL104", E, 7, 8)]),
    ("-output_code", "ok", [("TL301", W, 0, 1)]),
    ("+guards,dynamo", "ok", [("TL301", W, 0, 1)]),
    ("help", "help", [("TL002", E, 0, 4)]),
    ("+help", "help", [("TL002", E, 0, 5)]),
    ("", "crash", [("TL001", E, 0, 0)]),
    ('"dynamo"', "invalid", [("TL107", E, 0, 8)]),
    ("+torch._dynamo.guards", "ok", [("TL202", H, 1, 21)]),
    ("+dynamo,-dynamo", "ok", [("TL303", W, 0, 7)]),
    ("dynamo,dynamo", "ok", [("TL302", W, 7, 13)]),
    ("guards,-guards", "ok", [("TL301", W, 7, 8), ("TL302", W, 7, 14)]),
    ("+dynamo,dynamic", "ok", [("TL304", INFO, 0, 7)]),
    ("dynamo,dynamic", "ok", []),
    (".json", "module_not_found", [("TL203", E, 0, 5)]),
    ("a..b", "module_not_found", [("TL203", E, 0, 4)]),
    ("mypackage", "invalid", [("TL201", W, 0, 9)]),
    ("os", "ok", [("TL202", H, 0, 2)]),
    ("dynamo,help", "invalid", [("TL201", W, 7, 11)]),
    ("graph-breaks", "invalid", [("TL106", E, 5, 6)]),
]


@pytest.mark.parametrize(("value", "outcome", "diags"), CASES)
def test_diagnostics(value: str, outcome: str, diags: list[tuple[str, Severity, int, int]]):
    result = analyse(value)
    assert result.outcome == outcome
    assert [(d.code, d.severity, d.start, d.end) for d in result.diagnostics] == diags
    assert (result.config is not None) == (outcome == "ok")


@pytest.mark.parametrize(
    ("value", "first"),
    [
        ("aot_g", ["aot_graphs", "aot"]),
        ("Dynamo", ["dynamo"]),
        ("graph-breaks", ["graph_breaks"]),
        ("gaurds", ["guards"]),
        ("OUTPUT_CODE", ["output_code"]),
        ("recompile", ["recompiles"]),
    ],
)
def test_suggestions(value: str, first: list[str]):
    (diag,) = analyse(value).diagnostics
    assert set(first) <= set(diag.suggestions)
    assert diag.suggestions[0] == first[0]
    for name in first:
        assert f"`{name}`" in diag.message or diag.code == "TL106"


def test_messages_say_what_wins():
    (diag,) = analyse("+dynamo,-dynamo").diagnostics
    assert "-dynamo" in diag.message and "ERROR" in diag.message


def test_effective_configuration():
    result = analyse("+dynamo,aot,-inductor,guards,-output_code,all,+my.module")
    assert result.config is not None
    reg = load_registry()
    expected = dict.fromkeys(reg.components["dynamo"].qnames, 10)
    expected.update(dict.fromkeys(reg.components["aot"].qnames, 20))
    expected.update(dict.fromkeys(reg.components["inductor"].qnames, 40))
    expected["torch"] = 20
    expected["my.module"] = 10
    assert result.config.logs == expected
    assert result.config.artifacts == ("guards", "output_code")
    assert result.config.modules == ("my.module",)


def test_first_failing_item_decides_the_outcome():
    assert analyse("aot_g,.json").outcome == "invalid"
    assert analyse(".json,aot_g").outcome == "module_not_found"


def test_release_specific_registry():
    assert analyse("autotuning_inputs", load_registry("2.13")).outcome == "invalid"
    assert analyse("autotuning_inputs", load_registry("2.15")).outcome == "ok"
