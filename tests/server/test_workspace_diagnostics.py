"""Workspace diagnostics over stdio (a real server process, the raw client).

- To a client that does not pull, the findings of the files that are not open are pushed
  (``publishDiagnostics`` without a version): the files ``torch-logs check`` reads (the
  same walk: ignore files, skipped directories, special files never opened) with the CLI's
  findings; a closed document's findings on disk stay listed; file events re-check, clear
  and find files; ``torchLogs.diagnosticMode: openFilesOnly`` clears them.
- A client that pulls gets ``textDocument/diagnostic`` (``unchanged`` for a known
  ``resultId``) and ``workspace/diagnostic`` (streamed as ``$/progress`` partial results,
  then held until something changes), the first scan's work-done progress, and nothing
  pushed for open documents.
- Requests in an open document are answered while the scan runs (ordering, not time).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.raw import WAIT, Client

PULL_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "diagnostic": {"dynamicRegistration": False},
        "hover": {"contentFormat": ["markdown"]},
    },
    "workspace": {
        "diagnostics": {"refreshSupport": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "workspaceFolders": True,
    },
    "window": {"workDoneProgress": True},
}
PUSH_CAPABILITIES: dict[str, Any] = {
    "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
    "window": {"workDoneProgress": True},
}


class Watching(Client):
    """The raw client, with a wait for a condition on the notifications received."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.news = asyncio.Event()
        #: The server's requests (answered with null by the raw client).
        self.requests: list[dict[str, Any]] = []

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:
            self.requests.append(msg)
        super()._dispatch(msg)
        self.news.set()

    async def until(self, found: Callable[[], Any]) -> Any:
        """Wait (bounded) until ``found()`` is truthy; return it."""

        async def wait() -> Any:
            while True:
                self.news.clear()
                value = found()
                if value:
                    return value
                await self.news.wait()

        return await asyncio.wait_for(wait(), WAIT)

    def published(self, uri: str) -> list[dict[str, Any]]:
        return [
            n["params"]
            for n in self.notifications
            if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
        ]

    def progress(self, token: Any) -> list[dict[str, Any]]:
        return [
            n["params"]["value"]
            for n in self.notifications
            if n["method"] == "$/progress" and n["params"]["token"] == token
        ]


async def start(
    tmp_path: Path, root: Path, capabilities: dict[str, Any], options: Any = None
) -> Watching:
    client = await Watching.spawn(tmp_path / "stderr.txt", "--log-level", "INFO")
    params: dict[str, Any] = {
        "processId": None,
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
        "capabilities": capabilities,
    }
    if options is not None:
        params["initializationOptions"] = options
    await client.ask("initialize", params)
    client.notify("initialized", {})
    return client


