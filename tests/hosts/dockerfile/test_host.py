"""The Dockerfile host: values as BuildKit decodes them (cases cite moby/buildkit
``frontend/dockerfile/shell/lex.go`` and ``parser/``), shell code of ``RUN`` lines mapped
back through line continuations, heredocs, the JSON form, edits and removals verified by
re-reading. The instruction splitting is checked against BuildKit's parser in
test_oracle.py."""

from __future__ import annotations

import pytest

from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import detect_host, extract
from torch_logs_lsp.hosts.dockerfile import host as host
from torch_logs_lsp.hosts.edits import apply_text_edits, removal_edit, value_edit
from torch_logs_lsp.hosts.embedded import LAYER

# (Dockerfile body after FROM, [(variable, value, quote)])
CASES: list[tuple[str, list[tuple[str, str | None, str | None]]]] = [
    ("ENV TORCH_LOGS=+dynamo\n", [("TORCH_LOGS", "+dynamo", "")]),
    ('ENV TORCH_LOGS=""\n', [("TORCH_LOGS", "", '"')]),
    ("ENV TORCH_LOGS=\n", [("TORCH_LOGS", "", "")]),
    # processDoubleQuote: the escape token escapes `"`, `$` and itself; else it stays
    ('ENV TORCH_LOGS="a\\"b\\$c\\\\d\\e"\n', [("TORCH_LOGS", 'a"b$c\\d\\e', '"')]),
    # processSingleQuote: everything literal, no escapes
    ("ENV TORCH_LOGS='a\\b $X'\n", [("TORCH_LOGS", "a\\b $X", "'")]),
    # unquoted: the escape token makes the next character literal
    ("ENV TORCH_LOGS=a\\ b\\'c\\$d\n", [("TORCH_LOGS", "a b'c$d", "")]),
    # processDollar: $NAME, ${...}, $ before a digit or special parameter expand
    ("ENV TORCH_LOGS=$X\n", [("TORCH_LOGS", None, "")]),
    ('ENV TORCH_LOGS="${X:-dynamo}"\n', [("TORCH_LOGS", None, '"')]),
    ("ENV TORCH_LOGS=a$1\n", [("TORCH_LOGS", None, "")]),
    # ... any other $ is literal (processName reads no name: "$")
    ("ENV TORCH_LOGS=a$,b$\n", [("TORCH_LOGS", "a$,b$", "")]),
    # concatenated parts: no single quote style
    ("ENV TORCH_LOGS=+dy'na'\"mo\"\n", [("TORCH_LOGS", "+dynamo", None)]),
    # several pairs; another variable's value is not reported
    (
        "ENV A=1 TORCH_LOGS=dynamo TORCH_TRACE=/t\n",
        [("TORCH_LOGS", "dynamo", ""), ("TORCH_TRACE", "/t", "")],
    ),
    # the legacy form: the rest of the line is the value (parseNameVal)
    ('ENV TORCH_LOGS  "+dynamo" , aot\n', [("TORCH_LOGS", "+dynamo , aot", None)]),
    ("ARG TORCH_LOGS=+dynamo\nARG TORCH_TRACE\n", [("TORCH_LOGS", "+dynamo", "")]),
    ("LABEL TORCH_LOGS=x\n# ENV TORCH_LOGS=x\n", []),
    ("ENV TORCH_LOGSX=1 XTORCH_LOGS=2\n", []),
    # ENV with a word that has no `=` fails (parseNameVal): nothing is set
    ("ENV TORCH_LOGS=a b\n", []),
    ("env torch_logs=a TORCH_LOGS=b\n", [("TORCH_LOGS", "b", "")]),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_env_and_arg_values(body: str, expected: list[tuple[str, str | None, str | None]]):
    text = "FROM python:3.12\n" + body
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value, s.quote) for s in spans] == expected


def test_unclosed_quote_is_not_terminated():
    text = 'FROM x\nENV TORCH_LOGS="+dyn\nENV TORCH_TRACE=/t\n'
    spans = extract("dockerfile", text)
    assert [(s.value, s.terminated) for s in spans] == [("+dyn", False), ("/t", True)]
    assert host.NEVER_SET is not None


