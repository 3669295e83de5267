"""Deep nesting never reaches a grammar (:mod:`torch_logs_lsp.hosts.nesting`): a document
past a grammar's bound is read as an empty one; a document at the bound is read in full.

The crash (tree-sitter-yaml's SIGSEGV on 253 open block levels) is tried through the CLI
in a subprocess, so that it fails the test instead of killing pytest; the query cliff
(trees deeper than 65,535 nodes: minutes) is tried on the parse itself, which is linear.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.hosts import nesting
from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.jsonc import host as jsonc
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.host_kind import HostKind

YAML_VALUE = "env:\n  TORCH_LOGS: '+dynamo,gaurds'\n"  # TL201 (gaurds)


def yaml_blocks(levels: int) -> str:
    """A YAML value, then ``levels`` open block mappings (each two columns deeper)."""
    keys = "".join("  " * i + f"k{i}:\n" for i in range(levels))
    return YAML_VALUE + keys + "  " * levels + "x: 1\n"


def launch(depth: int) -> str:
    """A launch configuration whose value is TL201, then ``depth`` nested objects (the
    document's own object makes one more)."""
    config = {"type": "debugpy", "request": "launch", "env": {"TORCH_LOGS": "+dynamo,gaurds"}}
    head = json.dumps({"configurations": [config]})[:-1]
    return head + ', "x": ' + '{"a": ' * (depth - 1) + "1" + "}" * (depth - 1) + "}"


#: Per grammar: a document nested exactly to its bound, and one a level past it, each
#: with a TL201 value (its host, the bound).
def _deep(n: int) -> dict[str, tuple[HostKind, str]]:
    shell = "echo " + "$(" * n + "export TORCH_LOGS=+dynamo,gaurds" + ")" * n + "\n"
    ps = "$x = " + "$(" * n + "$env:TORCH_LOGS = '+dynamo,gaurds'" + ")" * n + "\n"
    py = (
        "import os\nx = "
        + "[" * (n - 1)
        + "os.environ.update(TORCH_LOGS='x,gaurds')"
        + "]" * (n - 1)
    )
    py_indent = "".join(" " * i + "if x:\n" for i in range(n))
    py_indent += " " * n + "os.environ['TORCH_LOGS'] = 'gaurds'\n"
    flow = YAML_VALUE + "x: " + "{a: " * n + "1" + "}" * n + "\n"
    toml = "[tool.pytest.ini_options]\nenv = ['TORCH_LOGS=+dynamo,gaurds']\n"
    return {
        "yaml": ("yaml", flow),
        "json": ("jsonc", launch(n)),
        "bash": ("shell", shell),
        "powershell": ("powershell", ps),
        "python": ("python", py + "\n"),
        "python-indent": (
            "python",
            "import os\n" + py_indent,
        ),
        "toml": ("toml", toml + "x = " + "[" * n + "1" + "]" * n + "\n"),
    }


BOUND = {
    "yaml": 1000,
    "json": 1000,
    "bash": 1000,
    "powershell": 500,
    "python": 200,
    "python-indent": 100,
    "toml": 1000,
}


@pytest.mark.parametrize("grammar", sorted(BOUND))
def test_a_document_at_the_bound_is_read_and_one_past_it_is_not(grammar: str) -> None:
    host, text = _deep(BOUND[grammar])[grammar]
    assert "TL201" in [f.diagnostic.code for f in findings(text, host)]
    host, text = _deep(BOUND[grammar] + 1)[grammar]
    assert findings(text, host) == []


def test_yaml_block_levels_at_the_bound_are_read() -> None:
    assert [f.diagnostic.code for f in findings(yaml_blocks(128), "yaml")] == ["TL201"]
    assert findings(yaml_blocks(129), "yaml") == []
    compact = YAML_VALUE + "x:\n" + "- " * 129 + "x\n"  # each "- " opens a level
    assert findings(compact, "yaml") == []


def test_a_sequence_at_its_keys_column_counts_as_a_level() -> None:
    """``- k:`` lines, each two columns deeper: tree-sitter-yaml keeps a level for the
    sequence and one for the mapping in it (SIGSEGV on 127 such lines)."""

    def items(n: int) -> str:
        return YAML_VALUE + "".join("  " * i + "- k:\n" for i in range(n)) + "  " * n + "x\n"

    assert nesting.indentation_levels(items(60).encode(), 128, yaml=True) == 120
    assert [f.diagnostic.code for f in findings(items(60), "yaml")] == ["TL201"]
    assert nesting.too_deep("yaml", items(65).encode()) is not None


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("json", launch(60_000)),  # 360 KB: > 120 s before the bound
        ("yaml", YAML_VALUE + "x: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n"),
        ("bash", "echo " + "$(" * 40_000 + ")" * 40_000 + "\n"),
        ("powershell", "$x = " + "(" * 40_000 + "1" + ")" * 40_000 + "\n"),
        ("python", "x = " + "(" * 40_000 + "1" + ")" * 40_000 + "\n"),
        ("toml", "x = " + "[" * 40_000 + "1" + "]" * 40_000 + "\n"),
        ("bash", "cat " + " ".join(f"<<E{i}" for i in range(6000)) + "\n"),  # quadratic
    ],
)
def test_deep_documents_never_reach_the_grammar(language: str, text: str) -> None:
    tree = Source(text).parse(language)
    assert tree.root_node.end_byte == 0  # an empty document's tree
    assert nesting.too_deep(language, text.encode()) is not None


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    closers = '{"a": "]]]]]]]]", "b": ' * 1200 + "1" + "}" * 1200
    assert nesting.bracket_depth(closers.encode(), b"[{", b"]}", None, 1000) <= 2
    skipped = nesting.BOUNDS["json"].skipped
    assert nesting.bracket_depth(closers.encode(), b"[{", b"]}", skipped, 1000) > 1000
    flat = '["[[[[", // [[[[\n "x"]\n' * 400  # 2,800 openers, none left open
    assert nesting.too_deep("json", flat.encode()) is None
    assert nesting.too_deep("bash", ("echo '(((' # (((\n" * 400).encode()) is None
    # a closer in a double-quoted string closes nothing; its "$(...)" is code
    hidden = '( echo ")" ' * 1001 + ")" * 1001 + "\n"
    assert nesting.too_deep("bash", hidden.encode()) is not None
    assert nesting.too_deep("bash", ('echo ")" "$(date)" `x`\n' * 2000).encode()) is None
    assert nesting.too_deep("bash", ('echo "' + "$(" * 1001 + ")" * 1001 + '"\n').encode())
    body = "cat <<'EOF'\n" + "(" * 2000 + "\nEOF\n"  # a here-document's body is text
    assert nesting.too_deep("bash", body.encode()) is None
    ps = '$x = "$(' * 1001 + '")"' * 1001 + "\n"
    assert nesting.too_deep("powershell", ps.encode()) is not None
    assert nesting.too_deep("powershell", ("'(((' # (((\n" * 400).encode()) is None
    # an f-string's braces hold code: they count
    fstring = "x = " + 'f"{' * 201 + "1" + '}"' * 201 + "\n"
    assert nesting.too_deep("python", fstring.encode()) is not None


