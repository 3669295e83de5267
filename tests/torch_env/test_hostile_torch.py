"""A hostile ``_registrations.py`` never breaks the checker: the reader records why it
gave up, and the CLI falls back to the packaged registry with that reason on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hostile import HOSTILE, fake_torch_env, installed_registrations
from torch_logs_lsp.torch_env.context import TorchResolver
from torch_logs_lsp.torch_env.reader import read_registrations


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return fake_torch_env(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_reader_records_a_problem_and_never_raises(case: str):
    extra, reason = HOSTILE[case]
    result = read_registrations(installed_registrations() + extra)
    assert result.problems and reason in " ".join(result.problems)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_cli_falls_back_to_the_packaged_registry(case: str, fake_env: tuple[str, Path]):
    python, registrations = fake_env
    extra, reason = HOSTILE[case]
    registrations.write_text(installed_registrations() + extra, encoding="utf-8")
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main"]
    proc = subprocess.run(
        [*cli, "explain", "--json", "--python", python, "+dynamo,ddp"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["torch_release"] == "2.4" and data["torch_outcome"] == "ok"
    assert "could not read every registration" in proc.stderr and reason in proc.stderr
    assert "using the packaged registry of torch 2.4" in proc.stderr


def test_resolver_notes_say_why(fake_env: tuple[str, Path]):
    python, registrations = fake_env
    extra, _ = HOSTILE["chain"]
    registrations.write_text(installed_registrations() + extra, encoding="utf-8")
    ctx = TorchResolver().context(python=python)
    assert ctx.registry.source == "packaged" and ctx.registry.release == "2.4"
    assert len(ctx.notes) == 1 and "not read (RecursionError)" in ctx.notes[0]
