"""A heredoc redirect before the command name (``<<EOF cat``): tree-sitter-bash reads it
as an ERROR and its body as commands; bash reads the body as the command's stdin
(hosts/shell/heredocs.py). Every expectation is checked against real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.oracles import scratch_dir
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.shell import host as shell

# (script, the TORCH_LOGS values the shell host reports, in order)
CASES: list[tuple[str, list[str]]] = [
    ("<<EOF cat\nTORCH_LOGS=r\nEOF\nTORCH_LOGS=a\n", ["a"]),
    ("<<-EOF python3\n\tTORCH_LOGS=r\n\tEOF\nTORCH_LOGS=b\n", ["b"]),
    ("<<'EOF' cat\nTORCH_LOGS=r\nEOF\n", []),
    ("<<EOF > /dev/null\nTORCH_LOGS=r\nEOF\nTORCH_LOGS=c\n", ["c"]),
    ("<<A <<B cat\nTORCH_LOGS=r\nA\nTORCH_LOGS=s\nB\nTORCH_LOGS=d\n", ["d"]),
    ("if true; then <<EOF cat\nTORCH_LOGS=r\nEOF\nfi\nTORCH_LOGS=e\n", ["e"]),
    ("true | <<EOF cat\nenv TORCH_LOGS=r x\nEOF\nTORCH_LOGS=f\n", ["f"]),
    ("3<<EOF cat\nTORCH_LOGS=r\nEOF\nTORCH_LOGS=i\n", ["i"]),  # the body goes to fd 3
    # tree-sitter reads these right already; kept as a guard
    ("cat <<EOF\nTORCH_LOGS=r\nEOF\nTORCH_LOGS=g\n", ["g"]),
    ("x=1 <<EOF cat\nTORCH_LOGS=r\nEOF\nTORCH_LOGS=h\n", ["h"]),
]


@pytest.mark.parametrize(("script", "expected"), CASES)
def test_heredoc_before_command_name(script: str, expected: list[str]) -> None:
    spans = shell.extract(script)
    check_spans(script, spans)
    assert [s.value for s in spans] == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize(("script", "expected"), CASES)
def test_bash_agrees(script: str, expected: list[str]) -> None:
    """bash assigns TORCH_LOGS only where the host reports it: the last value reported
    is what bash holds at the end (the body lines went to the command's stdin)."""
    prog = script.replace("python3", "cat") + 'printf "[%s]" "${TORCH_LOGS-unset}"\n'
    out = subprocess.run(
        ["bash", "-c", prog],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd=scratch_dir(),
    ).stdout
    want = expected[-1] if expected else "unset"
    assert out.endswith(f"[{want}]")
    if "/dev/null" not in script and "3<<" not in script:
        assert "TORCH_LOGS=" in out  # a body was the command's stdin
