"""A long value in the editor: at most 100 diagnostics and one TL901 summary, each message
quoting at most an excerpt, on open and after an edit (each message once quoted the whole
24 KB value: 19.5 s and 804 MB per keystroke)."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

URI = "file:///work/project/long.env"
LONG_24K = "+a." * 8000 + "b"


async def test_long_value_diagnostics_are_capped(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, f"TORCH_LOGS={LONG_24K}\n")
    assert len(diags) == 101
    assert diags[-1].code == "TL901"
    assert diags[-1].message.startswith("7899 more problems in this value not shown")
    assert max(len(d.message) for d in diags) < 300
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=0, character=13),
                        end=types.Position(line=0, character=13),
                    ),
                    text="+",
                )
            ],
        )
    )
    diags = await wait_diagnostics(vscode, URI, 2)
    assert len(diags) == 101 and diags[-1].message.startswith("7900 more problems")
