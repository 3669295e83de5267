"""A PowerShell script through the real server over stdio: diagnostics with exact ranges
(UTF-16 and UTF-8 after an emoji), hover, completion of names and values, and quick fixes
that apply and re-check clean."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/scripts/run.ps1"
TEXT = (
    "# 🙂 train\n"
    "$e = '🙂'; $Env:TORCH_LOGS = ''\n"
    "python x.py\n"
    "$a = '🙂'; Set-Item Env:TORCH_LOGS -Value 'aot_g'\n"
)


async def test_diagnostics_hover_and_fixes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.splitlines()
    empty = _utf16(lines[1], lines[1].index("''"))
    typo = _utf16(lines[3], lines[3].index("aot_g"))
    assert _ranges(diags) == [
        ("TL001", 1, empty + 1, 1, empty + 1),  # empty: between the quotes
        ("TL201", 3, typo, 3, typo + 5),
    ]
    by_code = {str(d.code): d for d in diags}
    # true in PowerShell 7.5+ only: a warning that names the versions
    assert by_code["TL001"].severity == types.DiagnosticSeverity.Warning
    assert "PowerShell 7.5 and later" in by_code["TL001"].message

    h = await hover(vscode, URI, 3, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value
    assert h.range is not None and h.range.start.character == typo

    target = by_code["TL201"]
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `aot_graphs`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("'aot_g'", "'aot_graphs'")
    assert await change(vscode, URI, new, 2) == ["TL001"]

    target = by_code["TL001"]
    found = await actions(vscode, URI, target.range, [target])
    titles = [a.title for a in found]
    # the statement shares its line with another one: no removal of the line
    assert "Remove the `TORCH_LOGS` statement" not in titles
    alone = new.replace("$e = '🙂'; $Env", "$Env")
    diags = await change(vscode, URI, alone, 3)
    assert diags == ["TL001"]
    target = next(
        d for d in (await open_and_wait(vscode, URI + ".copy.ps1", alone)) if str(d.code) == "TL001"
    )
    found = await actions(vscode, URI + ".copy.ps1", target.range, [target])
    removal = {a.title: a for a in found}["Remove the `TORCH_LOGS` statement"]
    fixed = apply(alone, URI + ".copy.ps1", removal.edit)
    assert fixed == alone.replace("$Env:TORCH_LOGS = ''\n", "")
    assert await change(vscode, URI + ".copy.ps1", fixed, 2) == []


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    lines = TEXT.splitlines()
    empty = len(lines[1][: lines[1].index("''")].encode())
    typo = len(lines[3][: lines[3].index("aot_g")].encode())
    assert _ranges(diags) == [
        ("TL001", 1, empty + 1, 1, empty + 1),
        ("TL201", 3, typo, 3, typo + 5),
    ]


async def _labels(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    return [i.label for i in items]


async def test_completion_of_names_and_values(vscode: LanguageClient):
    uri = "file:///work/project/comp.ps1"
    text = "# 🙂\n$env:TORCH_L"
    await open_and_wait(vscode, uri, text)
    assert "TORCH_LOGS" in await _labels(vscode, uri, 1, 12)
    text = "# 🙂\n$env:TORCH_LOGS = '+dynamo,gua"
    await change(vscode, uri, text, 2)
    assert "guards" in await _labels(vscode, uri, 1, len("$env:TORCH_LOGS = '+dynamo,gua"))


async def test_untitled_document_by_language_id(vscode: LanguageClient):
    uri = "untitled:Untitled-1"
    diags = await open_and_wait(vscode, uri, "$env:TORCH_LOGS = 'aot_g'\n", "powershell")
    assert [(str(d.code), d.range.start.character) for d in diags] == [("TL201", 19)]
