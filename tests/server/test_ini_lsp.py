"""A tox.ini (pytest-env ``env`` and tox ``set_env``) through the real server over stdio:
diagnostics with exact ranges (UTF-16 and UTF-8 after an emoji), hover, completion of a
name, quick fixes that apply and re-check clean, an untitled ``ini`` document."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/tox.ini"
TEXT = (
    "# 🙂 tests\r\n"
    "[pytest]\r\n"
    "env =\r\n"
    "    D:TORCH_LOGS=🙂,aot_g\r\n"
    "    TORCH_TRACE=/tmp/t\r\n"
    "[testenv]\r\n"
    "set_env =\r\n"
    "    py312: TORCH_LOGS = +dynamo,Guards  # comment\r\n"
)


async def test_diagnostics_hover_and_fixes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.split("\r\n")
    typo = _utf16(lines[3], lines[3].index("aot_g"))
    emoji = _utf16(lines[3], lines[3].index("🙂"))
    caps = _utf16(lines[7], lines[7].index("Guards"))
    got = _ranges(diags)
    assert ("TL201", 3, typo, 3, typo + 5) in got
    assert ("TL106", 3, emoji, 3, emoji + 2) in got
    assert [r for r in got if r[1] == 7] == [("TL201", 7, caps, 7, caps + 6)]

    h = await hover(vscode, URI, 3, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value

    target = next(d for d in diags if d.range.start.line == 7)
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `guards`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("Guards", "guards")
    assert sorted(await change(vscode, URI, new, 2)) == ["TL106", "TL201"]  # line 3 only


async def test_removal_of_an_empty_entry(vscode: LanguageClient):
    uri = "file:///work/project/pytest.ini"
    text = "[pytest]\r\nenv =\r\n    TORCH_LOGS=\r\n    TORCH_TRACE=/tmp/t\r\n"
    diags = await open_and_wait(vscode, uri, text)
    assert _ranges(diags) == [("TL001", 2, 15, 2, 15)]
    found = await actions(vscode, uri, diags[0].range, diags)
    removal = {a.title: a for a in found}["Remove the `TORCH_LOGS` entry"]
    fixed = apply(text, uri, removal.edit)
    assert fixed == "[pytest]\r\nenv =\r\n    TORCH_TRACE=/tmp/t\r\n"
    assert await change(vscode, uri, fixed, 2) == []


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    line = TEXT.split("\r\n")[3]
    typo = len(line[: line.index("aot_g")].encode())
    assert ("TL201", 3, typo, 3, typo + 5) in _ranges(diags)


async def test_completion_of_a_name_in_env(vscode: LanguageClient):
    uri = "file:///work/project/pytest.ini"
    text = "[pytest]\nenv =\n    D:TORCH_L"
    await open_and_wait(vscode, uri, text)
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=2, character=13),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "TORCH_LOGS" in [i.label for i in items]


async def test_untitled_ini_document(vscode: LanguageClient):
    """An untitled document with languageId ``ini`` is read by content: a pytest section
    is read, another INI file's keys are not."""
    uri = "untitled:Untitled-1"
    diags = await open_and_wait(vscode, uri, "[pytest]\nenv = TORCH_LOGS=aot_g\n", "ini")
    assert [str(d.code) for d in diags] == ["TL201"]
    other = "untitled:Untitled-2"
    assert await open_and_wait(vscode, other, "[flake8]\nTORCH_LOGS = aot_g\n", "ini") == []


async def test_pytest_env_stops(vscode: LanguageClient):
    """TL504 (an error) on the flag pytest-env 1.8.7 rejects, after an emoji (UTF-16)."""
    uri = "file:///work/project/setup.cfg"
    text = "[tool:pytest]\nenv =\n  TORCH_LOGS=dynamo\n  🙂X: OTHER=1\n"
    diags = await open_and_wait(vscode, uri, text)
    assert _ranges(diags) == [("TL504", 3, 2, 3, 5)]
    assert diags[0].severity == types.DiagnosticSeverity.Error
    assert "pytest stops before any test runs" in diags[0].message
