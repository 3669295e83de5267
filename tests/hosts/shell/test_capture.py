"""Where a shell script's commands send stderr (TL411, :mod:`.shell.capture`): a table of
forms, each also run by real bash where that is cheap (a stub ``python`` that prints to
stderr when TORCH_LOGS is set: kept when what it prints lands in a file or never reaches
the script's own output)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.oracles import scratch_dir
from torch_logs_lsp.hosts.embedded import EmbeddedSpan
from torch_logs_lsp.hosts.shell import host as shell
from torch_logs_lsp.hosts.shell.capture import captured_now, script_kept, stderr_captured

P = "TORCH_LOGS=output_code python a.py"
#: (script, kept, run it with bash): the flag of the script's only span.
CASES: list[tuple[str, bool, bool]] = [
    (f"{P} 2>&1 | tee log.txt", True, True),
    (f"{P} |& tee log.txt", True, True),
    (f"{P} > run.log 2>&1", True, True),
    (f"{P} &> run.log", True, True),
    (f"{P} &>> run.log", True, True),
    (f"{P} >& run.log", True, True),
    (f"{P} 2> err.log", True, True),
    (f"{P} 2>> err.log", True, True),
    (f"{P} 2>/dev/null", True, True),
    (f"{P} 2>&-", True, False),
    (f"{P} 2> >(tee err.log)", True, False),
    ("TORCH_LOGS=output_code 2>err.log python a.py", True, True),
    (f"{P} > run.log", False, True),  # stdout only
    (f"{P} | tee log.txt", False, True),  # a pipe of stdout only
    (f"{P} 2>&1", False, True),  # to the script's stdout
    (f"{P} 2>&1 > run.log", False, True),  # stderr where stdout was: the terminal
    (f"{P} 2>err.log 2>&1", False, True),  # the last one wins
    (f"{P} 2>/dev/stderr | tee log.txt", False, True),
    (f'{P} 2>"/dev/stdout" | tee log.txt', True, True),
    (f"{P} 2>/dev/fd/1 | tee log.txt", True, True),
    (f"exec 3>&2\n{P} 2>/dev/fd/3", False, True),  # descriptor 3 is not followed
    (f"{P} {{fd}}>fd.log 2>&1", False, True),
    (f"{P}", False, True),
    (f"{P} && echo done > done.log", False, True),
    (f"{{ {P}; }} 2>&1 | tee log.txt", True, True),
    (f"( {P} ) 2> err.log", True, True),
    (f"if true; then {P}; fi > out.log 2>&1", True, True),
    (f"out=$({P} 2>&1)", True, True),
    (f"out=$({P})", False, True),
    ("env TORCH_LOGS=output_code python a.py 2> err.log", True, True),
    ("env TORCH_LOGS=output_code python a.py", False, True),
    (f"exec 2> err.log\n{P}", True, True),
    (f"exec > run.log 2>&1\n{P}", True, True),
    (f"exec &> >(tee run.log)\n{P}", True, False),
    (f"{P}\nexec 2> err.log", False, True),  # too late
    (f"exec 2> err.log\nexec 2>/dev/tty\n{P}", False, False),
    (f"exec 2> err.log\nif false; then exec 2>&1; fi\n{P}", False, False),  # not certain
    (f"f() {{ {P}; }}\nf 2> err.log", False, False),  # a function: its callers decide
    (f"bash -c '{P}' 2> err.log", True, True),
    (f"bash -c '{P} 2> err.log'", True, True),
    (f"bash -c '{P}'", False, True),
    # a value that stays in the shell: every later command that may run Python
    ("export TORCH_LOGS=output_code\npython a.py 2>&1 | tee log.txt", True, True),
    ("export TORCH_LOGS=output_code\necho start\npython a.py > run.log 2>&1", True, True),
    ("TORCH_LOGS=output_code\nexport TORCH_LOGS\npython a.py 2> err.log", True, True),
    ("export TORCH_LOGS=output_code\npython a.py 2> err.log\npython b.py", False, True),
    ("export TORCH_LOGS=output_code\npython a.py | tee log.txt", False, True),
    ("export TORCH_LOGS=output_code", False, False),  # sourced: the user's shell reads it
    ("export TORCH_LOGS=output_code\necho hi", False, False),
    ("exec &> run.log\nexport TORCH_LOGS=output_code\npython a.py", True, True),
    (
        "for i in 1 2; do python a.py; export TORCH_LOGS=output_code; python b.py 2>e; done",
        False,
        True,
    ),  # the loop's first command runs after the value too
    ("export TORCH_LOGS=output_code\ntrap 'python c.py' EXIT\npython a.py 2>e", False, True),
]


@pytest.mark.parametrize(("script", "kept", "run"), CASES, ids=[c[0] for c in CASES])
def test_stderr_of_the_reading_process(script: str, kept: bool, run: bool) -> None:
    spans = shell.extract(script)
    assert [s.variable for s in spans] == ["TORCH_LOGS"]
    assert shell.stderr_captured(script, spans) == [kept]


def test_one_flag_per_span_in_order() -> None:
    text = f"{P} 2>e.log\n{P}\nTORCH_LOGS_OUT=x.log TORCH_LOGS=dynamo python b.py &> l\n"
    spans = shell.extract(text)
    assert len(spans) == 4
    assert stderr_captured(text, spans) == [True, False, True, True]


def test_nested_code_remembers_its_script() -> None:
    text = f"bash -c '{P} 2>e.log'\n"
    (span,) = shell.extract(text)
    assert isinstance(span, EmbeddedSpan) and span.code == f"{P} 2>e.log"
    moved = span.moved(3).moved(-1)
    assert isinstance(moved, EmbeddedSpan) and moved.code == span.code
    assert moved.name_start == span.name_start + 2 and moved == span.moved(2)
    assert moved.char_starts == tuple(c + 2 for c in span.char_starts)


@pytest.mark.parametrize(
    "value",
    [
        "+dynamo,output_code",  # plain: the remembered answer of the same shape
        "output_code 2>e.log",  # unquoted: the redirection is the command's now
        "'output_code' 2>e.log",
        "x;python b.py",  # a new command after the value
        '"output_code',  # a quote left open swallows the rest
        "$(echo output_code)",
    ],
)
def test_remembered_answers_are_those_of_the_text(value: str) -> None:
    template = (
        "export TORCH_LOGS={}\npython a.py 2>&1 | tee log\nTORCH_LOGS={} python c.py 2>c.log\n"
    )
    first = template.format("output_code", "output_code")
    spans = shell.extract(first)
    assert stderr_captured(first, spans) == captured_now(first, spans) == [True, True]
    edited = template.format("output_code", value)
    spans = shell.extract(edited)
    assert stderr_captured(edited, spans) == captured_now(edited, spans)


def test_script_kept_is_about_every_command() -> None:
    assert script_kept("python a.py 2>&1 | tee log\necho done")
    assert not script_kept("python a.py 2>&1 | tee log\npython b.py")
    assert not script_kept("echo nothing runs python")
    assert not script_kept("python a.py | tee log")


def test_spans_of_another_text_keep_nothing_and_never_raise() -> None:
    spans = shell.extract(f"# {'x' * 40}\n{P} 2>e.log\n")
    assert stderr_captured("", spans) == [False]
    assert stderr_captured("echo $((", spans) == [False]


_STUB = '#!/bin/sh\n[ -n "$TORCH_LOGS" ] && echo "MARK$$" >&2 && : > "$RAN/$$"\nexit 0\n'


def _bash_keeps(script: str) -> bool:
    """Whether, run by bash with the stub as ``python``, every line a process that read
    TORCH_LOGS printed to stderr lands in a file or never reaches the script's output."""
    folder = Path(scratch_dir())
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "python"
    stub.write_text(_STUB)
    stub.chmod(0o755)
    ran = folder / "ran"
    ran.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["RAN"] = str(ran)
    env.pop("TORCH_LOGS", None)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    shown = done.stdout + done.stderr
    files = "".join(p.read_text(errors="replace") for p in folder.iterdir() if p.is_file())
    marks = {f"MARK{p.name}" for p in ran.iterdir()}  # a process that read the value
    assert marks, f"nothing read TORCH_LOGS in {script!r}"
    return all(m in files or m not in shown for m in marks)


