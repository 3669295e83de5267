"""Torch's Windows reading of a quoted value, against real torch 2.13.0.

From 2.9, ``_parse_log_settings`` first calls ``process_env_var_string_for_windows``
(``torch/_logging/_internal.py``), which strips one pair of matching outer quotes when
``sys.platform == "win32"`` (read at each call). The oracle runs torch's own function with
``sys.platform`` set to ``"win32"`` for the call (the parse cache cleared around it) and
compares its outcome, levels and artifacts with ``analyse(..., runs_on="windows")``; the
hosts' ``RUNS_ON`` decides which reading the checker uses.
"""

from __future__ import annotations

import random
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.value.test_torch_oracle import VALUES, torch_outcome
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.comments import find_pin
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.model.diagnostic import Severity
from torch_logs_lsp.value.analysis import analyse

warnings.filterwarnings("ignore")
import torch._logging._internal as internal  # noqa: E402

REGISTRY = load_registry("2.13")
OLD = load_registry("2.8")


@contextmanager
def on_windows() -> Iterator[None]:
    real = sys.platform
    internal._parse_log_settings.cache_clear()
    sys.platform = "win32"
    try:
        yield
    finally:
        sys.platform = real
        internal._parse_log_settings.cache_clear()


def _quoted(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for value in VALUES[:count]:
        q = rng.choice(['"', "'", '"', "'", "", "mixed"])
        if q == "mixed":
            out.append('"' + value + "'")
        else:
            out.append(q + value + q)
    out += ['""', "''", '"help"', "'+help'", "\"'dynamo'\"", '""dynamo""', '" dynamo"', '"']
    return out


WINDOWS_VALUES = _quoted(20261201, 1500)


def test_windows_outcomes_levels_and_artifacts_equal_torch():
    mismatches = []
    stripped_ok = 0
    for value in WINDOWS_VALUES:
        ours = analyse(value, REGISTRY, runs_on="windows")
        with on_windows():
            outcome, logs, artifacts = torch_outcome(value)
        if ours.outcome != outcome:
            mismatches.append((value, ours.outcome, outcome))
            continue
        if outcome == "ok":
            assert ours.config is not None
            assert list(ours.config.logs.items()) == list((logs or {}).items()), value
            assert set(ours.config.artifacts) == artifacts, value
            stripped_ok += value[:1] in "\"'" and len(value) > 1
    assert mismatches == []
    assert stripped_ok > 200  # quoted values accepted on Windows: not vacuous


def test_posix_reading_is_unchanged_by_the_windows_path():
    for value in WINDOWS_VALUES[:300]:
        assert analyse(value, REGISTRY, runs_on="posix").outcome == torch_outcome(value)[0]


def test_quoted_value_before_2_9_is_rejected_on_windows_too():
    result = analyse('"+schedule,+inductor"', OLD, runs_on="windows")
    assert result.outcome == "invalid"
    quoted = [d for d in result.diagnostics if d.code == "TL107"]
    assert [(d.start, d.end) for d in quoted] == [(0, 21)]  # one finding for one mistake
    assert all("2.8 rejects it on Windows too" in d.message for d in quoted)


def test_quoted_value_from_2_9_is_read_between_the_quotes_on_windows():
    result = analyse('"+schedule,+inductor"', REGISTRY, runs_on="windows")
    assert result.outcome == "ok"
    assert [d.code for d in result.diagnostics] == ["TL301"]  # `+` on an artifact
    assert [i.name for i in result.parsed.items] == ["schedule", "inductor"]
    assert result.parsed.items[0].start == 1  # offsets stay in the quoted value
    typo = analyse('"dynamo,gaurds"', REGISTRY, runs_on="windows")
    assert [(d.code, d.start, d.end) for d in typo.diagnostics] == [("TL201", 8, 14)]


def test_quoted_empty_or_help_on_windows_is_torch_empty_or_help():
    empty = analyse('""', REGISTRY, runs_on="windows")
    assert empty.outcome == "crash" and "strips the quotes" in empty.diagnostics[0].message
    assert analyse("'help'", REGISTRY, runs_on="windows").outcome == "help"


def test_any_platform_makes_the_quotes_a_warning_from_2_9_only():
    new = analyse('"dynamo"', REGISTRY, runs_on="any")
    assert {(d.code, d.severity) for d in new.diagnostics} == {("TL107", Severity.WARNING)}
    assert "on Windows torch 2.13 strips one pair" in new.diagnostics[0].message
    old = analyse('"dynamo"', OLD, runs_on="any")
    assert {(d.code, d.severity) for d in old.diagnostics} == {("TL107", Severity.ERROR)}


def test_every_host_declares_where_it_runs():
    for kind in hosts.HOST_KINDS:
        assert hosts.runs_on(kind) in ("posix", "windows", "any"), kind
    assert hosts.runs_on("no-such-host") == "posix"


@pytest.mark.parametrize(
    "comment",
    [
        "# torch-logs: torch=2.8",
        "// torch-logs: torch=2.8",
        ":: torch-logs: torch=2.8",
        "rem torch-logs: torch=2.8",
        "REM torch-logs: torch=2.8",
        "@Rem\ttorch-logs: torch=2.8",
        "; torch-logs: torch=2.8",
    ],
)
def test_pin_comments_in_every_comment_syntax(comment: str):
    assert find_pin(f"set X=1\n{comment}\n") == "2.8"


def test_rem_inside_a_word_is_no_pin():
    assert find_pin("set THEOREM torch-logs: torch=2.8\n") is None
