"""The YAML host through the real server over stdio: a GitHub Actions workflow whose
``env:`` value is valid and whose ``run:`` step sets a wrong one (exact ranges in UTF-16
and UTF-8 after an emoji), hover, and a quick fix applied and re-checked."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from tests.server.test_server import complete

URI = "file:///work/project/.github/workflows/train.yml"
STEP = '        run: echo "🙂"; TORCH_LOGS=aot_g python train.py'
WORKFLOW = (
    "# 🙂 training\n"
    "on: push\n"
    "jobs:\n"
    "  train:\n"
    "    runs-on: ubuntu-latest\n"
    "    env:\n"
    "      TORCH_LOGS: recompiles,graph_breaks\n"
    "    steps:\n"
    "      - name: train 🙂\n"
    f"{STEP}\n"
)
STEP_LINE = 9


def _ranges(diags: list[types.Diagnostic]) -> list[tuple[str, int, int, int]]:
    return [
        (str(d.code), d.range.start.line, d.range.start.character, d.range.end.character)
        for d in diags
    ]


async def test_run_step_error_in_utf16_and_hover(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, WORKFLOW)
    col = len(STEP[: STEP.index("aot_g")]) + 1  # the emoji is two UTF-16 code units
    assert _ranges(diags) == [("TL201", STEP_LINE, col, col + 5)]
    assert diags[0].severity == types.DiagnosticSeverity.Error
    hover = await vscode.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            position=types.Position(line=6, character=20),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "**recompiles**" in hover.contents.value
    assert hover.range is not None
    assert (hover.range.start.character, hover.range.end.character) == (18, 28)


async def test_run_step_error_in_utf8(utf8_client: LanguageClient):
    diags = await open_and_wait(utf8_client, URI, WORKFLOW)
    col = len(STEP[: STEP.index("aot_g")].encode("utf-8"))
    assert _ranges(diags) == [("TL201", STEP_LINE, col, col + 5)]


async def test_quick_fix_in_the_run_step(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, WORKFLOW)
    found = await actions(vscode, URI, diags[0].range, diags)
    by_title = {a.title: a for a in found}
    action = by_title["Change to `aot_graphs`"]
    new = apply(WORKFLOW, URI, action.edit)
    assert new == WORKFLOW.replace("TORCH_LOGS=aot_g ", "TORCH_LOGS=aot_graphs ")
    assert await change(vscode, URI, new, 2) == []


async def test_completion_while_typing_in_compose(vscode: LanguageClient):
    uri = "file:///work/project/compose.yaml"
    text = 'services:\n  train:\n    environment:\n      TORCH_LOGS: "+dyn\n      TORCH_\n'
    await open_and_wait(vscode, uri, text)
    result = await complete(vscode, uri, 3, 23)  # the quote is still open
    assert isinstance(result, types.CompletionList)
    by_label = {i.label: i for i in result.items}
    assert "dynamo" in by_label
    edit = by_label["dynamo"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (20, 23)
    names = await complete(vscode, uri, 4, 12)  # a key under environment:
    assert isinstance(names, types.CompletionList)
    assert {"TORCH_LOGS_OUT", "TORCH_TRACE"} <= {i.label for i in names.items}


RUN = "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"


@pytest.mark.parametrize(
    ("uri", "text", "fixed"),
    [
        (
            URI,
            RUN + "      - run: export TORCH_LOGS=++dynamo,\n",
            {"TL105": "TORCH_LOGS=+dynamo,\n", "TL104": "TORCH_LOGS=++dynamo\n"},
        ),
        (
            URI,
            RUN + "      - run: TORCH_LOGS=' dynamo' python t.py\n",
            {"TL101": "TORCH_LOGS='dynamo' python t.py\n"},
        ),
        (
            "file:///work/project/.gitlab-ci.yml",
            'build:\n  script:\n    - TORCH_LOGS="++dynamo," python t.py\n',
            {
                "TL105": 'TORCH_LOGS="+dynamo," python t.py\n',
                "TL104": 'TORCH_LOGS="++dynamo" python t.py\n',
            },
        ),
    ],
)
async def test_quick_fixes_inside_plain_scalar_shell_code(
    vscode: LanguageClient, uri: str, text: str, fixed: dict[str, str]
):
    """Each diagnostic in shell code held by a plain (or quoted) YAML scalar has its quick
    fix (a deletion inside the value: it used to find no encoding and give ``[]``)."""
    diags = await open_and_wait(vscode, uri, text)
    assert sorted(str(d.code) for d in diags) == sorted(fixed)
    for diag in diags:
        found = await actions(vscode, uri, diag.range, [diag])
        quick = [a for a in found if a.kind == types.CodeActionKind.QuickFix]
        assert quick, diag.code
        new = apply(text, uri, quick[0].edit)
        assert new.endswith(fixed[str(diag.code)]), (diag.code, new)


@pytest.mark.parametrize(
    "line",
    ["      TORCH_LOGS: ", "      TORCH_LOGS:  # logs"],
)
async def test_completion_in_an_empty_plain_value(vscode: LanguageClient, line: str):
    """``TORCH_LOGS: `` is a null (no span) until a value is typed: completion there
    offers the names, inserted at the cursor."""
    uri = "file:///work/project/compose.yaml"
    text = f"services:\n  train:\n    environment:\n{line}\n      B: x\n"
    await open_and_wait(vscode, uri, text)
    col = len("      TORCH_LOGS: ")
    result = await complete(vscode, uri, 3, col)
    assert isinstance(result, types.CompletionList)
    by_label = {i.label: i for i in result.items}
    assert "dynamo" in by_label
    edit = by_label["dynamo"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.line, edit.range.start.character) == (3, col)
    assert edit.range.end == edit.range.start
    assert not await complete(vscode, uri, 4, 9)  # `B: x`: no value of ours


async def test_an_anchored_value_is_left_out_of_fix_all(vscode: LanguageClient):
    uri = "file:///work/project/compose.yaml"
    text = (
        "services:\n  a:\n    environment:\n      TORCH_LOGS: &v +Dynamo\n"
        "      NOT_TORCH: *v\n  b:\n    environment:\n      TORCH_LOGS: +Dynamo\n"
    )
    diags = await open_and_wait(vscode, uri, text)
    assert [(str(d.code), d.range.start.line) for d in diags] == [("TL201", 3), ("TL201", 7)]
    whole = types.Range(start=types.Position(line=0, character=0), end=diags[-1].range.end)
    (fix_all,) = await actions(vscode, uri, whole, diags, only=["source.fixAll.torch-logs"])
    new = apply(text, uri, fix_all.edit)  # only b's value: a's is read by *v too
    assert new == text.replace("TORCH_LOGS: +Dynamo", "TORCH_LOGS: +dynamo")
    quick = await actions(vscode, uri, diags[0].range, diags[:1])
    titles = {a.title: a for a in quick if a.kind == types.CodeActionKind.QuickFix}
    reason = "`*v` on line 5 reads it too (the YAML anchor `&v` of line 4)"
    action = titles[f"Change to `dynamo` (not only here: {reason})"]
    assert not action.is_preferred  # offered, never applied unasked