_BASH = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


@_BASH
def test_bash_agrees() -> None:
    """Each case run by bash: every line the stub prints lands in a file of the folder or
    never reaches the script's own stdout/stderr exactly when the host says kept."""
    for script, kept, run in CASES:
        if run:
            bash_kept = _bash_keeps(script)
            assert bash_kept == kept, f"bash {'keeps' if bash_kept else 'shows'} {script!r}"


_REDIRECTS = [">out.log", "2>err.log", "2>&1", ">&2", "1>&2", "&>all.log", "2>/dev/null"]
_REDIRECTS += ["2>>err.log", ">/dev/stderr", "2>/dev/stdout", ">&all.log"]


@_BASH
@settings(max_examples=examples(150), deadline=None)
@given(
    first=st.lists(st.sampled_from(_REDIRECTS), max_size=3),
    # a pipe counts whatever reads it (tee keeps a copy, grep filters): the stub's readers
    # keep or drop the lines, as those do
    pipe=st.sampled_from(["", " | cat > piped.log", " |& tee piped.log", " | grep -v MARK"]),
    group=st.lists(st.sampled_from(_REDIRECTS), max_size=2),
)
def test_bash_agrees_on_generated_redirections(
    first: list[str], pipe: str, group: list[str]
) -> None:
    inner = " ".join([P, *first]) + pipe
    script = f"{{ {inner}; }} {' '.join(group)}" if group else inner
    (span,) = shell.extract(script)
    kept = shell.stderr_captured(script, [span]) == [True]
    assert _bash_keeps(script) == kept, script


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        # bash gives a trailing redirection of a list or pipeline to its last command
        ("TORCH_LOGS=output_code python x.py && python y.py 2>err", False),
        ("TORCH_LOGS=output_code python x.py || python y.py 2>err", False),
        ("TORCH_LOGS=output_code python x.py | python y.py 2>err", False),
        ("python y.py && TORCH_LOGS=output_code python x.py 2>err", True),
        ("python y.py | TORCH_LOGS=output_code python x.py 2>err", True),
        ("{ TORCH_LOGS=output_code python x.py && python y.py; } 2>err", True),
        ("(TORCH_LOGS=output_code python x.py && python y.py) 2>err", True),
    ],
)
def test_a_trailing_redirection_of_a_list_is_the_last_commands(line: str, kept: bool) -> None:
    spans = shell.extract(line + "\n")
    assert shell.stderr_captured(line + "\n", spans) == [kept]
    if shutil.which("bash") is not None:
        assert _bash_keeps(line) is kept  # (bash runs it with the stub as python)