def workspace(root: Path) -> dict[str, Path]:
    """A small project: findings in files never opened, files the walk leaves out."""
    files = {
        "env": root / "envs" / "bad.env",
        "sh": root / "scripts" / "run.sh",
        "ok": root / "good.env",
        "ignored": root / "ignored" / "x.env",
        "modules": root / "node_modules" / "pkg" / ".env",
        "py": root / "train.py",
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    files["env"].write_text("TORCH_LOGS=aot_g\n")
    files["sh"].write_text("#!/bin/sh\nexport TORCH_LOGS=+dynamo,gaurds\n")
    files["ok"].write_text("TORCH_LOGS=+dynamo\n")
    files["ignored"].write_text("TORCH_LOGS=aot_g\n")
    files["modules"].write_text("TORCH_LOGS=aot_g\n")
    files["py"].write_text('import os\nos.environ["TORCH_LOGS"] = "recompiles,bogus"\n')
    (root / ".gitignore").write_text("ignored/\n")
    os.mkfifo(root / "pipe.env")  # a FIFO named like a host's file: never opened
    return files


def cli_findings(root: Path) -> dict[str, list[tuple[str, int]]]:
    """``torch-logs check --format json`` over ``root``: codes and lines (0-based) by file."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_logs_lsp.cli.main",
            "check",
            "--show-hints",
            "--format",
            "json",
            ".",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out: dict[str, list[tuple[str, int]]] = {}
    for row in json.loads(proc.stdout):
        key = str((root / row["path"]).resolve())
        out.setdefault(key, []).append((row["code"], row["line"] - 1))
    return {k: sorted(v) for k, v in out.items()}


def codes(diagnostics: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted((d["code"], d["range"]["start"]["line"]) for d in diagnostics)


def scan_ended(client: Watching) -> bool:
    ends = [
        n
        for n in client.notifications
        if n["method"] == "$/progress" and n["params"]["value"].get("kind") == "end"
    ]
    return bool(ends)


async def test_unopened_files_are_pushed_as_the_cli_finds_them(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = workspace(root)
    client = await start(tmp_path, root, PUSH_CAPABILITIES)
    try:
        await client.until(lambda: scan_ended(client))
        expected = cli_findings(root)
        got = {
            str(Path(n["params"]["uri"].removeprefix("file://")).resolve()): codes(
                n["params"]["diagnostics"]
            )
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics"
        }
        assert got == expected
        assert set(got) == {str(files[k].resolve()) for k in ("env", "sh", "py")}
        assert all(
            "version" not in n["params"]
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics"
        )
        begin = next(
            n["params"]["value"]
            for n in client.notifications
            if n["method"] == "$/progress" and n["params"]["value"].get("kind") == "begin"
        )
        assert "workspace" in begin["title"]
    finally:
        await client.close()


async def test_closing_editing_and_file_events_update_the_list(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = workspace(root)
    client = await start(tmp_path, root, PUSH_CAPABILITIES)
    env_uri, ok_uri = files["env"].as_uri(), files["ok"].as_uri()
    try:
        await client.until(lambda: scan_ended(client))
        assert codes(client.published(env_uri)[-1]["diagnostics"]) == [("TL201", 0)]
        # open it, fix it in the editor without saving, close it: the disk's finding stays
        item = {"uri": env_uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=aot_g\n"}
        opened = client.diagnostics(env_uri, 1)
        client.notify("textDocument/didOpen", {"textDocument": item})
        await asyncio.wait_for(opened, WAIT)
        fixed = client.diagnostics(env_uri, 2)
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": env_uri, "version": 2},
                "contentChanges": [{"text": "TORCH_LOGS=aot_graphs\n"}],
            },
        )
        assert (await asyncio.wait_for(fixed, WAIT))["diagnostics"] == []
        seen = len(client.published(env_uri))
        client.notify("textDocument/didClose", {"textDocument": {"uri": env_uri}})
        after = await client.until(lambda: client.published(env_uri)[seen:])
        assert [codes(p["diagnostics"]) for p in after] == [[("TL201", 0)]]
        # the file fixed on disk: cleared; a clean file broken on disk: listed
        files["env"].write_text("TORCH_LOGS=aot_graphs\n")
        files["ok"].write_text("TORCH_LOGS=+dynamo,gaurds\n")
        changes = [{"uri": env_uri, "type": 2}, {"uri": ok_uri, "type": 2}]
        client.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        await client.until(lambda: len(client.published(env_uri)) > seen + 1)
        assert client.published(env_uri)[-1]["diagnostics"] == []
        broken = await client.until(lambda: client.published(ok_uri))
        assert codes(broken[-1]["diagnostics"]) == [("TL201", 0)]
        # a new file is found (the folders walked again); a deleted one is cleared
        new = root / "new" / "more.env"
        new.parent.mkdir()
        new.write_text("TORCH_LOGS=aot_g\n")
        files["sh"].unlink()
        changes = [{"uri": new.as_uri(), "type": 1}, {"uri": files["sh"].as_uri(), "type": 3}]
        client.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        found = await client.until(lambda: client.published(new.as_uri()))
        assert codes(found[-1]["diagnostics"]) == [("TL201", 0)]
        gone = await client.until(lambda: client.published(files["sh"].as_uri())[1:])
        assert gone[-1]["diagnostics"] == []
        # openFilesOnly: what was pushed for files that are not open is cleared
        settings = {"settings": {"torchLogs": {"diagnosticMode": "openFilesOnly"}}}
        client.notify("workspace/didChangeConfiguration", settings)
        cleared = await client.until(lambda: client.published(new.as_uri())[1:])
        assert cleared[-1]["diagnostics"] == []
        assert client.published(ok_uri)[-1]["diagnostics"] == []
    finally:
        await client.close()


async def test_open_files_only_scans_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = workspace(root)
    options = {"torchLogs": {"diagnosticMode": "openFilesOnly"}}
    client = await start(tmp_path, root, PUSH_CAPABILITIES, options)
    try:
        uri = files["ok"].as_uri()
        item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=aot_g\n"}
        opened = client.diagnostics(uri, 1)
        client.notify("textDocument/didOpen", {"textDocument": item})
        await asyncio.wait_for(opened, WAIT)
        await client.ask("shutdown", None)  # every notification the server sent is in
        pushed = {
            n["params"]["uri"]
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics"
        }
        assert pushed == {uri}
        assert not [n for n in client.notifications if n["method"] == "$/progress"]
    finally:
        await client.close()


async def test_a_pulling_client_pulls_documents_and_the_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = workspace(root)
    client = await start(tmp_path, root, PULL_CAPABILITIES)
    env_uri, sh_uri = files["env"].as_uri(), files["sh"].as_uri()
    try:
        # an open document: pulled, never pushed; unchanged for its resultId
        item = {"uri": env_uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=aot_g\n"}
        client.notify("textDocument/didOpen", {"textDocument": item})
        params: dict[str, Any] = {"textDocument": {"uri": env_uri}}
        report = await client.ask("textDocument/diagnostic", params)
        assert report["kind"] == "full"
        assert codes(report["items"]) == [("TL201", 0)]
        again = await client.ask(
            "textDocument/diagnostic", {**params, "previousResultId": report["resultId"]}
        )
        assert again == {"kind": "unchanged", "resultId": report["resultId"]}
        # the workspace, streamed as partial results; the open document is left out
        token = "partial-1"
        answer = await client.ask(
            "workspace/diagnostic", {"previousResultIds": [], "partialResultToken": token}
        )
        assert answer == {"items": []}
        items = [i for value in client.progress(token) for i in value["items"]]
        by_uri = {i["uri"]: i for i in items}
        assert set(by_uri) == {sh_uri, files["py"].as_uri()}
        assert codes(by_uri[sh_uri]["items"]) == [("TL201", 1)]
        assert all(i["kind"] == "full" and i["version"] is None for i in items)
        assert scan_ended(client)  # the work-done progress of the first scan ended
        assert not client.published(env_uri)  # open: pulled
        # pushed only before the first workspace pull (then cleared): pulled from then on
        assert [p["diagnostics"] for p in client.published(sh_uri)][-1:] in ([], [[]])
        # nothing new: the request waits; a file changed on disk answers it
        previous = [{"uri": u, "value": i["resultId"]} for u, i in by_uri.items()]
        held = client.request("workspace/diagnostic", {"previousResultIds": previous})
        await client.ask("textDocument/hover", {**params, "position": {"line": 0, "character": 12}})
        assert not held.done()  # answered later than a request sent after it
        files["sh"].write_text("export TORCH_LOGS=+dynamo\n")
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": sh_uri, "type": 2}]})
        result = await asyncio.wait_for(held, WAIT)
        kinds = {i["uri"]: (i["kind"], i.get("items")) for i in result["items"]}
        assert kinds == {sh_uri: ("full", []), files["py"].as_uri(): ("unchanged", None)}
    finally:
        await client.close()


async def test_a_pulling_client_is_asked_to_pull_again_when_a_setting_changes(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    files = workspace(root)
    client = await start(tmp_path, root, PULL_CAPABILITIES)
    uri = files["env"].as_uri()
    try:
        item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=aot_g\n"}
        client.notify("textDocument/didOpen", {"textDocument": item})
        params: dict[str, Any] = {"textDocument": {"uri": uri}}
        first = await client.ask("textDocument/diagnostic", params)
        assert codes(first["items"]) == [("TL201", 0)]
        settings = {"settings": {"torchLogs": {"severity": {"TL201": "off"}}}}
        client.notify("workspace/didChangeConfiguration", settings)
        await client.until(
            lambda: [r for r in client.requests if r["method"] == "workspace/diagnostic/refresh"]
        )
        again = await client.ask(
            "textDocument/diagnostic", {**params, "previousResultId": first["resultId"]}
        )
        assert again["kind"] == "full" and again["items"] == []
        assert not client.published(uri)
    finally:
        await client.close()


def big_workspace(root: Path, files: int) -> None:
    for i in range(files):
        d = root / f"pkg{i % 20}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.env").write_text(f"TORCH_LOGS=+dynamo,aot_g{i % 7}\n")


async def test_requests_in_an_open_document_are_answered_during_the_scan(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    big_workspace(root, 400)
    client = await start(tmp_path, root, PUSH_CAPABILITIES)
    try:
        uri = (root / "open.env").as_uri()
        item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=+dyn\n"}
        opened = client.diagnostics(uri, 1)
        client.notify("textDocument/didOpen", {"textDocument": item})
        position = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 15}}
        answer = await client.ask("textDocument/completion", position)
        assert any(i["label"] == "dynamo" for i in answer["items"])
        await asyncio.wait_for(opened, WAIT)
        assert not scan_ended(client)  # answered while the scan was still running
        await client.until(lambda: scan_ended(client))
        pushed = {
            n["params"]["uri"]
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics"
        }
        assert len(pushed - {uri}) == 400
    finally:
        await client.close()


async def test_a_pulling_client_gets_a_notebooks_cells_pushed(tmp_path: Path) -> None:
    """VS Code's client does not pull a notebook's cells: they are pushed, pulled empty."""
    from tests.server.test_notebook_sync import CELLS, open_params

    caps = {**PULL_CAPABILITIES, "notebookDocument": {"synchronization": {}}}
    root = tmp_path / "ws"
    root.mkdir()
    client = await start(tmp_path, root, caps)
    try:
        client.notify("notebookDocument/didOpen", open_params())
        cell4 = await client.until(lambda: client.published(CELLS[3]))
        assert sorted(d["code"] for d in cell4[-1]["diagnostics"]) == ["TL201", "TL501"]
        pulled = await client.ask("textDocument/diagnostic", {"textDocument": {"uri": CELLS[3]}})
        assert pulled["kind"] == "full" and pulled["items"] == []
    finally:
        await client.close()


def _last_pushed(client: Watching) -> dict[str, list[dict[str, Any]]]:
    """Per URI: the diagnostics of its last publishDiagnostics."""
    last: dict[str, list[dict[str, Any]]] = {}
    for n in client.notifications:
        if n["method"] == "textDocument/publishDiagnostics":
            last[n["params"]["uri"]] = n["params"]["diagnostics"]
    return last


async def test_a_removed_folder_is_cleared_even_during_its_scan(tmp_path: Path) -> None:
    """Removing a folder while its files are being checked stops checking them and
    clears every one pushed; removing the last folder clears the rest."""
    big, small = tmp_path / "big", tmp_path / "small"
    for i in range(300):
        (big / f"d{i % 10}").mkdir(parents=True, exist_ok=True)
        (big / f"d{i % 10}" / f"f{i}.env").write_text("TORCH_LOGS=aot_g\n")
    small.mkdir()
    (small / "bad.env").write_text("TORCH_LOGS=gaurds\n")
    client = await Watching.spawn(tmp_path / "stderr.txt", "--log-level", "INFO")
    folders = [{"uri": big.as_uri(), "name": "big"}, {"uri": small.as_uri(), "name": "small"}]
    await client.ask(
        "initialize",
        {
            "processId": None,
            "rootUri": big.as_uri(),
            "workspaceFolders": folders,
            "capabilities": PUSH_CAPABILITIES,
        },
    )
    client.notify("initialized", {})
    in_big = big.as_uri() + "/"
    try:
        await client.until(lambda: any(u.startswith(in_big) for u in _last_pushed(client)))
        client.notify(
            "workspace/didChangeWorkspaceFolders",
            {"event": {"added": [], "removed": [folders[0]]}},
        )
        small_uri = (small / "bad.env").as_uri()

        def settled() -> bool:
            last = _last_pushed(client)
            return bool(last.get(small_uri)) and not any(
                d for u, d in last.items() if u.startswith(in_big)
            )

        await client.until(settled)
        await client.ask(
            "textDocument/hover",
            {  # a round trip: nothing more of big
                "textDocument": {"uri": small_uri},
                "position": {"line": 0, "character": 0},
            },
        )
        assert settled()
        client.notify(
            "workspace/didChangeWorkspaceFolders",
            {"event": {"added": [], "removed": [folders[1]]}},
        )
        await client.until(lambda: not any(_last_pushed(client).values()))
    finally:
        await client.close()
