"""End to end: TL632 on a Python document's set_logs call appears and disappears as the
workspace folder's launch.json changes, in the editor (an open launch.json wins over the
disk) and on disk (workspace/didChangeWatchedFiles, registered by the server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.conftest import SERVER, open_and_wait

SCRIPT = "import logging\nimport torch\n\ntorch._logging.set_logs(dynamo=logging.DEBUG)\n"
LINKED = (
    '{\n  "configurations": [\n    {\n      "name": "Train",\n      "type": "debugpy",\n'
    '      "request": "launch",\n      "program": "${workspaceFolder}/train.py",\n'
    '      "env": { "TORCH_LOGS": "+dynamo" },\n    },\n  ],\n}\n'
)
UNLINKED = LINKED.replace('"TORCH_LOGS": "+dynamo"', '"OTHER": "1"')


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    """A VS Code-like client with the workspace folder ``tmp_path/ws`` (train.py and a
    launch.json that runs it with TORCH_LOGS set); it records registrations."""
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "train.py").write_text(SCRIPT)
    (ws / ".vscode" / "launch.json").write_text(LINKED)
    registrations: list[types.Registration] = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    lsp_client.registrations = registrations  # type: ignore[attr-defined]
    lsp_client.ws = ws  # type: ignore[attr-defined]
    folder = types.WorkspaceFolder(uri=ws.as_uri(), name="ws")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=ws.as_uri(),
            workspace_folders=[folder],
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


def codes(diags: Any) -> list[Any]:
    return [d.code for d in diags]


async def latest(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The last diagnostics published for ``uri`` once the server has handled every
    message sent so far: a request's answer comes after the notifications its earlier
    messages caused (one pipe, in order; the refresh is published while the server handles
    the change itself). Waiting for the notification instead can miss one that arrives
    right behind another document's."""
    await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    return list(client.diagnostics.get(uri, []))


async def test_hint_follows_launch_json(client: LanguageClient):
    ws: Path = client.ws  # type: ignore[attr-defined]
    script = (ws / "train.py").as_uri()
    launch = ws / ".vscode" / "launch.json"
    diags = await open_and_wait(client, script, SCRIPT, "python")
    (diag,) = diags
    assert diag.code == "TL632"
    assert diag.severity == types.DiagnosticSeverity.Information
    assert diag.range.start == types.Position(line=3, character=0)
    assert 'launch configuration "Train" (.vscode/launch.json line 8 sets' in diag.message
    (related,) = diag.related_information or []
    assert related.location.uri == launch.as_uri()
    key = LINKED.splitlines()[7].index('"TORCH_LOGS"')
    assert related.location.range == types.Range(
        start=types.Position(line=7, character=key),
        end=types.Position(line=7, character=key + len('"TORCH_LOGS"')),
    )

    # the user opens launch.json and removes TORCH_LOGS: the open text wins over the disk
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=launch.as_uri(), language_id="jsonc", version=1, text=UNLINKED
            )
        )
    )
    assert await latest(client, script) == []
    # ... and types it back
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=launch.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=LINKED)],
        )
    )
    assert codes(await latest(client, script)) == ["TL632"]

    # closed: the disk (which runs train.py with TORCH_LOGS) counts again
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=launch.as_uri())
        )
    )
    assert codes(await latest(client, script)) == ["TL632"]
    # the disk changes, the client reports it
    launch.write_text(UNLINKED)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=launch.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert await latest(client, script) == []
    watched = [
        r
        for r in client.registrations  # type: ignore[attr-defined]
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    ]
    assert len(watched) == 1  # asked for at initialized


async def test_other_diagnostics_of_the_call_stay(client: LanguageClient):
    ws: Path = client.ws  # type: ignore[attr-defined]
    text = "import torch\n\ntorch._logging.set_logs(dynamo=True)\n"
    (ws / "train.py").write_text(text)
    diags = await open_and_wait(client, (ws / "train.py").as_uri(), text, "python")
    assert sorted(codes(diags)) == ["TL611", "TL632"]


async def test_a_folder_added_later_counts(client: LanguageClient, tmp_path: Path):
    other = tmp_path / "other"
    (other / ".vscode").mkdir(parents=True)
    (other / ".vscode" / "launch.json").write_text(LINKED)
    script = other / "train.py"
    script.write_text(SCRIPT)
    assert await open_and_wait(client, script.as_uri(), SCRIPT, "python") == []
    added = types.WorkspaceFolder(uri=other.as_uri(), name="other")
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[added], removed=[])
        )
    )
    assert codes(await latest(client, script.as_uri())) == ["TL632"]
