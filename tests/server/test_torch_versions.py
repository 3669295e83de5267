"""End-to-end: the user's torch (pin comment, torchLogs.python, didChangeConfiguration),
module-name diagnostics, completion after a dot and hover with releases."""

from __future__ import annotations

import sys

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

URI = "file:///work/project/.env"


def _configure(client: LanguageClient, settings: dict[str, object]) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": settings})
    )


async def test_pin_comment_picks_the_release(vscode: LanguageClient):
    text = "# torch-logs: torch=2.3\nTORCH_LOGS=+dist_ddp,ddp\n"
    diags = await open_and_wait(vscode, URI, text)
    assert [(d.code, d.message) for d in diags] == [
        ("TL205", "`ddp` is not in torch 2.3 (added in 2.4)")
    ]


async def test_renamed_name_with_suggestion(vscode: LanguageClient):
    _configure(vscode, {"torchVersion": "2.9"})
    diags = await open_and_wait(vscode, URI, "TORCH_LOGS=+dist_ddp\n")
    (d,) = diags
    assert (d.code, d.severity) == ("TL206", types.DiagnosticSeverity.Error)
    assert d.message.startswith("`dist_ddp` was renamed to `ddp` in torch 2.4")
    assert d.data == {"suggestions": ["ddp"]}


async def test_python_setting_makes_module_verdicts_certain(vscode: LanguageClient):
    _configure(vscode, {"python": sys.executable})
    text = "TORCH_LOGS=+some.random.module,json.decoder,autotuning_inputs\n"
    diags = await open_and_wait(vscode, URI, text)
    got = [(d.code, d.severity) for d in diags]
    assert got == [
        ("TL204", types.DiagnosticSeverity.Error),
        ("TL202", types.DiagnosticSeverity.Hint),
        ("TL205", types.DiagnosticSeverity.Error),  # the installed torch is 2.13
    ]
    assert "ModuleNotFoundError" in diags[0].message
    assert diags[2].message == "`autotuning_inputs` is not in torch 2.13 (added in 2.14)"
    # switching to a release re-publishes with that release
    _configure(vscode, {"python": sys.executable, "torchVersion": "2.15"})
    diags = await wait_diagnostics(vscode, URI, 1)
    assert [d.code for d in diags] == ["TL204", "TL202"]


async def test_module_completion_after_a_dot(vscode: LanguageClient):
    _configure(vscode, {"python": sys.executable})
    await open_and_wait(vscode, URI, "TORCH_LOGS=+torch._dynamo.gu\n")
    result = await vscode.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            position=types.Position(line=0, character=28),
        )
    )
    assert isinstance(result, types.CompletionList)
    labels = {i.label for i in result.items}
    assert {"guards", "eval_frame", "variables"} <= labels
    guards = next(i for i in result.items if i.label == "guards")
    assert guards.text_edit is not None and guards.text_edit.new_text == "torch._dynamo.guards"
    assert isinstance(guards.text_edit, types.TextEdit)
    assert guards.text_edit.range.start.character == 12


async def _hover(client: LanguageClient, line: int, character: int) -> str:
    h = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            position=types.Position(line=line, character=character),
        )
    )
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    return h.contents.value


async def test_hover_shows_releases_and_modules(vscode: LanguageClient):
    _configure(vscode, {"python": sys.executable})
    await open_and_wait(vscode, URI, "TORCH_LOGS=aot_graphs_effects,+json,dynamo\n")
    assert "In torch since 2.5." in await _hover(vscode, 0, 13)
    text = await _hover(vscode, 0, 33)
    assert "json" in text and "4 submodules" in text and "DEBUG" in text
    assert "Checked against torch 2.13.0" in await _hover(vscode, 0, 3)


async def test_a_pin_to_a_release_that_is_not_packaged_gets_a_hint(vscode: LanguageClient):
    text = "A=1 # 😀\n# torch-logs: torch=3.0\nTORCH_LOGS=+dynamo\n"
    diags = await open_and_wait(vscode, URI, text)
    (d,) = diags
    assert (d.code, d.severity) == ("TL902", types.DiagnosticSeverity.Hint)
    assert d.message.startswith("torch 3.0 is not packaged; using 2.15 (")
    assert d.range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=23)
    )
    _configure(vscode, {"torchVersion": "2.13"})  # the setting overrides the pin: no hint
    assert await wait_diagnostics(vscode, URI, 1) == []
