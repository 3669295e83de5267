"""TL408 through the real server: a misspelled variable name is reported on the name and
its quick fix renames it; the renamed document is then read by the host's real reader."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from tests.support.oracles import BASH, read_torch_logs

MESSAGE = "torch does not read `TORCH_LOG`; did you mean `TORCH_LOGS`?"

DOCS = {
    "shell": ("file:///work/p/run.sh", "#!/bin/bash\n# 🙂\nexport TORCH_LOG=perf_hints\n"),
    "dotenv": ("file:///work/p/.env", "# 🙂\r\nTORCH_LOG=perf_hints\r\n"),
    "jsonc": (
        "file:///work/p/.vscode/launch.json",
        '{"configurations": [{"name": "🙂", "env": {"TORCH_LOG": "perf_hints"}}]}\n',
    ),
    "python": (
        "file:///work/p/train.py",
        'import os  # 🙂\nos.environ["TORCH_LOG"] = "perf_hints"\n',
    ),
}


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("host", list(DOCS))
async def test_misspelled_name_and_its_rename(vscode: LanguageClient, host: str):
    uri, text = DOCS[host]
    diags = await open_and_wait(vscode, uri, text)
    (target,) = [d for d in diags if d.code == "TL408"]
    assert target.message == MESSAGE
    assert target.severity == types.DiagnosticSeverity.Warning
    row = text.splitlines()[target.range.start.line]
    col = row.index("TORCH_LOG") + (1 if "🙂" in row else 0)  # 🙂 is two UTF-16 units
    assert (target.range.start.character, target.range.end.character) == (col, col + 9)
    found = await actions(vscode, uri, target.range, [target])
    assert [a.title for a in found] == ["Rename to `TORCH_LOGS`", "Ignore TL408 on this line"]
    assert found[0].kind == types.CodeActionKind.QuickFix and found[0].is_preferred
    assert list(found[0].diagnostics or []) == [target]
    # not offered when only refactors are asked for
    assert await actions(vscode, uri, target.range, [target], only=["refactor"]) == []
    new = apply(text, uri, found[0].edit)
    assert "TL408" not in await change(vscode, uri, new, 2)
    if host != "python":
        assert read_torch_logs(host, new) == "perf_hints"
        assert read_torch_logs(host, text) is None


async def test_names_torch_reads_are_not_reported(vscode: LanguageClient):
    uri = "file:///work/p/job.sh"
    text = "export TORCH_COMPILE_DEBUG_DIR=/tmp/d TORCHINDUCTOR_CACHE_DIR=/tmp/c TORCH_HOME=/h\n"
    assert await open_and_wait(vscode, uri, text) == []
