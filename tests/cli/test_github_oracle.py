"""``--format github`` against GitHub's own toolkit: the workflow commands of
``@actions/core`` (npm, pinned 3.0.1: ``core.error``/``warning``/``notice`` with
``AnnotationProperties``) for the same messages, paths and positions, compared with
:func:`torch_logs_lsp.cli.formats.github_line` (property order aside: the runner reads
them by name).

The package is installed once with npm into ``~/.cache/torch-logs-lsp-oracles`` (the
npm registry is reachable where the tests run); without ``node``/``npm`` the test is
skipped, saying why."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from torch_logs_lsp.cli.formats import GITHUB_COMMANDS, Row, github_line
from torch_logs_lsp.value.analysis import Severity

VERSION = "3.0.1"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "torch-logs-lsp-oracles"
SCRIPT = """
import * as core from '@actions/core';
import fs from 'fs';
for (const c of JSON.parse(fs.readFileSync(0, 'utf8'))) {
  const props = {title: c.title, file: c.file, startLine: c.line, endLine: c.endLine};
  if (c.col !== undefined) { props.startColumn = c.col; props.endColumn = c.endColumn; }
  core[c.cmd](c.message, props);
}
"""


def toolkit() -> Path:
    """The directory holding ``node_modules/@actions/core`` at :data:`VERSION`."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed for the @actions/core oracle")
    home = CACHE / f"actions-core-{VERSION}"
    if not (home / "node_modules" / "@actions" / "core" / "package.json").exists():
        home.mkdir(parents=True, exist_ok=True)
        (home / "package.json").write_text('{"private": true}\n')
        proc = subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", f"@actions/core@{VERSION}"],
            cwd=home,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            pytest.skip(f"npm could not install @actions/core: {proc.stderr[-300:]}")
    (home / "oracle.mjs").write_text(SCRIPT)
    return home


def canonical(line: str) -> tuple[str, list[str], str]:
    m = re.match(r"^::(\w+) (.*?)::(.*)$", line, re.S)
    assert m, line
    return m.group(1), sorted(m.group(2).split(",")), m.group(3)


@pytest.mark.oracle
def test_github_commands_equal_the_toolkits():
    home = toolkit()
    rng = random.Random(17)
    pieces = ["a", "%", "%25", "\r", "\n", ":", ",", "::", "=", " ", "é", "😀", "\\", '"', "]"]
    rows: list[Row] = []
    cases: list[dict[str, object]] = []
    for _ in range(2000):
        message = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        name = "".join(
            rng.choice(["a", "%", ":", ",", "=", " ", "é", "😀", "%3A"]) for _ in range(6)
        )
        path = f"d/{name}f.env"
        severity = rng.choice(list(Severity))
        line = rng.randint(1, 50)
        end_line = line + (rng.randint(1, 3) if rng.random() < 0.3 else 0)
        column = rng.randint(1, 40)
        end_column = column + rng.randint(0, 10)
        rows.append(Row(path, "dotenv", "TL201", severity, message, (), None, None,
                        line, column, end_line, end_column))  # fmt: skip
        case: dict[str, object] = {
            "cmd": GITHUB_COMMANDS[severity],
            "title": "TL201",
            "file": path,
            "line": line,
            "endLine": end_line,
            "message": message,
        }
        if end_line == line:  # the toolkit's rule: columns only on one line
            case.update(col=column, endColumn=max(column, end_column - 1))
        cases.append(case)
    proc = subprocess.run(
        ["node", "oracle.mjs"], cwd=home, input=json.dumps(cases), capture_output=True,
        text=True, encoding="utf-8", check=True,
    )  # fmt: skip
    theirs = proc.stdout.split("\n")[:-1]
    ours = [github_line(row, cwd=os.getcwd()) for row in rows]
    assert len(theirs) == len(ours)
    differ = [(a, b) for a, b in zip(ours, theirs, strict=True) if canonical(a) != canonical(b)]
    assert differ == []
