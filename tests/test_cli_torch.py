"""torch-logs --python / --torch-version / registry, and pin comments in checked files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.core.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_explain_with_python_and_release():
    proc = run("explain", "--json", "--python", sys.executable, "+some.random.module")
    data = json.loads(proc.stdout)
    assert data["torch_outcome"] == "module_not_found"
    assert data["diagnostics"][0]["code"] == "TL204"
    assert data["diagnostics"][0]["severity"] == "error"
    assert data["torch_release"] == "2.13"  # the installed torch, read statically
    data = json.loads(run("explain", "--json", "--torch", "2.3", "+dist_ddp").stdout)
    assert data["torch_outcome"] == "ok" and data["torch_release"] == "2.3"
    assert run("explain", "--torch", "x", "dynamo").returncode == 2


def test_check_honours_pin_comments(tmp_path: Path):
    (tmp_path / "a.env").write_text("# torch-logs: torch=2.13\nTORCH_LOGS=autotuning_inputs\n")
    (tmp_path / "b.env").write_text("TORCH_LOGS=autotuning_inputs\n")
    proc = run("check", str(tmp_path), "--torch-version", "2.15")
    assert proc.returncode == 0  # the option overrides the pin
    proc = run("check", str(tmp_path), "--python", sys.executable)
    assert "a.env:2:12: TL205 `autotuning_inputs` is not in torch 2.13 (added in 2.14)" in (
        proc.stdout
    )
    assert "b.env:2" not in proc.stdout and "b.env:1:12: TL205" in proc.stdout


def test_registry_command():
    data = json.loads(run("registry", "--json", "--torch", "2.4").stdout)
    names = {row["name"]: row for row in data["names"]}
    assert "ddp" in names and "dist_ddp" not in names
    assert names["guards"]["visible"] is True
    assert names["ddp"]["releases"] == "since 2.4"
    assert names["dynamo"]["loggers"][0] == "torch._dynamo"
    text = run("registry", "--torch", "2.3").stdout
    assert "dist_ddp" in text and "since 2.3, until 2.3" in text
