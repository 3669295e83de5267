"""``--python ./py3`` (adversarial CLI finding F-relative-python): a relative interpreter
path that is not a venv was asked from the temporary directory, where ``./py3`` is no
file, so the named interpreter was silently ignored (errors became warnings, exit 0)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.torch_env.environment import interpreter_path

BASE_PYTHON = os.path.realpath(sys.executable)  # not in a venv: it is asked


def test_relative_python_is_taken_from_the_current_directory(tmp_path: Path):
    (tmp_path / "py3").symlink_to(BASE_PYTHON)
    (tmp_path / "m.env").write_text("TORCH_LOGS=json.nothere\n")
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check"]
    results = [
        subprocess.run(
            [*cli, "--python", python, "m.env"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        for python in ("./py3", str(tmp_path / "py3"))
    ]
    for proc in results:  # the same answer for both: an error, exit 1
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "TL204" in proc.stdout and f"({tmp_path / 'py3'})" in proc.stdout
        assert "not found or not usable" not in proc.stderr


def test_interpreter_path_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mypy3").symlink_to(BASE_PYTHON)
    assert interpreter_path("./py3", None) == str(tmp_path / "py3")
    assert interpreter_path("sub/py3", None) == str(tmp_path / "sub" / "py3")
    assert interpreter_path("./py3", "/ws") == os.path.join("/ws", "./py3")
    assert interpreter_path("/abs/py3", None) == "/abs/py3"
    monkeypatch.setenv("PATH", "bin")  # a relative PATH entry: found, made absolute
    assert interpreter_path("mypy3", None) == str(tmp_path / "bin" / "mypy3")
    assert interpreter_path("nosuch3", None) == "nosuch3"
