"""The shell host: table-driven cases and a differential test against real bash."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.oracles import scratch_dir
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.shell import host as shell

Row = tuple[str, str | None, str | None, bool]
CASES: list[tuple[str, list[Row]]] = [
    ("TORCH_LOGS=+dynamo python train.py\n", [("TORCH_LOGS", "+dynamo", "", True)]),
    ("export TORCH_LOGS=\"+dynamo,\"'guards'\n", [("TORCH_LOGS", "+dynamo,guards", None, True)]),
    ("export TORCH_LOGS='+dynamo'", [("TORCH_LOGS", "+dynamo", "'", True)]),
    ('TORCH_LOGS="a\\$b\\"c\\\\d\\e"', [("TORCH_LOGS", 'a$b"c\\d\\e', '"', True)]),
    ("TORCH_LOGS=a\\ b\\,c", [("TORCH_LOGS", "a b,c", "", True)]),
    ("TORCH_LOGS=$'\\x41\\u00e9\\n\\''", [("TORCH_LOGS", "Aé\n'", None, True)]),
    ("TORCH_LOGS=$'a\\0b'c", [("TORCH_LOGS", "ac", None, True)]),
    ("TORCH_LOGS=$'\\xc3\\xa9'", [("TORCH_LOGS", None, None, True)]),
    ('TORCH_LOGS=$"dynamo"', [("TORCH_LOGS", "dynamo", '"', True)]),
    (
        "TORCH_LOGS=dyn\\\namo \\\n  TORCH_TRACE=/t cmd",
        [("TORCH_LOGS", "dynamo", "", True), ("TORCH_TRACE", "/t", "", True)],
    ),
    ("env -i -u HOME TORCH_LOGS=dynamo python t.py", [("TORCH_LOGS", "dynamo", "", True)]),
    ("env TORCH_LOGS='*' python", [("TORCH_LOGS", "*", "'", True)]),
    ("env TORCH_LOGS=* python", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=* python", [("TORCH_LOGS", "*", "", True)]),
    ("env python TORCH_LOGS=x", []),
    ("echo TORCH_LOGS=x", []),
    (
        "declare -x TORCH_LOGS=a; local TORCH_LOGS=b; readonly TORCH_LOGS=c; typeset TORCH_LOGS=d",
        [("TORCH_LOGS", v, "", True) for v in "abcd"],
    ),
    ("declare -l TORCH_LOGS=Dynamo", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=$X", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=${X:-dynamo}", [("TORCH_LOGS", None, "", True)]),
    ('TORCH_LOGS="$(echo dynamo)"', [("TORCH_LOGS", None, '"', True)]),
    ("TORCH_LOGS=`echo dynamo`", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=$((1+2))", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=~/x", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=a:~/x", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS=a~/x", [("TORCH_LOGS", "a~/x", "", True)]),
    ("TORCH_LOGS='~'", [("TORCH_LOGS", "~", "'", True)]),
    ("TORCH_LOGS=(a b)", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS+=a", [("TORCH_LOGS", None, "", True)]),
    ("TORCH_LOGS[0]=a", []),
    ("TORCH_LOGS=", [("TORCH_LOGS", "", "", True)]),
    ("TORCH_LOGS= python", [("TORCH_LOGS", "", "", True)]),
    ("TORCH_LOGS=a$ b", [("TORCH_LOGS", "a$", "", True)]),
    ("TORCH_LOGS=#x", [("TORCH_LOGS", "#x", "", True)]),
    ("# TORCH_LOGS=x", []),
    ('TORCH_LOGS="+dyn', [("TORCH_LOGS", "+dyn", '"', False)]),
    ("export TORCH_LOGS='+dyn\nfoo\n", [("TORCH_LOGS", "+dyn", "'", False)]),
    ('TORCH_LOGS="a\nb"\n', [("TORCH_LOGS", "a\nb", '"', True)]),
    ("😀́ x; TORCH_LOGS=é,😀", [("TORCH_LOGS", "é,😀", "", True)]),
    ("TORCH_LOGS=a\r\n", [("TORCH_LOGS", "a\r", "", True)]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases(text: str, expected: list[Row]) -> None:
    spans = shell.extract(text)
    check_spans(text, spans)
    assert [(s.variable, s.value, s.quote, s.terminated) for s in spans] == expected
    assert all(s.host == "shell" for s in spans)


def test_offsets_of_concatenation() -> None:
    text = "export TORCH_LOGS=\"+dyn\"\\a'mo'$'\\x2c'g\\\nuards"
    (span,) = shell.extract(text)
    assert span.value == "+dynamo,guards"
    assert text[span.raw_start : span.raw_end] == text[18:]
    assert text[span.content_start] == "+"
    assert text[span.char_starts[4] : span.char_ends[4]] == "\\a"
    assert text[span.char_starts[7] : span.char_ends[7]] == "\\x2c"
    assert text[span.char_starts[9]] == "u"  # after the line continuation


# --- differential test against bash ---------------------------------------------------

BASH = shutil.which("bash")
_LIT = [*"ab+-,._:/=%@^!#]{}*?[", "é", "😀", "\u0301"]
_ESC = [*" '\"$\\;&|<>()`*~ab\t", "é"]
_SQ = [*'ab,+ \\$"`\n', "é"]
_DQ = ["a", ",", " ", "'", "\\$", '\\"', "\\\\", "\\`", "\\a", "\\n", "\\\n", "\n", "é", "$ ", "$,"]
_ANSI = [
    "a",
    " ",
    '"',
    "\\n",
    "\\t",
    "\\\\",
    "\\'",
    '\\"',
    "\\x41",
    "\\x4",
    "\\x4g",
    "\\101",
    "\\0101",
    "\\u00e9",
    "\\u",
    "\\U0001F600",
    "\\cA",
    "\\c?",
    "\\c",
    "\\c\\\\",
    "\\c\\x",
    "\\c\\'",
    "\\z",
    "\\e",
    "\\?",
    "\\0",
    "é",
]


def _join(alphabet: list[str], size: int = 5) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet), max_size=size).map("".join)


_part = st.one_of(
    st.sampled_from(_LIT),
    st.sampled_from(_ESC).map(lambda c: "\\" + c),
    st.just("\\\n"),
    _join(_SQ).map(lambda s: f"'{s}'"),
    _join(_DQ).map(lambda s: f'"{s}"'),
    _join(_ANSI).map(lambda s: f"$'{s}'"),
    _join(_DQ).map(lambda s: f'$"{s}"'),
)
_word = st.lists(_part, max_size=5).map("".join)
_FORMS = [
    "TORCH_LOGS={w}",
    "export TORCH_LOGS={w}",
    "declare -x TORCH_LOGS={w}",
    "readonly TORCH_LOGS={w}",
    "TORCH_LOGS={w} show",
    "f2() {{ local TORCH_LOGS={w}; show; }}; f2",
    "TORCH_TRACE=x \\\n TORCH_LOGS={w} show",
    "env -u HOME TORCH_LOGS={w} printenv -0 TORCH_LOGS",
]


def _run_bash(statements: list[str]) -> list[bytes]:
    script = ["show() { printf '%s\\0' \"${TORCH_LOGS-<unset>}\"; }"]
    for stmt in statements:
        tail = "" if "printenv" in stmt or "show" in stmt else "\nshow"
        script.append(f"( {stmt}{tail} )")
    assert BASH is not None
    out = subprocess.run(
        [BASH, "--noprofile", "--norc"],
        input="\n".join(script).encode(),
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        check=True,
        timeout=60,
        cwd=scratch_dir(),
    )
    records = out.stdout.split(b"\0")[:-1]
    assert len(records) == len(statements), out.stderr
    return records


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
# No shrinking: each example runs bash, and the assertion names the failing statement.
@settings(max_examples=6, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.lists(st.tuples(st.sampled_from(_FORMS), _word), min_size=60, max_size=60))
def test_matches_bash(cases: list[tuple[str, str]]) -> None:
    statements = [form.format(w=word) for form, word in cases]
    records = _run_bash(statements)
    compared = 0
    for stmt, record in zip(statements, records, strict=True):
        spans = [s for s in shell.extract(stmt) if s.variable == "TORCH_LOGS"]
        check_spans(stmt, shell.extract(stmt))
        assert spans, stmt
        span = spans[-1]
        assert span.terminated, stmt
        if span.value is None:
            continue
        compared += 1
        assert span.value.encode("utf-8", "surrogateescape") == record, stmt
    assert compared > len(statements) // 3


# $'\c…': the control character of the next character, as bash decodes it after its lexer
# has found the closing quote (a backslash pairs with any next character).
CONTROL_ESCAPES = [
    r"$'\c\\'",
    r"$'\cA'",
    r"$'\c'",
    r"$'x\c'y",
    r"$'\c\\x'",
    r"$'a\c?b'",
    r"$'\c\''",
    r"$'\c\x'",
    r"$'\c\'x'",
    r"$'\c@zz'",
    r"$'\c\\\\'",
    r"$'\c\c'",
]


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
def test_control_escapes_match_bash() -> None:
    statements = [f"TORCH_LOGS={word}" for word in CONTROL_ESCAPES]
    for stmt, record in zip(statements, _run_bash(statements), strict=True):
        (span,) = shell.extract(stmt)
        assert span.terminated and span.value is not None, stmt
        assert span.value.encode("utf-8", "surrogateescape") == record, stmt


_ORACLE_QUERY = (
    '((variable_name) @var (#any-of? @var "TORCH_COMPILE_DEBUG" "TORCH_LOGS" '
    '"TORCH_LOGS_FORMAT" "TORCH_LOGS_OUT" "TORCH_LOGS_TRACE_ID_FILTER" "TORCH_TRACE"))\n'
    '((command name: (command_name) @cmd_name (#any-of? @cmd_name "/bin/env" "/usr/bin/env" '
    '"env")) @cmd)'
)


def _is_env(command: object) -> bool:
    """Whether a tree-sitter ``command`` node's name is one the oracle query matches."""
    name = command.child_by_field_name("name")  # type: ignore[attr-defined]
    return name is not None and name.text in (b"env", b"/bin/env", b"/usr/bin/env")


