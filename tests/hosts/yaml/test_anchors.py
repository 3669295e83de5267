"""YAML anchors, aliases and merge keys: a value another place reads through an alias is
never fixed in place (the fix would change that place too), in ``check --fix``, fix-all and
the quick fixes; PyYAML says what the document means before and after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml as pyyaml

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.fixer import fix_all_edits, fix_document, fix_text, span_fixes
from torch_logs_lsp.lint.pipeline import check_text

REG = load_registry()
ISSUE = "env:\n  TORCH_LOGS: &v +Dynamo,,guards\n  NOT_TORCH: *v\n"


def _shared(text: str) -> list[str | None]:
    module = hosts.shared_host("yaml")
    assert module is not None
    return module.shared(text, hosts.extract("yaml", text))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (ISSUE, "`*v` on line 3 reads it too (the YAML anchor `&v` of line 2)"),
        # the whole environment is anchored and another service reads it
        (
            "services:\n  a:\n    environment: &e\n      TORCH_LOGS: +Dynamo\n"
            "  b:\n    environment: *e\n",
            "`*e` on line 6 reads it too (the YAML anchor `&e` of line 3)",
        ),
        # a merge key reads it
        (
            "x:\n  env: &e\n    TORCH_LOGS: +Dynamo\ny:\n  env:\n    <<: *e\n    B: 1\n",
            "`<<: *e` on line 6 reads it too (the YAML anchor `&e` of line 2)",
        ),
        # a run: script reused by another step
        (
            "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
            "      - run: &s TORCH_LOGS=+Dynamo python t.py\n      - run: *s\n",
            "`*s` on line 7 reads it too (the YAML anchor `&s` of line 6)",
        ),
        # an anchor no alias uses, an alias of another anchor, one in another document
        ("env:\n  TORCH_LOGS: &v +Dynamo\n  B: &w 1\n  C: *w\n", None),
        ("env:\n  TORCH_LOGS: &v +Dynamo\n---\nenv:\n  NOT_TORCH: *v\n", None),
        # an alias names the closest anchor before it: the second &v
        ("env:\n  TORCH_LOGS: &v +Dynamo\n  B: &v 1\n  C: *v\n", None),
    ],
)
def test_shared_values(text: str, reason: str | None) -> None:
    assert _shared(text)[0] == reason


def test_the_issue_reproduction_is_not_fixed_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(ISSUE)
    done = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", "."],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert path.read_text() == ISSUE  # NOT_TORCH keeps its value
    assert pyyaml.safe_load(path.read_text())["env"]["NOT_TORCH"] == "+Dynamo,,guards"
    assert (
        "compose.yaml:2: TORCH_LOGS not fixed: `*v` on line 3 reads it too (the YAML anchor "
        "`&v` of line 2); a fix here would change it there too"
    ) in done.stderr
    assert "fixed TORCH_LOGS" not in done.stdout + done.stderr
    assert "TL201" in done.stdout  # still reported


def test_fix_all_changes_only_values_no_alias_reads() -> None:
    text = ISSUE + "other:\n  env:\n    TORCH_LOGS: +Dynamo,,guards\n"
    new, changes = fix_document(text, "yaml", REG)
    assert [c.line for c in changes] == [5]
    before, after = pyyaml.safe_load(text), pyyaml.safe_load(new)
    assert after["env"] == before["env"]
    assert after["other"]["env"]["TORCH_LOGS"] == "+dynamo,guards"
    held = fix_text(text, "yaml", REG).held
    assert [(h.line, h.variable) for h in held] == [(1, "TORCH_LOGS")]
    entries = check_text(text, "yaml", REG)
    assert [c.line for c in fix_all_edits("yaml", text, entries, REG)] == [5]


def test_quick_fixes_of_a_shared_value_say_what_else_they_change() -> None:
    ((span, analysis),) = check_text(ISSUE, "yaml", REG)
    fixes = span_fixes("yaml", ISSUE, span, analysis, REG)
    assert fixes
    for fix in fixes:
        assert fix.title.endswith(
            "(not only here: `*v` on line 3 reads it too (the YAML anchor `&v` of line 2))"
        )
        assert not fix.preferred and not fix.safe  # never applied without being chosen
        new = pyyaml.safe_load(apply_text_edits(ISSUE, fix.edits))["env"]
        assert new["TORCH_LOGS"] == new["NOT_TORCH"]  # what the title says


def test_an_anchored_empty_value_is_not_removed() -> None:
    text = 'env:\n  TORCH_LOGS: &v ""\n  NOT_TORCH: *v\n'
    ((span, analysis),) = check_text(text, "yaml", REG)
    assert "TL001" in {d.code for d in analysis.diagnostics}
    assert span_fixes("yaml", text, span, analysis, REG) == []  # *v would name nothing


def test_an_alias_in_a_later_chunk_of_a_long_file_is_seen() -> None:
    # past 32,767 rows the host reads the file in chunks; the alias is in another chunk
    filler = "".join(f"k{i}: {i}\n" for i in range(33_000))
    text = f"a:\n  env:\n    TORCH_LOGS: &v +Dynamo\n{filler}b:\n  env:\n    NOT_TORCH: *v\n"
    assert hosts.extract("yaml", text)[0].value == "+Dynamo"
    assert _shared(text) == ["`*v` on line 33006 reads it too (the YAML anchor `&v` of line 3)"]
    assert fix_text(text, "yaml", REG).changes == []


def test_a_document_the_parser_cannot_read_whole_is_read_as_text() -> None:
    # the stray `]` of line 4 leaves an ERROR node; the value is still read
    text = "env:\n  TORCH_LOGS: &v +Dynamo\n  NOT_TORCH: *v\n]\n"
    assert [s.value for s in hosts.extract("yaml", text)] == ["+Dynamo"]
    assert _shared(text) == ["`*v` on line 3 reads it too (the YAML anchor `&v` of line 2)"]
    assert fix_text(text, "yaml", REG).changes == []
