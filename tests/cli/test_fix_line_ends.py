"""``torch-logs check --fix`` keeps every line end of a file as it was, in every host: a
CRLF file stays CRLF line for line (a shell script's value keeps the ``\\r`` bash reads
with it; TL101 then still says to save the file with LF endings)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.oracles import BASH, run_bash
from torch_logs_lsp import hosts

BAD = "+Dynamo,,guards"
GOOD = "+dynamo,guards"


def _notebook(source: list[str]) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    return json.dumps({"cells": [{**cell, "source": source}], "metadata": {}, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1) + "\n"  # fmt: skip


# file name -> document written with "\n"; the tests turn each "\n" into the line end
DOCUMENTS: dict[str, str] = {
    "run.sh": f"#!/bin/sh\nexport TORCH_LOGS={BAD}\necho hi\n",
    "quoted.sh": f"#!/bin/sh\nexport TORCH_LOGS='{BAD}'\necho hi\n",
    ".env": f"A=1\nTORCH_LOGS={BAD}\nB=2\n",
    "quoted.env": f'A=1\nTORCH_LOGS="{BAD}"\nB=2\n',
    "Makefile": f"export TORCH_LOGS={BAD}\nall:\n\techo hi\n",
    "Dockerfile": f"FROM python:3.12\nENV TORCH_LOGS={BAD}\nRUN echo hi\n",
    "run.ps1": f'$env:TORCH_LOGS = "{BAD}"\nWrite-Host hi\n',
    "run.bat": f"@echo off\nset TORCH_LOGS={BAD}\necho hi\n",
    "compose.yaml": f"services:\n  a:\n    environment:\n      TORCH_LOGS: {BAD}\n      B: 1\n",
    "pyproject.toml": f'[tool.pytest.ini_options]\nenv = [\n  "TORCH_LOGS={BAD}",\n]\n',
    "pytest.ini": f"[pytest]\nenv =\n    TORCH_LOGS={BAD}\n    B=1\n",
    "main.py": f'import os\nos.environ["TORCH_LOGS"] = "{BAD}"\nprint(1)\n',
    "nb.ipynb": _notebook(["import os\n", f'os.environ["TORCH_LOGS"] = "{BAD}"\n', "x = 1\n"]),
    ".vscode/launch.json": (
        '{\n  "configurations": [\n    {"name": "x", "env": {\n'
        f'      "TORCH_LOGS": "{BAD}"\n    }}}}\n  ]\n}}\n'
    ),
}

LINE_ENDS = {"crlf": "\r\n", "lf": "\n", "cr": "\r"}


def _ends(data: bytes) -> list[bytes]:
    return re.findall(rb"\r\n|\r|\n", data)


def _fix(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", "."],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )


def test_every_host_is_covered() -> None:
    kinds = {hosts.detect_host(name, DOCUMENTS[name]) for name in DOCUMENTS}
    assert kinds == set(hosts.HOST_KINDS)  # (the notebook's cells: "ipython")


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_fix_keeps_crlf_line_ends(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    before = DOCUMENTS[name].replace("\n", "\r\n").encode()
    path.write_bytes(before)
    done = _fix(tmp_path)
    after = path.read_bytes()
    report = done.stdout + done.stderr
    assert " fixed TORCH_LOGS" in report, report
    assert GOOD.encode() in after and BAD.encode() not in after
    assert _ends(after) == _ends(before), after  # every line still ends in \r\n
    assert after.replace(GOOD.encode(), BAD.encode()) == before  # only the value changed


@pytest.mark.parametrize("end", sorted(LINE_ENDS))
@pytest.mark.parametrize("name", ["run.sh", ".env", "compose.yaml", "main.py"])
def test_fix_keeps_line_ends_of_each_kind(tmp_path: Path, name: str, end: str) -> None:
    path = tmp_path / name
    before = DOCUMENTS[name].replace("\n", LINE_ENDS[end]).encode()
    path.write_bytes(before)
    _fix(tmp_path)
    after = path.read_bytes()
    assert _ends(after) == _ends(before)


def test_fix_keeps_a_mixed_file_mixed(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    before = f"#!/bin/sh\nexport TORCH_LOGS={BAD}\r\necho hi\n".encode()
    path.write_bytes(before)
    _fix(tmp_path)
    after = path.read_bytes()
    assert after == before.replace(BAD.encode(), GOOD.encode())


@pytest.mark.parametrize(
    "text",
    ["export TORCH_LOGS=Dynamo\rinductor=1\n", "TORCH_LOGS=+Dynamo\rexport python x.py\n"],
)
def test_a_lone_carriage_return_in_a_value_is_never_replaced(tmp_path: Path, text: str) -> None:
    """bash reads a lone CR as a character of the value; an editor shows it as a line
    end: replacing it (with a comma) would join two lines, and enable a name."""
    path = tmp_path / "run.sh"
    path.write_bytes(text.encode())
    _fix(tmp_path)
    assert path.read_bytes().count(b"\r") == 1


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
def test_a_crlf_script_keeps_the_carriage_return_bash_reads(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(DOCUMENTS["run.sh"].replace("\n", "\r\n").encode())
    done = _fix(tmp_path)
    assert f'fixed TORCH_LOGS: "{BAD}\\r" -> "{GOOD}\\r"' in done.stdout + done.stderr
    # what bash reads is what the report says: the \r is still there, and so is TL101
    script = path.read_bytes().decode().partition("echo")[0]  # (its output is not wanted)
    assert run_bash(script) == GOOD + "\r"
    assert "TL101" in done.stdout and "save it with LF endings" in done.stdout
