"""``torch-logs codes``, ``--version`` of both commands and ``check --help`` (the codes
table and docs/codes.md: tests/codes/test_table.py)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib import metadata

import pytest

from torch_logs_lsp.cli.main import build_parser, main
from torch_logs_lsp.codes.table import all_codes


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, check=False
    )


def test_codes_lists_every_code(capsys: pytest.CaptureFixture[str]):
    assert main(["codes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(all_codes())
    assert re.match(r"^TL201  error / warning +unknown name$", lines[all_codes().index("TL201")])


def test_codes_prints_a_codes_documentation(capsys: pytest.CaptureFixture[str]):
    assert main(["codes", "tl201"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TL201: unknown name (error / warning)\n\n**Message:** unknown name")
    assert "## TL202" not in out and "find_spec" in out
    assert main(["codes", "TL3"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [
        "TL301", "TL302", "TL303", "TL304",
    ]  # fmt: skip


@pytest.mark.parametrize("bad", ["TL999", "TL7", "dynamo"])
def test_codes_of_an_unknown_code_exits_2(bad: str, capsys: pytest.CaptureFixture[str]):
    assert main(["codes", bad]) == 2
    assert f"{bad!r} is not a documented code or prefix" in capsys.readouterr().err


def test_explain_of_a_code_explains_the_value_and_points_at_codes(
    capsys: pytest.CaptureFixture[str],
):
    main(["explain", "--torch-version", "2.13", "TL201"])
    captured = capsys.readouterr()
    assert "`torch-logs codes TL201` prints its documentation" in captured.err
    assert captured.out.startswith("TORCH_LOGS='TL201'")
    main(["explain", "--torch-version", "2.13", "dynamo"])
    assert "diagnostic code" not in capsys.readouterr().err


def test_version_of_both_commands():
    want = metadata.version("torch-logs-lsp")
    cli = run("torch_logs_lsp.cli.main", "--version")
    assert (cli.returncode, cli.stdout) == (0, f"torch-logs {want}\n")
    server = run("torch_logs_lsp.server", "--version")
    assert (server.returncode, server.stdout) == (0, f"torch-logs-lsp {want}\n")


def test_check_help_lists_every_option_with_a_line():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    check = sub.choices["check"]
    text = check.format_help()
    for action in check._actions:
        assert action.help, action.option_strings or action.dest
        for flag in action.option_strings:
            assert re.search(rf"^  (\S+, )*{re.escape(flag)}\b", text, re.M), flag
    for flag in ("--format", "--select", "--extend-select", "--ignore", "--extend-ignore",
                 "--isolated", "--show-hints", "--fix", "--python", "--torch-version"):  # fmt: skip
        assert flag in text
    assert "github" in text and "sarif" in text
    # one line each in an 80-column terminal (an option too long for its column is
    # alone on its line and its help on the next one)
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--help"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert proc.returncode == 0 and proc.stdout.startswith("usage: torch-logs check")
    lines = proc.stdout.splitlines()
    for action in check._actions:
        assert action.help is not None
        assert any(line.strip().endswith(action.help) for line in lines), action.help
