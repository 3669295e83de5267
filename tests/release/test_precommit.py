"""The pre-commit hooks (.pre-commit-hooks.yaml), run by pre-commit itself: `pre-commit
try-repo` installs this repository into its own environment and runs the hook on a fresh
git repository, as a team's pipeline would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs git and this repository's git checkout (try-repo clones it)",
)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _try_repo(repo: Path, hook: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_hooks_are_declared_for_every_text_file():
    assert [h["id"] for h in HOOKS] == ["torch-logs", "torch-logs-fix"]
    for hook in HOOKS:
        assert hook["language"] == "python"
        assert hook["entry"].startswith("torch-logs check") and "--ignore-unknown" in hook["entry"]
        assert hook["entry"].endswith(" --")  # the file names pre-commit appends are no options
        assert "files" not in hook  # the hosts decide, not a pattern that can fall behind
    assert "--fix" in HOOKS[1]["entry"]


def test_try_repo_fails_on_a_bad_env_and_the_fix_hook_fixes_it(tmp_path: Path):
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".env").write_text("TORCH_LOGS=Dynamo,guards\n")
    (repo / "run.sh").write_text("#!/bin/sh\nexport TORCH_LOGS=+dynamo\npython train.py\n")
    (repo / "notes.txt").write_text("TORCH_LOGS=whatever: no host reads a .txt file\n")
    (repo / "Makefile").write_text("export TORCH_LOGS=+inductor\nall:\n\tpython x.py\n")
    (repo / "--fix").write_text("a file named like an option\n")  # must not turn --fix on
    _git(repo, "add", "-A")
    home = tmp_path / "pre-commit-home"

    check = _try_repo(repo, "torch-logs", home)
    out = check.stdout + check.stderr
    assert check.returncode == 1, out
    assert ".env:1:12: TL201 unknown name `Dynamo`" in out
    assert "run.sh" not in out and "Makefile" not in out and "skipped" not in out
    assert (repo / ".env").read_text() == "TORCH_LOGS=Dynamo,guards\n"  # checked, not fixed

    fix = _try_repo(repo, "torch-logs-fix", home)
    assert fix.returncode == 1, fix.stdout + fix.stderr  # pre-commit: files were modified
    assert (repo / ".env").read_text() == "TORCH_LOGS=dynamo,guards\n"
    assert (repo / "notes.txt").read_text().startswith("TORCH_LOGS=whatever")
    _git(repo, "add", "-A")
    clean = _try_repo(repo, "torch-logs", home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
