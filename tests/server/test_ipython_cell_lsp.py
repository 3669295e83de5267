"""A notebook cell opened as a document of its own (an editor without notebook sync, or
VS Code's ``vscode-notebook-cell:`` documents), through the real server over stdio: the
IPython host reads it (the URI path names the notebook; the languageId is ``python``).
Exact ranges in UTF-16 after an emoji, and quick fixes applied and re-checked."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import complete

URI = "vscode-notebook-cell:/w/nb.ipynb#W0sZmlsZQ%3D%3D"


def _ranges(diags: list[types.Diagnostic]) -> list[tuple[str, int, int, int, int]]:
    return [
        (
            str(d.code),
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
        )
        for d in diags
    ]


async def test_empty_env_value(vscode: LanguageClient):
    text = "# 🙂 setup\n%env TORCH_LOGS=\n"
    diags = await open_and_wait(vscode, URI, text, language_id="python")
    assert _ranges(diags) == [("TL001", 1, 16, 1, 16)]
    assert diags[0].severity == types.DiagnosticSeverity.Error


async def test_bang_line_and_its_quick_fix(vscode: LanguageClient):
    line = "!echo 🙂; TORCH_LOGS=aot_g python x.py"
    text = f"import os\n{line}\n"
    diags = await open_and_wait(vscode, URI, text, language_id="python")
    col = len(line[: line.index("aot_g")]) + 1  # the emoji is two UTF-16 code units
    assert _ranges(diags) == [("TL201", 1, col, 1, col + 5)]
    found = {a.title: a for a in await actions(vscode, URI, diags[0].range, diags)}
    new = apply(text, URI, found["Change to `aot_graphs`"].edit)
    assert new == text.replace("=aot_g ", "=aot_graphs ")
    assert await change(vscode, URI, new, 2) == []


async def test_quoted_env_value_fixed(vscode: LanguageClient):
    text = '%env TORCH_LOGS="+dynamo"\n'
    diags = await open_and_wait(vscode, URI, text, language_id="python")
    assert sorted(str(d.code) for d in diags) == ["TL107"]
    found = {a.title: a for a in await actions(vscode, URI, diags[0].range, diags)}
    new = apply(text, URI, found["Remove the quotes around the value"].edit)
    assert new == "%env TORCH_LOGS=+dynamo\n"
    assert await change(vscode, URI, new, 2) == []


async def test_import_order_inside_the_cell(vscode: LanguageClient):
    text = "import torch\n%env TORCH_LOGS=+dynamo\n"
    diags = await open_and_wait(vscode, URI, text, language_id="python")
    assert _ranges(diags) == [("TL501", 1, 16, 1, 23)]
    assert "set after `import torch` (line 1)" in diags[0].message


async def test_a_python_file_is_still_python(vscode: LanguageClient):
    uri = "file:///w/nb.py"
    diags = await open_and_wait(vscode, uri, "%env TORCH_LOGS=\n", language_id="python")
    assert diags == []  # not a cell: `%env` is not Python


async def test_completion_after_env(vscode: LanguageClient):
    text = "import os\n%env TORCH_\n"
    await open_and_wait(vscode, URI, text, language_id="python")
    result = await complete(vscode, URI, 1, 11)
    assert isinstance(result, types.CompletionList)
    labels = [i.label for i in result.items]
    assert "TORCH_LOGS" in labels and "TORCH_TRACE" in labels
    result = await complete(vscode, URI, 0, 9)  # not after `%env`
    assert result is None or not any(
        i.label == "TORCH_LOGS" for i in getattr(result, "items", result)
    )


async def test_markdown_cell_is_not_code(vscode: LanguageClient):
    uri = "vscode-notebook-cell:/w/nb.ipynb#X1sZmlsZQ%3D%3D"
    text = "Set `%env TORCH_LOGS=` like this:\n%env TORCH_LOGS=\n"
    assert await open_and_wait(vscode, uri, text, language_id="markdown") == []
