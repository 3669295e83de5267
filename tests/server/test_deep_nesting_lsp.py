"""A document nested past its grammar's bound (``hosts/nesting.py``) through the real
server over stdio: opening it does not end the process (tree-sitter-yaml crashes on 253
open block levels), it gets no diagnostics, and the next document is served."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.raw import WAIT, Client

BAD_ENV = "TORCH_LOGS=+dynamo,Guards\n"  # one TL201 (Guards)


def deep_yaml(levels: int) -> str:
    keys = "".join("  " * i + f"k{i}:\n" for i in range(levels))
    return "env:\n  TORCH_LOGS: '+dynamo,gaurds'\n" + keys + "  " * levels + "x: 1\n"


def open_doc(client: Client, uri: str, text: str, language: str) -> None:
    item = {"uri": uri, "languageId": language, "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})


def at(uri: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 13}}


async def test_a_too_deep_document_does_not_end_the_server(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    await client.initialize(tmp_path.as_uri())
    deep_uri = (tmp_path / "deep.yaml").as_uri()
    env_uri = (tmp_path / "small.env").as_uri()
    deep_published = client.diagnostics(deep_uri, 1)
    env_published = client.diagnostics(env_uri, 1)
    open_doc(client, deep_uri, deep_yaml(270), "yaml")
    open_doc(client, env_uri, BAD_ENV, "dotenv")
    hover = await client.ask("textDocument/hover", at(env_uri))
    assert hover is not None and "dynamo" in str(hover)
    assert (await asyncio.wait_for(deep_published, WAIT))["diagnostics"] == []
    env_diagnostics = (await asyncio.wait_for(env_published, WAIT))["diagnostics"]
    assert [d["code"] for d in env_diagnostics] == ["TL201"]
    await client.ask("shutdown", None)
    client.notify("exit", None)
    assert await client.exit_code() == 0
    assert "yaml: nested too deeply to read" in client.log.read_text()
