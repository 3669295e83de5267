"""End-to-end over stdio: a devcontainer.json's ``containerEnv`` value is diagnosed at its
exact range and its quick fix applied; a value with a ``${...}`` variable is not judged."""

from __future__ import annotations

import json5
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change

URI = "file:///work/project/.devcontainer/devcontainer.json"
TEXT = """{
  // 🙂 a comment
  "image": "mcr.microsoft.com/devcontainers/python:3.12",
  "containerEnv": {"TORCH_LOGS": "+dynamo,gards"},
  "remoteEnv": {"TORCH_LOGS_OUT": "${localEnv:HOME}/x", "TORCH_TRACE": null},
}
"""


async def test_diagnostic_and_quick_fix(vscode: LanguageClient) -> None:
    diags = await open_and_wait(vscode, URI, TEXT, "jsonc")
    assert [(d.code, d.severity) for d in diags] == [("TL201", types.DiagnosticSeverity.Error)]
    (diag,) = diags
    line = TEXT.splitlines()[3]
    col = line.index("gards")
    assert diag.range == types.Range(
        start=types.Position(line=3, character=col),
        end=types.Position(line=3, character=col + len("gards")),
    )
    found = await actions(vscode, URI, diag.range, [diag])
    fix = next(a for a in found if a.title == "Change to `guards`")
    assert fix.kind == types.CodeActionKind.QuickFix
    new = apply(TEXT, URI, fix.edit)
    assert await change(vscode, URI, new, 2) == []
    assert json5.loads(new)["containerEnv"]["TORCH_LOGS"] == "+dynamo,guards"


async def test_not_static_and_nested_values_are_not_judged(vscode: LanguageClient) -> None:
    uri = "file:///work/project/.devcontainer.json"
    text = (
        '{"containerEnv": {"TORCH_LOGS": "${localEnv:LOGS},gards"},\n'
        ' "customizations": {"containerEnv": {"TORCH_LOGS": "gards"}},\n'
        ' "remoteEnv": {"TORCH_LOGS": null}}\n'
    )
    assert await open_and_wait(vscode, uri, text, "jsonc") == []
