"""End-to-end: TL431 published as a hint by a real server, and its quick fix (set
``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` for the same process) applied through the LSP:
the hint is gone in the next version and the host's real reader sees both variables."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from tests.support.oracles import read_torch_logs

TITLE = "Set TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 (compile every run: logs print again)"

DOCS = {
    "dotenv": (
        "file:///work/project/warm/.env",
        "# torch-logs: torch=2.13\nA=1\r\nTORCH_LOGS=+dynamo,post_grad_graphs\r\n",
    ),
    "shell": (
        "file:///work/project/warm/run.sh",
        "#!/bin/bash\n# torch-logs: torch=2.13\nexport TORCH_LOGS=+dynamo,post_grad_graphs\n",
    ),
    "jsonc": (
        "file:///work/project/warm/.vscode/launch.json",
        '{\n  // torch-logs: torch=2.13\n  "configurations": [\n    {"name": "a", "env": {\n'
        '      "TORCH_LOGS": "+dynamo,post_grad_graphs"\n    }}\n  ]\n}\n',
    ),
}


@pytest.mark.oracle
@pytest.mark.parametrize("host", ["dotenv", "shell", "jsonc"])
async def test_hint_and_quick_fix(vscode: LanguageClient, host: str) -> None:
    uri, text = DOCS[host]
    diags = await open_and_wait(vscode, uri, text)
    [hint] = [d for d in diags if d.code == "TL431"]
    assert hint.severity == types.DiagnosticSeverity.Hint
    row = text.splitlines()[hint.range.start.line]
    assert row[hint.range.start.character : hint.range.end.character] == "post_grad_graphs"
    found = {a.title: a for a in await actions(vscode, uri, hint.range, [hint])}
    action = found[TITLE]
    assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
    assert list(action.diagnostics or ()) == [hint]
    new = apply(text, uri, action.edit)
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHES" in new
    assert "TL431" not in await change(vscode, uri, new, 2)
    assert read_torch_logs(host, new) == "+dynamo,post_grad_graphs"


async def test_no_action_when_the_code_is_off_by_only(vscode: LanguageClient) -> None:
    uri, text = DOCS["dotenv"]
    uri = uri.replace("/warm/", "/warm2/")
    diags = await open_and_wait(vscode, uri, text)
    [hint] = [d for d in diags if d.code == "TL431"]
    refactors = await actions(vscode, uri, hint.range, [hint], only=["refactor"])
    assert TITLE not in [a.title for a in refactors]
