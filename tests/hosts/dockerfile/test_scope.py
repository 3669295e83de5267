"""What the Dockerfile host reads as shell, and where a value is in scope, as BuildKit
decides it (moby/buildkit 73ed6825, frontend/dockerfile/dockerfile2llb/convert.go and
docs/reference.md):

- ``dispatchRun``: only a ``RUN`` whose whole command is one heredoc word
  (``parser.MustParseHeredoc(args[0])``: ``^(\\d*)<<(-?)\\s*([^<]*)$`` with one word
  after it) runs the body as the script; otherwise the command line, each body and its
  terminator are joined and given to the shell, so ``RUN <<EOF python3`` runs python3
  with the body as its stdin, which is not shell code.
- ``withShell``/``dispatchShell``: shell-form commands run ``Config.Shell`` of the stage's
  image plus the command line as the last argument; ``SHELL`` sets it for its stage; a
  stage starts from its base image (the default ``/bin/sh -c``, or an earlier stage's).
- ``dispatchArg`` and docs/reference.md "Understand how ARG and FROM interact": "An
  ``ARG`` declared before a ``FROM`` is outside of a build stage, so it can't be used in
  any instruction after a ``FROM``", unless a stage declares ``ARG NAME`` without a value.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.oracles import scratch_dir
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.fixer import fix_document

REG = load_registry()

# RUN lines whose heredoc body is another program's stdin or data: no span, no fix.
V = "TORCH_LOGS='+dynamo ,guards'"
STDIN_BODIES = [
    f"RUN <<EOF python3\n{V}\nEOF\n",
    f"RUN <<EOF node\n{V}\nEOF\n",
    f"RUN <<EOF tee /x\n{V}\nEOF\n",
    f"RUN <<EOF cat > /app/x.sh\n{V} python x.py\nEOF\n",
    f"RUN <<EOF > /app/.env\n{V}\nEOF\n",
    f"RUN <<-EOF python3\n\t{V}\n\tEOF\n",
    f"RUN --mount=type=cache,target=/c <<EOF python3\n{V}\nEOF\n",
]


@pytest.mark.parametrize("body", STDIN_BODIES)
def test_heredoc_as_stdin_is_not_shell(body: str) -> None:
    text = "FROM python:3.12\n" + body + "ENV TORCH_LOGS=+dynamo\n"
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [("TORCH_LOGS", "+dynamo")]
    bad = "FROM python:3.12\n" + body
    assert fix_document(bad, "dockerfile", REG) == (bad, [])


def test_heredoc_alone_is_the_script() -> None:
    text = f"FROM python:3.12\nRUN <<EOF\n{V} python x.py\nEOF\n"
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [s.value for s in spans] == ["+dynamo ,guards"]
    new, changes = fix_document(text, "dockerfile", REG)
    assert changes and "TORCH_LOGS='+dynamo,guards' python" in new


def _values(text: str) -> list[str | None]:
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    return [s.value for s in spans]


def test_global_arg_default_is_not_read_unless_a_stage_declares_it() -> None:
    text = "ARG TORCH_LOGS=aot_g\nFROM python:3.12\nRUN python x.py\n"
    assert _values(text) == [None]  # kept for hover, never diagnosed
    assert fix_document(text, "dockerfile", REG) == (text, [])
    from torch_logs_lsp.lint.pipeline import check_text

    assert [a.diagnostics for _, a in check_text(text, "dockerfile", REG) if a] == []
    # `ARG TORCH_LOGS` in a stage inherits the global default: it reaches that RUN
    again = "ARG TORCH_LOGS=aot_g\nFROM python:3.12\nARG TORCH_LOGS\nRUN python x.py\n"
    assert _values(again) == ["aot_g"]
    # a stage default of its own does not take the global one
    own = "ARG TORCH_LOGS=aot_g\nFROM python:3.12\nARG TORCH_LOGS=+dynamo\n"
    assert _values(own) == [None, "+dynamo"]
    # inside a stage, ARG with a default is in scope as before
    assert _values("FROM x\nARG TORCH_LOGS=aot_g\nRUN p\n") == ["aot_g"]


POSIX_SHELLS = [
    ["/bin/bash", "-c"],
    ["/bin/sh", "-c"],
    ["bash", "-o", "pipefail", "-c"],
    ["/bin/sh", "-ec"],
]
OTHER_SHELLS = [
    ["pwsh", "-c"],
    ["powershell", "-command"],
    ["cmd", "/S", "/C"],
    ["python3", "-c"],
    ["bash", "-o", "-c"],  # -o takes "-c" as its argument
    ["bash"],
]


@pytest.mark.parametrize("shell", POSIX_SHELLS)
def test_posix_shell_instruction_keeps_run_read(shell: list[str]) -> None:
    import json

    text = f"FROM x\nSHELL {json.dumps(shell)}\nRUN TORCH_LOGS=aot_g python x.py\n"
    assert _values(text) == ["aot_g"]
    if shutil.which(shell[0]):  # the array plus the command line runs it as shell code
        line = 'TORCH_LOGS=aot_g; printf %s "$TORCH_LOGS"'
        out = subprocess.run(
            [*shell, line], capture_output=True, text=True, check=False, cwd=scratch_dir()
        )
        assert out.stdout == "aot_g"


@pytest.mark.parametrize("shell", OTHER_SHELLS)
def test_other_shell_instruction_stops_reading_run(shell: list[str]) -> None:
    import json

    text = f"FROM x\nSHELL {json.dumps(shell)}\nRUN TORCH_LOGS=aot_g python x.py\n"
    assert _values(text) == []


def test_shell_is_per_stage() -> None:
    text = (
        'FROM x AS win\nSHELL ["pwsh", "-c"]\nRUN TORCH_LOGS=a p\n'
        "FROM x\nRUN TORCH_LOGS=b p\n"  # a new stage: /bin/sh -c again
        "FROM win AS child\nRUN TORCH_LOGS=c p\n"  # from the pwsh stage: its shell
        'SHELL ["/bin/bash", "-c"]\nRUN TORCH_LOGS=d p\n'
        "FROM child\nRUN TORCH_LOGS=e p\n"  # from the stage after its SHELL: bash
        "FROM WIN\nRUN TORCH_LOGS=f p\n"  # addState looks the base up as written: an image
        "ARG B=win\nFROM $B\nRUN TORCH_LOGS=g p\n"  # may name the pwsh stage: not read
    )
    assert _values(text) == ["b", "d", "e", "f"]


# `RUN <<EOF bash`: BuildKit gives /bin/sh the rebuilt script; sh runs bash with the body
# as its stdin, and bash reads a script from stdin. (command words, body, reported values)
STDIN_SCRIPTS: list[tuple[str, str, list[str]]] = [
    ("<<EOF bash", "TORCH_LOGS=aot_g printenv TORCH_LOGS", ["aot_g"]),
    ("<<EOF sh", "TORCH_LOGS=aot_g printenv TORCH_LOGS", ["aot_g"]),
    ("<<EOF bash -e", "TORCH_LOGS=aot_g printenv TORCH_LOGS", ["aot_g"]),
    ("/bin/bash -o pipefail <<'EOF'", "TORCH_LOGS='a$b' printenv TORCH_LOGS", ["a$b"]),
    # unquoted delimiter: sh expands the body first, bash reads what is left: not read
    ("bash <<EOF", "TORCH_LOGS='a$b' printenv TORCH_LOGS", []),
    # stdin is no script: `-c` takes an operand, a script file reads stdin as data
    ("<<EOF bash -c 'cat'", "TORCH_LOGS=aot_g printenv TORCH_LOGS", []),
    ("<<EOF bash /dev/stdin-not", "TORCH_LOGS=aot_g printenv TORCH_LOGS", []),
    ("3<<EOF bash", "TORCH_LOGS=aot_g printenv TORCH_LOGS", []),  # fd 3, not stdin
]


@pytest.mark.parametrize(("words", "body", "expected"), STDIN_SCRIPTS)
def test_heredoc_as_a_shells_stdin_is_a_script(words: str, body: str, expected: list[str]):
    text = f"FROM x\nRUN {words}\n{body}\nEOF\n"
    assert _values(text) == expected
    if shutil.which("bash") and shutil.which("sh") and "$" not in body:
        # dispatchRun's rebuilt script, run by /bin/sh -c as withShell does
        script = f"{words}\n{body}\nEOF"
        out = subprocess.run(
            ["sh", "-c", script],
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
            cwd=scratch_dir(),
        ).stdout
        if expected:
            assert out.strip() == expected[0]  # the body ran as bash's script
        else:
            assert out.strip() != "aot_g"  # it did not
