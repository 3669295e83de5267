"""The server's pace under a stream of messages (over stdio, the real process).

- Messages are read ahead of the one being handled: a burst of changes is applied as it
  arrives and only the newest version is checked (the versions in between are never
  published, or are stopped at a checkpoint of their check).
- A request sent right after a change is answered before that change's diagnostics, from
  the newest text (ordering, not time).
- The check stops at its checkpoints when asked (lint/pipeline.py), never half-done.
- A storm of file events re-reads the launch configurations once (the server's log).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw import WAIT, Client
from torch_logs_lsp.lint.pipeline import CHECKPOINT, Cancelled, check_document

#: A script with many values (its check takes long enough for messages to queue).
LINES = 3000


def big_script() -> str:
    parts = []
    for i in range(LINES):
        value = "+dynamo,output_code" if i % 3 else "recompiles,graph_breaks"
        parts.append(f"export TORCH_LOGS={value}\npython train_{i}.py 2>&1 | tee log_{i}\n")
    return "".join(parts)


def change(uri: str, version: int, line: int, character: int, text: str) -> dict[str, Any]:
    here = {"line": line, "character": character}
    return {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": here, "end": here}, "text": text}],
    }


async def opened(client: Client, tmp_path: Path, text: str) -> str:
    await client.initialize(tmp_path.as_uri())
    uri = (tmp_path / "run.sh").as_uri()
    first = client.diagnostics(uri, 1)
    item = {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    await asyncio.wait_for(first, WAIT)
    return uri


def published(client: Client, uri: str) -> list[dict[str, Any]]:
    return [
        n["params"]
        for n in client.notifications
        if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
    ]


async def test_a_burst_of_changes_is_checked_once_for_its_last_version(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    text = big_script()
    uri = await opened(client, tmp_path, text)
    last_line = 2 * (LINES - 1)  # the last export line: `+dynamo,output_code`
    column = len("export TORCH_LOGS=+dynamo,output_code")
    edits = 300
    final = client.diagnostics(uri, 1 + edits)
    for i in range(edits):  # type `x` 300 times after the last value, in one burst
        client.notify("textDocument/didChange", change(uri, 2 + i, last_line, column + i, "x"))
    got = (await asyncio.wait_for(final, WAIT))["diagnostics"]
    unknown = [d for d in got if d["code"] == "TL201" and d["range"]["start"]["line"] == last_line]
    assert [d["range"]["end"]["character"] for d in unknown] == [column + edits]
    between = [p for p in published(client, uri) if 1 < p["version"] < 1 + edits]
    assert len(between) <= 10, [p["version"] for p in between]


async def test_a_request_after_a_change_is_answered_before_its_check(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    uri = await opened(client, tmp_path, big_script())
    order: list[str] = []
    diagnostics = client.diagnostics(uri, 2)
    diagnostics.add_done_callback(lambda _: order.append("diagnostics"))
    # a new line at the top, typed as far as `+dyn`, then completion and hover there
    client.notify("textDocument/didChange", change(uri, 2, 0, 0, "export TORCH_LOGS=+dyn\n"))
    position = {"line": 0, "character": len("export TORCH_LOGS=+dyn")}
    params = {"textDocument": {"uri": uri}, "position": position}
    completion = client.request("textDocument/completion", params)
    completion.add_done_callback(lambda _: order.append("completion"))
    hover = client.request("textDocument/hover", params)
    hover.add_done_callback(lambda _: order.append("hover"))
    items = (await asyncio.wait_for(completion, WAIT))["items"]
    answer = await asyncio.wait_for(hover, WAIT)
    await asyncio.wait_for(diagnostics, WAIT)
    assert order == ["completion", "hover", "diagnostics"]
    edit = next(i for i in items if i["label"] == "dynamo")["textEdit"]
    assert edit["range"]["start"] == {"line": 0, "character": len("export TORCH_LOGS=+")}
    assert edit["range"]["end"] == position
    assert answer is not None and "dyn" in answer["contents"]["value"]


def test_a_check_stops_at_its_checkpoints_when_cancelled() -> None:
    text = "".join(f"export TORCH_LOGS=+dynamo,aot_g{i}\n" for i in range(3 * CHECKPOINT))
    asked: list[int] = []

    def cancel_third() -> bool:
        asked.append(1)
        return len(asked) == 3

    with pytest.raises(Cancelled):
        check_document(text, "shell", cancelled=cancel_third)
    assert len(asked) == 3  # stopped at the third question
    asked.clear()
    checked = check_document(text, "shell", cancelled=lambda: asked.append(1) is not None)
    codes = [d.code for _, a in checked.entries if a is not None for d in a.diagnostics]
    assert codes.count("TL201") == 3 * CHECKPOINT  # never cancelled: every value checked
    assert len(asked) >= 3 + 3  # after extraction, per 64 values, before each stage


async def test_a_storm_of_file_events_reads_the_launch_configurations_once(
    tmp_path: Path,
) -> None:
    (tmp_path / ".vscode").mkdir()
    launch = tmp_path / ".vscode" / "launch.json"
    config = '{"name": "t", "type": "debugpy", "request": "launch", "program": "train.py"'
    launch.write_text('{"configurations": [' + config + ', "env": {"TORCH_LOGS": "+dynamo"}}]}')
    script = tmp_path / "train.py"
    text = "import torch\n\ntorch._logging.set_logs(dynamo=10)\n"
    script.write_text(text)
    client = await Client.spawn(tmp_path / "stderr.txt", "--log-level", "DEBUG")
    try:
        await client.initialize(tmp_path.as_uri())
        uri = script.as_uri()
        first = client.diagnostics(uri, 1)
        item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": item})
        assert [d["code"] for d in (await asyncio.wait_for(first, WAIT))["diagnostics"]] == [
            "TL632"
        ]
        launch.write_text('{"configurations": [' + config + "}]}")  # no TORCH_LOGS now
        event = {"changes": [{"uri": launch.as_uri(), "type": 2}]}
        reads = client.log.read_text().count("launch configurations read again")
        for _ in range(2000):
            client.notify("workspace/didChangeWatchedFiles", event)
        position = {"line": 2, "character": 20}
        await client.ask("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
        # the hint went (published before the hover's answer), after a few reads at most
        latest = [n for n in client.notifications if n["method"].endswith("publishDiagnostics")]
        assert latest[-1]["params"]["diagnostics"] == []
        await client.ask("shutdown", None)
        client.notify("exit", None)
        assert await client.exit_code() == 0
        reads = client.log.read_text().count("launch configurations read again") - reads
        assert 1 <= reads <= 50
    finally:
        await client.close()


async def test_a_code_action_waits_for_the_check_without_holding_up_a_completion(
    raw_client: Client, tmp_path: Path
) -> None:
    client = raw_client
    uri = await opened(client, tmp_path, big_script())
    order: list[str] = []
    line = "export TORCH_LOGS=+dynamo,gaurds\n"
    client.notify("textDocument/didChange", change(uri, 2, 0, 0, line))
    start, end = {"line": 0, "character": 25}, {"line": 0, "character": 31}
    context = {"diagnostics": [], "only": ["quickfix"]}
    actions = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": {"start": start, "end": end}, "context": context},
    )
    actions.add_done_callback(lambda _: order.append("code action"))
    position = {"line": 0, "character": len(line) - 1}
    completion = client.request(
        "textDocument/completion", {"textDocument": {"uri": uri}, "position": position}
    )
    completion.add_done_callback(lambda _: order.append("completion"))
    found = await asyncio.wait_for(actions, WAIT)
    await asyncio.wait_for(completion, WAIT)
    assert order == ["completion", "code action"]
    titles = [a["title"] for a in found]
    assert any("guards" in t for t in titles), titles  # the fix of the new text's value
