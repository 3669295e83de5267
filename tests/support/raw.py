"""The benchmark's raw stdio client (scripts/rawlsp.py) for tests: it also keeps the
server's notifications, and every wait is bounded (a server that never answers fails the
test instead of hanging it)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.support.paths import SCRIPTS

sys.path.insert(0, str(SCRIPTS))
from rawlsp import RawClient

SERVER = [sys.executable, "-m", "torch_logs_lsp.server"]
#: Seconds any single answer may take.
WAIT = 30.0


class Client(RawClient):
    """A raw client on a ``torch-logs-lsp`` process whose stderr goes to ``log``."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        super().__init__(proc)
        self.log = log
        self.notifications: list[dict[str, Any]] = []
        #: Responses with ``"id": null`` (errors about messages the server could not read).
        self.unaddressed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    @classmethod
    async def spawn(cls, log: Path, *args: str) -> Client:
        """A server process (with the command-line ``args``) that has not been
        initialized."""
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                *SERVER,
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                limit=1 << 26,
            )
        return cls(proc, log)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" not in msg:
            self.notifications.append(msg)
        elif "method" not in msg and msg.get("id") is None:  # an answer to no request
            self.unaddressed.put_nowait(msg)
        super()._dispatch(msg)

    def send_raw(self, data: bytes) -> None:
        """Write bytes to the server as they are (headers and all)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def send_body(self, body: bytes, header: bytes = b"Content-Length") -> None:
        """Write one message body with its length header (named ``header``)."""
        self.send_raw(b"%s: %d\r\n\r\n%s" % (header, len(body), body))

    async def unaddressed_answer(self) -> dict[str, Any]:
        """The next response whose ``id`` is null (or missing)."""
        return await asyncio.wait_for(self.unaddressed.get(), WAIT)

    async def ask(self, method: str, params: Any) -> Any:
        """A request's result; its error (a dict with ``code``) raised as RuntimeError."""
        return await asyncio.wait_for(self.request(method, params), WAIT)

    async def initialize(self, root_uri: str | None = None) -> None:
        params = {"processId": None, "rootUri": root_uri, "capabilities": {}}
        await self.ask("initialize", params)
        self.notify("initialized", {})

    async def exit_code(self) -> int:
        return await asyncio.wait_for(self.proc.wait(), WAIT)

    async def close(self) -> None:
        """End the process (killed if it is still running) and stop reading."""
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()

    def shown(self) -> list[str]:
        """The messages of every ``window/showMessage`` so far."""
        return [
            n["params"]["message"]
            for n in self.notifications
            if n["method"] == "window/showMessage"
        ]
