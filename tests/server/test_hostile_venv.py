"""A hostile workspace ``.venv``: its ``torch/_logging/_registrations.py`` is a FIFO with
no writer. An older build opened it with a plain read and hung forever (no diagnostics
ever came); the server reads it only as a regular file, falls back to the packaged
registry of the environment's torch release and says why in its log.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.server.test_limits import open_doc
from tests.support.hostile import fake_torch_env
from tests.support.raw import WAIT, Client


async def test_fifo_registrations_in_workspace_venv(raw_client: Client, tmp_path: Path) -> None:
    client = raw_client
    _, registrations = fake_torch_env(tmp_path)
    (tmp_path / "venv").rename(tmp_path / ".venv")  # the workspace's .venv
    registrations = tmp_path / ".venv" / registrations.relative_to(tmp_path / "venv")
    os.mkfifo(registrations)
    await client.initialize(tmp_path.as_uri())
    uri = (tmp_path / ".env").as_uri()
    published = client.diagnostics(uri, 1)
    open_doc(client, uri, "TORCH_LOGS=+dynamoo\n")
    diagnostics = (await asyncio.wait_for(published, WAIT))["diagnostics"]
    assert [d["code"] for d in diagnostics] == ["TL201"]
    await client.ask("shutdown", None)
    client.notify("exit", None)
    assert await client.exit_code() == 0
    log = client.log.read_text()
    assert "a FIFO, not a regular file" in log and "packaged registry of torch 2.4" in log