def test_a_case_pattern_closes_no_bracket() -> None:
    """In ``case x in a) ... esac`` the ``)`` ends a pattern: nested ``$(case ...`` count
    their ``$(`` levels (each pattern's ``)`` closed one: a document nested past the
    bound was given to the grammar), and a ``case`` is no level of its own."""
    nested = "echo " + "$(case $x in a) " * 1001 + "true;; esac)" * 1001 + "\n"
    assert nesting.too_deep("bash", nested.encode()) is not None
    at_bound = "echo " + "$(case $x in a) " * 1000 + "true;; esac)" * 1000 + "\n"
    assert nesting.too_deep("bash", at_bound.encode()) is None
    flat = 'case "$x" in a|b) echo 1;; (c) echo 2;; esac\n' * 3000
    assert nesting.too_deep("bash", flat.encode()) is None
    # the words alone (an argument, a comment, a string) open nothing
    words = "echo case x in y # case a in b\necho 'case a in' \"case b in\"\n" * 1200
    assert nesting.too_deep("bash", (words + "$(" * 999 + ")" * 999).encode()) is None
    script = "case $1 in\n  a) export TORCH_LOGS=+dynamo,gaurds;;\nesac\n"
    assert [f.diagnostic.code for f in findings(script, "shell")] == ["TL201"]


