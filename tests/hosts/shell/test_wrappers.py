"""Commands that carry assignments to the command they run (hosts/shell/wrappers.py
and its helpers): wrappers, sudo, docker/podman -e, bash -c scripts, srun --export.
Table cases, and differential tests against real bash for everything this machine can
run (the wrappers of coreutils and bash, bash -c)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from tests.hosts.shell.test_host import _word
from tests.support.budget import examples
from tests.support.oracles import scratch_dir
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.edits import removal_edit, value_edit
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.shell import host as shell

E = "🙂 x; "  # an emoji before every case: offsets are code points
L = LAYER

# (command, [(variable, value, quote)]) -- value None: not static
CASES: list[tuple[str, list[tuple[str, str | None, str | None]]]] = [
    ("exec env TORCH_LOGS=recompile torchrun train.py", [("TORCH_LOGS", "recompile", "")]),
    ("exec nohup env TORCH_LOGS=x cmd", [("TORCH_LOGS", "x", "")]),
    ("exec -a name -cl env TORCH_LOGS=x cmd", [("TORCH_LOGS", "x", "")]),
    ("command -p env TORCH_LOGS=x cmd", [("TORCH_LOGS", "x", "")]),
    ("command -v env TORCH_LOGS=x", []),  # -v: nothing runs
    ("time TORCH_LOGS=t cmd", [("TORCH_LOGS", "t", "")]),  # a reserved word: a prefix
    ("time -p env TORCH_LOGS='t u' cmd", [("TORCH_LOGS", "t u", "'")]),
    ("nohup time env TORCH_LOGS=t cmd", []),  # /usr/bin/time: other options
    ("nohup exec env TORCH_LOGS=t cmd", []),  # no program named exec
    ("exec TORCH_LOGS=x cmd", []),  # exec runs a program named TORCH_LOGS=x
    ("nice -n 5 env TORCH_LOGS=n cmd", [("TORCH_LOGS", "n", "")]),
    ("nice -n5 nice -5 nice --adjustment=3 env TORCH_LOGS=n c", [("TORCH_LOGS", "n", "")]),
    ("timeout -k 5 10 env TORCH_LOGS=to cmd", [("TORCH_LOGS", "to", "")]),
    ("timeout --signal KILL -v 10s env TORCH_LOGS=to cmd", [("TORCH_LOGS", "to", "")]),
    ("timeout --kill 5 10 env TORCH_LOGS=to cmd", []),  # an abbreviation: not sure
    ("stdbuf -oL -e 0 env TORCH_LOGS=sb cmd", [("TORCH_LOGS", "sb", "")]),
    ("env -i -u HOME - TORCH_LOGS=e cmd", [("TORCH_LOGS", "e", "")]),
    ("env -S 'A=1' TORCH_LOGS=e cmd", []),
    ("env A=$X TORCH_LOGS=e cmd", []),  # $X may split: the command may start earlier
    ("sudo TORCH_LOGS=su cmd", [("TORCH_LOGS", "su", "")]),
    ("sudo -E -u bob TORCH_LOGS=su -H cmd", [("TORCH_LOGS", "su", "")]),
    ("sudo --preserve-env=PATH --user=bob TORCH_LOGS=su cmd", [("TORCH_LOGS", "su", "")]),
    ("sudo -i TORCH_LOGS=su cmd", []),  # a login shell runs the command
    ("sudo -- TORCH_LOGS=su cmd", []),  # after --: the command
    ("sudo /x=1 TORCH_LOGS=su cmd", []),  # sudo: a word starting with / is the command
    ("srun -N 2 --gres=gpu:1 -l env TORCH_LOGS=sr cmd", [("TORCH_LOGS", "sr", "")]),
    ("srun --mpi pmix -t 10 env TORCH_LOGS=sr cmd", [("TORCH_LOGS", "sr", "")]),
    ("srun --my-spank-opt env TORCH_LOGS=sr cmd", []),
    ("srun --export=TORCH_LOGS=+dynamo,ALL python x.py", [("TORCH_LOGS", "+dynamo", "")]),
    ("srun --export TORCH_LOGS=+dynamo,guards python", [("TORCH_LOGS", "+dynamo", "")]),
    (
        "srun --export=A=1,TORCH_LOGS=x,TORCH_TRACE=/t c",
        [("TORCH_LOGS", "x", ""), ("TORCH_TRACE", "/t", "")],
    ),
    ("srun --export=NONE,TORCH_LOGS=a python", []),  # NONE ends srun's list
    ("srun --export=TORCH_LOGS=a --export=ALL python", []),  # the last --export counts
    ("srun --export=TORCH_LOGS='\"a,b\"' python", []),  # quote characters: not sure
    ("docker run -e TORCH_LOGS=Dynamo img", [("TORCH_LOGS", "Dynamo", "")]),
    ("docker run -it --rm -e TORCH_LOGS img", []),  # the caller's value
    ("docker container run --env=TORCH_LOGS=a img", [("TORCH_LOGS", "a", "")]),
    ("docker create --env TORCH_LOGS=a img", [("TORCH_LOGS", "a", "")]),
    ('docker run -e "TORCH_TRACE=/t x" img', [("TORCH_TRACE", "/t x", '"')]),
    (
        "docker run -itd -eTORCH_LOGS=a -e=TORCH_TRACE=/t img",
        [("TORCH_LOGS", "a", ""), ("TORCH_TRACE", "/t", "")],
    ),
    (
        "docker run --name n -v /a:/b -e TORCH_LOGS=a img -e TORCH_TRACE=/t",
        [("TORCH_LOGS", "a", "")],
    ),
    (
        "docker run -e TORCH_LOGS=a img env TORCH_TRACE=/t python",
        [("TORCH_LOGS", "a", ""), ("TORCH_TRACE", "/t", "")],
    ),
    ("docker run --some-new-flag x -e TORCH_LOGS=a img", []),  # unknown: not sure
    ("docker --context c run -e TORCH_LOGS=a img", []),  # global options: not read
    ("docker exec -it -u root -e TORCH_LOGS=ex ctr python", [("TORCH_LOGS", "ex", "")]),
    ("podman run -e TORCH_LOGS=p img", [("TORCH_LOGS", "p", "")]),
    ("podman run --pull -e TORCH_LOGS=p img", []),  # podman's --pull value is optional
    ("sudo docker run -e TORCH_LOGS=sd img", [("TORCH_LOGS", "sd", "")]),
    ("bash -c 'TORCH_LOGS=aot_g python x.py'", [("TORCH_LOGS", "aot_g", L + "'")]),
    ("sh -ec 'export TORCH_LOGS=\"a b\"'", [("TORCH_LOGS", "a b", '"' + L + "'")]),
    ('bash -lc "TORCH_LOGS=\\"a b\\" python"', [("TORCH_LOGS", "a b", '"' + L + '"')]),
    ("bash -o pipefail -c 'TORCH_LOGS=x c'", [("TORCH_LOGS", "x", L + "'")]),
    ("bash --norc -c 'TORCH_LOGS=x c'", [("TORCH_LOGS", "x", L + "'")]),
    ("env X=1 bash -c 'TORCH_LOGS=x c'", [("TORCH_LOGS", "x", L + "'")]),
    ("srun -n1 bash -c 'exec env TORCH_LOGS=deep c'", [("TORCH_LOGS", "deep", L + "'")]),
    ("bash -c \"bash -c 'TORCH_LOGS=two c'\"", [("TORCH_LOGS", "two", L + "'" + L + '"')]),
    ('bash -c "TORCH_LOGS=$X c"', []),  # the outer shell expands $X: not static
    ("bash script.sh TORCH_LOGS=x", []),  # no -c: a script file
    ("bash -c 'echo hi' TORCH_LOGS=x", []),  # $0, not code
    ("echo TORCH_LOGS=x; printf TORCH_LOGS=x", []),
]


@pytest.mark.parametrize(("command", "expected"), CASES)
def test_cases(command: str, expected: list[tuple[str, str | None, str | None]]) -> None:
    text = E + command + "\n"
    spans = shell.extract(text)
    check_spans(text, spans)
    assert [(s.variable, s.value, s.quote) for s in spans] == expected
    assert all(s.host == "shell" for s in spans)


def test_offsets_point_at_the_value() -> None:
    text = E + "exec env TORCH_LOGS=recompile torchrun train.py\n"
    (span,) = shell.extract(text)
    assert text[span.content_start : span.content_end] == "recompile"
    assert text[span.name_start : span.name_end] == "TORCH_LOGS"
    text = E + 'docker run --env="TORCH_LOGS=a\\"b" img'
    (span,) = shell.extract(text)
    assert span.value == 'a"b'
    assert text[span.char_starts[1] : span.char_ends[1]] == '\\"'


def test_fixes_in_nested_code_verify() -> None:
    """A value in bash -c code: the edit is encoded for both quotings and re-read."""
    text = "bash -c 'TORCH_LOGS=aot_g python x.py'\n"
    (span,) = shell.extract(text)
    edits = value_edit("shell", text, span, "aot_graphs")
    assert edits is not None
    from torch_logs_lsp.hosts.edits import apply_text_edits

    assert apply_text_edits(text, edits) == "bash -c 'TORCH_LOGS=aot_graphs python x.py'\n"
    text = "bash -c 'TORCH_LOGS=a python'\n"
    (span,) = shell.extract(text)
    edits = value_edit("shell", text, span, "it's")
    assert edits is not None
    assert apply_text_edits(text, edits) == "bash -c 'TORCH_LOGS=it\\'\\''s python'\n"


def test_option_values_are_not_removed() -> None:
    for text in ("docker run -e TORCH_LOGS=x img", "srun --export=TORCH_LOGS=x,ALL c"):
        (span,) = shell.extract(text)
        assert removal_edit("shell", text, span) is None
    text = "exec env TORCH_LOGS=x cmd"
    (span,) = shell.extract(text)
    found = removal_edit("shell", text, span)
    assert found is not None and found[1].start == text.index("TORCH")


def test_values_for_containers_and_srun_run_elsewhere() -> None:
    for text, where in [
        ("docker run \\\n  -e TORCH_TRACE=/nonexistent/t img\n", "a container (docker)"),
        ("srun -N1 env TORCH_TRACE=/nonexistent/t python\n", "a Slurm job step (srun)"),
        ("env TORCH_TRACE=/nonexistent/t python\n", None),
    ]:
        facts = shell.path_facts(text, shell.extract(text))
        assert [f.runs_elsewhere for f in facts] == [where]


# --- differential tests against bash ------------------------------------------------------

BASH = shutil.which("bash")
#: Wrappers bash and coreutils can run here; the shell's own first (exec, command, time).
_OWN = ["exec", "exec -c", "command", "command -p", "time", "time -p"]
_EXTERNAL = [
    "nohup",
    "nice",
    "nice -n 3",
    "nice -3",
    "nice --adjustment=2",
    "timeout 10",
    "timeout -k 5 10",
    "timeout --signal=TERM 10s",
    "timeout -v --foreground 9",
    "stdbuf -oL",
    "stdbuf -o L -e 0",
    "env",
    "env -u HOME",
    "env A=1",
    "env -i PATH=/usr/bin:/bin",
    "env -",
]
_chain = st.tuples(
    st.lists(st.sampled_from(_OWN), max_size=1),
    st.lists(st.sampled_from(_EXTERNAL), max_size=3),
)


def _run(statements: list[str]) -> list[bytes]:
    """Each statement run by bash in a subshell; what its ``printenv -0 TORCH_LOGS``
    printed (``<unset>`` when it printed nothing)."""
    script = [f"( {s} ) 2>/dev/null </dev/null || printf '<unset>\\0'" for s in statements]
    assert BASH is not None
    out = subprocess.run(
        [BASH, "--noprofile", "--norc"],
        input="\n".join(script).encode(),
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        check=True,
        timeout=120,
        cwd=scratch_dir(),
    )
    records = out.stdout.split(b"\0")[:-1]
    assert len(records) == len(statements), out.stderr
    return records


def _compare(statements: list[str]) -> int:
    compared = 0
    for stmt, record in zip(statements, _run(statements), strict=True):
        spans = [s for s in shell.extract(stmt) if s.variable == "TORCH_LOGS"]
        check_spans(stmt, shell.extract(stmt))
        assert spans, stmt
        if spans[-1].value is None:
            continue
        compared += 1
        assert spans[-1].value.encode("utf-8", "surrogateescape") == record, stmt
    return compared


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None or shutil.which("stdbuf") is None, reason="bash/coreutils")
@settings(max_examples=4, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.lists(st.tuples(_chain, _word), min_size=40, max_size=40))
def test_wrapper_chains_match_bash(cases: list[tuple[tuple[list[str], list[str]], str]]) -> None:
    statements = []
    for (own, external), word in cases:
        tail = f"env TORCH_LOGS={word} printenv -0 TORCH_LOGS"
        if own == ["time"] or own == ["time -p"]:
            tail = f"TORCH_LOGS={word} printenv -0 TORCH_LOGS" if not external else tail
        statements.append(" ".join([*own, *external, tail]))
    assert _compare(statements) > len(statements) // 3


def _single(code: str) -> str:
    return "'" + code.replace("'", "'\\''") + "'"


def _double(code: str) -> str:
    return '"' + re.sub(r'([$`"\\])', r"\\\1", code) + '"'


_INNER = [
    "TORCH_LOGS={w} printenv -0 TORCH_LOGS",
    "export TORCH_LOGS={w}; printenv -0 TORCH_LOGS",
    "exec env -u X TORCH_LOGS={w} printenv -0 TORCH_LOGS",
]
_OUTER = ["bash -c {c}", "sh -ec {c}", "bash -o pipefail -lc {c} name", "nohup bash -c {c}"]


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
@settings(max_examples=4, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(
    st.lists(
        st.tuples(st.sampled_from(_INNER), st.sampled_from(_OUTER), st.booleans(), _word),
        min_size=40,
        max_size=40,
    )
)
def test_bash_c_scripts_match_bash(cases: list[tuple[str, str, bool, str]]) -> None:
    """The inner script quoted for the outer shell (single or double quotes): the value
    the inner command sees is the span's, read through both quotings."""
    statements = []
    for inner, outer, single, word in cases:
        code = inner.format(w=word)
        if "sh -ec" in outer and "$" in word:
            outer = "bash -ec {c}"  # dash has no $'...', $"..." (the shell host reads bash)
        statements.append(outer.format(c=_single(code) if single else _double(code)))
    assert _compare(statements) > len(statements) // 4


