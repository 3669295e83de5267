"""End to end: the TORCH_LOGS family of variables through the language server
(diagnostics, completion of names, fields and named formats, hover with releases)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

ENV_URI = "file:///work/family/.env"
LAUNCH_URI = "file:///work/family/.vscode/launch.json"
SH_URI = "file:///work/family/run.sh"


async def complete(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


async def test_family_diagnostics_completion_and_hover(vscode: LanguageClient):
    text = (
        "# torch-logs: torch=2.13\n"
        "TORCH_LOGS_FORMAT=%(message)\n"
        "TORCH_LOGS_TRACE_ID_FILTER=0/0\n"
        "TORCH_\n"
        "TORCH_LOGS_OUT=/nonexistent-dir-for-tests/x.log\n"
    )
    diags = await open_and_wait(vscode, ENV_URI, text)
    got = sorted((str(d.code), d.range.start.line, d.range.start.character) for d in diags)
    # no TL402: no workspace folder, so an absolute path is not judged (test_created_paths_lsp)
    assert got == [("TL401", 1, 18), ("TL404", 2, 27), ("TL412", 2, 27)]
    severities = {str(d.code): d.severity for d in diags}
    assert severities["TL412"] == types.DiagnosticSeverity.Information

    names = await complete(vscode, ENV_URI, 3, 6)
    assert isinstance(names, types.CompletionList)
    assert [i.label for i in names.items][:6] == [  # then torch's compile knobs (TORCH_...)
        "TORCH_LOGS",
        "TORCH_LOGS_OUT",
        "TORCH_LOGS_FORMAT",
        "TORCH_TRACE",
        "TORCH_LOGS_TRACE_ID_FILTER",
        "TORCH_COMPILE_DEBUG",
    ]
    assert all(i.label.startswith("TORCH_") for i in names.items[6:])
    edit = names.items[0].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (0, 6)

    fields = await complete(vscode, ENV_URI, 1, 20)  # after `%(`
    assert isinstance(fields, types.CompletionList)
    by_label = {i.label: i for i in fields.items}
    assert {"levelname", "message", "name", "asctime"} <= set(by_label)
    assert isinstance(by_label["levelname"].text_edit, types.TextEdit)
    assert by_label["levelname"].text_edit.new_text == "levelname"  # `)` follows already

    h = await vscode.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=ENV_URI),
            position=types.Position(line=4, character=3),
        )
    )
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "stderr" in h.contents.value and "since 2.3" in h.contents.value


@pytest.mark.parametrize(
    ("uri", "text", "line", "character"),
    [
        (LAUNCH_URI, '{"configurations": [{"env": {"TORCH_', 0, 36),
        (SH_URI, "#!/bin/bash\nexport TORCH_\n", 1, 13),
    ],
)
async def test_variable_names_in_env_objects_and_shell(
    vscode: LanguageClient, uri: str, text: str, line: int, character: int
):
    await open_and_wait(vscode, uri, text)
    result = await complete(vscode, uri, line, character)
    assert isinstance(result, types.CompletionList)
    assert "TORCH_LOGS_TRACE_ID_FILTER" in {i.label for i in result.items}


async def test_no_variable_names_outside_env_or_in_a_command(vscode: LanguageClient):
    text = '{"configurations": [{"name": "x", "TORCH_'
    await open_and_wait(vscode, LAUNCH_URI, text)
    assert await complete(vscode, LAUNCH_URI, 0, len(text)) is None
    await open_and_wait(vscode, SH_URI, "#!/bin/bash\necho TORCH_\n")
    assert await complete(vscode, SH_URI, 1, 11) is None


async def test_named_formats_completed(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "TORCH_LOGS_FORMAT=sh\n")
    result = await complete(vscode, ENV_URI, 0, 20)
    assert isinstance(result, types.CompletionList)
    assert [i.label for i in result.items] == ["short", "basic"]


async def test_hover_on_a_format_field(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "TORCH_LOGS_FORMAT=%(levelname)s %(message)s\n")
    h = await vscode.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=ENV_URI),
            position=types.Position(line=0, character=22),
        )
    )
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "levelname" in h.contents.value and "DEBUG" in h.contents.value
    assert (h.range.start.character, h.range.end.character) == (20, 29)


async def test_output_code_hint_follows_where_stderr_goes(vscode: LanguageClient):
    # TL411 is not given while the command keeps its stderr; an edit that drops the
    # capture brings it back (and the server's incremental reading agrees with a fresh one)
    uri = "file:///work/family/capture.sh"
    kept = "echo start\nTORCH_LOGS=output_code python train.py 2>&1 | tee log.txt\n"
    assert await open_and_wait(vscode, uri, kept) == []
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text=kept.replace(" 2>&1", ""))
            ],
        )
    )
    diags = await wait_diagnostics(vscode, uri, 2)
    assert [(str(d.code), d.range.start.line, d.range.start.character) for d in diags] == [
        ("TL411", 1, 11)
    ]
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="# x\n" + kept)],
        )
    )
    assert await wait_diagnostics(vscode, uri, 3) == []
