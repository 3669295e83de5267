"""End to end: a Python document through the language server (diagnostics at the right
UTF-16 range after an emoji and an escape, hover and completion in a string value)."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics
from tests.server.test_code_actions import apply

URI = "file:///work/py/train.py"
LINE = 'tag = "😀"; os.environ["TORCH_LOGS"] = "\\x2bdynamo,aot_g"'
TEXT = "# torch-logs: torch=2.13\nimport os\n" + LINE + "\nimport torch\n"


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def test_python_value_diagnostic_hover_and_completion(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT, "python")
    (diag,) = diags
    assert diag.code == "TL201"
    start = utf16(LINE[: LINE.index("aot_g")])
    assert diag.range == types.Range(
        start=types.Position(line=2, character=start),
        end=types.Position(line=2, character=start + 5),
    )

    at_dynamo = types.Position(line=2, character=utf16(LINE[: LINE.index("dynamo")]) + 2)
    hover = await vscode.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=at_dynamo)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "dynamo" in hover.contents.value

    end = types.Position(line=2, character=start + 5)
    items = await vscode.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=URI), position=end)
    )
    assert isinstance(items, types.CompletionList)
    by_label = {i.label: i for i in items.items}
    edit = by_label["aot_graphs"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert edit.range == diag.range  # replaces exactly `aot_g`, inside the quotes


async def test_untitled_python_document(vscode: LanguageClient):
    diags = await open_and_wait(
        vscode, "untitled:Untitled-1", 'import os\nos.environ["TORCH_LOGS"] = ""\n', "python"
    )
    assert [d.code for d in diags] == ["TL001"]


async def test_quick_fix_keeps_the_escape(vscode: LanguageClient):
    (diag,) = await open_and_wait(vscode, URI, TEXT, "python")
    actions = await vscode.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    assert actions
    fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.edit is not None]
    assert fixes[0].title.endswith("`aot_graphs`") or "aot_graphs" in fixes[0].title
    fixed = apply(TEXT, URI, fixes[0].edit)
    assert fixed == TEXT.replace('aot_g"', 'aot_graphs"')  # the escape before it is kept


async def test_late_write_is_tl501_and_moves_with_typing(vscode: LanguageClient):
    uri = "file:///work/py/late.py"
    text = 'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
    (diag,) = await open_and_wait(vscode, uri, text, "python")
    assert diag.code == "TL501" and diag.severity == types.DiagnosticSeverity.Warning
    assert "line 2" in diag.message
    assert (diag.range.start.line, diag.range.start.character) == (2, 28)
    # typing inside the value (the shortcut that does not parse) keeps the finding
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=2, character=29),
                        end=types.Position(line=2, character=29),
                    ),
                    text="x",
                )
            ],
        )
    )
    diags = await wait_diagnostics(vscode, uri, 2)
    assert sorted(str(d.code) for d in diags) == ["TL201", "TL501"]


async def test_completion_before_the_closing_quote_is_typed(vscode: LanguageClient):
    uri = "file:///work/py/typing.py"
    text = 'import os\nos.environ["TORCH_LOGS"] = "+dyn'
    assert await open_and_wait(vscode, uri, text, "python") == []  # still typing: silent
    items = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=len('os.environ["TORCH_LOGS"] = "+dyn')),
        )
    )
    assert isinstance(items, types.CompletionList)
    edit = {i.label: i for i in items.items}["dynamo"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (29, 32)


async def test_variable_names_in_a_key_string(vscode: LanguageClient):
    uri = "file:///work/py/keys.py"
    text = 'import os\nos.environ["TORCH_"] = "x"\n'
    await open_and_wait(vscode, uri, text, "python")
    items = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=18),
        )
    )
    assert isinstance(items, types.CompletionList)
    assert items.items[0].label == "TORCH_LOGS"
    edit = items.items[0].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (12, 18)


async def test_set_logs_call_diagnostics_in_utf16(vscode: LanguageClient):
    uri = "file:///work/py/logs.py"
    line = (
        'tag = "😀"; torch._logging.set_logs(loop_ordering=True); '
        "torch._logging.set_logs(dynamo=True)"
    )
    text = "# torch-logs: torch=2.13\nimport torch\n" + line + "\n"
    diags = await open_and_wait(vscode, uri, text, "python")
    got = sorted(
        (d.code, d.range.start.line, d.range.start.character, d.range.end.character) for d in diags
    )
    kw, value = utf16(line[: line.index("loop_ordering")]), utf16(line[: line.rindex("True")])
    assert got == [("TL602", 2, kw, kw + 13), ("TL611", 2, value, value + 4)]
    assert all(d.source == "torch-logs" for d in diags)
