"""GitHub Actions steps with ``shell: pwsh`` / ``shell: powershell``: their ``run:`` code
is read by the PowerShell host through the YAML host (offsets in the document, the
PowerShell layer of the quote marked) and fixed through both layers.

GitHub's docs (https://docs.github.com/en/actions/reference/workflows-and-actions/
workflow-syntax#jobsjob_idstepsshell): ``pwsh`` is PowerShell Core, ``powershell`` is
Windows PowerShell; a step without ``shell:`` on a Windows runner also runs pwsh, but we
read only steps whose shell is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.edits import value_edit
from torch_logs_lsp.hosts.embedded import LAYER, PWSH

WORKFLOW = """on: push
jobs:
  win:
    runs-on: windows-latest
    steps:
      - run: |
          $env:TORCH_LOGS = 'aot_g'
          python train.py
        shell: pwsh
      - run: $env:TORCH_LOGS = "+dynamo,Guards"
        shell: powershell
      - run: $env:TORCH_LOGS = 'Dynamo'
      - run: TORCH_LOGS=bash_here python x.py
        shell: bash
  lin:
    runs-on: ubuntu-latest
    defaults:
      run:
        shell: pwsh -command ". '{0}'"
    steps:
      - run: "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'it''s')"
      - run: $env:TORCH_LOGS = '${{ matrix.x }}'
"""


def test_pwsh_steps_are_read_by_the_powershell_host() -> None:
    spans = extract("yaml", WORKFLOW)
    check_spans(WORKFLOW, spans)
    assert [(s.value, s.quote) for s in spans] == [
        ("aot_g", PWSH + "'" + LAYER + "|"),
        ("+dynamo,Guards", PWSH + '"' + LAYER + ""),
        # (the step without shell: on a Windows runner is not read)
        ("bash_here", "" + LAYER + ""),
        ("it's", PWSH + "'" + LAYER + '"'),
        (None, PWSH + "'" + LAYER + ""),  # a ${{ }} expression: not static
    ]
    first = spans[0]
    assert WORKFLOW[first.content_start : first.content_end] == "aot_g"


def test_fixes_go_through_both_layers() -> None:
    spans = extract("yaml", WORKFLOW)
    edits = value_edit("yaml", WORKFLOW, spans[3], "it''s'")
    assert edits is not None  # '' doubled for PowerShell, inside a YAML "..." string
    text = WORKFLOW
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: e.start] + e.new_text + text[e.end :]
    assert "('TORCH_LOGS', 'it''''s''')" in text
    assert extract("yaml", text)[3].value == "it''s'"


def test_cli_fix_keeps_every_other_byte(tmp_path: Path) -> None:
    path = tmp_path / ".github" / "workflows" / "ci.yml"
    path.parent.mkdir(parents=True)
    path.write_text(WORKFLOW, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    expected = WORKFLOW.replace('"+dynamo,Guards"', '"+dynamo,guards"').replace("'it''s'", "'its'")
    assert path.read_text(encoding="utf-8") == expected, proc.stdout + proc.stderr


def test_an_empty_value_in_a_pwsh_step_names_the_versions(tmp_path: Path) -> None:
    path = tmp_path / ".github" / "workflows" / "e.yml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "on: push\njobs:\n  a:\n    runs-on: windows-latest\n    steps:\n"
        "      - run: $env:TORCH_LOGS = ''\n        shell: pwsh\n"
        "      - run: export TORCH_LOGS=\n        shell: bash\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = json.loads(proc.stdout)
    assert [(r["line"], r["code"], r["severity"]) for r in rows] == [
        (6, "TL001", "warning"),  # PowerShell 7.5+ only
        (8, "TL001", "error"),  # bash: always empty
    ]
    assert "PowerShell 7.5 and later" in rows[0]["message"]
