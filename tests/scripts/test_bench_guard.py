"""scripts/bench_guard.py (``./dev bench guard``): which numbers of a benchmark JSON are
metrics, and when a run fails against its baseline; synthetic documents, nothing timed."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import SCRIPTS


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_guard", SCRIPTS / "bench_guard.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_guard"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


guard = _load()


def bench_doc(**overrides: Any) -> dict[str, Any]:
    """A document shaped like scripts/bench.py's ``--json`` (one input, the soak, a value,
    a notebook)."""
    shell = {
        "bytes": 550_000,
        "initialize_ms": 400.0,
        "open_to_diagnostics_ms": 300.0,
        "completion_ms_p50": 0.6,
        "completion_ms_p99": 6.0,
        "edit_to_diagnostics_ms_p50": 200.0,
        "peak_rss_mb": 110.0,
        "bare_initialize_ms": 380.0,
    }
    shell.update(overrides)
    return {
        "runs": 3,
        "load_average": [1.0, 1.5, 2.0],
        "inputs": {"shell-10k": shell},
        "soak": {"edits": 100_000, "growth_mb": 0.0, "within_target": True, "seconds": 22.0},
        "bare_pygls_initialize_ms": 380.0,
        "values": {"items-10k": {"analyse_ms": 67.0, "check_stdout_bytes": 9000}},
        "notebooks": {"notebook-20mb": {"read_ms": 38.0, "cells": 200}},
        "load_average_end": [2.0, 1.5, 1.0],
        "load_average_1min_samples": {"every_seconds": 15, "median": 1.5},
    }


def verdicts(base: dict[str, Any], new: dict[str, Any], **kw: float) -> dict[str, str]:
    rows = guard.compare(guard.metrics(base), guard.metrics(new), **kw)
    return {r.path: r.verdict for r in rows}


def test_metrics_are_the_times_and_memory_of_the_document() -> None:
    found = guard.metrics(bench_doc())
    assert found["inputs/shell-10k/completion_ms_p99"] == 6.0
    assert found["inputs/shell-10k/peak_rss_mb"] == 110.0
    assert found["soak/seconds"] == 22.0
    assert found["soak/growth_mb"] == 0.0
    assert found["values/items-10k/analyse_ms"] == 67.0
    assert found["notebooks/notebook-20mb/read_ms"] == 38.0
    # sizes, counts, flags and the load average are not metrics
    for path in (
        "inputs/shell-10k/bytes",
        "runs",
        "soak/edits",
        "soak/within_target",
        "values/items-10k/check_stdout_bytes",
        "notebooks/notebook-20mb/cells",
        "load_average",
        "load_average_1min_samples/every_seconds",
    ):
        assert path not in found


def test_peers_document_compares_medians_and_skips_ratios() -> None:
    doc = {
        "inputs": {
            "shell-20": {
                "bytes": 700,
                "servers": {
                    "ours": {"initialize_ms": {"median": 400.0, "min": 380.0, "max": 900.0}},
                    "json-ls": {"open_to_diagnostics_ms": {"median": None, "min": None}},
                },
                "ratio_ours_over_peer": {"initialize_ms": 1.2},
            }
        }
    }
    assert guard.metrics(doc) == {
        "inputs/shell-20/servers/ours/initialize_ms": 400.0,
        "inputs/shell-20/servers/json-ls/open_to_diagnostics_ms": None,
    }


def test_nan_is_absent() -> None:
    assert "bare_pygls_initialize_ms" not in guard.metrics({"bare_pygls_initialize_ms": math.nan})


def test_same_numbers_pass() -> None:
    assert set(verdicts(bench_doc(), bench_doc()).values()) == {"ok"}


def test_a_metric_over_the_factor_fails_and_one_at_it_passes() -> None:
    got = verdicts(bench_doc(), bench_doc(open_to_diagnostics_ms=451.0))
    assert got["inputs/shell-10k/open_to_diagnostics_ms"] == "slower"
    got = verdicts(bench_doc(), bench_doc(open_to_diagnostics_ms=450.0))
    assert got["inputs/shell-10k/open_to_diagnostics_ms"] == "ok"
    got = verdicts(bench_doc(), bench_doc(open_to_diagnostics_ms=451.0), factor=2.0)
    assert got["inputs/shell-10k/open_to_diagnostics_ms"] == "ok"


def test_memory_is_a_metric_too() -> None:
    got = verdicts(bench_doc(), bench_doc(peak_rss_mb=200.0))
    assert got["inputs/shell-10k/peak_rss_mb"] == "slower"


def test_faster_passes() -> None:
    got = verdicts(bench_doc(), bench_doc(open_to_diagnostics_ms=10.0, peak_rss_mb=50.0))
    assert got["inputs/shell-10k/open_to_diagnostics_ms"] == "ok"
    assert got["inputs/shell-10k/peak_rss_mb"] == "ok"


def test_sub_millisecond_times_need_the_slack() -> None:
    # 0.6 -> 1.5 ms is 2.5x but under 1 ms worse: noise on a shared machine
    got = verdicts(bench_doc(), bench_doc(completion_ms_p50=1.5))
    assert got["inputs/shell-10k/completion_ms_p50"] == "ok"
    got = verdicts(bench_doc(), bench_doc(completion_ms_p50=1.7))
    assert got["inputs/shell-10k/completion_ms_p50"] == "slower"
    got = verdicts(bench_doc(), bench_doc(completion_ms_p50=1.5), slack_ms=0.0)
    assert got["inputs/shell-10k/completion_ms_p50"] == "slower"


def test_a_zero_baseline_fails_only_past_the_slack() -> None:
    base = bench_doc()
    grown = bench_doc()
    grown["soak"]["growth_mb"] = 0.5
    assert verdicts(base, grown)["soak/growth_mb"] == "ok"
    grown["soak"]["growth_mb"] = 3.0
    assert verdicts(base, grown)["soak/growth_mb"] == "slower"


def test_a_negative_baseline_counts_as_zero() -> None:
    # memory given back during the baseline's soak is not a bar for the next run
    base, new = bench_doc(), bench_doc()
    base["soak"]["growth_mb"] = -9.0
    new["soak"]["growth_mb"] = 0.1
    assert verdicts(base, new)["soak/growth_mb"] == "ok"
    new["soak"]["growth_mb"] = 1.5
    assert verdicts(base, new)["soak/growth_mb"] == "slower"


def test_seconds_are_compared_in_seconds() -> None:
    base, new = bench_doc(), bench_doc()
    new["soak"]["seconds"] = 40.0
    assert verdicts(base, new)["soak/seconds"] == "slower"


def test_lost_diagnostics_fail_and_unmeasured_metrics_do_not() -> None:
    new = bench_doc(open_to_diagnostics_ms=None)
    del new["values"]
    got = verdicts(bench_doc(), new)
    assert got["inputs/shell-10k/open_to_diagnostics_ms"] == "lost"
    assert got["values/items-10k/analyse_ms"] == "not measured"
    rows = guard.compare(guard.metrics(bench_doc()), guard.metrics(new))
    assert {r.path for r in rows if r.failed} == {"inputs/shell-10k/open_to_diagnostics_ms"}


def test_a_metric_only_the_new_run_has_is_listed() -> None:
    new = bench_doc(hover_ms_p99=5.0)
    assert verdicts(bench_doc(), new)["inputs/shell-10k/hover_ms_p99"] == "no baseline"


def _run(tmp_path: Path, base: Any, new: Any) -> subprocess.CompletedProcess[str]:
    (tmp_path / "base.json").write_text(json.dumps(base) if not isinstance(base, str) else base)
    (tmp_path / "new.json").write_text(json.dumps(new))
    return subprocess.run(
        [sys.executable, str(SCRIPTS / "bench_guard.py"), "base.json", "new.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_command_exits_1_and_names_the_slower_metric(tmp_path: Path) -> None:
    done = _run(tmp_path, bench_doc(), bench_doc(initialize_ms=900.0))
    assert done.returncode == 1
    assert "inputs/shell-10k/initialize_ms: 400 -> 900 (slower)" in done.stdout
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("inputs/shell-10k/init"))
    assert "2.25" in line  # the ratio new / baseline
    assert "load average (1/5/15 min) 1.00 1.50 2.00 -> 2.00 1.50 1.00" in done.stdout


def test_command_exits_0_when_nothing_is_slower(tmp_path: Path) -> None:
    done = _run(tmp_path, bench_doc(), bench_doc(initialize_ms=500.0))
    assert done.returncode == 0, done.stdout
    assert "ok: none of" in done.stdout


@pytest.mark.parametrize("base", ["{not json", "[1, 2]"])
def test_command_exits_2_on_a_file_it_cannot_read(tmp_path: Path, base: str) -> None:
    done = _run(tmp_path, base, bench_doc())
    assert done.returncode == 2
    assert "bench_guard:" in done.stderr
    assert "Traceback" not in done.stderr
