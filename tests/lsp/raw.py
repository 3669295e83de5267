"""The benchmark's raw stdio client (scripts/rawlsp.py) for tests: it also keeps the
server's notifications, and every wait is bounded (a server that never answers fails the
test instead of hanging it)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
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

    @classmethod
    async def spawn(cls, log: Path) -> Client:
        """A server process that has not been initialized."""
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                *SERVER,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                limit=1 << 26,
            )
        return cls(proc, log)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" not in msg:
            self.notifications.append(msg)
        super()._dispatch(msg)

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
