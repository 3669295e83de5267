"""Incremental extraction equals a fresh extraction, for random edit sequences."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache, diff, only_values_differ
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.analysis_cache import AnalysisCache

SEEDS = {
    "dotenv": (
        "\ufeffA=1\nexport TORCH_LOGS='+dynamo' # c\r\nTORCH_TRACE=\"/t\nmore\"\n"
        'B="x\nTORCH_LOGS=aot_g,guards\nC=${X}\nTORCH_LOGS="un\nD=4\n'
    ),
    "jsonc": (
        '{\n  // c\n  "version": "0.2.0",\n  "configurations": [\n'
        '    {"name": "a", "env": {"TORCH_LOGS": "+dynamo,aot_g", "X": 1}},\n'
        '    {"name": "b", "linux": {"env": {"TORCH\\u005fLOGS": "\\u002bguards"}}},\n'
        '    {"env": {"TORCH_LOGS": "x", "TORCH_TRACE": null},},\n  ],\n'
        '  "tasks": [{"options": {"env": {"TORCH_LOGS": "+inductor"}}}]\n}\n'
    ),
    "jsonc-devcontainer": (
        '{\n  "image": "x",\n  "containerEnv": {"TORCH_LOGS": "+dynamo,gards", "A": "1"},\n'
        '  "remoteEnv": {"TORCH_TRACE": null, "TORCH_LOGS_OUT": "${localEnv:X}/o"},\n'
        '  "build": {"args": {"TORCH_LOGS": "no"}},\n}\n'
    ),
    "shell": (
        '#!/bin/bash\nexport TORCH_LOGS="+dynamo,aot_g"\nTORCH_LOGS=+inductor python t.py\n'
        "declare -x TORCH_LOGS=guards\nenv -i TORCH_LOGS=x TORCH_TRACE=$'/t' run\n"
        "TORCH_LOGS='a,\nb' \\\n  TORCH_TRACE=/t cmd\nTORCH_LOGS=$(echo x)\n"
        'if true; then TORCH_LOGS="+dynamo"; fi\nTORCH_LOGS+=,x\nTORCH_LOGS="+guards\n'
    ),
    # Parses without an error, so edits go through toplevel windows when they are safe:
    # here-documents, continuations, compound statements and two statements on a line.
    "shell-clean": (
        'export TORCH_LOGS="+dynamo,aot_g"; TORCH_TRACE=/t run\n# TORCH_LOGS=x\n'
        "cat <<EOF\nTORCH_LOGS=in_heredoc\nEOF\nTORCH_LOGS=a \\\n  TORCH_TRACE=/t cmd\n"
        'f() {\n  local TORCH_LOGS="guards"\n}\ncase $x in\n  a) TORCH_LOGS=+inductor ;;\nesac\n'
        "echo 'TORCH_LOGS=q'\nenv TORCH_LOGS=x python -c 'pass'\n\nTORCH_LOGS=$'\\x2bdynamo'\n"
    ),
    # Commands that carry assignments (hosts/shell/wrappers.py): wrappers, containers,
    # bash -c scripts, srun --export lists.
    "shell-wrappers": (
        "exec env TORCH_LOGS=recompile torchrun train.py\n"
        "docker run --rm -e TORCH_LOGS=+dynamo --env=TORCH_TRACE=/t img env TORCH_LOGS=x c\n"
        "bash -c 'TORCH_LOGS=aot_g python x.py; export TORCH_LOGS=\"+guards\"'\n"
        'srun -N 2 --export=TORCH_LOGS=+dynamo,ALL bash -lc "TORCH_TRACE=/t python"\n'
        "sudo -E TORCH_LOGS=x nice -n 5 timeout 10 env TORCH_LOGS_OUT=/o python\n"
    ),
    "python": (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo,aot_g"  # c\n'
        'os.environ.setdefault("TORCH_TRACE", r"/t\\x")\nx = "TORCH_LOGS"\n'
        'subprocess.run(c, env={**os.environ, "TORCH_LOGS": ("a,"\n  "\\x2bguards")})\n'
        'd = dict(TORCH_LOGS=f"{x}", TORCH_LOGS_OUT="o") "p"\ndef f(:\n  """TORCH_LOGS=x"""\n'
        "env[\"TORCH_LOGS\"] = '''+inductor''' \"x\"\n"
    ),
}
READ_AGAIN = {"shell-wrappers": 6}
HOST_OF = {"shell-clean": "shell", "jsonc-devcontainer": "jsonc", "shell-wrappers": "shell"}

_pieces = st.sampled_from(
    [
        *"\"'\\{}[]:,=#$`()\n\r\t /*-+_xé😀\x00",
        "TORCH_LOGS=",
        '"TORCH_LOGS": "',
        "export ",
        "declare -i ",
        "\r\n",
        '"env": {',
        '"remoteEnv": {',
        "null",
        "+dynamo,",
        "aot_g",
        "${X}",
        '"] = "',
        "f",
        ' "',
    ]
)
_insert = st.lists(_pieces, max_size=6).map("".join)


@st.composite
def _edits(draw: st.DrawFn) -> list[tuple[float, float, str]]:
    """Edits as (start fraction, length fraction, inserted text)."""
    n = draw(st.integers(1, 12))
    return [
        (
            draw(st.floats(0, 1)),
            draw(st.sampled_from([0.0, 0.0, 0.001, 0.01, 0.05, 0.3])),
            draw(_insert),
        )
        for _ in range(n)
    ]


def _apply(text: str, edit: tuple[float, float, str]) -> str:
    start = int(edit[0] * len(text))
    end = min(len(text), start + int(edit[1] * len(text)) + (1 if edit[1] else 0))
    return text[:start] + edit[2] + text[end:]


EDITS = st.tuples(_edits(), st.integers(1, 3))


def check_sequence(seed: str) -> Callable[[tuple[list[tuple[float, float, str]], int]], None]:
    """A check that applies an edit sequence (and a repeat count for the seed) and
    compares incremental with fresh extraction after every edit."""

    def check(case: tuple[list[tuple[float, float, str]], int]) -> None:
        edits, repeat = case
        text = SEEDS[seed] * repeat
        host = HOST_OF.get(seed, seed)
        cache = DocumentCache()
        assert hosts.extract(host, text, cache) == hosts.extract(host, text)
        for edit in edits:
            text = _apply(text, edit)
            assert hosts.extract(host, text, cache) == hosts.extract(host, text), repr(text)

    return check


@pytest.mark.parametrize("host", sorted(SEEDS))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=EDITS)
def test_incremental_equals_fresh(
    host: str, case: tuple[list[tuple[float, float, str]], int]
) -> None:
    check_sequence(host)(case)


@pytest.mark.parametrize("host", sorted(SEEDS))
def test_small_edit_reuses_spans(host: str) -> None:
    text = SEEDS[host] * 20
    kind = HOST_OF.get(host, host)
    cache = DocumentCache()
    first = hosts.extract(kind, text, cache)
    assert first
    at = len(text) // 2
    text = text[:at] + " " + text[at:]
    assert hosts.extract(kind, text, cache) == hosts.extract(kind, text)
    # JSON values that are not strings are read again (their extent can grow with text
    # typed after them); everything else away from the edit is reused.
    reusable = [s for s in first if kind != "jsonc" or s.quote == '"']
    # Values carried by a command's option (`docker run -e`, `srun --export=`) or read from
    # a `bash -c` script are read again with their command (6 of the 10 in each copy of
    # the wrappers seed): only the shell's own assignments are reused.
    again = 20 * READ_AGAIN.get(host, 0)
    assert cache.reused >= len(reusable) - again - 12, (cache.reused, cache.computed, len(first))
    assert cache.computed <= again + 12 or not again


_typing = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.sampled_from([0.0, 0.0, 0.0, 0.001, 0.01]),
        st.text(alphabet="abx_+,-.:/09=\"' \n$\\", max_size=3),
    ),
    min_size=1,
    max_size=15,
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=_typing, repeat=st.integers(1, 3))
def test_typing_in_a_clean_script_equals_fresh(
    edits: list[tuple[float, float, str]], repeat: int
) -> None:
    """Mostly word characters (the edits that go through toplevel windows), now and then a
    character that makes a window decline; incremental equals fresh after every edit."""
    check_sequence("shell-clean")((edits, repeat))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=_typing, repeat=st.integers(1, 3))
def test_typing_in_wrapped_commands_equals_fresh(
    edits: list[tuple[float, float, str]], repeat: int
) -> None:
    """The same for commands that carry assignments (wrappers, docker, bash -c, srun)."""
    check_sequence("shell-wrappers")((edits, repeat))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=_typing, repeat=st.integers(1, 3))
def test_typing_in_python_equals_fresh(edits: list[tuple[float, float, str]], repeat: int) -> None:
    check_sequence("python")((edits, repeat))


def test_python_edit_in_a_value_is_not_parsed() -> None:
    """In a module without syntax errors typing in a value only edits the tree (it is
    then stale: told about the edit, not parsed); with an error the module is parsed."""
    clean = 'import os\nos.environ["TORCH_LOGS"] = "+dynamo,aot_g"\nenv = {"TORCH_TRACE": "/t"}\n'
    for text, parsed in ((clean * 30, False), (SEEDS["python"] * 30, True)):
        cache = DocumentCache()
        first = hosts.extract("python", text, cache)
        at = text.index("aot_g", len(text) // 2)
        edited = text[:at] + "x😀" + text[at:]
        assert hosts.extract("python", edited, cache) == hosts.extract("python", edited)
        assert (cache.computed, cache.reused) == (1, len(first) - 1)
        assert cache.state.stale is not parsed


def test_shell_edit_parses_only_its_statements() -> None:
    """A window is used for an edit inside a value of a clean script (few spans computed,
    the tree not re-parsed), and declined for one that opens a quote (whole re-parse)."""
    text = SEEDS["shell-clean"] * 50
    cache = DocumentCache()
    first = hosts.extract("shell", text, cache)
    at = text.index("+inductor", len(text) // 2)
    edited = text[:at] + "x" + text[at:]
    assert hosts.extract("shell", edited, cache) == hosts.extract("shell", edited)
    assert (cache.computed, cache.reused) == (1, len(first) - 1)
    quoted = edited[:at] + '"' + edited[at:]
    assert hosts.extract("shell", quoted, cache) == hosts.extract("shell", quoted)
    assert hosts.extract("shell", edited, cache) == hosts.extract("shell", edited)


def test_diff() -> None:
    assert diff("abc", "abc") is None
    e = diff("hello world", "hello brave world")
    assert e is not None and (e.start, e.old_end, e.new_end) == (6, 6, 12)
    e = diff("aaaa", "aa")
    assert e is not None and e.delta == -2 and e.start + (4 - e.old_end) <= 4
    e = diff(b"xyz", b"")
    assert e is not None and (e.start, e.old_end, e.new_end) == (0, 3, 0)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # tree-sitter-bash's incremental parse gave a different tree (without an error)
        # than a fresh parse for these edits
        (
            "CUDA_VISIBLE_DEVICES=0\\\n  TORCH_LOGS=aot_g python t.py\ncat <<EOF\nx\nEOF\n",
            "CUDA_VISIBLE_DEVICES=0\\\n  TORCH_LOGS=aot_g pythonx t.py\ncat <<EOF\nx\nEOF\n",
        ),
        (
            "a=a\\\nb= TORCH_LOGS=guards cmd\ncat <<EOF\nx\nEOF\n",
            "a=a\\\nb= TORCH_LOGS=guardsx cmd\ncat <<EOF\nx\nEOF\n",
        ),
    ],
)
def test_shell_edit_found_by_fuzzing_equals_fresh(before: str, after: str) -> None:
    cache = DocumentCache()
    assert hosts.extract("shell", before, cache) == hosts.extract("shell", before)
    assert hosts.extract("shell", after, cache) == hosts.extract("shell", after)


def test_window_after_a_value_read_to_the_end() -> None:
    """A backtick left open makes a value run to the end of the script; text typed at the
    end is then part of it, though the re-parsed window starts after the value (found by
    the property test above: the old span was kept)."""
    edits = [(0.32421875, 0.0, "`"), (0.0, 0.0, "`"), (1.0, 0.0, "/")]
    check_sequence("shell")((edits, 2))


def _is_logs(span: ValueSpan) -> bool:
    return span.variable == "TORCH_LOGS"


@pytest.mark.parametrize(
    ("after", "same"),
    [
        ("export TORCH_LOGS=+dynamox\nTORCH_TRACE=out python a.py\n", True),  # typed in
        ("export TORCH_LOGS=+dyn\nTORCH_TRACE=out python a.py\n", True),  # deleted in
        ("export TORCH_LOGS=+dynamo\nTORCH_TRACE=out python a.py\n", True),  # the same
        ("export TORCH_LOGS=+dynamo x\nTORCH_TRACE=out python a.py\n", False),  # a word
        ('export TORCH_LOGS="+dynamo\nTORCH_TRACE=out python a.py\n', False),  # a quote
        ("export TORCH_LOGS=$X\nTORCH_TRACE=out python a.py\n", False),  # not plain
        ("export TORCH_LOGS=+dynamo\nTORCH_TRACE=outx python a.py\n", False),  # not stripped
        ("export TORCH_LOGS=+dynamo\nTORCH_TRACE=out python b.py\n", False),  # outside
        ("export TORCH_LOGS=+dynamo\n", False),  # a value fewer
    ],
)
def test_only_values_differ_inside_one_plain_value_of_the_rule(after: str, same: bool) -> None:
    before = "export TORCH_LOGS=+dynamo\nTORCH_TRACE=out python a.py\n"
    old, new = hosts.extract("shell", before), hosts.extract("shell", after)
    assert only_values_differ(before, old, after, new, _is_logs) is same


def test_a_rule_result_is_kept_only_while_the_edits_stay_in_such_values() -> None:
    cache = DocumentCache()
    runs: list[str] = []

    def rule(text: str) -> object:
        spans = hosts.extract("shell", text)

        def compute() -> str:
            runs.append(text)
            return text.split("\n")[1]

        return cache.remembered("rule", "key", text, spans, _is_logs, compute)

    first = "export TORCH_LOGS=+dynamo\nmkdir out\n"
    assert rule(first) == "mkdir out"
    assert rule("export TORCH_LOGS=+dynamox\nmkdir out\n") == "mkdir out"
    assert rule("export TORCH_LOGS=+dynamoxy\nmkdir out\n") == "mkdir out"
    assert len(runs) == 1
    assert rule("export TORCH_LOGS=+dynamoxy\nmkdir logs\n") == "mkdir logs"
    assert len(runs) == 2
    assert cache.remembered("rule", "other key", first, [], _is_logs, lambda: "new") == "new"


def test_checks_through_the_caches_equal_fresh_checks_while_typing(tmp_path: Path) -> None:
    """Typing a value, then changing what the kept rules read (a directory made, a
    script's directory): each version's findings are a fresh check's."""
    cache, analyses = DocumentCache(), AnalysisCache()
    lines = [
        "export TORCH_LOGS=+dynamo",
        "mkdir -p traces",
        "export TORCH_TRACE=traces/run",
        "TORCH_LOGS=output_code python tools/train.py 2>&1 | tee log",
        "export TORCH_LOGS_OUT=logs/out.txt",
    ]
    versions = []
    text = "\n".join(lines) + "\n"
    for typed in ["x", "y", ",guards"]:
        text = text.replace("+dynamo", "+dynamo" + typed, 1)
        versions.append(text)
    versions.append(text.replace("mkdir -p traces", "mkdir -p logs"))
    versions.append(versions[-1].replace("tools/train.py", "train.py"))
    versions.append(versions[-1].replace("2>&1 | tee log", ""))
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "train.py").write_text("")
    where = {"base_dir": str(tmp_path), "roots": (str(tmp_path),), "path": str(tmp_path / "r.sh")}
    found = []
    for version in versions:
        kept = check_document(version, "shell", extraction=cache, analyses=analyses, **where)
        fresh = check_document(version, "shell", **where)
        assert kept.placed() == fresh.placed()
        assert kept.finder is not None and fresh.finder is not None
        assert kept.finder.first == fresh.finder.first
        found.append(sorted({p.diagnostic.code for p in kept.placed()}))
    assert len({tuple(f) for f in found}) >= 2  # the edits changed the findings