def test_sudo_removal_does_not_claim_inheritance() -> None:
    text = "x\nsudo -E TORCH_LOGS=x cmd\n"
    (span,) = shell.extract(text)
    found = removal_edit("shell", text, span)
    assert found is not None and found[0] == "Remove `TORCH_LOGS=`"


_PIECES = st.sampled_from(
    [
        *"\"'\\ \n;&|<>()$`=,-#é😀",
        "TORCH_LOGS=",
        "TORCH_TRACE=",
        "exec ",
        "env ",
        "sudo ",
        "nice -n ",
        "timeout ",
        "docker run ",
        "-e ",
        "--env=",
        "srun ",
        "--export=",
        "bash -c ",
        "-lc ",
        "ALL",
        "x",
        "2>",
    ]
)


@example(text="bash -c \\TORCH_LOGS=")
@settings(max_examples=examples(300), deadline=None)
@given(text=st.lists(_PIECES, max_size=30).map("".join))
def test_random_commands_give_well_formed_spans(text: str) -> None:
    spans = shell.extract(text)
    # A name inside code in code may be written with the outer quoting's escapes
    # (`bash -c \\TORCH_LOGS=x`: the script is `TORCH_LOGS=x`): its range then holds them.
    check_spans(text, spans, exact_name=False)
    for span in spans:
        assert text[span.name_start : span.name_end].replace("\\", "") == span.variable
        value_edit("shell", text, span, "dynamo")  # verified or None, never raises
        removal_edit("shell", text, span)


@pytest.mark.parametrize(("levels", "found"), [(1, True), (3, True), (4, False)])
def test_code_in_code_is_read_three_levels_deep(levels: int, found: bool) -> None:
    code = "TORCH_LOGS=deep c"
    for _ in range(levels):
        code = "bash -c " + _single(code)
    spans = shell.extract(code)
    check_spans(code, spans)
    assert [s.value for s in spans] == (["deep"] if found else [])
    if found and BASH is not None:  # bash reads the same value through every quoting
        probe = code.replace(" c'", " printenv TORCH_LOGS'")
        out = subprocess.run(
            [BASH, "-c", probe], capture_output=True, text=True, check=False, cwd=scratch_dir()
        )
        assert out.stdout == "deep\n", probe
