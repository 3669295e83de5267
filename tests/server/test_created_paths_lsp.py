"""End to end through the server: TL402 only for a path judged in the workspace
folders: a directory the script creates first is not missing, a batch script and an
absolute path outside the workspace are not judged."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.conftest import SERVER, _session, open_and_wait

#: A workspace folder that exists on every machine running the tests: this directory.
WS = Path(__file__).resolve().parent
MISSING = WS / "no-such-dir-created-paths"


@pytest_lsp.fixture(config=SERVER)
async def in_workspace(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A VS Code-like client with :data:`WS` as its only workspace folder."""
    folder = types.WorkspaceFolder(uri=WS.as_uri(), name="ws")
    caps = client_capabilities("visual-studio-code")

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """The server registers file watchers (TL632), as VS Code accepts."""

    async for c in _session(lsp_client, caps, workspace_folders=[folder], root_uri=WS.as_uri()):
        yield c


async def codes(client: LanguageClient, name: str, text: str) -> list[tuple[str, int]]:
    diags = await open_and_wait(client, (WS / name).as_uri(), text, "shellscript")
    return sorted((str(d.code), d.range.start.line) for d in diags)


async def test_created_directory_and_paths_judged_elsewhere(in_workspace: LanguageClient):
    assert not MISSING.exists()
    value = f"export TORCH_LOGS_OUT={MISSING}/dump/torch_logs.txt\n"
    # the control: missing, inside the workspace
    assert await codes(in_workspace, "a.sh", "#!/bin/bash\n" + value) == [("TL402", 1)]
    # a directory created three lines before
    made = f"#!/bin/bash\nmkdir -p {MISSING}/dump\n\n\n" + value
    assert await codes(in_workspace, "b.sh", made) == []
    # a SLURM script runs on another machine
    job = "#!/bin/bash\n#SBATCH -N 1\n" + value
    assert await codes(in_workspace, "c.sh", job) == []
    # an absolute path outside the workspace folder
    outside = "#!/bin/bash\nexport TORCH_LOGS_OUT=/scratch/prof/dump/torch_logs.txt\n"
    assert await codes(in_workspace, "d.sh", outside) == []
    # relative to the workspace folder, and after a cd that leaves it
    assert await codes(in_workspace, "e.sh", "TORCH_LOGS_OUT=nope/t.txt python t.py\n") == [
        ("TL402", 0)
    ]
    assert await codes(in_workspace, "f.sh", "cd /\nTORCH_LOGS_OUT=nope/t.txt python t.py\n") == []
