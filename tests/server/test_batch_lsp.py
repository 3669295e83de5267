"""A batch file through the real server over stdio: diagnostics with exact ranges (UTF-16
and UTF-8 after an emoji), hover, a quick fix applied and re-checked, completion in an
untitled ``bat`` document."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/scripts/run.bat"
TEXT = (
    "@echo off\r\n"
    "rem 🙂 train\r\n"
    "set A=🙂& set TORCH_LOGS=aot_g& python x.py\r\n"
    "set torch_logs=dynamo \r\n"
    "python x.py\r\n"
    "setx TORCH_LOGS %1\r\n"
)


async def test_diagnostics_hover_and_fixes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.split("\r\n")
    typo = _utf16(lines[2], lines[2].index("aot_g"))
    blank = len(lines[3]) - 1
    assert _ranges(diags) == [
        ("TL101", 3, blank, 3, blank + 1),  # the trailing blank is in the value
        ("TL201", 2, typo, 2, typo + 5),
        ("TL503", 5, 16, 5, 18),  # setx stores %1 for later processes, whatever it is
    ]
    by_code = {str(d.code): d for d in diags}

    h = await hover(vscode, URI, 2, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value
    assert h.range is not None and h.range.start.character == typo

    target = by_code["TL201"]
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `aot_graphs`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("aot_g&", "aot_graphs&")
    assert await change(vscode, URI, new, 2) == ["TL101", "TL503"]

    target = by_code["TL101"]
    found = await actions(vscode, URI, target.range, [target])
    assert len(found) >= 1
    fixed = apply(new, URI, found[0].edit)
    assert fixed == new.replace("dynamo \r\n", "dynamo\r\n")
    assert await change(vscode, URI, fixed, 3) == ["TL503"]


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    lines = TEXT.split("\r\n")
    typo = len(lines[2][: lines[2].index("aot_g")].encode())
    blank = len(lines[3]) - 1
    assert _ranges(diags) == [
        ("TL101", 3, blank, 3, blank + 1),
        ("TL201", 2, typo, 2, typo + 5),
        ("TL503", 5, 16, 5, 18),
    ]


async def test_completion_in_an_untitled_bat_document(vscode: LanguageClient):
    uri = "untitled:Untitled-7"
    text = "@echo off\nset TORCH_L"
    await open_and_wait(vscode, uri, text, language_id="bat")
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=11),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "TORCH_LOGS" in [i.label for i in items]


async def test_setx_is_noted(vscode: LanguageClient):
    uri = "file:///work/project/scripts/setup.cmd"
    diags = await open_and_wait(vscode, uri, 'setx TORCH_LOGS "+dynamo"\r\n')
    assert _ranges(diags) == [("TL503", 0, 17, 0, 24)]
