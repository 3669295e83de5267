"""``torch-logs check`` on PowerShell scripts: exact codes and line:col, the example
folder, ``--fix`` keeping every other byte, an empty value's version-dependent TL001 and
a quote never closed (TL108)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from torch_logs_lsp.hosts.powershell import host as powershell

EXAMPLE = EXAMPLES / "windows" / "run.ps1"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _rows(proc: subprocess.CompletedProcess[str]) -> list[tuple[int, int, str, str]]:
    return sorted(
        (r["line"], r["column"], r["code"], r["severity"]) for r in json.loads(proc.stdout)
    )


def test_the_example_flags_only_the_lowercase_env_drive_line() -> None:
    """Two typical lines: `$env:TORCH_LOGS = "+dynamo,guards"` is silent and
    `$Env:TORCH_LOGS = 'aot_g'` is flagged (the drive's case does not matter)."""
    proc = run("check", str(EXAMPLE))
    rows = [r.replace(str(EXAMPLE), "run.ps1") for r in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert [r.split(" did you mean")[0] for r in rows if ": TL" in r] == [
        "run.ps1:6:20: TL201 unknown name `aot_g`: not a component or artifact of torch"
        f" 2.13, nor a module in {sys.executable};",
    ]


def test_codes_and_columns(tmp_path: Path) -> None:
    script = tmp_path / "t.ps1"
    script.write_text(
        "# 🙂 café\n"
        "$env:TORCH_LOGS = ' +dynamo'\n"  # 2: TL101 (overwritten by 3: a warning)
        "Set-Item -Path Env:\\TORCH_LOGS -Value +dynamo,\n"  # 3: an array: not static
        "python x.py\n"
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'Dynamo')\n"  # 5: TL201
        "python x.py\n"
        '${Env:torch_logs} = "+dynamo,$extra"\n'  # 7: not static
        "$env:TORCH_LOGS_FORMAT = '%(bad'\n",  # 8: TL401
        encoding="utf-8",
    )
    proc = run("check", "--format", "json", "--torch-version", "2.13", str(script))
    assert _rows(proc) == [
        (2, 20, "TL101", "error"),
        (5, 54, "TL201", "error"),
        (8, 27, "TL401", "error"),
    ]


def test_an_empty_value_says_which_versions_set_it_empty(tmp_path: Path) -> None:
    script = tmp_path / "e.ps1"
    script.write_text("$env:TORCH_LOGS = ''\npython x.py\n", encoding="utf-8")
    proc = run("check", "--format", "json", str(script))
    (row,) = json.loads(proc.stdout)
    assert (row["line"], row["column"], row["code"], row["severity"]) == (1, 20, "TL001", "warning")
    assert "PowerShell 7.5 and later set it to the empty string" in row["message"]
    assert "Windows PowerShell 5.1 and PowerShell 7.0-7.4 remove the variable" in row["message"]
    removed = tmp_path / "r.ps1"
    removed.write_text("$env:TORCH_LOGS = $null\nRemove-Item Env:TORCH_LOGS\n", encoding="utf-8")
    assert json.loads(run("check", "--format", "json", str(removed)).stdout) == []


def test_typographic_quotes(tmp_path: Path) -> None:
    """Spec §2.3.5.2: U+201C..U+201E are double-quote-characters and U+2018..U+201B
    single-quote-characters, so “+dynamo” is a string (no TL109); « » are characters of
    the value (TL109); a doubled U+2019 is one in the value: torch's own TL106, no TL109."""
    script = tmp_path / "ty.ps1"
    script.write_text(
        "$env:TORCH_LOGS = \u201c+dynamo\u201d\npython x.py\n"
        "$env:TORCH_LOGS = '\u00abdynamo\u00bb'\npython x.py\n"
        "$env:TORCH_LOGS = \u2018+dynamo\u2019\u2019s\u2019\n",
        encoding="utf-8",
    )
    proc = run("check", "--format", "json", str(script))
    assert _rows(proc) == [(3, 20, "TL109", "error"), (5, 27, "TL106", "error")]


def test_a_pin_comment(tmp_path: Path) -> None:
    """``# torch-logs: torch=2.8`` in PowerShell's comment syntax picks the release."""
    script = tmp_path / "pin.ps1"
    script.write_text("# torch-logs: torch=2.8\n$env:TORCH_LOGS = 'aot_g'\n", encoding="utf-8")
    (row,) = json.loads(run("check", "--format", "json", str(script)).stdout)
    assert (row["line"], row["column"], row["code"]) == (2, 20, "TL201")
    assert "torch 2.8" in row["message"]


def test_a_quote_never_closed(tmp_path: Path) -> None:
    script = tmp_path / "o.ps1"
    script.write_text("Write-Host 1\n$env:TORCH_LOGS = 'dynamo\n", encoding="utf-8")
    proc = run("check", "--format", "json", str(script))
    assert [(r["line"], r["code"]) for r in json.loads(proc.stdout)] == [(2, "TL108")]
    assert powershell.NEVER_SET is not None
    assert powershell.NEVER_SET in json.loads(proc.stdout)[0]["message"]


def test_fix_keeps_every_other_byte(tmp_path: Path) -> None:
    before = (
        "\ufeff# caf\u00e9 \U0001f642\r\n"
        "$Env:TORCH_LOGS = ' +dynamo, guards'  # c\r\n"
        "python x.py\r\n"
        'Set-Item Env:TORCH_LOGS "+dynamo,Guards"\r\n'
        "python x.py\r\n"
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'Dynamo')\r\n"
    ).encode()
    after = (
        "\ufeff# caf\u00e9 \U0001f642\r\n"
        "$Env:TORCH_LOGS = '+dynamo, guards'  # c\r\n"
        "python x.py\r\n"
        'Set-Item Env:TORCH_LOGS "+dynamo,guards"\r\n'
        "python x.py\r\n"
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'dynamo')\r\n"
    ).encode()
    script = tmp_path / "fix.ps1"
    script.write_bytes(before)
    proc = run("check", "--fix", str(script))
    assert script.read_bytes() == after, proc.stdout + proc.stderr
    assert "3 value(s) fixed" in proc.stderr
    assert proc.returncode == 0, proc.stdout


@pytest.mark.oracle
def test_torch_reads_the_example_values_as_the_cli_says() -> None:
    """The example's two values given to real torch 2.13: the flagged one makes
    ``import torch`` fail, the silent one does not."""
    values = [s.value for s in powershell.extract(EXAMPLE.read_text(encoding="utf-8"))]
    assert values == ["+dynamo,guards", "aot_g"]
    for value, ok in zip(values, [True, False], strict=True):
        proc = subprocess.run(
            [sys.executable, "-c", "import torch"],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "TORCH_LOGS": value},
            timeout=300,
        )
        assert (proc.returncode == 0) == ok, (value, proc.stderr[-300:])
