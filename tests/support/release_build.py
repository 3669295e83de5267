"""The release files, built once per test session by ``scripts/release-build.sh`` (the
release workflow's own build step) for tests/release/test_distribution.py (sdist and wheel),
tests/release/test_vsix_platforms.py (the seven .vsix) and tests/release/test_release.py: the
``release_build`` fixture of tests/conftest.py.

One build serves every pytest-xdist worker: the first to ask builds into a folder the
workers share while holding a lock; the others wait and read its result. Without npm only
the sdist and the wheel are built (``--python-only``) and ``vsix`` is False.

``TORCH_LOGS_LSP_RELEASE_DIR=<dir>`` uses the files already in that folder (e.g. from
``scripts/release-build.sh <dir>``) instead of building. ``TORCH_LOGS_LSP_RELEASE_OUT=<dir>``
builds into that folder (which must not exist yet), so that later steps can use the files:
``./dev test`` hands them to the VS Code end-to-end scenarios.

Around the build, what the checkout holds is recorded: ``git status --porcelain
--ignored`` before and after, and every path (but .git, .venv and bytecode caches) changed
while it ran, so a test can see that the build wrote nothing into the checkout.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import ROOT

EXT = ROOT / "vscode-extension"
SCRIPT = ROOT / "scripts" / "release-build.sh"
VSIX_NAMES = (
    "universal",
    "linux-x64",
    "linux-arm64",
    "alpine-x64",
    "darwin-x64",
    "darwin-arm64",
    "win32-x64",
)
#: never looked at for changes: git's own files, the test environment, bytecode caches
#: (written by the test processes' imports, not by the build)
UNWATCHED = {".git", ".venv", "__pycache__"}


@dataclass(frozen=True)
class ReleaseBuild:
    """``out``: the folder with the release files; ``vsix``: whether the .vsix were built;
    ``status_before`` / ``status_after``: ``git status --porcelain --ignored`` lines;
    ``changed``: checkout paths modified during the build; ``seconds``: the build's time.
    The last four are None for files given by TORCH_LOGS_LSP_RELEASE_DIR."""

    out: Path
    vsix: bool
    status_before: list[str] | None = None
    status_after: list[str] | None = None
    changed: list[str] | None = None
    seconds: float | None = None


def require_or_skip(reason: str) -> None:
    """Fail under ./dev test (TORCH_LOGS_LSP_REQUIRE_EDITORS is set), else skip."""
    if os.environ.get("TORCH_LOGS_LSP_REQUIRE_EDITORS"):
        pytest.fail(reason)
    pytest.skip(reason)


def git_status() -> list[str]:
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return sorted(proc.stdout.splitlines())


def changed_since(start: float) -> list[str]:
    """Checkout paths (files and folders) modified at or after ``start``."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in UNWATCHED]
        for name in [*dirs, *files]:
            path = Path(folder, name)
            try:
                if path.lstat().st_mtime >= start:
                    found.append(str(path.relative_to(ROOT)))
            except FileNotFoundError:
                continue
    return sorted(found)


def npm_ci_extension() -> None:
    """``npm ci`` in the checkout's vscode-extension when node_modules does not match
    package-lock.json (the marker scripts/e2e.sh writes and reads, so they install once
    between them). node_modules is git-ignored."""
    lock = hashlib.sha256((EXT / "package-lock.json").read_bytes()).hexdigest()
    marker = EXT / "node_modules" / ".e2e-lock-sha256"
    if marker.is_file() and marker.read_text().strip() == lock:
        return
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=EXT,
        check=True,
        timeout=900,
    )
    marker.write_text(lock + "\n")


def _build(out: Path, vsix: bool) -> dict[str, object]:
    before = git_status()
    start = time.time()
    # mtimes can be coarser than time.time(): a second of slack, checked against the paths
    # changed in that second before the build began
    preexisting = set(changed_since(start - 1))
    proc = subprocess.run(
        ["bash", str(SCRIPT), *([] if vsix else ["--python-only"]), str(out)],
        # the test environment's Python has `build` and setuptools (requirements/dev.txt)
        env={**os.environ, "BUILD_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.time() - start
    changed = [p for p in changed_since(start - 1) if p not in preexisting]
    return {
        "returncode": proc.returncode,
        "log": (proc.stdout + proc.stderr)[-6000:],
        "vsix": vsix,
        "status_before": before,
        "status_after": git_status(),
        "changed": changed,
        "seconds": seconds,
    }


def release_build(tmp_path_factory: pytest.TempPathFactory) -> ReleaseBuild:
    """The session's release files (see the module docstring)."""
    given = os.environ.get("TORCH_LOGS_LSP_RELEASE_DIR")
    if given:
        return ReleaseBuild(Path(given), vsix=(Path(given) / "torch-logs-universal.vsix").exists())
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("scripts/release-build.sh needs git and this repository's checkout")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the folder every worker's base folder is in
    out = Path(os.environ.get("TORCH_LOGS_LSP_RELEASE_OUT") or base / "release-build")
    result = base / "release-build.json"
    with open(base / "release-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not result.is_file():
            vsix = shutil.which("npm") is not None
            result.write_text(json.dumps(_build(out, vsix)))
    data = json.loads(result.read_text())
    assert data["returncode"] == 0, data["log"]
    return ReleaseBuild(
        out,
        vsix=data["vsix"],
        status_before=data["status_before"],
        status_after=data["status_after"],
        changed=data["changed"],
        seconds=data["seconds"],
    )
