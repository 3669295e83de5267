"""The server's pace under bursts (part of ``scripts/bench.py``, input names ``burst`` and
``storm``).

- ``burst``: a 10,000-line script (``gen_shell``) is opened; 300 ``didChange`` typing one
  character each into one value are written in one burst, then a hover: the ms from the
  first change to the hover's answer and to the diagnostics of the last version, and how
  many versions in between were published (each one checked in full is work the editor
  waits behind).
- ``storm``: a Python file whose ``set_logs`` call a launch configuration links (TL632) is
  open; 2,000 ``workspace/didChangeWatchedFiles`` are written in one burst, then a hover:
  the ms from the first event to the hover's answer.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from bench_inputs import gen_shell
from rawlsp import RawClient

#: Changes in the burst, file events in the storm.
BURST_EDITS = 300
STORM_EVENTS = 2000
#: Seconds any one wait may take.
TIMEOUT = 300.0


class _Counting(RawClient):
    """A raw client that counts the publications of each document."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        super().__init__(proc)
        self.published: dict[str, list[int | None]] = {}

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if msg.get("method") == "textDocument/publishDiagnostics":
            params = msg["params"]
            self.published.setdefault(params["uri"], []).append(params.get("version"))
        super()._dispatch(msg)


async def _open(client: RawClient, uri: str, language: str, text: str) -> None:
    fut = client.diagnostics(uri, 1)
    item = {"uri": uri, "languageId": language, "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    await asyncio.wait_for(fut, TIMEOUT)


async def burst(server: list[str], root: Path) -> dict[str, Any]:
    """See the module docstring (``burst``)."""
    path = root / "burst" / "run.sh"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = gen_shell(10_000)
    path.write_text(text)
    uri = path.as_uri()
    client, _ = await _Counting.start(server, root.as_uri())
    assert isinstance(client, _Counting)
    try:
        await _open(client, uri, "shellscript", text)
        lines = text.split("\n")
        line = next(i for i in range(len(lines) // 2, len(lines)) if "TORCH_LOGS=" in lines[i])
        column = lines[line].index("TORCH_LOGS=") + len("TORCH_LOGS=")
        last = client.diagnostics(uri, 1 + BURST_EDITS)
        t0 = time.perf_counter()
        for i in range(BURST_EDITS):
            here = {"line": line, "character": column + i}
            change = {"range": {"start": here, "end": here}, "text": "x"}
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": 2 + i}, "contentChanges": [change]},
            )
        position = {"line": line, "character": column + 1}
        params = {"textDocument": {"uri": uri}, "position": position}
        await asyncio.wait_for(client.request("textDocument/hover", params), TIMEOUT)
        hover_ms = (time.perf_counter() - t0) * 1000
        await asyncio.wait_for(last, TIMEOUT)
        last_ms = (time.perf_counter() - t0) * 1000
        between = [v for v in client.published.get(uri, []) if v and 1 < v < 1 + BURST_EDITS]
        await client.stop()
    except BaseException:
        if client.proc.returncode is None:
            client.proc.kill()
        raise
    return {
        "edits": BURST_EDITS,
        "hover_after_burst_ms": hover_ms,
        "last_diagnostics_ms": last_ms,
        "versions_published_between": len(between),
    }


async def storm(server: list[str], root: Path) -> dict[str, Any]:
    """See the module docstring (``storm``)."""
    folder = root / "storm"
    (folder / ".vscode").mkdir(parents=True, exist_ok=True)
    launch = folder / ".vscode" / "launch.json"
    launch.write_text(
        '{"configurations": [{"name": "t", "type": "debugpy", "request": "launch", '
        '"program": "${workspaceFolder}/train.py", "env": {"TORCH_LOGS": "+dynamo"}}]}'
    )
    script = folder / "train.py"
    text = "import torch\n\ntorch._logging.set_logs(dynamo=10)\n"
    script.write_text(text)
    client, _ = await RawClient.start(server, folder.as_uri())
    try:
        await _open(client, script.as_uri(), "python", text)
        event = {"changes": [{"uri": launch.as_uri(), "type": 2}]}
        t0 = time.perf_counter()
        for _ in range(STORM_EVENTS):
            client.notify("workspace/didChangeWatchedFiles", event)
        position = {"line": 2, "character": 20}
        params = {"textDocument": {"uri": script.as_uri()}, "position": position}
        await asyncio.wait_for(client.request("textDocument/hover", params), TIMEOUT)
        hover_ms = (time.perf_counter() - t0) * 1000
        await client.stop()
    except BaseException:
        if client.proc.returncode is None:
            client.proc.kill()
        raise
    return {"events": STORM_EVENTS, "hover_after_storm_ms": hover_ms}


def _medians(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each key's median over the runs."""
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]}


async def pace(server: list[str], root: Path, runs: int) -> dict[str, Any]:
    """``burst`` and ``storm``, ``runs`` times each: the medians of each number."""
    return {
        "burst": _medians([await burst(server, root) for _ in range(runs)]),
        "storm": _medians([await storm(server, root) for _ in range(runs)]),
    }


def print_pace(results: dict[str, Any]) -> None:
    """The pace numbers as two lines (medians of the runs)."""
    b, s = results["burst"], results["storm"]
    print(
        f"burst ({BURST_EDITS} changes to a 10,000-line script in one write, then a hover): "
        f"hover answered {b['hover_after_burst_ms']:.0f} ms, last diagnostics "
        f"{b['last_diagnostics_ms']:.0f} ms after the first change; "
        f"{b['versions_published_between']:.0f} versions published in between"
    )
    print(
        f"storm ({STORM_EVENTS} file events in one write, then a hover): hover answered "
        f"{s['hover_after_storm_ms']:.0f} ms after the first event"
    )
