"""End to end over stdio: ``torchLogs/composeOptions`` lists the names and recipes of the
document's release; ``torchLogs/compose`` answers an edit that writes the chosen value in
the document's syntax, which the server then checks without a finding."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.model.edits import TextEdit


def obj(value):
    """pygls' answer objects as plain data."""
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return [obj(v) for v in value]
    if hasattr(value, "_asdict"):
        return {k: obj(v) for k, v in value._asdict().items()}
    return value


def offset(text: str, line: int, character: int) -> int:
    return len("".join(text.splitlines(keepends=True)[:line])) + character


def applied(text: str, edit: dict) -> str:
    # (pygls' client renames the URI key of its answer object; the server answers one)
    ((only,),) = edit["changes"].values()
    r = only["range"]
    start = offset(text, r["start"]["line"], r["start"]["character"])
    end = offset(text, r["end"]["line"], r["end"]["character"])
    return apply_text_edits(text, [TextEdit(start, end, only["newText"])])


async def test_options_follow_the_documents_release(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / ".env").as_uri()
    await open_and_wait(vscode, uri, "# torch-logs: torch=2.1\nX=1\n")
    got = obj(
        await vscode.protocol.send_request_async(
            "torchLogs/composeOptions", {"textDocument": {"uri": uri}}
        )
    )
    assert got["release"] == "2.1"
    names = {n["name"]: n for n in got["names"]}
    assert names["dynamo"]["kind"] == "component"
    assert names["dynamo"]["prefixes"] == ["+", "", "-"]
    assert names["output_code"]["prefixes"] == [""]
    assert names["output_code"]["offByDefault"] is True
    assert names["dynamo"]["description"]
    assert "recompiles_verbose" not in names  # from 2.2
    # TORCH_TRACE and TORCH_LOGS_OUT are read from 2.3: their recipes are not offered
    assert [r["id"] for r in got["recipes"]] == ["recompiles", "graph_breaks"]
    missing = await vscode.protocol.send_request_async(
        "torchLogs/composeOptions", {"textDocument": {"uri": "file:///not/open.env"}}
    )
    assert missing is None


async def test_compose_writes_a_checked_value(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "run.ps1").as_uri()
    text = "# 😀 train\r\n\r\npython train.py\r\n"
    await open_and_wait(vscode, uri, text, "powershell")
    got = obj(
        await vscode.protocol.send_request_async(
            "torchLogs/compose",
            {
                "textDocument": {"uri": uri},
                "position": {"line": 1, "character": 0},
                "items": ["+dynamo", "no_such_name"],
                "recipes": ["output_code", "bug_report"],
            },
        )
    )
    assert got["assignments"] == [
        ["TORCH_LOGS", "output_code,+dynamo"],
        ["TORCH_LOGS_OUT", "torch_logs.txt"],
        ["TORCH_TRACE", "torch_trace"],
    ]
    assert got["message"] is None
    assert "tlparse" in got["after"][0]
    new = applied(text, got["edit"])
    assert new == (
        "# 😀 train\r\n$env:TORCH_LOGS = 'output_code,+dynamo'\r\n"
        "$env:TORCH_LOGS_OUT = 'torch_logs.txt'\r\n$env:TORCH_TRACE = 'torch_trace'\r\n"
        "python train.py\r\n"
    )
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
        )
    )
    assert await wait_diagnostics(vscode, uri, 2) == []


async def test_compose_rewrites_the_value_on_the_line(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / ".github" / "workflows" / "ci.yml").as_uri()
    text = 'on: push\nenv:\n  TORCH_LOGS: "+dynamo"\n'
    await open_and_wait(vscode, uri, text, "yaml")
    got = obj(
        await vscode.protocol.send_request_async(
            "torchLogs/compose",
            {
                "textDocument": {"uri": uri},
                "position": {"line": 2, "character": 3},
                "items": ["graph_breaks"],
                "recipes": [],
            },
        )
    )
    assert applied(text, got["edit"]) == 'on: push\nenv:\n  TORCH_LOGS: "graph_breaks"\n'
    nothing = obj(
        await vscode.protocol.send_request_async(
            "torchLogs/compose",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        )
    )
    assert nothing["edit"] is None and nothing["message"]


async def test_compose_writes_nothing_python_reads_too_late(vscode: LanguageClient, tmp_path: Path):
    """After ``import torch`` a write has no effect (TL501): no edit there, a message;
    above the import, the edit."""
    uri = (tmp_path / "train.py").as_uri()
    text = "import os\n\nimport torch\n"
    await open_and_wait(vscode, uri, text, "python")

    async def compose(line: int) -> dict:
        return obj(
            await vscode.protocol.send_request_async(
                "torchLogs/compose",
                {
                    "textDocument": {"uri": uri},
                    "position": {"line": line, "character": 0},
                    "recipes": ["recompiles"],
                },
            )
        )

    late = await compose(2)
    assert late["edit"] is None and "import torch" in late["message"]
    early = await compose(1)
    assert applied(text, early["edit"]) == (
        'import os\nos.environ["TORCH_LOGS"] = "recompiles"\nimport torch\n'
    )
