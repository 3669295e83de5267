"""Long values cost bounded output and near-linear work: messages quote at most an
excerpt, one value shows at most ``MAX_DIAGNOSTICS`` diagnostics and a summary, difflib
runs for a bounded number of names, fixes of hidden problems still reach fix-all.

(Times are measured by ``scripts/bench.py``; these tests bound sizes and counts.)"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import MAX_DIFF, apply_text_edits, value_edit
from torch_logs_lsp.knowledge import suggest as suggest_module
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.knowledge.suggest import suggest
from torch_logs_lsp.model.limits import MAX_DIAGNOSTICS, MAX_QUOTED, excerpt
from torch_logs_lsp.value.analysis import MORE_PROBLEMS, analyse
from torch_logs_lsp.value.analysis_cache import MAX_ENTRIES, AnalysisCache
from torch_logs_lsp.value.family import check_family_value
from torch_logs_lsp.value.fixes import fix_all_value, value_fixes

REGISTRY = load_registry()
#: One 24 KB item with 7,999 illegal `+` (each message quoted it all).
LONG_24K = "+a." * 8000 + "b"
DYNAMO_10K = ",".join(["+dynamo"] * 10_000)
UNKNOWN_10K = ",".join(f"name{i}" for i in range(10_000))
#: A message of ours without user text is shorter than this; with it, a few excerpts more.
MESSAGE_BOUND = 200 + 4 * (MAX_QUOTED + 2)


def _quoted(message: str) -> list[str]:
    return re.findall(r"`([^`]*)`", message)


def test_excerpt_keeps_both_ends():
    assert excerpt("abc") == "abc"
    long = "torch." + "x" * 200 + ".guards"
    short = excerpt(long)
    assert len(short) == MAX_QUOTED and short.startswith("torch.x") and short.endswith(".guards")
    assert "…" in short


@pytest.mark.parametrize("value", [LONG_24K, DYNAMO_10K, UNKNOWN_10K], ids=["24k", "dyn", "unk"])
def test_diagnostics_are_capped_with_a_summary(value: str):
    result = analyse(value, REGISTRY)
    assert len(result.diagnostics) == MAX_DIAGNOSTICS + 1
    summary = result.diagnostics[-1]
    hidden = len(result.every_diagnostic) - MAX_DIAGNOSTICS
    assert summary.code == MORE_PROBLEMS and hidden > 0
    assert summary.message.startswith(f"{hidden} more problems in this value not shown")
    assert summary.severity == min(d.severity for d in result.hidden)
    for d in result.diagnostics:
        assert len(d.message) <= MESSAGE_BOUND, d.message[:100]
        assert all(len(q) <= MAX_QUOTED for q in _quoted(d.message))


def test_the_24k_example_keeps_every_problem_for_fix_all():
    result = analyse(LONG_24K, REGISTRY)
    assert result.outcome == "invalid"
    assert len(result.every_diagnostic) == 7999  # every `+` inside the name
    assert sum(len(d.message) for d in result.diagnostics) < 40_000  # was 193 MB


def test_suggestions_skip_names_no_candidate_can_match():
    names = REGISTRY.known_tuple
    assert suggest("a" * 100_000, names) == []
    assert suggest("dynamox", names)[0] == "dynamo"


def test_difflib_runs_for_a_bounded_number_of_names(monkeypatch: pytest.MonkeyPatch):
    calls = []
    real = difflib.get_close_matches

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(suggest_module.difflib, "get_close_matches", counting)
    result = analyse(UNKNOWN_10K, REGISTRY)
    assert len(calls) == MAX_DIAGNOSTICS  # not one per unknown name
    assert len(result.every_diagnostic) == 10_000


def test_fixes_of_shown_diagnostics_are_bounded_and_fix_all_reaches_hidden_ones():
    result = analyse(DYNAMO_10K, REGISTRY)
    fixes = value_fixes(result, REGISTRY)
    assert len(fixes) <= MAX_DIAGNOSTICS + 5  # was one per duplicate
    assert all(len(f.title) <= 60 + 2 * (MAX_QUOTED + 2) for f in fixes)
    assert fix_all_value(DYNAMO_10K, REGISTRY) == "+dynamo"
    dynamo_typos = ",".join(["Dynamo"] * 300)  # safe "Change to" past the first 100
    assert fix_all_value(dynamo_typos, REGISTRY) == "dynamo"


def test_long_item_fix_titles_quote_an_excerpt():
    item = "+" + "a" * 5000
    result = analyse(f"{item},{item}", REGISTRY)
    titles = [f.title for f in value_fixes(result, REGISTRY)]
    assert titles and all(len(t) < 200 for t in titles)


def test_cli_output_on_the_24k_example_is_bounded(tmp_path: Path):
    path = tmp_path / "long.env"
    path.write_text(f"TORCH_LOGS={LONG_24K}\n")
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main"]
    proc = subprocess.run([*cli, "check", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == MAX_DIAGNOSTICS + 1 and "TL901 7899 more problems" in lines[-1]
    assert len(proc.stdout) < 64_000  # was 193 MB
    proc = subprocess.run([*cli, "explain", LONG_24K], capture_output=True, text=True)
    assert len(proc.stdout) < len(LONG_24K) + 64_000  # the value itself once, then excerpts


def test_analysis_cache_holds_a_bounded_weight_of_long_values():
    cache = AnalysisCache()
    for i in range(40):  # typing in a 24 KB value: every version is a new value
        cache.analyse(f"x{i}" + LONG_24K, REGISTRY, None)
    for i in range(200):
        cache.analyse(f"dynamo,n{i}", REGISTRY, None)
    assert cache.weight <= MAX_ENTRIES
    assert len(cache._entries) == 200  # the short values are kept, the heavy ones are not


def test_family_values_are_capped_and_quote_excerpts():
    ids = check_family_value("TORCH_LOGS_TRACE_ID_FILTER", ",".join(["x" * 100] * 5000), "2.13")
    assert len(ids) == MAX_DIAGNOSTICS + 1 and ids[-1].code == MORE_PROBLEMS
    assert all(len(d.message) <= MESSAGE_BOUND for d in ids)
    fmt = check_family_value("TORCH_LOGS_FORMAT", "%(" + "f" * 50_000 + ")s", "2.13")
    assert len(fmt) == 1 and len(fmt[0].message) <= MESSAGE_BOUND


def test_document_edits_of_a_long_value_diff_a_bounded_text(monkeypatch: pytest.MonkeyPatch):
    """A fix's document edit diffs only the changed middle of the value (difflib is
    quadratic on repetitive text: one fix of a 10,000-item value took minutes)."""
    sizes: list[int] = []
    real = difflib.SequenceMatcher

    def counting(isjunk=None, a="", b="", autojunk=True):  # type: ignore[no-untyped-def]
        sizes.append(len(a) + len(b))
        return real(isjunk, a, b, autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", counting)
    value = ",".join(["+dynamo"] * 1000)
    text = f"TORCH_LOGS={value}\n"
    span = next(s for s in hosts.extract("dotenv", text) if s.variable == "TORCH_LOGS")
    edits = value_edit("dotenv", text, span, fix_all_value(value, REGISTRY))
    assert edits is not None and apply_text_edits(text, edits) == "TORCH_LOGS=+dynamo\n"
    edits = value_edit("dotenv", text, span, value[len("+dynamo,") :])
    assert edits is not None and len(apply_text_edits(text, edits)) == len(text) - 8
    assert sizes and max(sizes) <= MAX_DIFF
    # a short value too: 100 items (1,700 code points) took ~2 s per quickfix request when
    # difflib was given up to 4,000 code points
    sizes.clear()
    value = ",".join(["+dynamoo"] * 100)
    text = f"TORCH_LOGS={value}\n"
    span = next(s for s in hosts.extract("dotenv", text) if s.variable == "TORCH_LOGS")
    edits = value_edit("dotenv", text, span, value.replace("dynamoo", "dynamo"))
    assert edits is not None
    assert apply_text_edits(text, edits) == text.replace("dynamoo", "dynamo")
    assert max(sizes, default=0) <= 256
