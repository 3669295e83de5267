"""End to end: TL502 through the real server (UTF-16 range after an emoji, faded with the
Unnecessary tag, gone once a command stands between the two assignments)."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

URI = "file:///work/sh/run.sh"
FIRST = 'echo "😀"; export TORCH_LOGS="+recompiles"'
TEXT = FIRST + '\nexport TORCH_LOGS="+graph_breaks"\n'


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def test_overwritten_value_hint(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT, "shellscript")
    by_code = {d.code: d for d in diags}
    assert sorted(by_code) == ["TL301", "TL502"]
    dead = by_code["TL502"]
    start = utf16(FIRST[: FIRST.index("+recompiles")])
    assert dead.range == types.Range(
        start=types.Position(line=0, character=start),
        end=types.Position(line=0, character=start + len("+recompiles")),
    )
    assert dead.severity == types.DiagnosticSeverity.Hint
    assert list(dead.tags or ()) == [types.DiagnosticTag.Unnecessary]
    assert "(line 2)" in dead.message
    assert by_code["TL301"].range.start.line == 1  # only the live value's effect

    # hovering the dead variable's name: no outcome claimed, the hint instead
    at_name = types.Position(line=0, character=utf16(FIRST[: FIRST.index("TORCH_LOGS")]) + 2)
    hover = await vscode.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=at_name)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "never reaches a process" in hover.contents.value
    assert "accepts this value" not in hover.contents.value  # the outcome line is gone

    # a command between the two: both values reach a process
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=1, character=0),
                        end=types.Position(line=1, character=0),
                    ),
                    text="python a.py\n",
                )
            ],
        )
    )
    diags = await wait_diagnostics(vscode, URI, 2)
    assert sorted((d.code, d.range.start.line) for d in diags) == [("TL301", 0), ("TL301", 2)]
