"""A minimal LSP client over stdio for the benchmark: JSON in, JSON out, nothing else.

pygls' client turns every message into lsprotocol objects with cattrs; for a
publishDiagnostics carrying 1,600 diagnostics that alone takes tens of milliseconds and
would be counted as the server's time. This client only frames and parses JSON (``json``
in C), answers the server's own requests with ``null``, and resolves futures, so what the
benchmark measures is the server (and the pipe).
"""

from __future__ import annotations

import asyncio
import json
import time
from itertools import count
from typing import Any


class RawClient:
    """One server process. ``diagnostics`` futures are keyed by ``(uri, version)``."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._ids = count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._waiters: dict[tuple[str, int | None], asyncio.Future[Any]] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, argv: list[str], root_uri: str | None) -> tuple[RawClient, float]:
        """Spawn ``argv``, initialize (UTF-16, Markdown) and return the client and the
        milliseconds from spawn to the initialize result."""
        t0 = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 26,
        )
        client = cls(proc)
        caps = {
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {
                "completion": {"completionItem": {"documentationFormat": ["markdown"]}},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "publishDiagnostics": {"versionSupport": True},
            },
            "workspace": {"configuration": True, "workspaceFolders": True},
        }
        params: dict[str, Any] = {"processId": None, "rootUri": root_uri, "capabilities": caps}
        if root_uri:
            params["workspaceFolders"] = [{"uri": root_uri, "name": "bench"}]
        await client.request("initialize", params)
        ms = (time.perf_counter() - t0) * 1000
        client.notify("initialized", {})
        return client, ms

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> asyncio.Future[Any]:
        """Send a request; the future resolves to its result (or raises on an error)."""
        msg_id = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return fut

    def diagnostics(self, uri: str, version: int | None) -> asyncio.Future[Any]:
        """A future for the publishDiagnostics of ``uri`` at ``version``."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters[(uri, version)] = fut
        return fut

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = await out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            msg = json.loads(await out.readexactly(length))
            self._dispatch(msg)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:  # a request from the server
            self._write({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif "method" in msg:
            if msg["method"] == "textDocument/publishDiagnostics":
                p = msg["params"]
                fut = self._waiters.pop((p["uri"], p.get("version")), None)
                if fut is not None and not fut.done():
                    fut.set_result(p)
        else:
            fut = self._pending.pop(msg.get("id"), None)
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(RuntimeError(msg["error"]))
                else:
                    fut.set_result(msg.get("result"))

    async def stop(self) -> float:
        """shutdown + exit; milliseconds until the process has ended."""
        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(self.request("shutdown", None), 10)
            self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 10)
        except (TimeoutError, RuntimeError, ConnectionError):
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()
        return (time.perf_counter() - t0) * 1000
