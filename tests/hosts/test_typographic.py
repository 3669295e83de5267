"""TL109, typographic quotes, against each host's real reader.

Every claim a finding makes is checked against the program that reads the file: bash
(``bash -n`` and a run that prints the variable), python-dotenv, ``json.loads`` and
``ast.parse``; what torch 2.13 does with the characters runs real torch in a subprocess.
Each fix is applied and the reader then sees the intended value.
"""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import dotenv_values

from tests.support.oracles import run_python, scratch_dir
from tests.support.set_logs_oracle import run_cases
from torch_logs_lsp.hosts import typographic
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.fixer import fix_document, quote_fixes
from torch_logs_lsp.lint.pipeline import findings

BASH = shutil.which("bash")
CURLY_LINE = "TORCH_LOGS_FORMAT=“%(levelname)s:%(message)s” python t.py\n"
REGISTRY = load_registry()


def bash(script: str, variable: str) -> tuple[bool, str | None]:
    """(whether ``bash -n`` accepts ``script``, the value of ``variable`` printed by
    ``printenv`` at the end of a run; ``None``: unset or the run stopped before it)."""
    assert BASH is not None
    env = {"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    parse = subprocess.run(
        [BASH, "-n"], input=script.encode(), capture_output=True, env=env, cwd=scratch_dir()
    )
    run = subprocess.run(
        [BASH, "--noprofile", "--norc"],
        input=(script + f"\nprintf '<%s>' \"${{{variable}-}}\"\n").encode(),
        capture_output=True,
        env=env,
        timeout=60,
        cwd=scratch_dir(),
    )
    out = run.stdout.decode()
    value = out[out.rfind("<") + 1 : -1] if out.endswith(">") else None
    return parse.returncode == 0, value or None


def codes(text: str, host: str) -> list[str]:
    return [f.diagnostic.code for f in findings(text, host, REGISTRY)]


def fixed(text: str, host: str) -> str:
    return fix_document(text, host, REGISTRY)[0]


# ----------------------------------------------------------------------------- shell

needs_bash = pytest.mark.skipif(BASH is None, reason="bash not installed")


@pytest.mark.oracle
@needs_bash
def test_curly_quoted_line_is_a_bash_syntax_error_and_gets_only_tl109():
    script = CURLY_LINE + "echo after\n"
    ok, _ = bash(script, "TORCH_LOGS_FORMAT")
    assert not ok  # bash -n: syntax error near unexpected token `('
    run = subprocess.run(
        [BASH or "bash"], input=script.encode(), capture_output=True, cwd=scratch_dir()
    )
    assert b"after" not in run.stdout  # bash stops the script at that line
    found = findings(script, "shell", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]  # no TL401 on `“%`
    message = found[0].diagnostic.message
    assert "U+201C" in message and "U+201D" in message and "syntax error" in message
    assert "`(`" in message and "never runs" in message
    new = fixed(script, "shell")
    assert new == script.replace("“", '"').replace("”", '"')
    assert bash(new, "X")[0]
    probe = new.replace("python t.py", "printenv TORCH_LOGS_FORMAT")
    out = subprocess.run(
        [BASH or "bash"], input=probe.encode(), capture_output=True, cwd=scratch_dir()
    )
    assert out.stdout.decode() == "%(levelname)s:%(message)s\nafter\n"  # what python gets
    assert codes(new, "shell") == []


# (script, variable, intended value after the fix)
SHELL_KEPT = [
    ("export TORCH_LOGS=“+dynamo”\n", "TORCH_LOGS", "+dynamo"),
    ("export TORCH_LOGS=‘+dynamo,guards’\n", "TORCH_LOGS", "+dynamo,guards"),
    ("export TORCH_LOGS=«+dynamo»\n", "TORCH_LOGS", "+dynamo"),
    ("export TORCH_LOGS=＂+dynamo＂\n", "TORCH_LOGS", "+dynamo"),
    ('export TORCH_LOGS="“+dynamo”"\n', "TORCH_LOGS", "+dynamo"),
    ("export TORCH_LOGS_OUT=„/tmp/t.log“\n", "TORCH_LOGS_OUT", "/tmp/t.log"),
]


