"""``torch-logs check`` on pyproject.toml / tox.toml / pytest.toml files (the TOML host):
exact codes and line:col, the examples in examples/testing, ``--fix`` keeping every
other byte (CRLF, astral characters before the value), files not claimed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import EXAMPLES

TESTING = EXAMPLES / "testing"


def check(*args: str, cwd: Path | None = None) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=300,
    )
    return proc.returncode, proc.stdout.splitlines()


def findings(rows: list[str]) -> list[str]:
    """``file:line:col: CODE first words`` of each finding row."""
    out = []
    for row in rows:
        if ": TL" in row:
            head, _, message = row.partition(": TL")
            out.append(
                f"{Path(head.rsplit(':', 2)[0]).name}:{head.split(':', 1)[1]}: TL{message[:3]}"
            )
    return out


def test_examples_testing() -> None:
    rc, rows = check(str(TESTING / "pyproject.toml"), str(TESTING / "tox.toml"))
    assert rc == 1
    assert findings(rows) == ["pyproject.toml:11:17: TL201", "tox.toml:10:30: TL201"]
    text = "\n".join(rows)
    assert "unknown name `Dynamo`" in text and "unknown name `recompile`" in text


def test_pytest_env_line_is_flagged_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=Dynamo"]\n', encoding="utf-8"
    )
    rc, rows = check(str(tmp_path), "--torch-version", "2.8")
    assert rc == 1
    assert findings(rows) == ["pyproject.toml:2:20: TL201"]


def test_every_claimed_name_and_no_other(tmp_path: Path) -> None:
    body = '[pytest]\nenv = ["TORCH_LOGS=aot_g"]\n'
    (tmp_path / "pytest.toml").write_text(body, encoding="utf-8")
    (tmp_path / ".pytest.toml").write_text(body, encoding="utf-8")
    (tmp_path / "tox.toml").write_text('[env.a.set_env]\nTORCH_LOGS = "aot_g"\n', encoding="utf-8")
    (tmp_path / "Cargo.toml").write_text(body, encoding="utf-8")
    (tmp_path / "config.toml").write_text('[env.a.set_env]\nTORCH_LOGS = "x"\n', encoding="utf-8")
    _, rows = check(str(tmp_path), "--torch-version", "2.8")
    assert sorted(findings(rows)) == [
        ".pytest.toml:2:20: TL201",
        "pytest.toml:2:20: TL201",
        "tox.toml:2:15: TL201",
    ]


def test_not_static_values_are_silent(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        'env = ["TORCH_LOGS={EXTRA}", "U:TORCH_LOGS=Dynamo"]\n'
        "[tool.tox.env_run_base.set_env]\n"
        'TORCH_LOGS = "{env:X:Dynamo}"\n'
        'TORCH_TRACE = { value = "/t", marker = "sys_platform == \\"linux\\"" }\n',
        encoding="utf-8",
    )
    rc, rows = check(str(tmp_path), "--torch-version", "2.8")
    assert rc == 0, rows
    assert findings(rows) == []


def test_fix_keeps_every_other_byte(tmp_path: Path) -> None:
    original = (
        "# 😀 é\r\n"
        "[tool.pytest.ini_options]\r\n"
        'env = ["😀", "TORCH_LOGS=Dynamo", \'R:TORCH_LOGS_OUT=/tmp/x\']\r\n'
        "[tool.tox.env.py.set_env]\r\n"
        'TORCH_LOGS = """+dynamo,\\u0047uards"""  # é\r\n'
    ).encode()
    path = tmp_path / "pyproject.toml"
    path.write_bytes(original)
    rc, rows = check("--fix", str(path), "--torch-version", "2.8")
    assert rc == 0, rows
    fixed = path.read_bytes()
    assert fixed == original.replace(b"Dynamo", b"dynamo").replace(b"\\u0047uards", b"guards")
    rc, rows = check(str(path), "--torch-version", "2.8")
    assert rc == 0 and findings(rows) == []


def test_unterminated_string_is_never_set(tmp_path: Path) -> None:
    (tmp_path / "tox.toml").write_text(
        '[env_run_base.set_env]\nTORCH_LOGS = "+dynamo\n', encoding="utf-8"
    )
    rc, rows = check(str(tmp_path), "--torch-version", "2.8")
    assert rc == 1
    assert findings(rows) == ["tox.toml:2:15: TL108"]


def test_pytest_env_stops_on_a_table_entry(tmp_path: Path) -> None:
    """TL504 on the key pytest-env 1.8.7 rejects in a ``[tool.pytest_env]`` entry."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest_env]\nTORCH_LOGS = {value = "+dynamo", skip = true}\n', encoding="utf-8"
    )
    rc, rows = check(str(tmp_path), "--torch-version", "2.8")
    assert rc == 1
    assert findings(rows) == ["pyproject.toml:2:34: TL504"]
