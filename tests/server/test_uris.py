"""Documents whose URI has percent-escapes (a space, a non-ASCII folder, VS Code's
``c%3a`` drive letter) are answered under the URI exactly as the client sent it.

pygls stores open documents under the decoded URI; the server checked ``uri in
workspace.text_documents`` with the client's URI, so after any ``didChange`` nothing was
published, and ``didChangeConfiguration`` published under the decoded URI, which is not
the client's document.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

#: Seconds any single wait may take.
WAIT = 30


@pytest.mark.parametrize(
    "uri",
    [
        "file:///tmp/my%20proj/.env",
        "file:///tmp/caf%C3%A9/.env",
        "file:///c%3a/proj/.env",
    ],
)
async def test_escaped_uri_gets_diagnostics_after_changes(vscode: LanguageClient, uri: str):
    first = await asyncio.wait_for(open_and_wait(vscode, uri, "TORCH_LOGS=+dynamo\n"), WAIT)
    assert first == []
    at = types.Position(line=0, character=18)
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text="o"
                )
            ],
        )
    )
    second = await asyncio.wait_for(wait_diagnostics(vscode, uri, 2), WAIT)
    assert [d.code for d in second] == ["TL201"]
    # a configuration change publishes again, under the client's URI
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {}})
    )
    params: types.PublishDiagnosticsParams = await asyncio.wait_for(
        vscode.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT
    )
    assert (params.uri, params.version) == (uri, 2)
    assert [d.code for d in params.diagnostics] == ["TL201"]