@pytest.mark.oracle
@needs_bash
@pytest.mark.parametrize(("script", "variable", "intended"), SHELL_KEPT)
def test_shell_keeps_the_characters_and_the_message_says_so(
    script: str, variable: str, intended: str
):
    ok, value = bash(script, variable)
    assert ok and value is not None and typographic.has_any(value)
    found = findings(script, "shell", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"], found  # no TL106 on `“`
    assert f"gets `{value}`" in found[0].diagnostic.message  # the value bash really sets
    new = fixed(script, "shell")
    assert bash(new, variable) == (True, intended)


@pytest.mark.oracle
@needs_bash
def test_a_blank_between_them_ends_the_word_and_the_rest_is_the_command():
    script = "TORCH_LOGS=“+dynamo, +inductor” printenv TORCH_LOGS\n"
    run = subprocess.run(
        [BASH or "bash"], input=script.encode(), capture_output=True, cwd=scratch_dir()
    )
    assert b"+inductor\xe2\x80\x9d: command not found" in run.stderr  # printenv never runs
    found = findings(script, "shell", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert "gets `“+dynamo,`" in found[0].diagnostic.message
    new = fixed(script, "shell")
    out = subprocess.run(
        [BASH or "bash"], input=new.encode(), capture_output=True, cwd=scratch_dir()
    )
    assert out.stdout.decode() == "+dynamo, +inductor\n"


@pytest.mark.oracle
@needs_bash
def test_other_values_on_a_line_bash_cannot_parse_get_no_diagnostics():
    script = "TORCH_LOGS=+dynamo,, TORCH_LOGS_FORMAT=“%(message)s” python t.py\n"
    assert not bash(script, "TORCH_LOGS")[0]
    assert codes(script, "shell") == ["TL109"]  # no TL104 for a value bash never sets
    assert codes("TORCH_LOGS=+dynamo,,\n" + script, "shell") == ["TL103", "TL104", "TL109"]


@needs_bash
def test_shell_fix_is_not_safe_when_double_quotes_would_read_it_differently():
    script = "export TORCH_LOGS=“+dynamo$X”\n"  # not static: no finding at all
    assert codes(script, "shell") == []
    script = "export TORCH_LOGS_FORMAT=“%(message)s\n"  # no closing quote
    assert codes(script, "shell") == ["TL109"]
    assert quote_fixes("shell", script) == []  # a straight `"` would stay open: no fix
    assert fixed(script, "shell") == script


# ---------------------------------------------------------------------------- .env

DOTENV = [
    ("TORCH_LOGS=“+dynamo”\n", "TORCH_LOGS", "+dynamo"),
    ("TORCH_LOGS=‘+dynamo, +inductor’\n", "TORCH_LOGS", "+dynamo, +inductor"),
    ("TORCH_LOGS_FORMAT=“%(levelname)s:%(message)s”\n", "TORCH_LOGS_FORMAT", None),
    ("TORCH_LOGS=«+dynamo»  # debug\n", "TORCH_LOGS", "+dynamo"),
    ('TORCH_LOGS="“+dynamo”"\n', "TORCH_LOGS", "+dynamo"),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("text", "variable", "intended"), DOTENV)
def test_dotenv_keeps_the_characters(text: str, variable: str, intended: str | None):
    value = dotenv_values(stream=io.StringIO(text), interpolate=False)[variable]
    assert value is not None and typographic.has_any(value)
    found = findings(text, "dotenv", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert f"gets `{value}`" in found[0].diagnostic.message
    severity = 1 if variable == "TORCH_LOGS" else 2
    assert found[0].diagnostic.severity == severity
    new = fixed(text, "dotenv")
    want = intended if intended is not None else value[1:-1]
    assert dotenv_values(stream=io.StringIO(new), interpolate=False)[variable] == want


def test_dotenv_lone_quote_is_offered_but_not_safe():
    text = "TORCH_LOGS=+dynamo”\n"
    [(finding, safe)] = quote_fixes("dotenv", text)
    assert finding.title == "Remove the typographic quotes" and not safe
    assert fixed(text, "dotenv") == text


@pytest.mark.parametrize(
    ("host", "text"), [("dotenv", "TORCH_LOGS=“”\n"), ("shell", "export TORCH_LOGS=“”\n")]
)
def test_an_empty_pair_is_offered_but_not_safe(host: str, text: str):
    # `""` would be an empty TORCH_LOGS: `import torch` crashes (TL001)
    [(_, safe)] = quote_fixes(host, text)
    assert not safe
    assert fixed(text, host) == text


# ----------------------------------------------------------------------- launch.json

LAUNCH = (
    '{"configurations": [{"name": "a", "type": "debugpy", "request": "launch",\n'
    '  "env": {"TORCH_LOGS": %s}}]}\n'
)


def launch_value(text: str) -> object:
    env = json.loads(text)["configurations"][0]["env"]
    return env["TORCH_LOGS"]


@pytest.mark.oracle
@pytest.mark.parametrize("value", ["“+dynamo”", "‘+dynamo’", "«+dynamo,guards»"])
def test_json_outside_a_string_is_invalid_json(value: str):
    text = LAUNCH % value
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    found = findings(text, "jsonc", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert "invalid JSON" in found[0].diagnostic.message
    assert launch_value(fixed(text, "jsonc")) == value[1:-1]


@pytest.mark.oracle
@pytest.mark.parametrize("value", ['"“+dynamo”"', '"\\u201c+dynamo\\u201d"', '"‹dynamo›"'])
def test_json_inside_a_string_is_part_of_the_value(value: str):
    text = LAUNCH % value
    got = launch_value(text)
    assert isinstance(got, str) and typographic.has_any(got)
    found = findings(text, "jsonc", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert f"gets `{got}`" in found[0].diagnostic.message
    assert launch_value(fixed(text, "jsonc")) == got[1:-1]


# ---------------------------------------------------------------------------- Python

PYTHON_OUTSIDE = [
    'import os\nos.environ["TORCH_LOGS"] = “+dynamo”\n',
    "import os\nos.environ['TORCH_LOGS'] = ‘+dynamo’\n",
    'import os\nos.environ.setdefault("TORCH_LOGS", “+dynamo”)\n',
    'import subprocess\nsubprocess.run(["t"], env={"TORCH_LOGS": ＂+dynamo＂})\n',
]


def python_value(text: str) -> str:
    """The str constant the document assigns (the only one containing "dynamo")."""
    tree = ast.parse(text)
    return next(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "dynamo" in n.value
    )


@pytest.mark.oracle
@pytest.mark.parametrize("text", PYTHON_OUTSIDE)
def test_python_outside_a_literal_is_a_syntax_error(text: str):
    with pytest.raises(SyntaxError, match="invalid character"):
        ast.parse(text)
    found = findings(text, "python", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert "SyntaxError" in found[0].diagnostic.message
    assert python_value(fixed(text, "python")) == "+dynamo"


@pytest.mark.oracle
@pytest.mark.parametrize("literal", ['"“+dynamo”"', "'‘+dynamo’'", 'r"«+dynamo»"'])
def test_python_inside_a_literal_is_part_of_the_value(literal: str):
    text = f'import os\nos.environ["TORCH_LOGS"] = {literal}\n'
    got = python_value(text)
    assert typographic.has_any(got)
    found = findings(text, "python", REGISTRY)
    assert [f.diagnostic.code for f in found] == ["TL109"]
    assert f"gets `{got}`" in found[0].diagnostic.message
    assert python_value(fixed(text, "python")) == "+dynamo"


# ----------------------------------------------------------------------------- torch


@pytest.mark.oracle
def test_torch_rejects_them_in_torch_logs():
    values = ["“+dynamo”", "‘dynamo’", "«+dynamo»", "＂dynamo＂", "„dynamo“", "+dynamo,″guards″"]
    results = run_cases([{"kind": "torch_logs", "source": v} for v in values])
    for value, res in zip(values, results, strict=True):
        assert res["outcome"] == "ValueError", (value, res)
        assert "Invalid log settings" in res["message"]


@pytest.mark.oracle
def test_torch_prints_them_in_every_log_line():
    code = "import logging, torch; logging.getLogger('torch._dynamo').debug('hello')"
    env = dict(os.environ, TORCH_LOGS="+dynamo", TORCH_LOGS_FORMAT="“%(levelname)s:%(message)s”")
    proc = run_python(code, env=env, timeout=600)
    assert "“DEBUG:hello”" in proc.stderr


# ------------------------------------------------------------------------------- CLI


def test_cli_check_on_a_folder_reports_tl109_and_no_tl401(tmp_path: Path):
    (tmp_path / "run.sh").write_text("#!/bin/bash\n" + CURLY_LINE, encoding="utf-8")
    (tmp_path / ".env").write_text("TORCH_LOGS=“+dynamo”\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(tmp_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=scratch_dir())
    rows = sorted(line.replace(str(tmp_path) + "/", "") for line in proc.stdout.splitlines())
    assert proc.returncode == 1
    assert [r.split(": ", 1)[0] for r in rows if "TL" in r] == [".env:1:12", "run.sh:2:19"]
    assert all(" TL109 " in r for r in rows if "TL" in r), rows
    assert "TL401" not in proc.stdout
    fix = subprocess.run(
        [*cmd, "--fix"], capture_output=True, text=True, check=False, cwd=scratch_dir()
    )
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert (tmp_path / "run.sh").read_text(
        encoding="utf-8"
    ) == "#!/bin/bash\n" + CURLY_LINE.replace("“", '"').replace("”", '"')
    assert (tmp_path / ".env").read_text(encoding="utf-8") == 'TORCH_LOGS="+dynamo"\n'


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("dotenv", "TORCH_LOGS=“+dynamo”\nTORCH_LOGS=+guards\n"),
        ("shell", "export TORCH_LOGS=“+dynamo”\nexport TORCH_LOGS=+guards\npython t.py\n"),
    ],
)
def test_an_overwritten_value_gets_tl502_not_tl109(host: str, text: str):
    # python-dotenv keeps the last value; bash sets the second before any command runs:
    # the curly-quoted value reaches nothing

    # (and no TL106 on the quote characters either: their advice is TL109's)
    got = [(f.line, f.diagnostic.code) for f in findings(text, host)]
    assert got == [(0, "TL502"), (1, "TL301")]
