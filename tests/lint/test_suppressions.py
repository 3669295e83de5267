"""Inline suppression comments (`torch-logs: ignore[TL201]`) in every host's comment
syntax, through the CLI's findings and the fixer, and the edit the quick fix makes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.lint.suppressions import (
    UNUSED_SUPPRESSION,
    find_suppressions,
    suppression_edit,
)

REGISTRY = load_registry("2.13")


def codes(text: str, host: str) -> list[tuple[int, str]]:
    return [(f.line, f.diagnostic.code) for f in findings(text, host, REGISTRY)]


# (host, document with one TL201 on line 0 silenced on the same line, a line-before form)
HOSTS = [
    (
        "shell",
        "export TORCH_LOGS=gaurds  # torch-logs: ignore[TL201]\n",
        "# torch-logs: ignore[TL201]\nexport TORCH_LOGS=gaurds\n",
    ),
    (
        "dotenv",
        "TORCH_LOGS=gaurds # torch-logs: ignore[TL201]\n",
        "# torch-logs: ignore[TL201]\nTORCH_LOGS=gaurds\n",
    ),
    (
        "jsonc",
        '{"configurations": [{"env": {"TORCH_LOGS": "gaurds"}}]}  // torch-logs: ignore[TL201]\n',
        '{"configurations": [{"env": {\n'
        '  // torch-logs: ignore[TL201]\n  "TORCH_LOGS": "gaurds"}}]}\n',
    ),
    (
        "python",
        'os.environ["TORCH_LOGS"] = "gaurds"  # torch-logs: ignore[TL201]\n',
        '# torch-logs: ignore[TL201]\nos.environ["TORCH_LOGS"] = "gaurds"\n',
    ),
    (
        "dockerfile",
        "FROM x\nRUN TORCH_LOGS=gaurds python x.py # torch-logs: ignore[TL201]\n",
        "FROM x\n# torch-logs: ignore[TL201]\nENV TORCH_LOGS=gaurds\n",
    ),
    (
        "yaml",
        "env:\n  TORCH_LOGS: gaurds  # torch-logs: ignore[TL201]\n",
        "env:\n  # torch-logs: ignore[TL201]\n  TORCH_LOGS: gaurds\n",
    ),
    (
        "ipython",
        "%env TORCH_LOGS=gaurds\n# torch-logs: ignore[TL201]\n",
        "# torch-logs: ignore[TL201]\n%env TORCH_LOGS=gaurds\n",
    ),
]


@pytest.mark.parametrize(("host", "same_line", "line_before"), HOSTS)
def test_a_suppression_silences_exactly_its_finding(host: str, same_line: str, line_before: str):
    if host == "ipython":  # a %env line cannot carry a comment: it is part of the value
        assert [c for _, c in codes(same_line, host)] == ["TL201", UNUSED_SUPPRESSION]
    elif host == "dockerfile":  # read line by line: only a comment line counts
        assert [c for _, c in codes(same_line, host)] == ["TL201"]
    else:
        assert [c for _, c in codes(same_line, host) if c != "TL903"] == []
    assert [c for _, c in codes(line_before, host)] == []
    unsilenced = line_before.replace("ignore[TL201]", "ignore[TL301]")
    found = codes(unsilenced, host)
    assert sorted(c for _, c in found) == ["TL201", UNUSED_SUPPRESSION]


def test_codes_prefixes_bare_and_case():
    text = "export TORCH_LOGS=gaurds,+guards  # torch-logs: ignore[tl2]\n"
    assert [c for _, c in codes(text, "shell")] == ["TL301"]
    bare = "export TORCH_LOGS=gaurds,+guards  # torch-logs: ignore\n"
    assert codes(bare, "shell") == []
    both = "export TORCH_LOGS=gaurds,+guards  # torch-logs: ignore[TL201, TL301]\n"
    assert codes(both, "shell") == []


def test_only_the_named_line_and_the_next_after_a_comment_line():
    text = (
        "# torch-logs: ignore[TL201]\n"
        "TORCH_LOGS=gaurds python x\n"
        "TORCH_LOGS=gaurds python x\n"
        "echo x  # torch-logs: ignore[TL201]\n"
        "TORCH_LOGS=gaurds python x\n"
    )
    assert codes(text, "shell") == [(2, "TL201"), (3, UNUSED_SUPPRESSION), (4, "TL201")]


def test_malformed_or_foreign_comments_silence_nothing():
    malformed = ("# torch-logs: ignore[TL201", "# torch-logs: ignored", "# torch-logs ignore")
    for comment in (*malformed, "# torch-logs: ignore TL201"):  # no brackets: no bare ignore
        text = f"export TORCH_LOGS=gaurds  {comment}\n"
        assert [c for _, c in codes(text, "shell")] == ["TL201"], comment


def test_unused_entries_are_named_and_unknown_codes_said():
    (hint,) = [
        f.diagnostic
        for f in findings("X=1  # torch-logs: ignore[TL201, E501]\n", "shell", REGISTRY)
    ]
    assert hint.code == UNUSED_SUPPRESSION
    assert "`TL201`, `E501`" in hint.message and "`E501` is not a torch-logs code" in hint.message


def test_crlf_and_emoji_lines():
    text = "A=🙂\r\n# torch-logs: ignore[TL201]\r\nTORCH_LOGS=gaurds\r\n"
    assert [c for _, c in codes(text, "dotenv")] == []
    assert [c for _, c in codes(text.replace("[TL201]", "[TL2O1]"), "dotenv")] == [
        "TL903",
        "TL201",
    ]
    assert [s.lines for s in find_suppressions(text)] == [(1, 2)]


def test_batch_comment_markers():
    text = "rem torch-logs: ignore[TL201]\n:: torch-logs: ignore[TL2]\n@REM torch-logs: ignore\n"
    found = find_suppressions(text)
    assert [(s.codes, s.lines) for s in found] == [
        (("TL201",), (0, 1)),
        (("TL2",), (1, 2)),
        (None, (2, 3)),
    ]
    assert find_suppressions("set THEOREM torch-logs: ignore[TL201]\n") == []


def _edited(text: str, host: str, code: str, needle: str) -> str | None:
    module = hosts.host_module(host)
    assert module is not None
    spans = hosts.extract(host, text)
    edit = suppression_edit(text, module.COMMENT, text.index(needle), code, spans, host)
    return None if edit is None else apply_text_edits(text, [edit])


def test_quick_fix_edit_inserts_an_indented_line_and_keeps_the_values():
    text = "jobs:\n  a:\n    steps:\n      - run: |\n          TORCH_LOGS=gaurds python x.py\n"
    new = _edited(text, "yaml", "TL201", "gaurds")
    assert new == text.replace(
        "          TORCH_LOGS", "          # torch-logs: ignore[TL201]\n          TORCH_LOGS"
    )
    assert [s.value for s in hosts.extract("yaml", new)] == ["gaurds"]
    assert codes(new, "yaml") == []


def test_quick_fix_edit_extends_an_existing_suppression():
    text = "# torch-logs: ignore[TL301]\nexport TORCH_LOGS=gaurds,+guards\n"
    assert _edited(text, "shell", "TL201", "gaurds") == text.replace(
        "ignore[TL301]", "ignore[TL301, TL201]"
    )
    assert _edited(text, "shell", "TL301", "+guards") is None  # already silenced


def test_no_quick_fix_edit_after_a_continuation_or_inside_a_multiline_value():
    assert _edited("env \\\n  TORCH_LOGS=gaurds python x\n", "shell", "TL201", "gaurds") is None
    value = "export TORCH_LOGS='dynamo,\ngaurds'\n"
    assert _edited(value, "shell", "TL201", "gaurds") is None


def test_keeps_crlf_and_tabs_make_no_indent():
    text = "A=1\r\n\texport TORCH_LOGS=gaurds\r\n"
    assert _edited(text, "shell", "TL201", "gaurds") == (
        "A=1\r\n# torch-logs: ignore[TL201]\r\n\texport TORCH_LOGS=gaurds\r\n"
    )


def test_cli_check_and_fix_leave_a_silenced_line_alone(tmp_path: Path):
    env = tmp_path / ".env"
    env.write_text(
        "TORCH_LOGS=Dynamo  # torch-logs: ignore[TL201]\n"
        "TORCH_LOGS_OUT=/tmp/x.log\n"
        "# torch-logs: ignore[TL302]\n"
    )
    script = tmp_path / "run.sh"
    script.write_text("export TORCH_LOGS=Dynamo\n")
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main"]
    out = subprocess.run(
        [*cli, "check", "--format", "json", "--show-hints", str(env), str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    rows = json.loads(out.stdout)
    assert sorted((Path(r["path"]).name, r["code"]) for r in rows) == [
        (".env", "TL903"),
        ("run.sh", "TL201"),
    ]
    subprocess.run(
        [*cli, "check", "--fix", str(env), str(script)], capture_output=True, cwd=tmp_path
    )
    assert env.read_text().startswith("TORCH_LOGS=Dynamo  # torch-logs")
    assert script.read_text() == "export TORCH_LOGS=dynamo\n"


# text that looks like a suppression but is not a comment of the host: never counts (it
# would hide the finding, and "Remove unused suppression" would edit a string)
NOT_COMMENTS = [
    ("shell", 'export TORCH_LOGS="gaurds # torch-logs: ignore"\n'),
    ("shell", "echo 'a\n# torch-logs: ignore\n'; TORCH_LOGS=gaurds python x\n"),
    ("dotenv", 'TORCH_LOGS="gaurds # torch-logs: ignore"\n'),
    ("python", 'x = """\n# torch-logs: ignore\n"""; os.environ["TORCH_LOGS"] = "gaurds"\n'),
    (
        "jsonc",
        '{"configurations": [{"env": {"X": "// torch-logs: ignore", "TORCH_LOGS": "gaurds"}}]}\n',
    ),
    ("yaml", 'env:\n  X: "# torch-logs: ignore"\n  TORCH_LOGS: gaurds\n'),
    ("powershell", '$env:TORCH_LOGS = @"\n# torch-logs: ignore\nDynamo\n"@\n'),
    ("powershell", 'Write-Host "# torch-logs: ignore"; $env:TORCH_LOGS = "Dynamo"\n'),
    (
        "toml",
        '[tool.pytest.ini_options]\nenv = """\n# torch-logs: ignore[TL201]\nTORCH_LOGS=Dynamo"""\n',
    ),
    ("ini", "[pytest]\nenv =\n  TORCH_LOGS=Dynamo # torch-logs: ignore[TL201]\n"),
    ("batch", "echo # torch-logs: ignore & set TORCH_LOGS=Dynamo\r\n"),
    ("batch", "echo rem torch-logs: ignore & set TORCH_LOGS=Dynamo\r\n"),
]


@pytest.mark.parametrize(("host", "text"), NOT_COMMENTS)
def test_text_in_strings_and_values_is_no_suppression(host: str, text: str):
    found = [c for _, c in codes(text, host)]
    assert "TL903" not in found and any(c in ("TL201", "TL105", "TL106") for c in found), found
