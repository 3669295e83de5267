"""End-to-end: code actions on documents with many values stay bounded (a hostile
tester's finding: fix-all over 800 values took 237 s and blocked every other request).
Fix-all verifies its edits together; quick fixes over a range are made for at most
``MAX_FIXED_VALUES`` values."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change
from torch_logs_lsp.server.features.code_actions import MAX_FIXED_VALUES
from torch_logs_lsp.server.features.suppress_actions import MAX_SUPPRESSIONS

N = 300


def _everything(text: str) -> types.Range:
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=text.count("\n"), character=0),
    )


async def test_fix_all_over_many_values(vscode: LanguageClient):
    uri, text = "file:///w/run.sh", "export TORCH_LOGS=++dynamo,\n" * N
    diags = await open_and_wait(vscode, uri, text)
    found = await actions(vscode, uri, _everything(text), diags, only=["source.fixAll"])
    assert [a.kind for a in found] == ["source.fixAll.torch-logs"]
    fixed = apply(text, uri, found[0].edit)
    assert fixed == "export TORCH_LOGS=+dynamo\n" * N
    # (only TL502 is left: each export overwrites the one before)
    assert set(await change(vscode, uri, fixed, 2)) == {"TL502"}


async def test_quick_fixes_over_many_values_stop_at_the_cap(vscode: LanguageClient):
    uri, text = "file:///w/run.sh", "export TORCH_LOGS=dynamo,\n" * N
    diags = await open_and_wait(vscode, uri, text)
    every = await actions(vscode, uri, _everything(text), diags, only=["quickfix"])
    ignores = [a for a in every if a.title.startswith("Ignore ")]
    assert len(ignores) == MAX_SUPPRESSIONS  # "Ignore TL104 on this line": capped too
    found = [a for a in every if a not in ignores]
    assert len(found) == MAX_FIXED_VALUES  # one fix per value: the first values'
    first = apply(text, uri, found[0].edit)
    assert first == "export TORCH_LOGS=dynamo\n" + text[len("export TORCH_LOGS=dynamo,\n") :]
