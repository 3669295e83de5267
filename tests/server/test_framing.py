"""The base protocol over stdio (server/pygls_fixes/stdio.py), with the raw client writing bytes.

pygls' loop died on ``Content-Length: 40000000000`` (MemoryError, exit 1), held a header
line of any length in memory, ignored ``content-length:`` in lower case (the request was
never answered) and answered JSON it could not read with a popup instead of a JSON-RPC
error. Each case is followed by a request that must be answered: the server goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw import Client
from torch_logs_lsp.server.pygls_fixes.stdio import MAX_BODY, MAX_HEADER_LINE

ENV = "TORCH_LOGS=+dynamo\n"


async def started(client: Client, tmp_path: Path) -> str:
    """Initialize and open a .env; its URI."""
    await client.initialize(tmp_path.as_uri())
    uri = (tmp_path / ".env").as_uri()
    item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": ENV}
    published = client.diagnostics(uri, 1)
    client.notify("textDocument/didOpen", {"textDocument": item})
    await published
    return uri


async def still_serving(client: Client, uri: str) -> None:
    pos = {"line": 0, "character": 13}
    hover = await client.ask("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos})
    assert "dynamo" in str(hover)


def request(msg_id: Any) -> bytes:
    """A hover request with ``msg_id`` written as JSON text (``NaN`` and ``1e400`` too)."""
    params = '{"textDocument": {"uri": "file:///x/.env"}, "position": {"line": 0, "character": 0}}'
    return b'{"jsonrpc": "2.0", "id": %s, "method": "textDocument/hover", "params": %s}' % (
        msg_id.encode(),
        params.encode(),
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"jsonrpc": "2.0", "id": 5, "method": ', -32700),  # cut short
        (b"\xff\xfe{}", -32700),  # not UTF-8
        (b"[]", -32600),
        (b'[{"jsonrpc": "2.0", "method": "x"}, {"jsonrpc": "2.0", "method": "y"}]', -32600),
        (b"42", -32600),
        (request('{"a": 1}'), -32600),
        (request("[1]"), -32600),
        (request("NaN"), -32600),
        (request("1e400"), -32600),
    ],
)
async def test_unreadable_messages_get_one_error_with_null_id(
    raw_client: Client, tmp_path: Path, body: bytes, code: int
) -> None:
    client = raw_client
    uri = await started(client, tmp_path)
    client.send_body(body)
    answer = await client.unaddressed_answer()
    assert answer["id"] is None and answer["error"]["code"] == code
    assert "data" not in answer["error"]  # no traceback
    await still_serving(client, uri)
    assert client.unaddressed.empty()  # one answer, also for a batch
    assert "Traceback" not in client.log.read_text()


async def test_header_names_are_case_insensitive(raw_client: Client, tmp_path: Path) -> None:
    client = raw_client
    uri = await started(client, tmp_path)
    body = request("77").replace(b"file:///x/.env", uri.encode())
    client.send_body(body, header=b"content-length")
    # the answer to id 77 comes before the answer to this later request
    await still_serving(client, uri)
    client.send_body(body, header=b"CONTENT-LENGTH")
    await still_serving(client, uri)


async def test_oversized_body_and_header_line_are_skipped(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    uri = await started(client, tmp_path)
    # a body one byte over the limit, whose JSON would be a valid request
    filler = b" " * (MAX_BODY + 1 - len(request("9")))
    client.send_body(request("9") + filler)
    await still_serving(client, uri)
    # a header line far over the limit, then a real message
    client.send_raw(b"X-Junk: " + b"x" * (MAX_HEADER_LINE * 20) + b"\r\n")
    client.send_body(json.dumps({"jsonrpc": "2.0", "method": "x/y", "params": {}}).encode())
    await still_serving(client, uri)
    log = client.log.read_text()
    assert f"a message of {MAX_BODY + 1} bytes" in log and "a header line over" in log


async def test_huge_content_length_then_end_of_input(raw_client: Client, tmp_path: Path) -> None:
    """pygls allocated the claimed 40 GB at once: MemoryError, exit 1."""
    client = raw_client
    await started(client, tmp_path)
    client.send_raw(b"Content-Length: 40000000000\r\n\r\n" + b"{" * 1000)
    assert client.proc.stdin is not None
    client.proc.stdin.close()
    assert await client.exit_code() == 0
    assert "MemoryError" not in client.log.read_text()


async def test_normal_traffic_leaves_no_pygls_warnings(raw_client: Client, tmp_path: Path) -> None:
    uri = await started(raw_client, tmp_path)
    raw_client.notify("$/cancelRequest", {"id": 987654})  # answered long ago, or never sent
    raw_client.notify("$/someOtherExtension", {})
    await still_serving(raw_client, uri)
    await raw_client.close()
    log = (tmp_path / "stderr.txt").read_text()
    assert "unknown message id" not in log and "unknown method" not in log, log


def test_the_quieted_messages_are_pygls_own() -> None:
    # a pygls release that rewords them makes this fail (instead of the filter silently
    # letting them through)
    import importlib
    import inspect

    from torch_logs_lsp.server.pygls_fixes.quiet import NOISE

    for module, messages in NOISE.items():
        source = inspect.getsource(importlib.import_module(module))
        for message in messages:
            assert repr(message)[1:-1] in source or message in source, (module, message)
