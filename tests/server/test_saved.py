"""A quote left open is an error (TL108) in a saved file only: not while the user edits
(the closing quote may be typed next), again once the edited document is saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.raw import SERVER, RawClient


def _codes(params: dict[str, Any]) -> list[str]:
    return sorted(d["code"] for d in params["diagnostics"])


async def test_open_quote_is_an_error_when_saved_not_while_typing(tmp_path: Path) -> None:
    client, _ = await RawClient.start([*SERVER], tmp_path.as_uri())
    uri = (tmp_path / "run.sh").as_uri()
    text = 'export TORCH_LOGS="+dynamo\n'
    (tmp_path / "run.sh").write_text(text)
    try:
        fut = client.diagnostics(uri, 1)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "", "version": 1, "text": text}},
        )
        assert _codes(await fut) == ["TL108"]  # opened: the text on disk

        fut = client.diagnostics(uri, 2)
        edit = {
            "range": {"start": {"line": 0, "character": 26}, "end": {"line": 0, "character": 26}},
            "text": ",guards",
        }
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]},
        )
        assert _codes(await fut) == []  # typing: the quote may be closed next

        fut = client.diagnostics(uri, 2)
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        assert _codes(await fut) == ["TL108"]  # saved so

        fut = client.diagnostics(uri, 3)
        close = {
            "range": {"start": {"line": 0, "character": 33}, "end": {"line": 0, "character": 33}},
            "text": '"',
        }
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [close]},
        )
        assert _codes(await fut) == []  # closed
    finally:
        await client.stop()


async def test_opened_text_that_is_not_on_disk_is_unsaved(tmp_path: Path) -> None:
    """An editor may open text that is not the file's (restored unsaved edits; an untitled
    document): no TL108 there until it is saved."""
    client, _ = await RawClient.start([*SERVER], tmp_path.as_uri())
    (tmp_path / "run.sh").write_text('export TORCH_LOGS="+dynamo"\n')
    text = 'export TORCH_LOGS="+dynamo\n'
    try:
        for n, uri in enumerate([(tmp_path / "run.sh").as_uri(), "untitled:Untitled-1"]):
            fut = client.diagnostics(uri, 1)
            item = {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}
            client.notify("textDocument/didOpen", {"textDocument": item})
            assert _codes(await fut) == [], n
        fut = client.diagnostics((tmp_path / "run.sh").as_uri(), 1)
        (tmp_path / "run.sh").write_text(text)  # the editor saves it
        client.notify(
            "textDocument/didSave", {"textDocument": {"uri": (tmp_path / "run.sh").as_uri()}}
        )
        assert _codes(await fut) == ["TL108"]
    finally:
        await client.stop()
