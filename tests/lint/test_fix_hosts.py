"""Fixes written back into each host (hosts/edits.py, lint/fixer.py), checked by the
host's real reader: bash, python-dotenv, json5."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.oracles import BASH, read_torch_logs, run_bash
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits, encode_value, keeps_line_ends, value_edit
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.fixer import fix_document, span_fixes
from torch_logs_lsp.lint.pipeline import check_text, findings
from torch_logs_lsp.model.edits import TextEdit

REG = load_registry()
needs_bash = pytest.mark.skipif(BASH is None, reason="bash not installed")


def _launch(raw_value: str, before: str = '"A": "1",\n      ') -> str:
    return (
        '{\n  // comment\n  "configurations": [\n    {"name": "x", "env": {\n      '
        f'{before}"TORCH_LOGS": {raw_value}\n    }}}}\n  ]\n}}\n'
    )


# (host, document, value torch needs after fix-all)
DOCUMENTS = [
    ("shell", 'export TORCH_LOGS="+dynamo ,guards"\n', "+dynamo,guards"),
    ("shell", "export TORCH_LOGS='+dynamo;Guards'\n", "+dynamo,guards"),
    ("shell", "TORCH_LOGS=dynamo\\;aot\\|inductor\n", "dynamo,aot,inductor"),
    ("shell", "TORCH_LOGS=\\ dynamo,\\ \\ aot\n", "dynamo,  aot"),
    ("shell", "export TORCH_LOGS=\"+dynamo,\"'-guards'\n", "+dynamo,guards"),
    ("shell", "export TORCH_LOGS=$'\"dynamo\"'\n", "dynamo"),
    # the \r of the CRLF stays: bash keeps reading it (TL101), the line keeps its end
    ("shell", "export TORCH_LOGS=\"'dynamo'\"\r\n", "dynamo\r"),
    ("shell", 'export TORCH_LOGS="dyn\\"amo"\n', "dynamo"),
    ("shell", "x=1; TORCH_LOGS=++dynamo,, ; true\n", "+dynamo"),
    ("dotenv", "TORCH_LOGS=Dynamo,graph-breaks # note\n", "dynamo,graph_breaks"),
    ("dotenv", "TORCH_LOGS='\"dynamo\"'\r\nB=2\r\n", "dynamo"),
    ("dotenv", 'TORCH_LOGS="+dynamo , \\"aot\\""\n', "+dynamo, aot"),
    ("dotenv", 'export TORCH_LOGS="a\\\\b,-guards"\n', "a\\b,guards"),
    ("dotenv", "TORCH_LOGS=dynamo;aot\n", "dynamo,aot"),
    ("jsonc", _launch('"\\u002bdynamo;\\"aot\\""'), "+dynamo,aot"),
    ("jsonc", _launch('"\\"dynamo\\""'), "dynamo"),
    ("jsonc", _launch('"-output_code,\\u00e9x\\t"'), "output_code,éx"),
]


@pytest.mark.oracle
@needs_bash
@pytest.mark.parametrize(("host", "text", "wanted"), DOCUMENTS)
def test_fix_document_reads_back_in_the_real_reader(host: str, text: str, wanted: str) -> None:
    new, changes = fix_document(text, host, REG)
    assert len(changes) == 1 and changes[0].new == wanted
    assert read_torch_logs(host, new) == wanted
    # nothing left to fix, and bytes outside the edited range are untouched
    assert fix_document(new, host, REG) == (new, [])
    first, last = changes[0].edits[0], changes[0].edits[-1]
    assert new[: first.start] == text[: first.start]
    grown = sum(len(e.new_text) - (e.end - e.start) for e in changes[0].edits)
    assert new[last.end + grown :] == text[last.end :]


# (host, document) with TORCH_LOGS empty (TL001): the removal fix unsets it
REMOVALS = [
    ("shell", "export TORCH_LOGS=\n", "unset TORCH_LOGS\n"),
    ("shell", "TORCH_LOGS=''; true\n", "unset TORCH_LOGS; true\n"),
    ("shell", "f() { :; }\nTORCH_LOGS= f\n", "f() { :; }\nf\n"),
    ("dotenv", "A=1\r\nexport TORCH_LOGS=  # empty\r\nB=2\r\n", "A=1\r\nB=2\r\n"),
    ("dotenv", 'TORCH_LOGS=""', ""),
    ("jsonc", _launch('""'), _launch('"1"', before="").replace('"TORCH_LOGS"', '"A"')),
    (
        "jsonc",
        _launch('"help", "B": "2"', before=""),
        _launch('"2"', before="").replace("TORCH_LOGS", "B"),
    ),
    (
        "jsonc",
        _launch('"",\n      "B": "2"', before=""),
        _launch('"2"', before="").replace("TORCH_LOGS", "B"),
    ),
]


@pytest.mark.oracle
@needs_bash
@pytest.mark.parametrize(("host", "text", "expected"), REMOVALS)
def test_removal_of_an_empty_or_help_value(host: str, text: str, expected: str | None) -> None:
    ((span, analysis),) = check_text(text, host, REG)
    fixes = [f for f in span_fixes(host, text, span, analysis, REG) if f.preferred]
    (fix,) = [f for f in fixes if f.diagnostics[0].code in ("TL001", "TL002")]
    assert not fix.safe
    assert fix_document(text, host, REG) == (text, [])  # never part of fix-all
    new = apply_text_edits(text, fix.edits)
    if expected is not None:
        assert new == expected
    assert read_torch_logs(host, new) is None
    if host == "jsonc":
        json.loads(new.replace("// comment", ""))  # strict JSON: no comma left dangling


def test_removal_is_not_offered_where_it_is_unsafe() -> None:
    for text in ("declare -x TORCH_LOGS=\n", "env TORCH_LOGS=\n"):
        ((span, analysis),) = check_text(text, "shell", REG)
        assert [f.title for f in span_fixes("shell", text, span, analysis, REG)] == []


def test_quickfix_per_host_resolves_its_diagnostic_only() -> None:
    text = 'TORCH_LOGS="+dynamo ,guards," python x\n'
    ((span, analysis),) = check_text(text, "shell", REG)
    for fix in span_fixes("shell", text, span, analysis, REG):
        new = apply_text_edits(text, fix.edits)
        before = {(f.diagnostic.code) for f in findings(text, "shell", REG)}
        after = {(f.diagnostic.code) for f in findings(new, "shell", REG)}
        codes = {d.code for d in fix.diagnostics}
        assert not (codes & after) or fix.kind != "quickfix"
        assert after <= before


# --- every value written into every quoting reads back exactly (encoder property) -------

_CHARS = [*"ab,+-_ .;|'\"\\$`!*?~#=:{}()\t", "\n", "é", "😀", "\u2028", "\x01"]
_values = st.lists(st.sampled_from(_CHARS), min_size=1, max_size=12).map("".join)
_SHELL_FORMS = ["TORCH_LOGS=x", 'TORCH_LOGS="x"', "TORCH_LOGS='x'", "TORCH_LOGS=\"x\"'y'"]
_DOTENV_FORMS = ["TORCH_LOGS=x", 'TORCH_LOGS="x"', "TORCH_LOGS='x'", "export TORCH_LOGS=x # c"]


@pytest.mark.oracle
@needs_bash
@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_SHELL_FORMS), _values), min_size=10, max_size=10))
def test_shell_encoding_matches_bash(cases: list[tuple[str, str]]) -> None:
    for form, value in cases:
        (span,) = hosts.extract("shell", form)
        edits = value_edit("shell", form, span, value)
        if edits is None:  # only when no encoding reads back; bash can write any text
            raise AssertionError((form, value, encode_value("shell", value, span.quote)))
        new = apply_text_edits(form, edits)
        assert run_bash("export " + new) == value, (form, value, new)


@pytest.mark.oracle
@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(_DOTENV_FORMS), _values)
def test_dotenv_encoding_matches_python_dotenv(form: str, value: str) -> None:
    (span,) = hosts.extract("dotenv", form)
    edits = value_edit("dotenv", form, span, value)
    if edits is None:  # python-dotenv cannot hold it (e.g. `${`); nothing was written
        assert "${" in value or value != value.strip()
        return
    assert read_torch_logs("dotenv", apply_text_edits(form, edits)) == value


@pytest.mark.oracle
@settings(max_examples=examples(300), deadline=None)
@given(_values)
def test_jsonc_encoding_matches_json5(value: str) -> None:
    text = _launch('"\\u002bx\\"y"')
    (span,) = hosts.extract("jsonc", text)
    edits = value_edit("jsonc", text, span, value)
    if edits is None:  # `${...}` is a VS Code variable (not static) however it is escaped
        assert "${" in value
        return
    assert read_torch_logs("jsonc", apply_text_edits(text, edits)) == value


@pytest.mark.parametrize(
    ("text", "edit", "kept"),
    [
        ("A=1\r\nB=2\r\n", TextEdit(3, 4, ""), False),  # drops the \r of a CRLF
        ("A=1\r\nB=2\r\n", TextEdit(2, 3, "1\nC=3"), False),  # writes a bare LF
        ("A=1\r\nB=2\r\n", TextEdit(2, 3, "1\r\nC=3"), True),  # a new line in the style
        ("A=1\r\nB=2\r\n", TextEdit(0, 5, ""), True),  # a whole line removed
        ("A=1\r\nB=2\r\n", TextEdit(4, 4, "x"), False),  # splits a CRLF
        ("A=1\nB=2\n", TextEdit(2, 3, "1\nC=3"), True),
        ("A=1\nB=2\n", TextEdit(2, 3, "1\r\nC=3"), False),
        ("A=1\nB=2\r\n", TextEdit(2, 3, "1\nC=3"), False),  # mixed: neither kind grows
    ],
)
def test_keeps_line_ends(text: str, edit: TextEdit, kept: bool) -> None:
    assert keeps_line_ends(text, [edit]) is kept


def test_keeps_line_ends_counts_edits_next_to_each_other_once() -> None:
    text = "A=x\r\n"  # the \r replaced by two edits that meet: "\r" -> "" + "\r"
    assert keeps_line_ends(text, [TextEdit(3, 4, ""), TextEdit(4, 4, "\r")])
    assert not keeps_line_ends(text, [TextEdit(3, 4, ""), TextEdit(4, 4, "y")])


def test_quick_fixes_of_a_crlf_script_keep_its_line_end() -> None:
    text = "#!/bin/sh\r\nexport TORCH_LOGS=+Dynamo\r\necho hi\r\n"
    ((span, analysis),) = check_text(text, "shell", REG)
    assert {d.code for d in analysis.diagnostics} >= {"TL101", "TL201"}
    fixes = span_fixes("shell", text, span, analysis, REG)
    assert fixes  # the name is still fixed
    for fix in fixes:  # none drops the \r: removing only it would leave a bare LF
        new = apply_text_edits(text, fix.edits)
        assert new.count("\r\n") == 3 and new.count("\n") == 3, fix.title
        assert "TL101" not in {d.code for d in fix.diagnostics}
