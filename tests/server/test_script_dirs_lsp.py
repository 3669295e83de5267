"""Through the server: module names of a document are looked for where its script starts
(the document's directory first), for diagnostics, hover and completion alike."""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait


def _configure(client: LanguageClient, settings: dict[str, object]) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": settings})
    )


async def test_a_package_beside_the_script(vscode: LanguageClient, tmp_path: Path):
    proj = tmp_path / "proj"
    (proj / "mypkg").mkdir(parents=True)
    (proj / "mypkg" / "__init__.py").write_text("")
    (proj / "mypkg" / "model.py").write_text("")
    text = "TORCH_LOGS=+mypkg.model,+mypkg.nothere python train.py\n"
    (proj / "train.sh").write_text(text)
    uri = (proj / "train.sh").as_uri()
    _configure(vscode, {"python": sys.executable})
    diags = await open_and_wait(vscode, uri, text)
    assert [(d.code, d.severity) for d in diags] == [
        ("TL202", types.DiagnosticSeverity.Hint),  # mypkg.model: a module, found
        ("TL204", types.DiagnosticSeverity.Error),  # mypkg.nothere
    ], diags
    assert str(proj / "mypkg" / "model.py") in diags[0].message
    assert diags[1].message.startswith("`mypkg.nothere`")
    hover = await vscode.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=15),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert str(proj / "mypkg" / "model.py") in hover.contents.value
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=18),  # after "+mypkg."
        )
    )
    assert isinstance(result, types.CompletionList)
    assert "model" in {i.label for i in result.items}
