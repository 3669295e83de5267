"""What the server reads and analyses is bounded (over stdio, the real process).

- An open document over MAX_FILE_BYTES (8 MiB) is not analysed: the user is told once per
  document (window/showMessage), its diagnostics are empty, and a request about a small
  document right after it is answered (ordering, not time: the big one's empty diagnostics
  come before that answer). A change growing a document past the limit does the same (a
  request about it meanwhile is answered with nothing).
- A document that is not open is read only if it is a regular file within the limit: a
  FIFO or /dev/zero is answered empty (a blocked read would time the wait out) and the
  reason is logged.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw import WAIT, Client
from torch_logs_lsp.files import MAX_FILE_BYTES

BAD = "TORCH_LOGS=+dynamo,Guards\n"  # one TL201 (Guards)


def padding(size: int) -> str:
    """``size`` bytes of comment lines."""
    line = "# " + "x" * 1021 + "\n"
    return line * (size // len(line)) + "#" * (size % len(line))


def at(uri: str, line: int = 0, character: int = 13) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def open_doc(client: Client, uri: str, text: str) -> None:
    item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})


def grow(client: Client, uri: str, version: int, text: str) -> None:
    """Insert ``text`` at the start of the document."""
    start = {"line": 0, "character": 0}
    change = {"range": {"start": start, "end": start}, "text": text}
    params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
    client.notify("textDocument/didChange", params)


async def test_huge_document_is_not_analysed_and_small_ones_still_are(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    await client.initialize(tmp_path.as_uri())
    huge_uri = (tmp_path / "huge.env").as_uri()
    small_uri = (tmp_path / "small.env").as_uri()
    huge_published = client.diagnostics(huge_uri, 1)
    small_published = client.diagnostics(small_uri, 1)
    open_doc(client, huge_uri, BAD + padding(MAX_FILE_BYTES))
    open_doc(client, small_uri, BAD)
    hover = await client.ask("textDocument/hover", at(small_uri))
    assert hover is not None and "dynamo" in str(hover)
    # answered after the huge document was dealt with, and that was without analysis
    assert huge_published.done()
    assert huge_published.result()["diagnostics"] == []
    small_diagnostics = (await asyncio.wait_for(small_published, WAIT))["diagnostics"]
    assert [d["code"] for d in small_diagnostics] == ["TL201"]
    told = [m for m in client.shown() if "huge.env" in m]
    assert len(told) == 1 and str(MAX_FILE_BYTES) in told[0], client.shown()
    assert await client.ask("textDocument/hover", at(huge_uri)) is None

    # the small document grows past the limit, twice: told once, diagnostics cleared
    for version, more in ((2, MAX_FILE_BYTES), (3, 1000)):
        published = client.diagnostics(small_uri, version)
        grow(client, small_uri, version, padding(more))
        assert await client.ask("textDocument/hover", at(small_uri)) is None  # not analysed
        assert (await asyncio.wait_for(published, WAIT))["diagnostics"] == []
    assert len([m for m in client.shown() if "small.env" in m]) == 1

    # closed and opened again small: analysed again
    client.notify("textDocument/didClose", {"textDocument": {"uri": small_uri}})
    await client.ask("textDocument/hover", at(small_uri))  # the close's empty publish
    reopened = client.diagnostics(small_uri, 1)
    open_doc(client, small_uri, BAD)
    assert await client.ask("textDocument/hover", at(small_uri)) is not None
    diagnostics = (await asyncio.wait_for(reopened, WAIT))["diagnostics"]
    assert [d["code"] for d in diagnostics] == ["TL201"]

    await client.ask("shutdown", None)
    client.notify("exit", None)
    assert await client.exit_code() == 0
    log = client.log.read_text()
    assert log.count("huge.env is") == 1 and "not analysed" in log


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-large", "untitled"])
async def test_unopened_document_is_read_safely(
    raw_client: Client, tmp_path: Path, kind: str
) -> None:
    client = raw_client
    await client.initialize(tmp_path.as_uri())
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe.env")
        uri, reason = (tmp_path / "pipe.env").as_uri(), "a FIFO, not a regular file"
    elif kind == "dev-zero":
        uri, reason = "file:///dev/zero", "a character device, not a regular file"
    elif kind == "too-large":
        (tmp_path / "big.env").write_text(BAD + padding(MAX_FILE_BYTES))
        uri, reason = (tmp_path / "big.env").as_uri(), f"larger than {MAX_FILE_BYTES} bytes"
    else:
        uri, reason = "untitled:Untitled-1", "not a file: URI"
    # each answer is bounded (a read blocking on the FIFO or /dev/zero fails here)
    assert await client.ask("textDocument/hover", at(uri)) is None
    assert await client.ask("textDocument/completion", at(uri)) is None
    context = {"diagnostics": []}
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    params = {"textDocument": {"uri": uri}, "range": rng, "context": context}
    assert await client.ask("textDocument/codeAction", params) is None
    # a regular file that is not open is still read
    (tmp_path / "real.env").write_text(BAD)
    hover = await client.ask("textDocument/hover", at((tmp_path / "real.env").as_uri()))
    assert hover is not None and "dynamo" in str(hover)
    await client.ask("shutdown", None)
    client.notify("exit", None)
    assert await client.exit_code() == 0
    assert reason in client.log.read_text()
    assert client.shown() == []
