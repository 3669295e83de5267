"""The server's protocol in process: real pygls, messages fed as the stdio loop feeds
them (JSON parsed with the protocol's ``structure_message``), output collected."""

from __future__ import annotations

import json
from typing import Any

from torch_logs_lsp.server.app import TorchLogsServer, create_server


class Collect:
    """A writer that keeps every message the server writes (parsed)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data))

    def close(self) -> None:
        pass


def feed(server: TorchLogsServer, message: dict[str, Any]) -> None:
    """Handle one message as pygls' stdio loop does."""
    body = json.dumps({"jsonrpc": "2.0", **message})
    server.protocol.handle_message(json.loads(body, object_hook=server.protocol.structure_message))


def started() -> tuple[TorchLogsServer, Collect]:
    """A server after initialize/initialized, writing into a :class:`Collect`."""
    server = create_server()
    out = Collect()
    server.protocol.set_writer(out, include_headers=False)
    feed(server, {"id": 1, "method": "initialize", "params": {"capabilities": {}}})
    feed(server, {"method": "initialized", "params": {}})
    return server, out


def test_notifications_leave_no_future_behind() -> None:
    """pygls kept one future per notification in ``_request_futures`` (~2 KB each)."""
    server, out = started()
    uri = "file:///w/.env"
    item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=dynamo\n"}
    feed(server, {"method": "textDocument/didOpen", "params": {"textDocument": item}})
    before = len(server.protocol._request_futures)
    for version in range(2, 202):
        change = {
            "range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 11}},
            "text": "+" if version % 2 else "",
        }
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        feed(server, {"method": "textDocument/didChange", "params": params})
    assert len(server.protocol._request_futures) == before == 0
    published = [m for m in out.messages if m.get("method") == "textDocument/publishDiagnostics"]
    assert published[-1]["params"]["version"] == 201  # the edits were handled