_SHELL_PIECES = st.sampled_from(
    [
        *"\"'\\{}()[]$`;&|<>#=\n \t-+xé😀",
        "TORCH_LOGS",
        "TORCH_LOGS_OUT",
        "TORCH_TRACE",
        "XTORCH_LOGS",
        "env ",
        "/usr/bin/env ",
        "export ",
        "declare -i ",
        "${",
        "$(",
        "<<EOF\n",
        "EOF\n",
        "arr[",
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(text=st.lists(_SHELL_PIECES, max_size=40).map("".join))
@example(text="<XTORCH_LOGS env ")  # env found first as a wrapper (of the redirect's name)
def test_byte_search_finds_what_a_tree_query_finds(text: str) -> None:
    """shell._nodes (byte search confirmed by the tree) finds exactly the nodes of the
    tree-sitter query it replaced (family variable names, env commands)."""
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source, query
    from torch_logs_lsp.hosts.shell import host as shell

    src = Source(text)
    root = src.parse("bash").root_node
    want = set()
    for pattern, captures in tree_sitter.QueryCursor(query("bash", _ORACLE_QUERY)).matches(root):
        node = captures["cmd" if pattern == 1 else "var"][0]
        want.add((pattern == 1, node.start_byte, node.end_byte, node.type))
    got = [
        (kind != "var", n.start_byte, n.end_byte, n.type)
        for kind, n in shell._nodes(src, root)
        # not a query's: after a line continuation, wrappers other than env (an env
        # command found first as a wrapper is kept once, as "wrap": both kinds are read
        # alike)
        if kind != "prefix" and (kind != "wrap" or _is_env(n))
    ]
    assert set(got) == want
    assert len(got) == len(set(got))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # bash ends the word at the blanks after a line continuation: two assignments
        ("CUDA_VISIBLE_DEVICES=0\\\n  TORCH_LOGS=aot_g python t.py\n", [("TORCH_LOGS", "aot_g")]),
        ("A=0\\\n TORCH_LOGS=x TORCH_TRACE=/t cmd\n", [("TORCH_LOGS", "x"), ("TORCH_TRACE", "/t")]),
        # without blanks it is one word: A=0TORCH_LOGS=aot_g
        ("A=0\\\nTORCH_LOGS=aot_g\n", []),
        # after the command name, an argument
        ("A=0 cmd \\\n  TORCH_LOGS=aot_g\n", []),
    ],
)
def test_assignments_after_a_line_continuation(text: str, expected: list) -> None:
    """tree-sitter-bash takes ``TORCH_LOGS=aot_g`` for the
    command name after ``A=0\\<newline>  ``; bash assigns it (checked with bash below)."""
    assert [(s.variable, s.value) for s in shell.extract(text)] == expected
    if shutil.which("bash"):
        names = " ".join(f'"${{{v}-unset}}"' for v, _ in expected) or "ok"
        probe = text.replace("python t.py", "").replace("cmd", "")
        out = subprocess.run(
            ["bash", "-c", probe.rstrip("\n") + f"\nprintf '%s\\n' {names}"],
            capture_output=True,
            text=True,
            check=False,
            cwd=scratch_dir(),
        ).stdout.split()
        if expected:  # without the command, the assignments stay in the shell
            assert out == [v for _, v in expected]


