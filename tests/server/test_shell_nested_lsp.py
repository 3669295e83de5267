"""Values that reach a process through another command, through the real server: a
``bash -c`` script (exact range inside the quotes, a quick fix encoded for both quotings
and checked by running bash) and ``docker run -e`` (the container's environment)."""

from __future__ import annotations

import os
import subprocess

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from tests.support.oracles import BASH


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
async def test_bash_c_script_value_and_its_fix(vscode: LanguageClient):
    uri = "file:///work/project/nested/run.sh"
    line = "srun -N 1 bash -c 'TORCH_LOGS=aot_g python x.py'\n"
    text = "#!/bin/bash\n# 🙂 a comment\n" + line
    diags = await open_and_wait(vscode, uri, text)
    assert [str(d.code) for d in diags] == ["TL201"]
    target = diags[0]
    start = line.index("aot_g")
    assert (target.range.start.line, target.range.start.character) == (2, start)
    assert (target.range.end.line, target.range.end.character) == (2, start + len("aot_g"))
    found = await actions(vscode, uri, target.range, [target])
    by_title = {a.title: a for a in found}
    action = by_title["Change to `aot_graphs`"]
    assert action.kind == types.CodeActionKind.QuickFix
    new = apply(text, uri, action.edit)
    assert new.splitlines()[2] == "srun -N 1 bash -c 'TORCH_LOGS=aot_graphs python x.py'"
    assert await change(vscode, uri, new, 2) == []
    # bash runs the fixed script (srun and python replaced by what prints the variable)
    assert BASH is not None
    probe = (
        new.splitlines()[2].replace("srun -N 1 ", "").replace("python x.py", "printenv TORCH_LOGS")
    )
    out = subprocess.run(
        [BASH, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    assert out.stdout == "aot_graphs\n"


async def test_docker_run_env_value(vscode: LanguageClient):
    """torch 2.13 rejects ``TORCH_LOGS=Dynamo`` (names are case-sensitive; checked by
    tests/value/test_torch_oracle.py's unknown-name cases): TL201 on the container's value,
    nothing on ``-e TORCH_LOGS`` (the caller's value) or after an unknown option."""
    uri = "file:///work/project/nested/docker.sh"
    text = (
        "docker run --rm -e TORCH_LOGS=Dynamo img python t.py\n"
        "docker run -e TORCH_LOGS img\n"
        "docker run --brand-new-flag -e TORCH_LOGS=Dynamo img\n"
    )
    diags = await open_and_wait(vscode, uri, text)
    assert [(str(d.code), d.range.start.line, d.range.start.character) for d in diags] == [
        ("TL201", 0, text.index("Dynamo"))
    ]
    assert "Dynamo" in diags[0].message
    found = await actions(vscode, uri, diags[0].range, [diags[0]])
    titles = [a.title for a in found]
    assert "Change to `dynamo`" in titles
    assert not any(t.startswith(("Remove `TORCH_LOGS=`", "Replace with `unset")) for t in titles)
    new = apply(text, uri, next(a for a in found if a.title == "Change to `dynamo`").edit)
    assert new.splitlines()[0] == "docker run --rm -e TORCH_LOGS=dynamo img python t.py"
    assert await change(vscode, uri, new, 2) == []
