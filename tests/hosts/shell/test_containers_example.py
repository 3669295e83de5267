"""examples/containers/run.sh: values that reach torch through another command (a wrapper
chain, a container, a bash -c script), checked by the CLI and by real torch 2.13."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from torch_logs_lsp.hosts.shell import host as shell

EXAMPLE = EXAMPLES / "containers" / "run.sh"


def test_the_cli_flags_the_two_wrong_values() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [r.replace(str(EXAMPLE), "run.sh") for r in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert [r.split(" did you mean")[0] for r in rows if ": TL" in r] == [
        "run.sh:5:21: TL201 unknown name `recompile`: not a component or artifact of torch"
        f" 2.13, nor a module in {sys.executable};",
        "run.sh:8:31: TL201 unknown name `Dynamo`: not a component or artifact of torch"
        f" 2.13, nor a module in {sys.executable};",
    ]


@pytest.mark.oracle
def test_torch_reads_the_values_as_the_cli_says() -> None:
    """Each value the example sets, given to real torch: the two flagged ones make
    ``import torch`` fail, the correct one does not."""
    values = [s.value for s in shell.extract(EXAMPLE.read_text())]
    assert values == ["recompile", "Dynamo", "+dynamo,guards"]
    for value, ok in zip(values, [False, False, True], strict=True):
        proc = subprocess.run(
            [sys.executable, "-c", "import torch"],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "TORCH_LOGS": value},
            timeout=300,
        )
        assert (proc.returncode == 0) == ok, (value, proc.stderr[-300:])
        if not ok:
            assert "Invalid log settings" in proc.stderr or "Valid settings" in proc.stderr


def test_open_quote_in_bash_c_code_names_the_inner_quote(tmp_path: Path) -> None:
    """The script's own quote is left open: bash -c stops with a syntax error (the value is
    never set); the message names that quote, not the outer one."""
    script = tmp_path / "run.sh"
    script.write_text("bash -c 'TORCH_LOGS=\"dynamo python'\necho done\n")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ':1:22: TL108 the closing " is missing: bash stops' in proc.stdout
    # bash agrees: the inner script does not run, the outer one goes on
    out = subprocess.run(
        ["bash", "-c", script.read_text()], capture_output=True, text=True, check=False
    )
    assert out.stdout == "done\n" and "unexpected EOF" in out.stderr