def test_unclosed_quote_in_a_saved_file_is_tl108():
    from torch_logs_lsp.lint.pipeline import check_text

    text = "FROM x\nRUN TORCH_LOGS='+dyn python x.py\n"
    ((_, analysis),) = check_text(text, "dockerfile")
    (diag,) = analysis.diagnostics
    assert diag.code == "TL108"
    assert diag.message.startswith("the closing ' is missing: the instruction fails")


def test_values_continue_over_lines_with_offsets():
    # the continued line keeps its indentation: here a word of its own
    text = "FROM x\nENV TORCH_LOGS=+dyn\\\n# a comment\n\namo,\\  \r\naot \\\n  TORCH_TRACE=/t\n"
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    logs = spans[0]
    assert logs.value == "+dynamo,aot"
    assert text[logs.char_starts[4]] == "a" and text[logs.char_starts[4] - 1] == "\n"
    assert text[logs.raw_start : logs.raw_end].endswith("\\  \r\naot")
    assert spans[1].value == "/t"


def test_escape_directive_changes_escapes_and_continuations():
    text = '# escape=`\nFROM x\nENV TORCH_LOGS=C:\\dir` `\n  TORCH_TRACE="a`"b\\"\n'
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", "C:\\dir "),
        ("TORCH_TRACE", 'a"b\\'),
    ]


def test_another_frontend_is_not_read():
    assert extract("dockerfile", "# syntax=example.com/other:1\nENV TORCH_LOGS=x\n") == []
    spans = extract("dockerfile", "# syntax=docker/dockerfile:1.7\nENV TORCH_LOGS=x\n")
    assert [s.value for s in spans] == ["x"]
    assert extract("dockerfile", "# escape=x\nENV TORCH_LOGS=x\n") == []  # invalid: fails


def test_run_line_reads_shell_code_through_continuations():
    text = (
        "FROM x\n# 🙂\nRUN --mount=type=cache,target=/c pip install torch && \\\n"
        "    TORCH_LOGS='+dyn'\\\nam\"o\" python x.py\n"
    )
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    (span,) = spans
    assert span.value == "+dynamo"
    assert span.quote is None  # 'x'y"z": concatenated shell parts
    assert text[span.raw_start : span.raw_end] == "'+dyn'\\\nam\"o\""


def test_run_shell_quote_is_layered():
    text = "FROM x\nRUN TORCH_LOGS='aot_g' python x.py\n"
    (span,) = extract("dockerfile", text)
    assert span.quote == "'" + LAYER + "code"
    assert text[span.content_start : span.content_end] == "aot_g"


def test_cmd_and_entrypoint_shell_form():
    text = "FROM x\nCMD TORCH_LOGS=a python x.py\nENTRYPOINT TORCH_TRACE=/t exec python\n"
    assert [(s.variable, s.value) for s in extract("dockerfile", text)] == [
        ("TORCH_LOGS", "a"),
        ("TORCH_TRACE", "/t"),
    ]


def test_after_shell_instruction_shell_form_is_not_read():
    text = 'FROM x\nSHELL ["pwsh", "-c"]\nRUN $env:TORCH_LOGS="x"; TORCH_LOGS=y python\n'
    assert extract("dockerfile", text) == []


def test_heredoc_body_is_the_script():
    text = (
        "FROM x\nRUN <<EOF\nset -e\nTORCH_LOGS=+dynamo python a.py\nEOF\n"
        "RUN <<-EOT\n\tTORCH_TRACE=/t python b.py\n\tEOT\n"
        "RUN <<EOF\n#!/usr/bin/env python3\nimport os; os.environ['TORCH_LOGS'] = 'x'\nEOF\n"
        "RUN python3 <<EOF\nTORCH_LOGS=q\nEOF\n"  # stdin of python3: not shell
        "RUN cat <<EOF >/etc/x\nTORCH_LOGS=r\nEOF\n"  # data
        "RUN TORCH_LOGS=+dynamo python3 <<-EOF \\\n  && TORCH_TRACE=/u true\n"
        "\timport torch\n\tEOF\n"
        "ENV TORCH_LOGS_OUT=/o\n"
    )
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_TRACE", "/t"),
        ("TORCH_LOGS", "+dynamo"),  # the command line of the script BuildKit rebuilds
        ("TORCH_TRACE", "/u"),
        ("TORCH_LOGS_OUT", "/o"),
    ]