def test_an_edit_out_of_too_deep_nesting_is_read_again() -> None:
    """The server's incremental parse never reuses the empty stand-in tree."""
    cache = DocumentCache()
    assert jsonc.extract(launch(2000), cache) == []
    spans = jsonc.extract(launch(20), cache)
    assert [s.value for s in spans] == ["+dynamo,gaurds"]


def test_the_cli_survives_what_crashed_a_grammar(tmp_path: Path) -> None:
    """One run over a workspace with every deep document and a plain one: no crash, each
    deep one named on stderr, the plain one's finding printed."""
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "deep.yaml").write_text(yaml_blocks(270))  # SIGSEGV in tree-sitter-yaml 0.7.2
    (ws / "compact.yaml").write_text(YAML_VALUE + "x:\n" + "- " * 300 + "x\n")
    (ws / "items.yaml").write_text(YAML_VALUE + "".join("  " * i + "- k:\n" for i in range(130)))
    (ws / ".vscode" / "launch.json").write_text(launch(60_000))
    (ws / "deep.sh").write_text(
        "export TORCH_LOGS=+dynamo\necho " + "$(" * 40_000 + ")" * 40_000 + "\n"
    )
    (ws / "plain.env").write_text("TORCH_LOGS=+dynamo,Guards\n")
    run = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--no-ignore", str(ws)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 1, run.stderr  # a finding; not a signal (negative)
    assert "plain.env:1:" in run.stdout and "TL201" in run.stdout
    assert "deep.yaml" not in run.stdout and "launch.json" not in run.stdout
    for language in ("yaml", "json", "bash"):
        assert f"{language}: nested too deeply to read" in run.stderr


def test_a_gitlab_script_nested_to_the_bound_is_read() -> None:
    """GitLab's nested script lists are read without recursion: a list 995 deep beside a
    script line leaves that line's value read."""
    deep = "[" * 995 + "x" + "]" * 995
    text = f"job:\n  script:\n    - export TORCH_LOGS=+dynamo,gaurds\n    - {deep}\n"
    assert [f.diagnostic.code for f in findings(text, "yaml")] == ["TL201"]


def test_a_gitlab_value_mapping_nested_to_the_bound_is_read() -> None:
    """A GitLab ``{value: ...}`` entry is unwrapped without recursion."""
    deep = "{value: " * 990 + "'+dynamo,gaurds'" + "}" * 990
    text = f"stages: [a]\nvariables:\n  TORCH_LOGS: {deep}\njob:\n  script: [echo]\n"
    assert [f.diagnostic.code for f in findings(text, "yaml")] == ["TL201"]


def test_a_too_deep_run_step_loses_only_its_own_code() -> None:
    """Embedded shell code is bounded on its own: the workflow's other values are read."""
    text = (
        "on: push\njobs:\n  a:\n    runs-on: x\n    env:\n      TORCH_LOGS: +dynamo,gaurds\n"
        "    steps:\n      - run: export TORCH_LOGS=+dynamo,recompile\n"
        "      - run: echo " + "$(" * 1500 + "export TORCH_LOGS=aot_g" + ")" * 1500 + "\n"
    )  # (the last step's value is not read)
    assert [(f.diagnostic.code, f.line) for f in findings(text, "yaml")] == [
        ("TL201", 5),
        ("TL201", 7),
    ]
