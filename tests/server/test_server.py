"""End-to-end: completion, hover and diagnostics in each host kind over stdio."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

ENV_URI = "file:///work/project/.env"
LAUNCH_URI = "file:///work/project/.vscode/launch.json"
SH_URI = "file:///work/project/scripts/run.sh"
NOEXT_URI = "file:///work/project/scripts/run"


def codes(diags: list[types.Diagnostic]) -> list[tuple[str, int, int, int]]:
    return [
        (str(d.code), d.range.start.line, d.range.start.character, d.range.end.character)
        for d in diags
    ]


async def test_dotenv_diagnostics(vscode: LanguageClient):
    text = "# comment\nTORCH_LOGS=aot_g\nOTHER=1\n"
    diags = await open_and_wait(vscode, ENV_URI, text)
    assert codes(diags) == [("TL201", 1, 11, 16)]
    (d,) = diags
    assert d.source == "torch-logs"
    assert d.severity == types.DiagnosticSeverity.Error
    assert "aot_graphs" in d.message
    assert d.data == {"suggestions": ["aot_graphs", "aot_graphs_effects", "aot"]}


async def test_launch_json_diagnostics_with_escapes(vscode: LanguageClient):
    text = (
        '{\n  // debug\n  "configurations": [\n'
        '    {"name": "a", "env": {"TORCH_LOGS": "\\"dynamo\\""}},\n'
        '    {"name": "b", "env": {"TORCH_LOGS": "\\u002bdynamo,-guards",},},\n'
        "  ]\n}\n"
    )
    diags = await open_and_wait(vscode, LAUNCH_URI, text)
    line3 = text.splitlines()[3]
    q = line3.index('"\\"dynamo')
    line4 = text.splitlines()[4]
    g = line4.index("-guards")
    assert codes(diags) == [
        # one finding over the pair (the escaped quote \" is two document characters)
        ("TL107", 3, q + 1, q + 11),
        ("TL301", 4, g, g + 1),
    ]


async def test_shell_diagnostics_and_no_error_for_expansions(vscode: LanguageClient):
    text = (
        "#!/bin/bash\n"
        'export TORCH_LOGS="+dynamo ,guards"\n'
        'TORCH_LOGS="$LOGS" python train.py\n'
        "TORCH_LOGS=${X:-aot_g} python train.py\n"
        "TORCH_LOGS=+dynamo,guards,output_code python train.py\n"
    )
    diags = await open_and_wait(vscode, SH_URI, text)
    # TL411: the information hint that output_code is long without TORCH_LOGS_OUT
    assert codes(diags) == [("TL102", 1, 26, 27), ("TL411", 4, 26, 37)]


async def test_extensionless_shell_script_detected_by_shebang(vscode: LanguageClient):
    diags = await open_and_wait(vscode, NOEXT_URI, "#!/usr/bin/env bash\nTORCH_LOGS=help x\n")
    assert codes(diags) == [("TL002", 1, 11, 15)]


async def test_unknown_file_kind_gets_nothing(vscode: LanguageClient):
    diags = await open_and_wait(vscode, "file:///work/notes.txt", "TORCH_LOGS=aot_g\n")
    assert diags == []


async def test_diagnostics_follow_changes_and_clear_on_close(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "TORCH_LOGS=dynamo\n")
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=ENV_URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=0, character=17),
                        end=types.Position(line=0, character=17),
                    ),
                    text=",",
                )
            ],
        )
    )
    diags = await wait_diagnostics(vscode, ENV_URI, 2)
    assert codes(diags) == [("TL104", 0, 17, 18)]
    vscode.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=ENV_URI))
    )
    params = await vscode.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert params.uri == ENV_URI and list(params.diagnostics) == []


async def complete(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


@pytest.mark.parametrize(
    ("uri", "text", "line", "character", "partial"),
    [
        (ENV_URI, "TORCH_LOGS=+dyn\n", 0, 15, (12, 15)),
        (ENV_URI, 'TORCH_LOGS="+dynamo,gua"\n', 0, 23, (20, 23)),
        (ENV_URI, "TORCH_LOGS=\n", 0, 11, (11, 11)),
        (ENV_URI, "TORCH_LOGS=+dynamo, \n", 0, 19, (19, 19)),  # dotenv strips the blank
        (SH_URI, "export TORCH_LOGS='+dyn'\n", 0, 23, (20, 23)),
        (SH_URI, 'TORCH_LOGS="dynamo,-ind" python x.py\n', 0, 23, (20, 23)),
        (LAUNCH_URI, '{"configurations": [{"env": {"TORCH_LOGS": "+dyn"}}]}', 0, 48, (45, 48)),
    ],
)
async def test_completion_replaces_the_partial_name(
    vscode: LanguageClient, uri: str, text: str, line: int, character: int, partial: tuple
):
    await open_and_wait(vscode, uri, text)
    result = await complete(vscode, uri, line, character)
    assert isinstance(result, types.CompletionList)
    by_label = {i.label: i for i in result.items}
    assert {"dynamo", "guards", "output_code", "all"} <= set(by_label)
    assert "custom_format_test_artifact" not in by_label
    item = by_label["dynamo"]
    assert isinstance(item.text_edit, types.TextEdit)
    r = item.text_edit.range
    assert (r.start.line, r.start.character, r.end.character) == (line, *partial)
    assert item.kind == types.CompletionItemKind.Module
    assert by_label["output_code"].label_details is not None
    assert "off by default" in (by_label["output_code"].label_details.description or "")


async def test_completion_ranks_used_names_last(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "TORCH_LOGS=dynamo,\n")
    result = await complete(vscode, ENV_URI, 0, 18)
    assert isinstance(result, types.CompletionList)
    ranked = sorted(result.items, key=lambda i: i.sort_text or "")
    assert ranked[-1].label == "dynamo"
    assert ranked[0].label == "recompiles"  # the most used name after dynamo (knowledge/usage.py)


async def test_no_completion_outside_a_value(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "OTHER=dyn\nTORCH_LOGS=dynamo\n")
    assert await complete(vscode, ENV_URI, 0, 9) is None
    assert await complete(vscode, ENV_URI, 1, 3) is None


async def hover(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


async def test_hover_on_items_and_variable(vscode: LanguageClient):
    await open_and_wait(vscode, SH_URI, "export TORCH_LOGS=+dynamo,guards\n")
    h = await hover(vscode, SH_URI, 0, 28)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.Markdown
    assert "**guards**" in h.contents.value and "artifact" in h.contents.value
    assert (h.range.start.character, h.range.end.character) == (26, 32)
    h = await hover(vscode, SH_URI, 0, 20)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "DEBUG" in h.contents.value and "torch._dynamo" in h.contents.value
    h = await hover(vscode, SH_URI, 0, 10)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "| `torch._dynamo` | DEBUG |" in h.contents.value
    assert "`guards`" in h.contents.value


async def test_emoji_before_the_value_utf16(vscode: LanguageClient):
    text = '{"configurations": [{"name": "🙂🙂", "env": {"TORCH_LOGS": "aot_g"}}]}'
    diags = await open_and_wait(vscode, LAUNCH_URI, text)
    col = text.index("aot_g") + 2  # each emoji is two UTF-16 code units
    assert codes(diags) == [("TL201", 0, col, col + 5)]
    h = await hover(vscode, LAUNCH_URI, 0, col + 1)
    assert h is not None and h.range is not None
    assert h.range.start.character == col


async def test_emoji_before_the_value_utf8(utf8_client: LanguageClient):
    text = "# é🙂\nexport A='é🙂' TORCH_LOGS=aot_g\n"
    diags = await open_and_wait(utf8_client, SH_URI, text)
    line = text.splitlines()[1]
    col = len(line[: line.index("aot_g")].encode("utf-8"))
    assert codes(diags) == [("TL201", 1, col, col + 5)]
    result = await complete(utf8_client, SH_URI, 1, col + 3)
    assert isinstance(result, types.CompletionList) and result.items
    edit = result.items[0].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (col, col + 5)


async def test_plaintext_hover_in_russian(plaintext_client: LanguageClient):
    await open_and_wait(plaintext_client, ENV_URI, "TORCH_LOGS=guards\n")
    h = await hover(plaintext_client, ENV_URI, 0, 13)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.PlainText
    assert "**" not in h.contents.value
    assert "артефакт" in h.contents.value and "защитные условия" in h.contents.value


async def test_settings_override_severity_and_locale(vscode: LanguageClient):
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"torchLogs": {"severity": {"TL301": "off"}, "locale": "ru"}}
        )
    )
    diags = await open_and_wait(vscode, ENV_URI, "TORCH_LOGS=-guards,aot_g\n")
    assert codes(diags) == [("TL201", 0, 19, 24)]
    h = await hover(vscode, ENV_URI, 0, 14)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "артефакт" in h.contents.value


async def test_status_request_names_the_release_and_its_source(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "# torch-logs: torch=2.4\nTORCH_LOGS=dynamo\n")
    result = await vscode.protocol.send_request_async(
        "torchLogs/status", {"textDocument": {"uri": ENV_URI}}
    )
    assert result.release == "2.4"
    assert "pin comment" in result.how
    missing = await vscode.protocol.send_request_async(
        "torchLogs/status", {"textDocument": {"uri": "file:///not/open.env"}}
    )
    assert missing is None


async def test_wrong_python_setting_is_shown_to_the_user(vscode: LanguageClient):
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {"python": "/no/such/python"}})
    )
    params = await vscode.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert "/no/such/python" in params.message
    assert params.type == types.MessageType.Warning