def test_heredoc_lines_are_not_instructions():
    text = "FROM x\nCOPY <<EOF /etc/env\nENV TORCH_LOGS=no\nEOF\nENV TORCH_LOGS=yes\n"
    assert [s.value for s in extract("dockerfile", text)] == ["yes"]
    text = "FROM x\nRUN cat $HOME <<$E >/x\nENV TORCH_LOGS=no\n$E\nENV TORCH_LOGS=yes\n"
    assert [s.value for s in extract("dockerfile", text)] == ["yes"]


def test_json_form_env_operands_and_sh_c():
    text = (
        'FROM x\nCMD ["env", "-u", "X", "TORCH_LOGS=+dynamo", "python", "TORCH_TRACE=no"]\n'
        'RUN ["/bin/sh", "-c", "TORCH_LOGS=\\"aot\\" python x.py"]\n'
        'ENTRYPOINT ["python", "TORCH_LOGS=no"]\n'
        'RUN ["env", "TORCH_LOGS=a\\u002bb"]\n'
    )
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS", "aot"),
        ("TORCH_LOGS", "a+b"),
    ]
    assert spans[1].quote == '"' + LAYER + "json"
    assert text[spans[2].char_starts[1] : spans[2].char_ends[1]] == "\\u002b"


def _fixed(text: str, new_value: str, index: int = 0) -> str:
    span = extract("dockerfile", text)[index]
    edits = value_edit("dockerfile", text, span, new_value)
    assert edits is not None
    return apply_text_edits(text, edits)


def test_value_edits_are_verified():
    assert _fixed('FROM x\nENV TORCH_LOGS="+dynamo, aot"\n', "+dynamo,aot") == (
        'FROM x\nENV TORCH_LOGS="+dynamo,aot"\n'
    )
    text = "FROM x\nRUN TORCH_LOGS=aot_g \\\n  python x.py\n"
    assert _fixed(text, "aot_graphs") == "FROM x\nRUN TORCH_LOGS=aot_graphs \\\n  python x.py\n"
    text = 'FROM x\nCMD ["env", "TORCH_LOGS=+dynamo ", "python"]\n'
    assert _fixed(text, "+dynamo") == 'FROM x\nCMD ["env", "TORCH_LOGS=+dynamo", "python"]\n'


def test_encode_part_is_escape_agnostic():
    assert host.encode_part("", "+dynamo,aot") == "+dynamo,aot"
    assert host.encode_part("", "a b") is None  # needs the escape token
    assert host.encode_part('"', "a b") == "a b"
    assert host.encode_part('"', 'a"b') is None
    assert host.encode_part("'", "a\\b") == "a\\b"
    assert host.encode_part("'", "a\nb") is None
    # shell single quotes inside a RUN line: the shell's quoting, then the line's
    assert host.encode_part("'" + LAYER + "code", "a b") == "a b"
    assert host.encode_part("'" + LAYER + "code", "it's") == "it'\\''s"
    assert host.encode_part('"' + LAYER + "json", 'a"b') == 'a\\\\\\"b'  # shell \\\" in JSON


