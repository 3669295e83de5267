"""torch's compile knobs through the real server over stdio: their names completed where a
variable name is written in several hosts, hover on a name with torch's documentation,
and TL441 on a value torch never matches."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_server import complete

PIN = "# torch-logs: torch=2.13\n"


def _hover_text(h: types.Hover | None) -> str:
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    return h.contents.value


async def _hover(client: LanguageClient, uri: str, line: int, character: int) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


@pytest.mark.parametrize(
    ("uri", "text", "language_id"),
    [
        ("file:///work/k/.env", f"{PIN}TORCHINDUCTOR_MAX_AU", ""),
        ("file:///work/k/run.sh", f"#!/bin/bash\n{PIN}export TORCHINDUCTOR_MAX_AU", ""),
        (
            "file:///work/k/.github/workflows/ci.yml",
            f"{PIN}on: push\nenv:\n  TORCHINDUCTOR_MAX_AU",
            "",
        ),
        ("file:///work/k/Dockerfile", f"{PIN}FROM python\nENV TORCHINDUCTOR_MAX_AU", ""),
        ("file:///work/k/run.ps1", f"{PIN}$env:TORCHINDUCTOR_MAX_AU", ""),
        ("file:///work/k/train.py", f'{PIN}import os\nos.environ["TORCHINDUCTOR_MAX_AU', "python"),
    ],
)
async def test_knob_names_completed_where_a_name_is_written(
    vscode: LanguageClient, uri: str, text: str, language_id: str
):
    await open_and_wait(vscode, uri, text, language_id)
    lines = text.split("\n")
    result = await complete(vscode, uri, len(lines) - 1, len(lines[-1]))
    assert isinstance(result, types.CompletionList)
    by_label = {i.label: i for i in result.items}
    assert "TORCHINDUCTOR_MAX_AUTOTUNE" in by_label
    assert all(label.startswith("TORCHINDUCTOR_MAX_AU") for label in by_label)
    item = by_label["TORCHINDUCTOR_MAX_AUTOTUNE"]
    assert item.kind == types.CompletionItemKind.Variable
    assert item.detail is not None and "2.1+" in item.detail
    assert isinstance(item.documentation, types.MarkupContent)
    assert "torch._inductor.config.max_autotune" in item.documentation.value
    assert isinstance(item.text_edit, types.TextEdit)
    start = len(lines[-1]) - len("TORCHINDUCTOR_MAX_AU")
    assert (item.text_edit.range.start.character, item.text_edit.range.end.character) == (
        start,
        len(lines[-1]),
    )


async def test_launch_json_env_key_offers_family_then_knobs(vscode: LanguageClient):
    uri = "file:///work/k/.vscode/launch.json"
    text = '{"configurations": [{"env": {"TORCH'
    await open_and_wait(vscode, uri, text)
    result = await complete(vscode, uri, 0, len(text))
    assert isinstance(result, types.CompletionList)
    labels = [i.label for i in sorted(result.items, key=lambda i: i.sort_text or "")]
    assert labels[0] == "TORCH_LOGS"
    assert "TORCHDYNAMO_VERBOSE" in labels and "TORCH_COMPILE_DEBUG" in labels
    assert labels.index("TORCH_COMPILE_DEBUG") < labels.index("TORCHDYNAMO_VERBOSE")


async def test_no_knob_names_in_a_python_string_that_is_not_a_key(vscode: LanguageClient):
    uri = "file:///work/k/other.py"
    text = 'x = "TORCHINDUCTOR_MAX_AU'
    await open_and_wait(vscode, uri, text, "python")
    assert await complete(vscode, uri, 0, len(text)) is None


async def test_hover_on_a_knob_name_in_dotenv_and_python(vscode: LanguageClient):
    uri = "file:///work/k/h.env"
    text = f"{PIN}TORCHINDUCTOR_FX_GRAPH_CACHE=1\n"
    await open_and_wait(vscode, uri, text)
    h = await _hover(vscode, uri, 1, 5)
    value = _hover_text(h)
    assert "**TORCHINDUCTOR_FX_GRAPH_CACHE**" in value
    assert "torch/_inductor/config.py" in value and "fx_graph_cache" in value
    assert "Default:" in value and "Values:" in value and "In torch since" in value
    assert h is not None and h.range is not None
    assert (h.range.start.line, h.range.start.character, h.range.end.character) == (1, 0, 28)

    uri = "file:///work/k/h.py"
    text = f'{PIN}import os\nflag = os.environ.get("TORCHDYNAMO_VERBOSE")\n'
    await open_and_wait(vscode, uri, text, "python")
    value = _hover_text(await _hover(vscode, uri, 2, 30))
    assert "**TORCHDYNAMO_VERBOSE**" in value and "torch._dynamo.config.verbose" in value
    assert await _hover(vscode, uri, 2, 2) is None  # `flag`: not a knob


async def test_hover_in_plain_text(plaintext_client: LanguageClient):
    uri = "file:///work/k/p.env"
    await open_and_wait(plaintext_client, uri, f"{PIN}TORCHINDUCTOR_MAX_AUTOTUNE=1\n")
    value = _hover_text(await _hover(plaintext_client, uri, 1, 3))
    assert value.startswith("TORCHINDUCTOR_MAX_AUTOTUNE · ")
    assert "**" not in value


async def test_value_torch_never_matches_is_tl441(vscode: LanguageClient):
    uri = "file:///work/k/v.env"
    text = f"{PIN}TORCHINDUCTOR_MAX_AUTOTUNE=true\nTORCHINDUCTOR_MAX_AUTOTUNE_GEMM=1\n"
    diags = await open_and_wait(vscode, uri, text)
    found = [d for d in diags if d.code == "TL441"]
    assert len(found) == 1
    d = found[0]
    assert d.severity == types.DiagnosticSeverity.Warning
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (1, 27, 31)
    assert "reads it as off" in d.message and '"1"' in d.message
