"""Registry per release: names added in a release, removals and renames, version facts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge.registry import load_registry, release_tuple, releases
from torch_logs_lsp.knowledge.versions import (
    FACTS,
    history,
    holds,
    lifespan_text,
    nearest_release,
    parse_release,
)
from torch_logs_lsp.value.analysis import Severity, analyse

RELEASES = releases()


def _added_in(release: str) -> list[str]:
    """Names registered in ``release`` but not in the release before it."""
    i = RELEASES.index(release)
    before = set(load_registry(RELEASES[i - 1]).known_names())
    return sorted(set(load_registry(release).known_names()) - before)


def test_every_release_2_1_to_2_15_is_packaged():
    assert [f"2.{m}" for m in range(1, 16)] == RELEASES


@pytest.mark.parametrize("release", RELEASES[1:])
def test_a_name_added_in_a_release_is_an_error_before_and_fine_from_it(release: str):
    added = _added_in(release)
    i = RELEASES.index(release)
    for name in added:
        previous = RELEASES[i - 1]
        result = analyse(name, load_registry(previous))
        assert result.outcome == "invalid", (name, previous)
        (diag,) = result.diagnostics
        assert diag.severity == Severity.ERROR
        if name in ("c10d", "ddp", "fsdp"):
            assert diag.code == "TL205"
        assert diag.message == f"`{name}` is not in torch {previous} (added in {release})"
        last = history(name)[1] if history(name) else RELEASES[-1]
        for later in RELEASES[i:]:
            if release_tuple(later) <= release_tuple(last):
                assert analyse(name, load_registry(later)).outcome == "ok", (name, later)


def test_some_releases_add_names():
    assert "autotuning_inputs" in _added_in("2.14")
    assert {"dist_ddp", "dist_c10d", "dist_fsdp"} <= set(_added_in("2.3"))


@pytest.mark.parametrize(("old", "new"), [("dist_ddp", "ddp"), ("dist_c10d", "c10d")])
@pytest.mark.parametrize("release", ["2.4", "2.9", "2.15"])
def test_renamed_names_suggest_the_replacement(old: str, new: str, release: str):
    result = analyse(f"+{old}", load_registry(release))
    assert result.outcome == "invalid"
    (diag,) = result.diagnostics
    assert (diag.code, diag.severity, diag.start, diag.end) == (
        "TL206",
        Severity.ERROR,
        1,
        1 + len(old),
    )
    assert diag.message.startswith(f"`{old}` was renamed to `{new}` in torch 2.4")
    assert diag.suggestions == (new,)


def test_dist_names_are_fine_in_2_3_only():
    assert analyse("dist_ddp,dist_fsdp", load_registry("2.3")).outcome == "ok"
    (diag,) = analyse("dist_ddp", load_registry("2.2")).diagnostics
    assert diag.message == "`dist_ddp` is not in torch 2.2 (added in 2.3)"
    assert history("dist_ddp") == ("2.3", "2.3")
    assert lifespan_text("dist_ddp") == "since 2.3, until 2.3"


def test_message_names_the_release():
    (diag,) = analyse("autotuning_inputs", load_registry("2.13")).diagnostics
    assert diag.code == "TL205"
    assert diag.message == "`autotuning_inputs` is not in torch 2.13 (added in 2.14)"


def test_all_means_every_log_in_2_1_and_torch_later():
    reg21 = load_registry("2.1")
    config = analyse("all", reg21).config
    assert config is not None
    every = {q for c in reg21.components.values() for q in c.qnames}
    assert set(config.logs) == every and "torch._dynamo" in config.logs
    config = analyse("all", load_registry("2.2")).config
    assert config is not None and config.logs == {"torch": 20}


@pytest.mark.parametrize(
    ("text", "release"),
    [("2.13.0+cpu", "2.13"), ("2.16.0.dev20260101", "2.16"), ("2.4", "2.4"), ("x", None)],
)
def test_parse_release(text: str, release: str | None):
    assert parse_release(text) == release


def test_nearest_release():
    assert nearest_release("2.13") == "2.13"
    assert nearest_release("2.16") == "2.15"
    assert nearest_release("2.0") == "2.1"
    assert release_tuple("2.10") > release_tuple("2.9")


def test_facts_have_a_release_and_a_source():
    for fact in FACTS:
        assert fact.source and fact.text
        assert parse_release(fact.since) == fact.since
    assert holds("all_every_log", "2.1") and not holds("all_every_log", "2.2")
    assert holds("module_submodules", "2.11") and not holds("module_submodules", "2.10")
    assert holds("windows_outer_quotes", "2.9") and not holds("windows_outer_quotes", "2.8")
    assert holds("module_find_spec", "2.6") and holds("module_imported", "2.5")


def test_installed_torch_internal_matches_the_cited_lines():
    """The 2.13.0 line numbers cited in FACTS point at the code they describe."""
    spec = importlib.util.find_spec("torch")  # locates torch without importing it
    assert spec is not None and spec.origin is not None
    internal = Path(spec.origin).parent / "_logging" / "_internal.py"
    lines = internal.read_text(encoding="utf-8").splitlines()
    assert 'if settings == "":' in lines[804 - 1]
    assert 'if name == "all":' in lines[835 - 1]
    assert "def _is_valid_module" in lines[860 - 1]
    assert "def _get_module_and_submodules" in lines[865 - 1]
    assert "def process_env_var_string_for_windows" in lines[761 - 1]
    assert '"short", "basic"' in lines[1052 - 1]
