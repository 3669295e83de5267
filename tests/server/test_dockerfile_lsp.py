"""A Dockerfile through the real server over stdio: diagnostics with exact ranges
(UTF-16 and UTF-8 after an emoji), hover, and quick fixes that apply and re-check clean."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostic_ranges as _ranges
from tests.server.conftest import open_and_wait
from tests.server.conftest import utf16_column as _utf16
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import hover

URI = "file:///work/project/docker/Dockerfile"
TEXT = (
    "# 🙂 a torch image\n"
    "FROM python:3.12\n"
    'ENV A=🙂 TORCH_LOGS="" \\\n'
    "    TORCH_LOGS_OUT=/tmp/t.log\n"
    "RUN pip install torch && \\\n"
    "    A=🙂 TORCH_LOGS=aot_g python x.py\n"
)


async def test_diagnostics_hover_and_fixes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    lines = TEXT.splitlines()
    empty = _utf16(lines[2], lines[2].index('""'))
    typo = _utf16(lines[5], lines[5].index("aot_g"))
    assert _ranges(diags) == [
        ("TL001", 2, empty + 1, 2, empty + 1),  # empty: between the quotes
        ("TL201", 5, typo, 5, typo + 5),
    ]
    by_code = {str(d.code): d for d in diags}
    assert by_code["TL001"].severity == types.DiagnosticSeverity.Error

    h = await hover(vscode, URI, 5, typo + 2)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "aot_g" in h.contents.value
    assert h.range is not None and h.range.start.character == typo

    target = by_code["TL201"]
    found = await actions(vscode, URI, target.range, [target])
    fix = {a.title: a for a in found}["Change to `aot_graphs`"]
    new = apply(TEXT, URI, fix.edit)
    assert new == TEXT.replace("aot_g ", "aot_graphs ")
    assert await change(vscode, URI, new, 2) == ["TL001"]

    target = by_code["TL001"]
    found = await actions(vscode, URI, target.range, [target])
    removal = {a.title: a for a in found}["Remove `TORCH_LOGS=...` from this ENV"]
    fixed = apply(new, URI, removal.edit)
    assert fixed == new.replace('TORCH_LOGS="" ', "")
    assert await change(vscode, URI, fixed, 3) == []


async def test_utf8_positions_after_an_emoji(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, TEXT)
    lines = TEXT.splitlines()
    empty = len(lines[2][: lines[2].index('""')].encode())
    typo = len(lines[5][: lines[5].index("aot_g")].encode())
    assert _ranges(diags) == [
        ("TL001", 2, empty + 1, 2, empty + 1),  # empty: between the quotes
        ("TL201", 5, typo, 5, typo + 5),
    ]


async def test_completion_of_a_name_after_env(vscode: LanguageClient):
    uri = "file:///work/project/app.Dockerfile"
    text = "FROM x\nENV TORCH_L"
    await open_and_wait(vscode, uri, text)
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=11),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "TORCH_LOGS" in [i.label for i in items]


async def test_global_arg_gets_hover_and_no_diagnostics(vscode: LanguageClient):
    """A global ARG (before the first FROM) does not reach RUN (BuildKit's dispatchArg,
    docs/reference.md "Understand how ARG and FROM interact"): no finding, but the name
    still has its hover and `ARG TORCH_L` still completes."""
    uri = "file:///work/project/global.Dockerfile"
    text = "ARG TORCH_LOGS=aot_g\nFROM python:3.12\nRUN <<EOF python3\nTORCH_LOGS=aot_g\nEOF\n"
    assert await open_and_wait(vscode, uri, text) == []
    h = await hover(vscode, uri, 0, 6)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert "TORCH_LOGS" in h.contents.value and "before the first FROM" in h.contents.value
    # declared again in the stage: the global default reaches that RUN
    again = text.replace("FROM python:3.12\n", "FROM python:3.12\nARG TORCH_LOGS\n")
    diags = await change(vscode, uri, again, 2)
    assert diags == ["TL201"]
    new = "ARG TORCH_L\nFROM x\n"
    await change(vscode, uri, new, 3)
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=11),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    assert "TORCH_LOGS" in [i.label for i in items]
