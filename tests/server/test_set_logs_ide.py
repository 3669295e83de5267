"""End to end over stdio: completion of set_logs keywords and values, hover on keywords
and on the called name, positions after an emoji in utf-16 and utf-8, and the release
chosen by a pin comment or the torchVersion setting."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait

URI = "file:///work/py/setlogs.py"
PIN = "# torch-logs: torch=2.13\n"


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


async def complete(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


async def hover(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


def by_label(result) -> dict[str, types.CompletionItem]:
    assert isinstance(result, types.CompletionList)
    return {i.label: i for i in result.items}


async def test_keywords_in_a_half_typed_call_after_an_emoji(vscode: LanguageClient):
    line = 'tag = "😀"; torch._logging.set_logs(graph_breaks=True, dyn'
    text = PIN + "import torch\n" + line
    await open_and_wait(vscode, URI, text, "python")
    items = by_label(await complete(vscode, URI, 2, utf16(line)))
    assert "graph_breaks" not in items  # already given
    assert "loop_ordering" not in items  # a registered name, no keyword in 2.13
    dynamo = items["dynamo"]
    assert dynamo.kind == types.CompletionItemKind.Property
    assert dynamo.detail is not None and "component" in dynamo.detail
    assert "since torch 2.1" in dynamo.detail
    assert isinstance(dynamo.documentation, types.MarkupContent)
    assert dynamo.documentation.value  # the registry's description
    edit = dynamo.text_edit
    assert isinstance(edit, types.TextEdit) and edit.new_text == "dynamo="
    start = utf16(line[: line.index("dyn")])
    assert (edit.range.start.line, edit.range.start.character) == (2, start)
    assert edit.range.end.character == start + 3
    guards = items["guards"]
    assert guards.detail is not None and guards.detail.startswith("artifact")
    assert {"all", "modules"} <= set(items)


async def test_keywords_after_a_newline_and_none_in_strings(utf8_client: LanguageClient):
    text = PIN + 'import torch\nx = "é😀"; torch._logging.set_logs(\n    dynamo=10,\n    \n'
    await open_and_wait(utf8_client, URI, text, "python")
    items = by_label(await complete(utf8_client, URI, 4, 4))
    assert "dynamo" not in items and "guards" in items
    edit = items["guards"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.line, edit.range.start.character) == (4, 4)
    # inside the string before the call: no keyword completion
    result = await complete(utf8_client, URI, 2, utf8('x = "é'))
    assert not isinstance(result, types.CompletionList) or not any(
        i.label == "guards" for i in result.items
    )


async def test_values_with_and_without_import_logging(vscode: LanguageClient):
    text = '"""Doc."""\nimport torch\ntorch._logging.set_logs(dynamo=, guards=)\n'
    await open_and_wait(vscode, URI, text, "python")
    col = len("torch._logging.set_logs(dynamo=")
    result = await complete(vscode, URI, 2, col)
    assert isinstance(result, types.CompletionList)
    labels = [i.label for i in sorted(result.items, key=lambda i: i.sort_text or "")]
    assert labels[:2] == ["logging.DEBUG", "logging.INFO"] and labels[-1] == "None"
    debug = by_label(result)["logging.DEBUG"]
    assert debug.detail is not None and "`+dynamo`" in debug.detail
    (extra,) = debug.additional_text_edits or []
    assert extra.new_text == "import logging\n"
    assert (extra.range.start.line, extra.range.start.character) == (1, 0)  # after the docstring
    artifact = by_label(
        await complete(vscode, URI, 2, len("torch._logging.set_logs(dynamo=, guards="))
    )
    assert set(artifact) == {"True", "False"}

    uri = "file:///work/py/imported.py"
    text = (
        "from logging import DEBUG\nimport logging\nimport torch\ntorch._logging.set_logs(dynamo=D"
    )
    await open_and_wait(vscode, uri, text, "python")
    items = by_label(await complete(vscode, uri, 3, len("torch._logging.set_logs(dynamo=D")))
    assert "DEBUG" in items and items["DEBUG"].additional_text_edits is None
    assert "logging.INFO" in items and items["logging.INFO"].additional_text_edits is None
    edit = items["DEBUG"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (31, 32)


async def test_not_for_other_set_logs_functions(vscode: LanguageClient):
    uri = "file:///work/py/other.py"
    text = "import torch\nfrom mylib import set_logs\nset_logs(dyn"
    await open_and_wait(vscode, uri, text, "python")
    result = await complete(vscode, uri, 2, len("set_logs(dyn"))
    assert result is None or (isinstance(result, types.CompletionList) and not result.items)


async def test_release_from_pin_and_setting(vscode: LanguageClient):
    text = "# torch-logs: torch=2.4\nimport torch\ntorch._logging.set_logs("
    await open_and_wait(vscode, URI, text, "python")
    items = by_label(await complete(vscode, URI, 2, len("torch._logging.set_logs(")))
    assert "ddp" not in items and "dist_ddp" in items
    assert items["dist_ddp"].detail is not None and "2.3-2.4" in items["dist_ddp"].detail

    uri = "file:///work/py/setting.py"
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {"torchVersion": "2.4"}})
    )
    await open_and_wait(vscode, uri, "import torch\ntorch._logging.set_logs(", "python")
    items = by_label(await complete(vscode, uri, 1, len("torch._logging.set_logs(")))
    assert "ddp" not in items and "dist_ddp" in items
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {"torchVersion": "2.13"}})
    )


LINE = 'tag = "😀"; torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)'
HOVER_TEXT = PIN + "import logging\nimport torch\n" + LINE + "\n"


async def test_hover_on_keyword_and_call_utf16(vscode: LanguageClient):
    await open_and_wait(vscode, URI, HOVER_TEXT, "python")
    at = utf16(LINE[: LINE.index("dynamo")])
    h = await hover(vscode, URI, 3, at + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    value = h.contents.value
    assert "**dynamo**" in value and "component" in value
    assert "Optional[int]" in value or "int | None" in value  # torch's annotation
    assert "Since torch 2.1" in value
    assert "`+dynamo`" in value
    assert h.range == types.Range(
        start=types.Position(line=3, character=at), end=types.Position(line=3, character=at + 6)
    )
    at = utf16(LINE[: LINE.index("graph_breaks")])
    h = await hover(vscode, URI, 3, at)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "artifact" in h.contents.value and "`graph_breaks`" in h.contents.value

    at = utf16(LINE[: LINE.index("set_logs")])
    h = await hover(vscode, URI, 3, at + 3)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "Equivalent TORCH_LOGS value: `+dynamo,graph_breaks`" in h.contents.value
    start = utf16(LINE[: LINE.index("torch._logging")])
    assert h.range is not None and h.range.start.character == start
    assert h.range.end.character == at + len("set_logs")


async def test_hover_utf8_and_a_call_without_equivalent(utf8_client: LanguageClient):
    line = 'tag = "é😀"; torch._logging.set_logs(dynamo=logging.WARNING, guards=x)'
    text = "import logging\nimport torch\n" + line + "\n"
    await open_and_wait(utf8_client, URI, text, "python")
    at = utf8(line[: line.index("dynamo")])
    h = await hover(utf8_client, URI, 2, at)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "No TORCH_LOGS spelling of this value" in h.contents.value
    assert h.range is not None and (h.range.start.character, h.range.end.character) == (
        at,
        at + 6,
    )
    at = utf8(line[: line.index("set_logs")])
    h = await hover(utf8_client, URI, 2, at)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "No exact TORCH_LOGS equivalent: `dynamo`" in h.contents.value


async def test_values_of_modules_entries(vscode: LanguageClient):
    uri = "file:///work/py/modules.py"
    line = 'torch._logging.set_logs(modules={"guards": , "torch._dynamo": })'
    await open_and_wait(vscode, uri, "import logging\nimport torch\n" + line + "\n", "python")
    items = by_label(await complete(vscode, uri, 2, line.index('"guards": ') + 10))
    assert set(items) == {"True", "False"}  # a registered artifact takes a bool
    items = by_label(await complete(vscode, uri, 2, line.index('"torch._dynamo": ') + 17))
    assert "logging.DEBUG" in items and "None" in items and "True" not in items


async def test_call_hover_says_when_torch_logs_is_set_first(vscode: LanguageClient):
    uri = "file:///work/py/ignored.py"
    text = (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n'
        "torch._logging.set_logs(dynamo=10)\n"
    )
    await open_and_wait(vscode, uri, text, "python")
    h = await hover(vscode, uri, 3, len("torch._logging.set"))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "Equivalent TORCH_LOGS value: `+dynamo`" in h.contents.value
    assert "TORCH_LOGS is set (line 2): this call only logs a warning." in h.contents.value
