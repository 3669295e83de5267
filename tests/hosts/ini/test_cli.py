"""``torch-logs check`` on pytest and tox INI files: the examples' exact findings, a
generated project's findings with columns after an emoji, ``--fix`` keeping every other
byte (BOM, CRLF, comments), files pytest or tox do not read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import EXAMPLES

TESTING = EXAMPLES / "testing"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def _findings(out: str) -> list[str]:
    return [line.split(" ", 2)[0] + " " + line.split(" ", 2)[1] for line in out.splitlines()
            if ": TL" in line]  # fmt: skip


def test_the_examples() -> None:
    proc = run("check", "pytest.ini", "tox.ini", cwd=TESTING)
    assert proc.returncode == 1
    assert _findings(proc.stdout) == [
        "pytest.ini:6:37: TL201",  # graph_break (torch 2.8 by the pin)
        "tox.ini:8:38: TL201",  # recompile
        "tox.ini:13:28: TL411",  # output_code
        "tox.ini:18:16: TL201",  # Dynamo (pytest-env in tox.ini's [pytest])
    ]
    assert "torch 2.8" in proc.stdout.splitlines()[0]


def test_a_project_with_every_file(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n# 🙂\nenv =\n  TORCH_LOGS=🙂Dynamo\n")
    (tmp_path / ".pytest.ini").write_text("[pytest]\nenv = R:TORCH_LOGS={x}\n")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nenv = TORCH_LOGS=+dynamo ,guards\n")
    (tmp_path / "tox.ini").write_text(
        "[testenv:{py310,py311}]\nsetenv =\n  TORCH_LOGS={env:X}\n  TORCH_LOGS_FORMAT=%(message)s\n"
    )
    (tmp_path / "mypy.ini").write_text("[pytest]\nenv = TORCH_LOGS=Dynamo\n")  # not read
    proc = run("check", ".", cwd=tmp_path)
    assert _findings(proc.stdout) == [
        ".pytest.ini:2:20: TL106",  # R: keeps the braces: `{x}` is the value
        ".pytest.ini:2:22: TL106",
        "pytest.ini:4:14: TL106",  # the emoji (a code point: one column)
        "setup.cfg:2:25: TL102",  # the blank before the comma
    ]


FILES: dict[str, tuple[bytes, bytes]] = {
    "tox.ini": (
        b"\xef\xbb\xbf# caf\xc3\xa9 \xf0\x9f\x99\x82\r\n[pytest]\r\nenv =\r\n"
        b"    D:TORCH_LOGS = +dynamo,Guards\r\n    TORCH_LOGS_OUT=x ; c\r\n"
        b"[testenv]\r\nset_env =\r\n"
        b'  py3: TORCH_LOGS=-output_code ; sys_platform=="linux"\r\n',
        b"\xef\xbb\xbf# caf\xc3\xa9 \xf0\x9f\x99\x82\r\n[pytest]\r\nenv =\r\n"
        b"    D:TORCH_LOGS = +dynamo,guards\r\n    TORCH_LOGS_OUT=x ; c\r\n"
        b"[testenv]\r\nset_env =\r\n"
        b'  py3: TORCH_LOGS=output_code ; sys_platform=="linux"\r\n',
    ),
    "pytest.ini": (
        b"[pytest]\nenv = TORCH_LOGS=+dynamo\n",
        b"[pytest]\nenv = TORCH_LOGS=+dynamo\n",
    ),
}


def test_fix_changes_only_the_values(tmp_path: Path) -> None:
    for name, (before, _) in FILES.items():
        (tmp_path / name).write_bytes(before)
    proc = run("check", "--fix", ".", cwd=tmp_path)
    assert "2 value(s) fixed" in proc.stderr, proc.stderr
    for name, (_, after) in FILES.items():
        assert (tmp_path / name).read_bytes() == after, name


def test_typographic_quotes_and_a_misspelled_name(tmp_path: Path) -> None:
    """Both readers keep a typographic quote as a character (TL109, fixed by removing
    it); a near miss of a family name where the reader would set it (TL408)."""
    (tmp_path / "tox.ini").write_text(
        "[pytest]\nenv = TORCH_LOGS=“+dynamo”\n[testenv]\nset_env = TORCH_LOG=+dynamo\n",
        encoding="utf-8",
    )
    proc = run("check", "tox.ini", cwd=tmp_path)
    assert _findings(proc.stdout) == ["tox.ini:2:18: TL109", "tox.ini:4:11: TL408"]
    run("check", "--fix", "tox.ini", cwd=tmp_path)
    assert (
        (tmp_path / "tox.ini")
        .read_text(encoding="utf-8")
        .startswith("[pytest]\nenv = TORCH_LOGS=+dynamo\n")
    )


def test_pytest_env_stops_on_an_unknown_flag(tmp_path: Path) -> None:
    """TL504 on the flag pytest-env 1.8.7 rejects (pytest stops before any test runs),
    suppressible on its line like any finding; the values keep their own findings."""
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nenv =\n  TORCH_LOGS=dynamo\n  X:OTHER=1\n", encoding="utf-8"
    )
    proc = run("check", "pytest.ini", cwd=tmp_path)
    assert proc.returncode == 1
    assert _findings(proc.stdout) == ["pytest.ini:4:3: TL504"]
    assert "rejects the flag `X`" in proc.stdout and "no test sees TORCH_LOGS" in proc.stdout
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nenv =\n  TORCH_LOGS=dynamo\n  # torch-logs: ignore[TL504]\n  X:OTHER=1\n",
        encoding="utf-8",
    )
    assert run("check", "pytest.ini", cwd=tmp_path).returncode == 0
