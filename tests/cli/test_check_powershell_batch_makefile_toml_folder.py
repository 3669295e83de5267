"""``torch-logs check`` over a folder with ``run.ps1``,
``run.bat``, a ``Makefile`` and a ``pyproject.toml`` reports exactly the wrong values, with
the right codes and columns, and nothing on the right ones; the batch file's quoted value
depends on the release (torch 2.9+ strips one pair of outer quotes on Windows). Each host's
own tests are in tests/hosts/powershell/, batch/, makefile/, toml/ and ini/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FILES = {
    "run.ps1": '$env:TORCH_LOGS = "+dynamo,guards"\npython train.py\n'
    "$Env:TORCH_LOGS = 'aot_g'\npython train.py\n",
    "run.bat": '@echo off\r\nset TORCH_LOGS="+schedule,+inductor"\r\npython train.py\r\n'
    "set TORCH_LOGS=dynamo \r\npython train.py\r\n",
    "Makefile": "export TORCH_LOGS=+dynamo ,guards\n\ntrain:\n\tTORCH_LOGS=$$EXTRA python x.py\n",
    "pyproject.toml": '[project]\nname = "x"\n\n[tool.pytest.ini_options]\n'
    'env = ["TORCH_LOGS=Dynamo"]\n',
}


def _col(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle) + 1


def _check(folder: Path, release: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", ".", "--torch-version", release],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = [r for r in proc.stdout.splitlines() if ": TL" in r]
    return sorted(" ".join(r.split(" ", 2)[:2]) for r in rows)


def test_powershell_batch_makefile_pyproject_folder(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    ps1, bat, make, toml = (FILES[n] for n in ("run.ps1", "run.bat", "Makefile", "pyproject.toml"))
    quoted = _col(bat, 2, '"')
    common = [
        f"run.ps1:3:{_col(ps1, 3, 'aot_g')}: TL201",  # the drive's case does not matter
        # `+schedule`: torch ignores a prefix on an artifact (a warning, in every release)
        f"run.bat:2:{quoted + 1}: TL301",
        f"run.bat:4:{len('set TORCH_LOGS=dynamo') + 1}: TL101",  # the trailing blank
        f"Makefile:1:{_col(make, 1, ' ,')}: TL102",
        f"pyproject.toml:5:{_col(toml, 5, 'Dynamo')}: TL201",
    ]
    assert _check(tmp_path, "2.9") == sorted(common)
    # one finding over the pair of quotes
    assert _check(tmp_path, "2.8") == sorted([*common, f"run.bat:2:{quoted}: TL107"])
