"""Goal recipes written into every host pass ``torch-logs check``: each recipe, for several
releases, is written at a place of a small file of each kind (hosts/assign.py) and the
file is checked by the command itself; the written values read back exactly."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from torch_logs_lsp.cli.main import main as cli_main
from torch_logs_lsp.hosts import detect_host, extract
from torch_logs_lsp.hosts.assign import FORMS, assignment_edit, assignments_edit
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.model.host_kind import HOST_KINDS
from torch_logs_lsp.value.recipes import RECIPES, assignments, offered, recipe

#: name -> (text, the line the cursor is on): one file of each kind.
FILES: dict[str, tuple[str, int]] = {
    ".env": ("# training\nX=1\n", 1),
    "run.sh": ("#!/bin/sh\n\npython train.py\n", 1),
    "Dockerfile": ('FROM python:3.12\n\nCMD ["python", "train.py"]\n', 1),
    ".github/workflows/ci.yml": (
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n      X: '1'\n"
        "    steps:\n      - run: python train.py\n",
        5,
    ),
    "compose.yaml": ("services:\n  t:\n    image: x\n    environment:\n      - X=1\n", 4),
    ".vscode/launch.json": (
        '{\n  "configurations": [\n    {\n      "name": "t",\n      "type": "debugpy",\n'
        '      "request": "launch",\n      "program": "train.py",\n      "env": {\n'
        '        "X": "1"\n      }\n    }\n  ]\n}\n',
        8,
    ),
    "train.py": ("import os\n\nimport torch\n", 1),
    "run.ps1": ("\r\npython train.py\r\n", 0),
    "run.bat": ("@echo off\r\n\r\npython train.py\r\n", 1),
    "Makefile": ("\ntrain:\n\tpython train.py\n", 0),
    "pytest.ini": ("[pytest]\nenv =\n    X=1\n", 2),
    "pyproject.toml": ('[tool.pytest.ini_options]\nenv = [\n    "X=1",\n]\n', 2),
}
RELEASES = ("2.1", "2.4", "2.15")


def check(path: Path, release: str) -> list[dict]:
    """``torch-logs check --format json`` of one file: its findings."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["check", "--torch-version", release, "--format", "json", str(path)])
    return json.loads(out.getvalue())


def offset_of_line(text: str, line: int) -> int:
    return len("".join(text.splitlines(keepends=True)[:line]))


def test_every_recipe_passes_check_in_every_host(tmp_path: Path):
    hosts_seen = set()
    written = 0
    for release in RELEASES:
        registry = load_registry(release)
        for r in RECIPES:
            pairs = assignments([r], (), registry)
            if not pairs:
                assert r not in offered(registry)
                continue
            for name, (text, line) in FILES.items():
                path = tmp_path / release / r.id / name
                path.parent.mkdir(parents=True, exist_ok=True)
                host = detect_host(str(path), text)
                assert host is not None, name
                edit = assignments_edit(host, text, offset_of_line(text, line), pairs)
                assert edit is not None, (name, r.id)
                new = apply_text_edits(text, [edit])
                readings = [(s.variable, s.value) for s in extract(host, new)]
                for pair in pairs:
                    assert pair in readings, (name, new)
                path.write_bytes(new.encode())
                assert check(path, release) == [], (release, r.id, name, new)
                hosts_seen.add(host)
                written += 1
    assert hosts_seen == set(FORMS) - {"ipython"}
    assert written >= len(RECIPES) * len(FILES) * 2


def test_recipes_fit_the_release():
    assert recipe("bug_report") is not None
    old, new = load_registry("2.1"), load_registry("2.15")
    # TORCH_TRACE and TORCH_LOGS_OUT are read from 2.3
    assert recipe("bug_report") not in offered(old)
    assert recipe("output_code") not in offered(old)  # TL411 without a file
    assert assignments([recipe("output_code")], ["+dynamo"], old) == [("TORCH_LOGS", "+dynamo")]
    assert assignments([recipe("output_code")], (), new) == [
        ("TORCH_LOGS", "output_code"),
        ("TORCH_LOGS_OUT", "torch_logs.txt"),
    ]
    # chosen items follow the recipes' items; a name given twice keeps its last prefix;
    # names the release does not know are left out
    got = assignments([recipe("recompiles")], ["+dynamo", "nope", "-dynamo"], new)
    assert got == [("TORCH_LOGS", "recompiles,-dynamo")]
    assert assignments([], ["nope"], new) == []


@pytest.mark.parametrize("host", sorted(set(FORMS) & set(HOST_KINDS)))
def test_a_value_with_quotes_and_dollars_is_escaped(host):
    """A value every host must quote or escape reads back exactly (or is not written)."""
    value = "+dynamo,a b$X\"'\\"
    text = {"jsonc": '{"env": {\n"X": "1"\n}}\n', "yaml": "env:\n  X: '1'\n"}.get(host, "\n")
    at = offset_of_line(text, 1 if host in ("jsonc", "yaml") else 0)
    found = assignment_edit(host, text, at, "TORCH_LOGS", value)
    if found is None:
        return  # no form of this host can hold it: nothing written
    new = apply_text_edits(text, [found[0]])
    assert ("TORCH_LOGS", value) in [(s.variable, s.value) for s in extract(host, new)]


def test_rewrites_the_value_on_the_cursor_line():
    text = "A=1\nTORCH_LOGS=+dynamo\nB=2\n"
    found = assignment_edit("dotenv", text, text.index("dynamo"), "TORCH_LOGS", "recompiles")
    assert found is not None
    assert apply_text_edits(text, [found[0]]) == "A=1\nTORCH_LOGS=recompiles\nB=2\n"


def test_rewrites_the_one_other_assignment_of_the_variable():
    """A second assignment would leave one of the two dead (the later one wins): the one
    the document has is rewritten; with two of them, nothing is written."""
    text = "TORCH_LOGS=+dynamo\nTORCH_LOGS_OUT=logs/out.log\n"
    found = assignment_edit("dotenv", text, 0, "TORCH_LOGS_OUT", "torch_logs.txt")
    assert found is not None
    assert (
        apply_text_edits(text, [found[0]]) == "TORCH_LOGS=+dynamo\nTORCH_LOGS_OUT=torch_logs.txt\n"
    )
    script = 'export TORCH_TRACE="~/traces"\npython train.py\n'
    found = assignment_edit("shell", script, script.index("python"), "TORCH_TRACE", "t")
    assert found is not None
    assert apply_text_edits(script, [found[0]]) == 'export TORCH_TRACE="t"\npython train.py\n'
    two = "TORCH_TRACE=a\nTORCH_TRACE=b\nX=1\n"
    assert assignment_edit("dotenv", two, two.index("X"), "TORCH_TRACE", "t") is None
