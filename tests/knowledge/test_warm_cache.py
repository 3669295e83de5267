"""The warm-cache table (``knowledge/data/warm-cache-2.13.json``) against real torch 2.13:
the generator (``scripts/gen_warm_cache.py``) measures a sample of names again and agrees
with the committed table; the table covers every name of the release; the releases the
rule is carried to (``warm-cache-by-version.json``) have the same logging code."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from torch_logs_lsp.knowledge.registry import load_registry, releases
from torch_logs_lsp.knowledge.warm_cache import measured_release, measured_table, swallowed

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "torch_logs_lsp" / "knowledge" / "data"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _torch_dir() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def test_the_table_covers_every_name_of_2_13() -> None:
    table = measured_table()
    assert table["torch"].startswith("2.13.")
    reg = load_registry("2.13")
    names = table["names"]
    assert set(names) == {*reg.components, *reg.artifacts}
    for name, row in names.items():
        assert row["kind"] == ("component" if name in reg.components else "artifact")
        assert row["verdict"] in ("swallowed", "fewer", "printed", "not exercised")
        assert set(row["records"]) >= {"cold", "warm", "nocache"}


def test_the_headline() -> None:
    # the user's report: post_grad_graphs gone on a warm cache; output_code and aot_graphs not
    names = measured_table()["names"]
    assert names["post_grad_graphs"]["verdict"] == "swallowed"
    assert names["output_code"]["verdict"] == "printed"
    assert names["aot_graphs"]["verdict"] == "printed"
    counters = measured_table()["cache_counters"]
    # the warm run hit the caches (enabling every name, output_code included, kept them on)
    assert counters["warm"]["inductor"].get("fxgraph_cache_hit", 0) > 0
    assert counters["warm"]["aot_autograd"].get("autograd_cache_hit", 0) > 0
    assert "fxgraph_cache_hit" not in counters["nocache"]["inductor"]


def test_by_version_is_the_swallowed_artifacts_and_never_more() -> None:
    data = json.loads((DATA / "warm-cache-by-version.json").read_text())
    rows = measured_table()["names"]
    measured = {
        n for n, r in rows.items() if r["verdict"] == "swallowed" and r["kind"] == "artifact"
    }
    # perf_hints is logged by dynamo too (every process), so it is left out
    assert set(data["2.13"]) == measured - {"perf_hints"} == swallowed("2.13")
    assert "post_grad_graphs" in measured
    for name in data["2.13"]:
        # TORCHINDUCTOR_FX_GRAPH_CACHE=0 alone brings each back (lint/warm_cache.py's
        # `fx_graph_cache`); TORCHINDUCTOR_AUTOGRAD_CACHE=0 alone does not for all
        assert rows[name]["records"]["fx_off"] > 0, name
    assert any(rows[n]["records"]["aot_off"] == 0 for n in data["2.13"])
    assert measured_release().startswith("2.13")
    for release, names in data.items():
        assert release in releases()
        assert set(names) <= measured
        assert set(names) <= set(load_registry(release).artifacts)


def test_the_sources_of_the_installed_torch_give_the_2_13_fingerprints() -> None:
    torch_dir = _torch_dir()
    if torch_dir is None:
        pytest.skip("torch not installed")
    sources = _script("warm_cache_sources")
    prints = sources.fingerprints(torch_dir, {"post_grad_graphs", "output_code"})
    assert len(prints["<cache path>"]) == len(sources.CACHE_PATH)
    assert any(k.startswith("torch/_inductor/compile_fx.py::") for k in prints["post_grad_graphs"])
    assert prints["output_code"]


@pytest.mark.oracle
@pytest.mark.slow
def test_a_sample_measured_again_agrees_with_the_table() -> None:
    """Real torch 2.13, three processes (cold, warm, caches off) of the generator's probe:
    about a minute of CPU, several minutes of wall time on a busy two-core machine (each
    process compiles ten graphs with the C++ compiler), hence slow."""
    if _torch_dir() is None:
        pytest.skip("torch not installed")
    gen = _script("gen_warm_cache")
    sample = ["post_grad_graphs", "output_code", "aot_graphs", "inductor"]
    table = gen.measure(sys.executable, sample)
    committed = measured_table()["names"]
    for name in sample:
        assert table["names"][name]["verdict"] == committed[name]["verdict"], name
    assert table["names"]["post_grad_graphs"]["records"]["warm"] == 0
    assert table["names"]["post_grad_graphs"]["records"]["cold"] > 0


def test_log_sites_see_the_logging_statements_and_their_conditions_only() -> None:
    import ast

    sources = _script("warm_cache_sources")

    def sites(code: str) -> list[str]:
        fn = ast.parse(code).body[0]
        return sources.log_sites(fn, "post_log")

    base = sites("def f(g):\n    x = 1\n    if g.ok:\n        post_log.debug('%s', g)\n")
    assert base == ["if g.ok / post_log.debug('%s', g)"]
    # another statement, a comment, the layout: the same
    assert (
        sites("def f(g):\n    y = 2  # new\n    if g.ok:\n        post_log.debug('%s',g)\n") == base
    )
    # a new condition around the call, or another message: different
    assert sites("def f(g):\n    if g.ok and g.more:\n        post_log.debug('%s', g)\n") != base
    assert sites("def f(g):\n    if g.ok:\n        post_log.info('%s', g)\n") != base
    # a nested function's statements are its own
    assert sites("def f(g):\n    def h():\n        post_log.debug('x')\n") == []


def test_the_cache_path_guards_name_the_branch_of_each_compile_call() -> None:
    import ast

    sources = _script("warm_cache_sources")
    fn = ast.parse(
        "def f():\n    compiled = load()\n"
        "    if compiled is None:\n        compiled = compile_it()\n"
    ).body[0]
    assert sources.guards(fn, ("compile_it",)) == ["if compiled is None / compile_it"]
