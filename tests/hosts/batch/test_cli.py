"""``torch-logs check`` on batch files: examples/windows/run.bat with exact codes and
line:column, ``--fix`` keeping every other byte (CRLF included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from torch_logs_lsp.hosts.batch import host as batch

EXAMPLE = EXAMPLES / "windows" / "run.bat"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=120,
    )


def _rows(proc: subprocess.CompletedProcess[str], path: Path) -> list[str]:
    return [
        r.replace(str(path), path.name).split(" ", 2)[0] + " " + r.split(" ", 2)[1]
        for r in proc.stdout.splitlines()
        if ": TL" in r
    ]


def test_example_before_2_9() -> None:
    """``set TORCH_LOGS="+schedule,+inductor"``: the quotes are part of the value (cmd keeps
    them) and torch before 2.9 reads them as characters; ``set TORCH_LOGS=dynamo `` keeps
    its blank."""
    proc = run("check", "--torch-version", "2.8", str(EXAMPLE))
    assert proc.returncode == 1
    assert _rows(proc, EXAMPLE) == [
        "run.bat:4:16: TL107",
        "run.bat:4:17: TL301",
        "run.bat:6:22: TL101",
    ]


def test_example_from_2_9() -> None:
    """torch 2.9+ on Windows strips one pair of outer quotes: the quoted value is read."""
    proc = run("check", "--torch-version", "2.9", str(EXAMPLE))
    assert _rows(proc, EXAMPLE) == ["run.bat:4:17: TL301", "run.bat:6:22: TL101"]


def test_fix_keeps_every_other_byte(tmp_path: Path) -> None:
    path = tmp_path / "run.bat"
    original = EXAMPLE.read_bytes()
    path.write_bytes(original)
    proc = run("check", "--fix", "--torch-version", "2.8", str(path))
    assert "2 value(s) fixed" in proc.stderr
    expected = original.replace(
        b'set TORCH_LOGS="+schedule,+inductor"\r\n', b"set TORCH_LOGS=schedule,+inductor\r\n"
    ).replace(b"set TORCH_LOGS=dynamo \r\n", b"set TORCH_LOGS=dynamo\r\n")
    assert expected != original
    assert path.read_bytes() == expected
    assert _rows(run("check", "--torch-version", "2.8", str(path)), path) == []


def test_columns_after_an_emoji_and_a_caret(tmp_path: Path) -> None:
    """Columns are code points (an emoji is one); ``^&`` is one character of the value."""
    path = tmp_path / "go.CMD"
    path.write_text("echo 🙂 & set torch_logs=a^&aot_g\n", encoding="utf-8")
    proc = run("check", "--torch-version", "2.13", str(path))
    rows = _rows(proc, path)
    assert rows == ["go.CMD:1:26: TL106"]  # the `&` written `^&`: from the caret


def test_folder_with_a_batch_file(tmp_path: Path) -> None:
    (tmp_path / "a.bat").write_text("set TORCH_LOGS=%1\nset TORCH_LOGS_OUT=C:\\no\\such\\dir\\x\n")
    (tmp_path / "b.bat").write_text("@echo off\nrem nothing here\n")
    proc = run("check", "--torch-version", "2.13", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout == ""


@pytest.mark.parametrize("pin", ["rem torch-logs: torch=2.8", ":: torch-logs: torch=2.8"])
def test_pin_comment_in_batch_syntax(tmp_path: Path, pin: str) -> None:
    """The pin is written with ``COMMENT`` (``rem``) and read after ``::`` too; it decides
    the release: 2.8 does not strip the quotes (TL107), 2.9 does."""
    assert batch.COMMENT == "rem"
    path = tmp_path / "pinned.bat"
    path.write_text(f'{pin}\r\nset TORCH_LOGS="+dynamo"\r\n')
    assert _rows(run("check", str(path)), path) == [
        "pinned.bat:2:16: TL107",
    ]
    path.write_text(f'{pin.replace("2.8", "2.9")}\r\nset TORCH_LOGS="+dynamo"\r\n')
    assert _rows(run("check", str(path)), path) == []


def _python_without_torch(tmp_path: Path) -> str:
    """A venv-looking interpreter path with no torch (never run: pyvenv.cfg is read)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.0\n")
    python = venv / "bin" / "python"
    python.write_text("")
    return str(python)


def test_release_not_known_says_what_each_release_does(tmp_path: Path) -> None:
    """With no torch found, no pin and no --torch-version the release is a guess: a
    quoted value gets one information TL107 (2.9+ strips the pair on Windows, 2.1-2.8
    reject it); a named release decides it (2.8: one error; 2.13: nothing)."""
    python = ("--python", _python_without_torch(tmp_path))  # (whatever is on PATH)
    path = tmp_path / "run.bat"
    path.write_bytes(b'set TORCH_LOGS="+dynamo,guards"\r\n')
    proc = run("check", *python, str(path), cwd=tmp_path)
    assert _rows(proc, path) == ["run.bat:1:16: TL107"], proc.stdout + proc.stderr
    assert proc.returncode == 0  # an information
    assert "torch 2.9 and later strip one pair" in proc.stdout
    assert "torch 2.1-2.8 keep them in the value and reject it" in proc.stdout
    assert _rows(run("check", "--torch-version", "2.13", str(path)), path) == []
    assert _rows(run("check", "--torch-version", "2.8", str(path)), path) == ["run.bat:1:16: TL107"]
    # one mistake inside is still its own finding; the quotes are still one
    path.write_bytes(b'set TORCH_LOGS="+dynamo,,guards"\r\n')
    assert _rows(run("check", *python, str(path), cwd=tmp_path), path) == [
        "run.bat:1:16: TL107",
        "run.bat:1:25: TL103",
    ]
    # a pin comment names the release: no guess
    path.write_bytes(b'rem torch-logs: torch=2.13\r\nset TORCH_LOGS="+dynamo"\r\n')
    assert _rows(run("check", *python, str(path), cwd=tmp_path), path) == []


def test_shell_and_powershell_keep_their_own_rules(tmp_path: Path) -> None:
    sh = tmp_path / "run.sh"
    sh.write_text("export TORCH_LOGS='\"+dynamo\"'\n")
    assert [
        r.split()[1] for r in run("check", str(sh), cwd=tmp_path).stdout.splitlines() if ": TL" in r
    ] == ["TL107"]
