"""``torchLogs/status`` answers for an environment whose ``_registrations.py`` is hostile:
the packaged registry of its release, not an internal error (-32603)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.support.hostile import HOSTILE, fake_torch_env, installed_registrations

URI = "file:///work/project/.env"


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return fake_torch_env(tmp_path_factory.mktemp("hostile-lsp"))


@pytest.mark.parametrize("case", ["chain", "nesting", "nesting_in_call", "null_bytes", "deep_list"])
async def test_status_falls_back_to_the_packaged_registry(
    vscode: LanguageClient, fake_env: tuple[str, Path], case: str
):
    python, registrations = fake_env
    registrations.write_text(installed_registrations() + HOSTILE[case][0], encoding="utf-8")
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {"python": python}})
    )
    vscode.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=URI, language_id="dotenv", version=1, text="TORCH_LOGS=+dynamo,ddp\n"
            )
        )
    )
    result = await vscode.protocol.send_request_async(
        "torchLogs/status", {"textDocument": {"uri": URI}}
    )
    assert (result.release, result.version, result.python) == ("2.4", None, python)
