"""End-to-end: every quick fix applied through the LSP in each host kind, then re-checked.

Each case opens a document, asks for code actions on the diagnostic, applies the chosen
action's WorkspaceEdit to the text, sends it as the next version and waits for that
version's diagnostics: the fixed diagnostic is gone and no new one appeared. The fixed
document is then read by the host's real reader (bash, python-dotenv, json5).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.conftest import SERVER, open_and_wait, wait_diagnostics
from tests.support.oracles import BASH, read_torch_logs

URIS = {
    "dotenv": "file:///work/project/.env",
    "jsonc": "file:///work/project/.vscode/launch.json",
    "shell": "file:///work/project/run.sh",
}


def document(host: str, value: str) -> str:
    """A document of ``host`` kind setting TORCH_LOGS to ``value`` (an emoji before it)."""
    if host == "shell":
        quoted = "'" + value.replace("'", "'\\''") + "'"
        return f"#!/bin/bash\n# 🙂\nA=1; export TORCH_LOGS={quoted}\n"
    if host == "dotenv":
        quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return f"# 🙂\nA=1\r\nTORCH_LOGS={quoted}\r\nB=2\r\n"
    body = json.dumps(value).replace("+", "\\u002b")
    return (
        '{\n  // 🙂\n  "configurations": [\n    {"name": "🙂", "env": {"A": "1", '
        f'"TORCH_LOGS": {body}}}}},\n  ]\n}}\n'
    )


def _offset(text: str, pos: types.Position) -> int:
    """Document offset of a UTF-16 LSP position (the vscode fixture's encoding)."""
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def apply(text: str, uri: str, edit: types.WorkspaceEdit | None) -> str:
    assert edit is not None
    edits: list[types.TextEdit] = []
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        edits += [e for e in change.edits if isinstance(e, types.TextEdit)]
    edits += list((edit.changes or {}).get(uri, []))
    spans = [(_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


async def actions(
    client: LanguageClient,
    uri: str,
    rng: types.Range,
    diags: list[types.Diagnostic],
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=diags, only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def change(client: LanguageClient, uri: str, text: str, version: int) -> list[str]:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return sorted(str(d.code) for d in await wait_diagnostics(client, uri, version))


# (value, code of the diagnostic, action title, value after the fix; None: unset)
CASES = [
    ("+dynamo ,guards", "TL102", "Remove whitespace before the comma", "+dynamo,guards"),
    (" dynamo", "TL101", "Remove the whitespace", "dynamo"),
    ("dynamo,,aot", "TL103", "Remove the empty item", "dynamo,aot"),
    ("dynamo,", "TL104", "Remove the trailing comma", "dynamo"),
    ("++dynamo", "TL105", "Remove the extra `+`", "+dynamo"),
    ("dynamo;aot", "TL106", "Separate items with a comma", "dynamo,aot"),
    ("dynamo aot", "TL106", "Separate items with a comma", "dynamo,aot"),
    ('dyn"amo', "TL106", "Remove the stray quote", "dynamo"),
    ("graph-breaks", "TL106", "Change to `graph_breaks`", "graph_breaks"),
    ('"dynamo"', "TL107", "Remove the quotes around the value", "dynamo"),
    ("aot_g", "TL201", "Change to `aot_graphs`", "aot_graphs"),
    ("+dynamo,Guards", "TL201", "Change to `guards`", "+dynamo,guards"),
    ("-guards", "TL301", "Remove the ignored `-`", "guards"),
    ("guards,guards", "TL302", "Remove the duplicate `guards` (item 1)", "guards"),
    ("+dynamo,-dynamo", "TL303", "Remove `+dynamo` (a later item overrides it)", "-dynamo"),
    ("", "TL001", "", None),
    ("help", "TL002", "", None),
]
REMOVAL = {
    "shell": "Replace with `unset TORCH_LOGS`",
    "dotenv": "Remove the `TORCH_LOGS` line",
    "jsonc": 'Remove the "TORCH_LOGS" property',
}


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("host", ["shell", "dotenv", "jsonc"])
async def test_quick_fixes(vscode: LanguageClient, host: str):
    """Every case of CASES in one session per host (a fresh document per case)."""
    for n, (value, code, title, fixed) in enumerate(CASES):
        case = (host, value, code)
        uri = URIS[host].replace("/project/", f"/project/case{n}/")
        text = document(host, value)
        diags = await open_and_wait(vscode, uri, text)
        before = sorted(str(d.code) for d in diags)
        target = next(d for d in diags if d.code == code)
        found = await actions(vscode, uri, target.range, [target])
        by_title = {a.title: a for a in found}
        action = by_title.get(title or REMOVAL[host])
        assert action is not None, (case, list(by_title))
        assert action.kind == types.CodeActionKind.QuickFix
        assert action.diagnostics is not None and target in action.diagnostics, case
        new = apply(text, uri, action.edit)
        after = await change(vscode, uri, new, 2)
        assert code not in after and set(after) <= set(before), (case, new, after)
        assert read_torch_logs(host, new) == fixed, (case, new)


@pytest.mark.parametrize("host", ["shell", "dotenv", "jsonc"])
async def test_also_enable_refactor(vscode: LanguageClient, host: str):
    uri, text = URIS[host], document(host, "+inductor,guards")
    assert await open_and_wait(vscode, uri, text) == []
    row = next(i for i, line in enumerate(text.splitlines()) if "inductor" in line)
    col = text.splitlines()[row].index("inductor") + (1 if host == "jsonc" else 0)  # 🙂: 2 units
    here = types.Range(
        start=types.Position(line=row, character=col), end=types.Position(line=row, character=col)
    )
    found = await actions(vscode, uri, here, [], only=[types.CodeActionKind.Refactor])
    assert [a.title for a in found] == ["Also enable `output_code`"]
    assert found[0].kind == types.CodeActionKind.RefactorRewrite
    new = apply(text, uri, found[0].edit)
    # only the information hint that output_code is long without TORCH_LOGS_OUT (TL411)
    assert await change(vscode, uri, new, 2) == ["TL411"]
    assert read_torch_logs(host, new) == "+inductor,output_code,guards"


@pytest.mark.parametrize("host", ["shell", "dotenv", "jsonc"])
async def test_fix_all(vscode: LanguageClient, host: str):
    uri, text = URIS[host], document(host, ' "+dynamo ; -guards,Aot,,graph-breaks,"')
    diags = await open_and_wait(vscode, uri, text)
    everything = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    found = await actions(vscode, uri, everything, diags, only=[types.CodeActionKind.SourceFixAll])
    assert [(a.title, a.kind) for a in found] == [
        ("Fix all TORCH_LOGS problems", "source.fixAll.torch-logs")
    ]
    new = apply(text, uri, found[0].edit)
    assert await change(vscode, uri, new, 2) == []
    assert read_torch_logs(host, new) == "+dynamo,guards,aot,graph_breaks"


async def test_only_and_range_are_honoured(vscode: LanguageClient):
    # (a second TORCH_LOGS would overwrite the first: TL502, and no TL301 on it)
    uri, text = URIS["dotenv"], "TORCH_LOGS=-guards,aot_g\nTORCH_LOGS_OUT=\n"
    diags = await open_and_wait(vscode, uri, text)
    first = types.Range(
        start=types.Position(line=0, character=11), end=types.Position(line=0, character=12)
    )
    titles = [a.title for a in await actions(vscode, uri, first, diags)]
    # fix-all is a source action: asked for; the other diagnostics are out of the range
    assert titles == ["Remove the ignored `-`", "Ignore TL301 on this line"]
    quick = await actions(vscode, uri, first, diags, only=[types.CodeActionKind.QuickFix])
    assert [a.title for a in quick] == ["Remove the ignored `-`", "Ignore TL301 on this line"]
    assert quick[0].is_preferred
    source = await actions(vscode, uri, first, diags, only=[types.CodeActionKind.Source])
    assert [a.kind for a in source] == ["source.fixAll.torch-logs"]
    # fix-all leaves the ambiguous name and the empty value alone
    fixed = apply(text, uri, source[0].edit)
    assert fixed == "TORCH_LOGS=guards,aot_g\nTORCH_LOGS_OUT=\n"


@pytest_lsp.fixture(config=SERVER)
async def bare(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client


async def test_capabilities_advertise_the_kinds(bare: LanguageClient):
    caps = client_capabilities("visual-studio-code")
    result = await bare.initialize_session(types.InitializeParams(capabilities=caps))
    provider = result.capabilities.code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    assert "source.fixAll.torch-logs" in (provider.code_action_kinds or [])
    assert types.CodeActionKind.QuickFix in (provider.code_action_kinds or [])
    await bare.shutdown_session()