@pytest.mark.parametrize(
    ("text", "title", "after"),
    [
        (
            'FROM x\nENV TORCH_LOGS="" \\\n    TORCH_LOGS_OUT=/tmp/t.log\n',
            "Remove `TORCH_LOGS=...` from this ENV",
            "FROM x\nENV \\\n    TORCH_LOGS_OUT=/tmp/t.log\n",
        ),
        (
            "FROM x\nENV A=1 TORCH_LOGS=\nRUN x\n",
            "Remove `TORCH_LOGS=...` from this ENV",
            "FROM x\nENV A=1\nRUN x\n",
        ),
        (
            "FROM x\nENV \\\n\n  # c\n  TORCH_LOGS=\nRUN y\n",
            "Remove the `ENV TORCH_LOGS` instruction",
            "FROM x\nRUN y\n",
        ),
        (
            "FROM x\nENV TORCH_LOGS=\r\nRUN y\r\n",
            "Remove the `ENV TORCH_LOGS` instruction",
            "FROM x\nRUN y\r\n",
        ),
        (
            "FROM x\nRUN TORCH_LOGS= python x.py\n",
            "Remove `TORCH_LOGS=` (the command inherits TORCH_LOGS)",
            "FROM x\nRUN python x.py\n",
        ),
    ],
)
def test_removal_is_verified(text: str, title: str, after: str):
    span = extract("dockerfile", text)[0]
    found = removal_edit("dockerfile", text, span)
    assert found is not None
    assert found[0] == title
    assert apply_text_edits(text, [found[1]]) == after


def test_overwritten_only_without_a_run_between():
    text = (
        "FROM x\nENV TORCH_LOGS=a\nENV A=1 TORCH_LOGS=b\nRUN python\nENV TORCH_LOGS=c\n"
        "FROM x\nENV TORCH_LOGS=d\nENV B=$TORCH_LOGS\nENV TORCH_LOGS=e\n"
        "FROM x\nENV TORCH_LOGS=f TORCH_LOGS=g\n"
    )
    spans = extract("dockerfile", text)
    found = host.overwritten(text, spans)
    assert [(spans[o.dead].value, spans[o.live].value) for o in found] == [
        ("a", "b"),
        ("f", "g"),
    ]


def test_typed_name():
    assert host.typed_name("FROM x\nENV TORCH_L", 18) == "TORCH_L"
    assert host.typed_name("FROM x\nenv A=1 ", 15) == ""
    assert host.typed_name("FROM x\nARG ", 11) == ""
    assert host.typed_name("FROM x\nRUN A=1 TORCH", 20) == "TORCH"
    assert host.typed_name("FROM x\nRUN echo ", 16) is None
    assert host.typed_name("FROM x\nCOPY ", 12) is None


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Dockerfile", "dockerfile"),
        ("dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("api.Dockerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("Containerfile.CUDA", "dockerfile"),
        (".dockerignore", None),
        ("Dockerfile.dockerignore", None),
        ("Dockerfile.py", "python"),
        ("Dockerfile.sh", "shell"),
        ("Dockerfiles", None),
    ],
)
def test_detect_name(name: str, kind: str | None):
    assert detect_host(f"/work/p/{name}", "FROM x\n") == kind


def test_bad_input_never_raises():
    for text in [
        "",
        "\\",
        "ENV",
        "ENV TORCH_LOGS",
        "RUN <<",
        "RUN <<'EOF\nTORCH_LOGS=x\n",
        "RUN <<EOF\nTORCH_LOGS=x",
        'CMD ["env", "TORCH_LOGS=\\ud800"]',
        "ENV TORCH_LOGS=\\",
        'ENV TORCH_LOGS="\\',
        "\ufeff# escape=`\nENV TORCH_LOGS=`",
        "RUN --mount=type=cache,target=/é TORCH_LOGS=x y",
        "ENV TORCH_LOGS=\x00x",
    ]:
        spans = extract("dockerfile", "FROM x\n" + text)
        check_spans("FROM x\n" + text, spans)


def test_cli_reports_the_overwritten_env_as_tl502():
    from torch_logs_lsp.lint.pipeline import check_text

    text = "FROM x\nENV TORCH_LOGS=aot_g\nENV TORCH_LOGS=+dynamo\nRUN python x.py\n"
    found = check_text(text, "dockerfile")
    assert [(s.value, [d.code for d in a.diagnostics]) for s, a in found] == [
        ("aot_g", ["TL201", "TL502"]),  # as for a shell script
        ("+dynamo", []),
    ]
