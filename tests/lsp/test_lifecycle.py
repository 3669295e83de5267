"""Protocol conformance over stdio, against the real ``torch-logs-lsp`` process, with the
benchmark's raw client (scripts/rawlsp.py): exit codes, requests before ``initialize`` and
after ``shutdown``, invalid params, a change to a document that is not open. Every wait is
bounded (a server that never answers fails the test instead of hanging it)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from rawlsp import RawClient

SERVER = [sys.executable, "-m", "torch_logs_lsp.server"]
WAIT = 30.0
HOVER = {"textDocument": {"uri": "file:///w/.env"}, "position": {"line": 0, "character": 0}}


class Client(RawClient):
    """A raw client that also keeps every notification the server sends."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        super().__init__(proc)
        self.log = log
        self.notifications: list[dict[str, Any]] = []

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" not in msg:
            self.notifications.append(msg)
        super()._dispatch(msg)

    async def ask(self, method: str, params: Any) -> Any:
        """A request's result; its error (a dict with ``code``) raised as RuntimeError."""
        return await asyncio.wait_for(self.request(method, params), WAIT)

    async def initialize(self) -> None:
        await self.ask("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})

    async def exit_code(self) -> int:
        return await asyncio.wait_for(self.proc.wait(), WAIT)

    def shown(self) -> list[str]:
        return [
            n["params"]["message"]
            for n in self.notifications
            if n["method"] == "window/showMessage"
        ]


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    """A server process that has not been initialized; its stderr goes to a file."""
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err
        )
    c = Client(proc, log)
    yield c
    if proc.returncode is None:
        proc.kill()
        await proc.wait()
    c._reader.cancel()


def error_code(exc: pytest.ExceptionInfo[RuntimeError]) -> int:
    error = exc.value.args[0]
    assert isinstance(error, dict), error
    return int(error["code"])


async def test_exit_without_shutdown_is_code_1(client: Client) -> None:
    await client.initialize()
    client.notify("exit", None)
    assert await client.exit_code() == 1


async def test_exit_after_shutdown_is_code_0(client: Client) -> None:
    await client.initialize()
    assert await client.ask("shutdown", None) is None
    client.notify("exit", None)
    assert await client.exit_code() == 0


async def test_request_before_initialize_is_refused(client: Client) -> None:
    with pytest.raises(RuntimeError) as exc:
        await client.ask("textDocument/hover", HOVER)
    assert error_code(exc) == -32002
    await client.initialize()  # and the server still starts normally
    assert await client.ask("textDocument/hover", HOVER) is None


async def test_request_after_shutdown_is_invalid(client: Client) -> None:
    await client.initialize()
    await client.ask("shutdown", None)
    with pytest.raises(RuntimeError) as exc:
        await client.ask("textDocument/hover", HOVER)
    assert error_code(exc) == -32600
    client.notify("exit", None)
    assert await client.exit_code() == 0


async def test_invalid_params_get_an_error_response(client: Client) -> None:
    await client.initialize()
    bad = {"textDocument": 5, "position": {"line": 0, "character": 0}}
    for method in ("textDocument/hover", "textDocument/completion", "textDocument/codeAction"):
        with pytest.raises(RuntimeError) as exc:
            await client.ask(method, bad)
        assert error_code(exc) == -32602, method
    assert await client.ask("textDocument/hover", HOVER) is None  # still serving
    assert client.shown() == []


async def test_change_of_an_unopened_document_is_only_logged(client: Client) -> None:
    await client.initialize()
    change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": "file:///w/never-opened.env", "version": 2},
            "contentChanges": [{**change, "text": "TORCH_LOGS=x\n"}],
        },
    )
    # requests are answered in order: a showMessage for the change would come first
    assert await client.ask("textDocument/hover", HOVER) is None
    assert client.shown() == []
    await client.ask("shutdown", None)
    client.notify("exit", None)
    assert await client.exit_code() == 0
    assert "never-opened.env, which is not open" in client.log.read_text()
