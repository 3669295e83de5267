"""The TORCH_LOGS family checks (value/family.py): table tests, the TL401 oracle
(``logging.Formatter``), hints across variables and the CLI."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.value.family import (
    check_family_value,
    check_format,
    check_out,
    check_trace,
    check_trace_ids,
    format_valid,
)


def codes(diags) -> list[str]:
    return [d.code for d in diags]


@pytest.mark.parametrize(
    ("value", "release", "expected"),
    [
        ("short", "2.13", []),
        ("basic", "2.3", []),
        ("short", "2.2", ["TL401"]),
        ("", "2.13", []),  # logging's default %(message)s
        ("%(message)s", "2.13", []),
        ("%(levelname)s: %(message)s", "2.13", []),
        ("%(whatever)d", "2.13", ["TL407"]),  # accepted by Formatter(), fails per record
        ("%(message)", "2.13", ["TL401"]),
        ("hello", "2.13", ["TL401"]),
        ("{message}", "2.13", ["TL401"]),
        ("%s", "2.13", ["TL401"]),
    ],
)
def test_format(value: str, release: str, expected: list[str]):
    assert codes(check_format(value, release)) == expected


@pytest.mark.parametrize(
    ("value", "fields"),
    [
        ("%(traceid)s %(message)s", ["traceid"]),
        ("%(levelname)s %(nope)d %%(x)s", ["nope"]),
        ("%(msg)s %(taskName)s", []),
    ],
)
def test_unknown_fields(value: str, fields: list[str]):
    diags = check_format(value, "2.13")
    assert [value[d.start : d.end] for d in diags] == fields
    assert all(d.code == "TL407" for d in diags)


def test_unknown_field_verdict_matches_logging():
    record = logging.LogRecord("torch", logging.INFO, "/x.py", 1, "hi", (), None)
    for value in ("%(traceid)s %(message)s", "%(levelname)s %(message)s %(msg)s"):
        try:
            logging.Formatter(value).format(record)
            fails = False
        except ValueError:
            fails = True
        assert fails == bool(check_format(value, "2.13")), value


def test_format_diagnostic_covers_value():
    (d,) = check_format("hello", "2.13")
    assert (d.start, d.end) == (0, 5)
    assert "ValueError" in d.message


FORMAT_PIECES = st.sampled_from(
    ["%(", ")", "s", "d", "r", "%", "(", "message", "name", "x", " ", ".", "2", "-", "#", "*"]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.one_of(st.text(max_size=12), st.lists(FORMAT_PIECES, max_size=8).map("".join)))
def test_format_verdict_equals_logging_formatter(fmt: str):
    try:
        logging.Formatter(fmt)
        accepted = True
    except ValueError:
        accepted = False
    assert format_valid(fmt) == accepted
    if fmt not in ("short", "basic"):
        assert ("TL401" not in codes(check_format(fmt, "2.13"))) == accepted


def test_out(tmp_path: Path):
    (tmp_path / "logs").mkdir()
    base = str(tmp_path)
    assert codes(check_out("logs/t.txt", base)) == []
    assert codes(check_out(str(tmp_path / "logs" / "t.txt"), None)) == []
    (d,) = check_out("nope/t.txt", base)
    assert d.code == "TL402"
    assert "relative paths are resolved against" in d.message and base in d.message
    assert codes(check_out(str(tmp_path / "nope" / "t.txt"), None)) == ["TL402"]
    assert codes(check_out("logs", base)) == ["TL406"]
    assert codes(check_out("", base)) == ["TL406"]
    assert codes(check_out("nope/t.txt", None)) == []  # no base: relative not checked


def test_trace(tmp_path: Path):
    (tmp_path / "f.txt").write_text("x")
    base = str(tmp_path)
    assert codes(check_trace("f.txt", base)) == ["TL403"]
    assert codes(check_trace(str(tmp_path / "f.txt"), None)) == ["TL403"]
    assert codes(check_trace(base, None)) == []
    assert codes(check_trace("new_dir", base)) == []


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        ("[0/0]", []),
        ("[1/0_1], [0/0]", []),
        ("[!0]", []),
        ("[!0/1/0]", []),
        ("[!0/1/0_2]", []),
        ("", []),
        (" , ", []),
        ("0/0", [("0/0", 0, 3, ("[0/0]",))]),
        ("[0/0],[x]", [("[x]", 6, 9, ())]),
        ("[0/0_0]", [("[0/0_0]", 0, 7, ())]),  # attempt 0 is written without _0
        ("[01/0]", [("[01/0]", 0, 6, ())]),
        ("[0/0],  1/2_3", [("1/2_3", 8, 13, ("[1/2_3]",))]),
    ],
)
def test_trace_ids(value: str, bad):
    got = [(value[d.start : d.end], d.start, d.end, d.suggestions) for d in check_trace_ids(value)]
    assert got == bad
    assert all(d.code == "TL404" for d in check_trace_ids(value))


@pytest.mark.parametrize(
    ("variable", "value", "release", "expected"),
    [
        ("TORCH_LOGS_FORMAT", "short", "2.1", ["TL405"]),
        ("TORCH_LOGS_OUT", "/tmp/x.log", "2.2", ["TL405"]),
        ("TORCH_TRACE", "/tmp/t", "2.2", ["TL405"]),
        ("TORCH_LOGS_TRACE_ID_FILTER", "[0/0]", "2.6", ["TL405"]),
        ("TORCH_LOGS_TRACE_ID_FILTER", "[0/0]", "2.7", []),
        ("TORCH_COMPILE_DEBUG", "1", "2.1", []),
        ("TORCH_LOGS", "dynamo", "2.13", []),
    ],
)
def test_release(variable: str, value: str, release: str, expected: list[str]):
    assert codes(check_family_value(variable, value, release)) == expected


def _codes_in(text: str, host: str = "dotenv") -> list[tuple[int, str]]:
    return [(f.line, f.diagnostic.code) for f in findings(text, host)]


def test_cross_hints_dotenv():
    text = (
        "TORCH_LOGS=+inductor,output_code\n"
        "TORCH_LOGS_FORMAT=short\n"
        "TORCH_LOGS_TRACE_ID_FILTER=[0/0]\n"
        "TORCH_COMPILE_DEBUG=1\n"
        "TORCH_TRACE=/tmp/trace_dir_that_is_not_a_file\n"
    )
    assert _codes_in(text) == [(0, "TL411"), (2, "TL412"), (3, "TL413")]
    (f,) = [f for f in findings(text, "dotenv") if f.diagnostic.code == "TL411"]
    assert text[f.start : f.end] == "output_code"


def test_output_code_hint_asks_captured_only_for_its_values():
    from torch_logs_lsp.hosts import extract
    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.lint.checker import analyse_span
    from torch_logs_lsp.value.family import OUTPUT_CODE_NO_FILE, cross_hints

    text = "TORCH_LOGS=dynamo\nTORCH_LOGS=output_code\nTORCH_LOGS=+inductor,output_code\n"
    spans = extract("dotenv", text)
    entries = [(s, analyse_span(s, load_registry())) for s in spans]
    asked: list[int] = []

    def captured(i: int) -> bool:
        asked.append(i)
        return i == 1

    hints = cross_hints(entries, captured=captured)
    assert [(i, d.code) for i, d in hints] == [(2, OUTPUT_CODE_NO_FILE)]
    assert asked == [1, 2]
    assert [i for i, _ in cross_hints(entries)] == [1, 2]


def test_cross_hints_absent_when_resolved():
    text = "TORCH_LOGS=output_code\nTORCH_LOGS_OUT=/tmp/x.log\nTORCH_COMPILE_DEBUG=0\n"
    text += "TORCH_TRACE=/tmp/trace_dir_that_is_not_a_file\n"
    assert _codes_in(text) == []


def test_shell_and_launch_json():
    sh = 'export TORCH_LOGS_FORMAT="%(message)"\nTORCH_LOGS_TRACE_ID_FILTER=0/0 python x.py\n'
    assert _codes_in(sh, "shell") == [(0, "TL401"), (1, "TL404"), (1, "TL412")]
    js = '{"configurations": [{"env": {"TORCH_LOGS_FORMAT": "hello"}}]}'
    assert _codes_in(js, "jsonc") == [(0, "TL401")]


def test_fix_all_leaves_family_values_alone():
    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.lint.fixer import fix_document

    text = "TORCH_LOGS_FORMAT=%(levelname)s, %(message)s\nTORCH_LOGS_TRACE_ID_FILTER=0/0 ,\n"
    assert fix_document(text, "dotenv", load_registry()) == (text, [])


def test_cli_reports_family(tmp_path: Path):
    (tmp_path / "logs").mkdir()
    # (two files: in one, the first TORCH_LOGS_OUT would be overwritten before use, TL502)
    (tmp_path / ".env").write_text("TORCH_LOGS_FORMAT=hello\nTORCH_LOGS_OUT=missing/x.log\n")
    (tmp_path / "b.env").write_text("TORCH_LOGS_OUT=logs/x.log\n")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", ".", "--torch", "2.13"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("env:1:19: TL401") or ".env:1:19: TL401" in line for line in lines)
    assert sum("TL402" in line for line in lines) == 1, proc.stdout
    assert str(tmp_path) in proc.stdout  # the message says what the path was resolved against
