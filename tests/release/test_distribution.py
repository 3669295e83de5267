"""The Python distribution: the sdist and, from it, the wheel that the release publishes
(built by scripts/release-build.sh, once for the session: the ``release_build`` fixture of
tests/conftest.py); ``twine check`` accepts both; the wheel holds the package data and no
tests; installed into a fresh virtual environment (its dependencies from the configured
index) both commands run: ``torch-logs check`` finds a bad value, ``torch-logs-lsp``
answers an LSP ``initialize`` over stdio.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.release_build import ReleaseBuild


@pytest.fixture(scope="module")
def dist(release_build: ReleaseBuild) -> Path:
    # `python -m build --no-isolation`: the build backend (setuptools >= 77) is the test
    # environment's, as for ./dev's own install; the wheel is built from the unpacked
    # sdist, so a file missing from the sdist is missing from the wheel too.
    return release_build.out


def _one(dist: Path, pattern: str) -> Path:
    (found,) = dist.glob(pattern)
    return found


def test_twine_check_accepts_sdist_and_wheel(dist: Path) -> None:
    files = [_one(dist, "torch_logs_lsp-*.tar.gz"), _one(dist, "torch_logs_lsp-*-py3-none-any.whl")]
    proc = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def test_wheel_has_package_data_and_no_tests(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as z:
        names = z.namelist()
        entry_points = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt")))
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    data = ROOT / "src" / "torch_logs_lsp" / "knowledge" / "data"
    for json_file in sorted(data.glob("*.json")):
        assert f"torch_logs_lsp/knowledge/data/{json_file.name}" in names
    assert "torch_logs_lsp/codes/sections.md" in names
    assert "torch_logs_lsp/py.typed" in names
    assert not [n for n in names if n.startswith("tests/") or "/tests/" in n]
    assert not [n for n in names if n.startswith(("examples/", "vscode-extension/"))]
    assert b"torch-logs = torch_logs_lsp.cli.main:main" in entry_points
    assert b"torch-logs-lsp = torch_logs_lsp.server.__main__:main" in entry_points
    assert "License-Expression: MIT" in metadata
    assert [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_installed_wheel_runs_both_commands(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bindir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    pip = subprocess.run(
        [
            str(bindir / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            str(_one(dist, "*.whl")),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr[-4000:]

    bad = tmp_path / "proj" / ".env"
    bad.parent.mkdir()
    bad.write_text("TORCH_LOGS=+dynamo,aot_g\n")
    check = subprocess.run(
        [str(bindir / "torch-logs"), "check", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    assert "TL201" in check.stdout and "aot_g" in check.stdout
    assert (
        subprocess.run(
            [str(bindir / "torch-logs"), "--help"], capture_output=True, timeout=60
        ).returncode
        == 0
    )

    session = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        },
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "shutdown"},
        {"method": "exit"},
    ]
    lsp = subprocess.run(
        [str(bindir / "torch-logs-lsp")],
        input=b"".join(_frame(m) for m in session),
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert lsp.returncode == 0, lsp.stderr.decode(errors="replace")[-4000:]
    bodies = [
        json.loads(part.split(b"\r\n\r\n", 1)[1])
        for part in lsp.stdout.split(b"Content-Length: ")[1:]
    ]
    answer = next(b for b in bodies if b.get("id") == 1)
    assert answer["result"]["serverInfo"]["name"] == "torch-logs-lsp"
    assert "completionProvider" in answer["result"]["capabilities"]
    assert any(b.get("id") == 2 and "result" in b for b in bodies)
