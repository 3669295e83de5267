"""A Makefile through the real server over stdio: diagnostics with exact ranges (UTF-16 and
UTF-8 after an emoji), hover, completion of names and values, and quick fixes that apply
and re-check clean."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/Makefile"
TEXT = (
    "# 🙂 build targets\n"
    "export TORCH_LOGS = 🙂 +dynamo ,guards\n"
    "train:\n"
    "\t@A=🙂 TORCH_LOGS=aot_g python x.py $$HOME\n"
    "\tTORCH_LOGS=$$EXTRA python x.py\n"
)


async def _completions(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    return [i.label for i in items]


async def test_diagnostics_hover_and_fixes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.splitlines()
    codes = _ranges(diags)
    typo = _utf16(lines[3], lines[3].index("aot_g"))
    space = _utf16(lines[1], lines[1].index(" ,"))
    assert ("TL102", 1, space, 1, space + 1) in codes
    assert ("TL201", 3, typo, 3, typo + 5) in codes
    assert all(line != 4 for _, line, *_ in codes)  # $$EXTRA: not static

    h = await hover(vscode, URI, 3, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value

    by_range = {(str(d.code), d.range.start.line): d for d in diags}
    target = by_range[("TL201", 3)]
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `aot_graphs`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("aot_g ", "aot_graphs ")
    after = await change(vscode, URI, new, 2)
    assert "TL201" not in after and "TL102" in after

    target = by_range[("TL102", 1)]
    found = await actions(vscode, URI, target.range, [target])
    fixes = [a for a in found if a.edit is not None and "whitespace" in a.title.lower()]
    assert fixes, [a.title for a in found]
    fixed = apply(new, URI, fixes[0].edit)
    assert fixed == new.replace("+dynamo ,guards", "+dynamo,guards")


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    lines = TEXT.splitlines()
    typo = len(lines[3][: lines[3].index("aot_g")].encode())
    space = len(lines[1][: lines[1].index(" ,")].encode())
    codes = _ranges(diags)
    assert ("TL102", 1, space, 1, space + 1) in codes
    assert ("TL201", 3, typo, 3, typo + 5) in codes


async def test_completion_of_names_and_values(vscode: LanguageClient):
    uri = "file:///work/project/rules.mk"
    text = "export TORCH_L\nTORCH_LOGS := +dyn\n"
    await open_and_wait(vscode, uri, text)
    assert "TORCH_LOGS" in await _completions(vscode, uri, 0, 14)
    assert any("dynamo" in label for label in await _completions(vscode, uri, 1, 18))


async def test_a_makefile_that_names_no_variable_is_silent(vscode: LanguageClient):
    uri = "file:///work/project/other/Makefile"
    assert await open_and_wait(vscode, uri, "all:\n\techo $$HOME\n") == []