# -- ANSI-C strings that tree-sitter-bash ends elsewhere than bash (hosts/bash_parse) --

ANSI_C_CASES = [
    # (script, what bash assigns to TORCH_LOGS, or None when the line is not an assignment)
    ("A=$'a\\\\'' # c\nexport TORCH_LOGS=Dynamo\\'\necho \"$A\"\n", None),
    ("printf %s $'\\\\'\nexport TORCH_LOGS=aot_g\necho '$TORCH_LOGS'\n", "aot_g"),
    ("A=$'x\\\\' TORCH_LOGS=+dynamo cmd 'q'\n", "+dynamo"),
    ("A=$'\\\\\\\\'\nTORCH_LOGS=guards\nB='z'\n", "guards"),
    ("A=$'it\\'s'\nTORCH_LOGS=+inductor\n", "+inductor"),
    ("TORCH_LOGS=$'+dyn\\\\amo'\nB='x'\n", "+dyn\\amo"),
]


@pytest.mark.parametrize(("script", "expected"), ANSI_C_CASES)
def test_ansi_c_string_ending_in_escaped_backslash(script: str, expected: str | None) -> None:
    """tree-sitter-bash took ``$'a\\\\'`` to go on past its closing quote: the assignments
    after it were missed, or (``check --fix``) text inside another string was edited."""
    values = [s.value for s in shell.extract(script) if s.variable == "TORCH_LOGS"]
    assert values == ([] if expected is None else [expected])


@pytest.mark.oracle
@pytest.mark.parametrize(("script", "expected"), ANSI_C_CASES)
def test_ansi_c_cases_against_bash(script: str, expected: str | None) -> None:
    """The expectations above are bash's: run each script with ``cmd`` and ``echo`` stubbed
    and print TORCH_LOGS (unset: no assignment took place)."""
    prog = "cmd() { :; }; echo() { :; }; printf() { :; }\n" + script
    prog += '\nif [ -n "${TORCH_LOGS+x}" ]; then command printf "%s" "$TORCH_LOGS"; '
    prog += "else command printf UNSET; fi\n"
    out = subprocess.run(
        ["bash", "-c", prog], capture_output=True, text=True, check=False, cwd=scratch_dir()
    )
    got = out.stdout
    if "cmd" in script:  # a prefix assignment is not kept in the shell
        assert expected is not None
        return
    assert got == ("UNSET" if expected is None else expected)
