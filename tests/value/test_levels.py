"""Level syntax of other loggers in TORCH_LOGS: TL207 / TL208, their
quick fixes, and what real torch 2.13 does with each input (oracle in a subprocess)."""

from __future__ import annotations

import sys

import pytest

from tests.support.set_logs_oracle import run_cases
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.model.diagnostic import Severity
from torch_logs_lsp.torch_env.context import TorchResolver
from torch_logs_lsp.value.analysis import analyse
from torch_logs_lsp.value.fixes import fix_all_value, value_fixes

R = load_registry("2.13")
CTX = TorchResolver().context(python=sys.executable)  # the test venv, with torch 2.13

# value -> (code, severity with no environment, the preferred replacement or None,
#           the value after fix-all)
CASES: dict[str, tuple[str, Severity, str | None, str]] = {
    # values written for other loggers
    "spyre.inductor.passes:DEBUG": (
        "TL207",
        Severity.ERROR,
        "+spyre.inductor.passes",
        "+spyre.inductor.passes",
    ),
    "dynamo=debug": ("TL207", Severity.ERROR, "+dynamo", "+dynamo"),
    "dynamo.DEBUG": ("TL207", Severity.WARNING, "+dynamo", "dynamo.DEBUG"),
    "DEBUG": ("TL208", Severity.WARNING, None, "DEBUG"),
    "debug": ("TL208", Severity.WARNING, None, "debug"),
    "verbose": ("TL208", Severity.WARNING, None, "verbose"),
    "1": ("TL208", Severity.ERROR, None, "1"),
    "true": ("TL208", Severity.WARNING, None, "true"),
    "on": ("TL208", Severity.WARNING, None, "on"),
    "dynamo:INFO": ("TL207", Severity.ERROR, "dynamo", "dynamo"),
    "dynamo:WARNING": ("TL207", Severity.ERROR, None, "dynamo:WARNING"),
    # our own
    "inductor:error": ("TL207", Severity.ERROR, "-inductor", "-inductor"),
    "guards:DEBUG": ("TL207", Severity.ERROR, "guards", "guards"),
    "dynamo=logging.DEBUG": ("TL207", Severity.ERROR, "+dynamo", "+dynamo"),
    "aot: DEBUG": ("TL207", Severity.ERROR, "+aot", "+aot"),
    "dynamo:CRITICAL": ("TL207", Severity.ERROR, "-dynamo", "dynamo:CRITICAL"),
    "torch._dynamo.DEBUG": ("TL207", Severity.WARNING, "+torch._dynamo", "torch._dynamo.DEBUG"),
    "spyre.inductor.passes,DEBUG": (
        "TL208",
        Severity.WARNING,
        "+spyre.inductor.passes",
        "spyre.inductor.passes,DEBUG",
    ),
    "off": ("TL208", Severity.WARNING, None, "off"),
    # seen in public code (2026-12-01): a deprecation message of a torch backend, a
    # setdefault("TORCH_LOGS", "error") meant to quiet torch, a "0" written the same way
    "spyre.inductor:INFO": ("TL207", Severity.ERROR, "spyre.inductor", "spyre.inductor"),
    "error": ("TL208", Severity.WARNING, None, "error"),
    "0": ("TL208", Severity.ERROR, None, "0"),
    "dynamo,1": ("TL208", Severity.ERROR, None, "dynamo,1"),
    # the name before the level is not registered either: the suggestion's prefix form
    "aot_autograd:INFO": ("TL207", Severity.ERROR, "aot", "aot_autograd:INFO"),
    "Dynamo:debug": ("TL207", Severity.ERROR, "+dynamo", "+dynamo"),  # equal up to case
    "graph_break=1": ("TL207", Severity.ERROR, "graph_breaks", "graph_break=1"),
}


@pytest.mark.parametrize("value", list(CASES))
def test_foreign_level_syntax_is_named_with_torchs_form(value: str):
    code, severity, preferred, after_fix_all = CASES[value]
    a = analyse(value, R)
    replaced = ("TL106", "TL201", "TL204", "TL207", "TL208")
    assert [d.code for d in a.diagnostics if d.code in replaced] == [code]
    (d,) = [d for d in a.diagnostics if d.code == code]
    assert d.severity == severity
    assert "`:` is not a separator" not in d.message  # the old advice, which misled
    fixes = value_fixes(a, R)
    best = [f for f in fixes if f.preferred and code in f.codes]
    if preferred is None:
        assert not best
    else:
        assert len(best) == 1 and best[0].edits[-1].text == preferred
    assert fix_all_value(value, R) == after_fix_all


def test_messages_say_what_torch_wants():
    (d,) = analyse("spyre.inductor.passes:DEBUG", R).diagnostics
    assert "write `+spyre.inductor.passes`" in d.message
    assert "ValueError" in d.message
    (d,) = analyse("dynamo:WARNING", R).diagnostics
    assert "no WARNING prefix" in d.message and "`-dynamo` (ERROR)" in d.message
    (d,) = analyse("off", R).diagnostics
    assert "unset TORCH_LOGS" in d.message
    (d,) = analyse("dynamo,1", R).diagnostics
    assert d.message.startswith("`1` is a switch, not a name") and "`+dynamo` (DEBUG)" in d.message
    (d,) = analyse("guards:error", R).diagnostics
    assert "leave `guards` out" in d.message
    assert not [f for f in value_fixes(analyse("guards:error", R), R) if f.diagnostics]


@pytest.mark.parametrize(
    "value",
    [
        "torch._dynamo",
        "torch._inductor.debug",
        "+dynamo,guards",
        "json",
        "debugger",
        "info_x",
        "DEBUGGING",
    ],
)
def test_names_that_only_look_like_levels_are_left_alone(value: str):
    a = analyse(value, R, CTX.finder)
    assert not {d.code for d in a.diagnostics} & {"TL207", "TL208"}


ORACLE_VALUES = [
    *CASES,
    "torch._dynamo.debug",
    "json.debug",
    "dynamo,1",
]


def test_every_input_is_rejected_by_real_torch_as_the_analysis_says():
    """torch 2.13's verdict on each input equals our outcome with the test venv's
    environment; the finding is TL207/TL208 in every case (none is accepted)."""
    results = run_cases([{"kind": "torch_logs", "source": v} for v in ORACLE_VALUES])
    ours_of = {"invalid": "ValueError", "module_not_found": "ModuleNotFoundError"}
    for value, res in zip(ORACLE_VALUES, results, strict=True):
        a = analyse(value, CTX.registry, CTX.finder)
        assert res["outcome"] != "ok", value
        assert ours_of[a.outcome] == res["outcome"], (value, a.outcome, res)
        assert {d.code for d in a.diagnostics} & {"TL207", "TL208"}, value
