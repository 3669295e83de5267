"""A pyproject.toml / tox.toml through the real server over stdio: diagnostics with exact
ranges (UTF-16 and UTF-8 after an emoji), hover, completion of a name, a quick fix that
applies and re-checks clean, untitled and other TOML documents read by their tables."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/pyproject.toml"
TEXT = (
    "# 🙂 test settings\n"
    "[tool.pytest.ini_options]\n"
    'env = ["🙂=1", "TORCH_LOGS=aot_g", "D:TORCH_LOGS_OUT={HOME}/x"]\n'
    "[tool.tox.env_run_base.set_env]\n"
    'TORCH_LOGS = "🙂"\n'
)


async def test_diagnostics_hover_and_fix(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.splitlines()
    typo = _utf16(lines[2], lines[2].index("aot_g"))
    emoji = _utf16(lines[4], lines[4].index("🙂"))
    assert _ranges(diags) == [("TL106", 4, emoji, 4, emoji + 2), ("TL201", 2, typo, 2, typo + 5)]

    h = await hover(vscode, URI, 2, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value

    target = next(d for d in diags if str(d.code) == "TL201")
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `aot_graphs`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("aot_g", "aot_graphs")
    assert await change(vscode, URI, new, 2) == ["TL106"]


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    lines = TEXT.splitlines()
    typo = len(lines[2][: lines[2].index("aot_g")].encode())
    emoji = len(lines[4][: lines[4].index("🙂")].encode())
    assert _ranges(diags) == [("TL106", 4, emoji, 4, emoji + 4), ("TL201", 2, typo, 2, typo + 5)]


async def test_completion_in_an_env_list_and_a_table(vscode: LanguageClient):
    uri = "file:///work/project/tox.toml"
    text = '[env.py.set_env]\nTORCH_L\n[env.x]\nenv = ["D:TORCH_LOGS_F'
    await open_and_wait(vscode, uri, text)
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=7),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "TORCH_LOGS" in [i.label for i in items]


async def test_value_completion_while_the_string_is_open(vscode: LanguageClient):
    uri = "file:///work/project/typing/pyproject.toml"
    text = '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=+dyn\n'
    await open_and_wait(vscode, uri, text)
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=len('env = ["TORCH_LOGS=+dyn')),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "dynamo" in [i.label for i in items]


async def test_untitled_and_other_toml_documents_by_their_tables(vscode: LanguageClient):
    text = '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=aot_g"]\n'
    diags = await open_and_wait(vscode, "untitled:Untitled-3", text, "toml")
    assert [str(d.code) for d in diags] == ["TL201"]
    # any other TOML document the editor sends is read by its tables only (it may be a
    # `pytest -c ci.toml` file); a Cargo.toml has none of them
    ci = await open_and_wait(vscode, "file:///work/project/ci.toml", text, "toml")
    assert [str(d.code) for d in ci] == ["TL201"]
    cargo = '[package]\nname = "x"\n[env]\nTORCH_LOGS = "aot_g"\n'
    assert await open_and_wait(vscode, "file:///work/project/Cargo.toml", cargo, "toml") == []
