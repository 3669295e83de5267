"""A minimal LSP client over stdio for the benchmark: JSON in, JSON out, nothing else.

pygls' client turns every message into lsprotocol objects with cattrs; for a
publishDiagnostics carrying 1,600 diagnostics that alone takes tens of milliseconds and
would be counted as the server's time. This client only frames and parses JSON (``json``
in C), answers the server's own requests with ``null`` (``workspace/configuration`` with a
list of ``null`` of the asked length), and resolves futures, so what the benchmark
measures is the server (and the pipe).
"""

from __future__ import annotations

import asyncio
import json
import time
from itertools import count
from typing import Any

CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "completion": {"completionItem": {"documentationFormat": ["markdown"]}},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "publishDiagnostics": {"versionSupport": True},
    },
    "workspace": {"configuration": True, "workspaceFolders": True},
}


class RawClient:
    """One server process. ``diagnostics`` futures wait for a ``(uri, version)``; a publish
    without a version resolves the oldest waiter of its uri."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._ids = count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._waiters: dict[str, list[tuple[int | None, asyncio.Future[Any]]]] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(
        cls,
        argv: list[str],
        root_uri: str | None,
        *,
        capabilities: dict[str, Any] | None = None,
        init_options: Any = None,
        env: dict[str, str] | None = None,
    ) -> tuple[RawClient, float]:
        """Spawn ``argv``, initialize (``capabilities``, by default UTF-16 and Markdown) and
        return the client and the milliseconds from spawn to the initialize result."""
        t0 = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 26,
            env=env,
        )
        client = cls(proc)
        caps = CAPABILITIES if capabilities is None else capabilities
        params: dict[str, Any] = {"processId": None, "rootUri": root_uri, "capabilities": caps}
        if init_options is not None:
            params["initializationOptions"] = init_options
        if root_uri:
            params["workspaceFolders"] = [{"uri": root_uri, "name": "bench"}]
        try:
            await client.request("initialize", params)
        except BaseException:
            if proc.returncode is None:
                proc.kill()
            raise
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
        """A future for the publishDiagnostics of ``uri`` at ``version``, or for the first
        publish of ``uri`` without a version (servers that do not send one)."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(uri, []).append((version, fut))
        return fut

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = await out.readline()
                if not line:  # the server has gone: fail what still waits for it
                    for fut in self._pending.values():
                        if not fut.done():
                            fut.set_exception(ConnectionError("server closed its stdout"))
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
            result = None
            if msg["method"] == "workspace/configuration":
                result = [None] * len(msg.get("params", {}).get("items", []))
            self._write({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        elif "method" in msg:
            if msg["method"] == "textDocument/publishDiagnostics":
                p = msg["params"]
                waiters = self._waiters.get(p["uri"], [])
                waiters[:] = [w for w in waiters if not w[1].done()]  # drop timed-out ones
                version = p.get("version")
                for i, (want, fut) in enumerate(waiters):
                    if version is None or want == version:
                        del waiters[i]
                        fut.set_result(p)
                        break
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
