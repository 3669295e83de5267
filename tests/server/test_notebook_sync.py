"""Jupyter notebooks through LSP notebook document sync (``notebookDocument/didOpen``,
``didChange``, ``didClose``), as VS Code's notebook editor sends them: every cell's
diagnostics under its ``vscode-notebook-cell:`` URI (UTF-16 ranges), the import-order
warning across cells (TL501 naming the cell) appearing and going as cells change and
move, and cleared diagnostics for removed cells and a closed notebook. Also cells opened
as plain text documents by a client without notebook sync. No sleeping: every step waits
for the server's publishDiagnostics."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.raw import SERVER, WAIT, Client

NOTEBOOK = "file:///work/nb/debug.ipynb"
#: VS Code's cell URIs: the notebook's path and a fragment naming the cell (escaped).
CELLS = [f"vscode-notebook-cell:/work/nb/debug.ipynb#W{i}sZmlsZQ%3D%3D" for i in range(4)]
LINE = 'x = "😀"; os.environ["TORCH_LOGS"] = "aot_g"'
TEXTS = [
    "import torch\n",
    "Set `TORCH_LOGS=aot_g` before the import.\n",
    "%env TORCH_LOGS=\n",
    "import os\n" + LINE + "\n",
]
KINDS = [2, 1, 2, 2]  # NotebookCellKind: 1 markup, 2 code
LANGUAGES = ["python", "markdown", "python", "python"]
CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {"hover": {"contentFormat": ["markdown"]}},
    "notebookDocument": {"synchronization": {}},
}


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class Notebooks(Client):
    """The raw client, with every publishDiagnostics queued per URI."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: dict[str, asyncio.Queue[dict[str, Any]]] = {}

    def queue(self, uri: str) -> asyncio.Queue[dict[str, Any]]:
        return self.published.setdefault(uri, asyncio.Queue())

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if msg.get("method") == "textDocument/publishDiagnostics":
            self.queue(msg["params"]["uri"]).put_nowait(msg["params"])
        super()._dispatch(msg)

    async def next(self, uri: str) -> dict[str, Any]:
        """The next publishDiagnostics of ``uri``."""
        return await asyncio.wait_for(self.queue(uri).get(), WAIT)

    def nothing_pending(self, uri: str) -> bool:
        return self.queue(uri).empty()


async def start_server(tmp_path: Path) -> tuple[Notebooks, dict[str, Any]]:
    proc = await asyncio.create_subprocess_exec(
        *SERVER,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=(tmp_path / "stderr.txt").open("wb"),
        limit=1 << 26,
    )
    client = Notebooks(proc, tmp_path / "stderr.txt")
    init = {"processId": None, "rootUri": None, "capabilities": CAPABILITIES}
    result = await client.ask("initialize", init)
    client.notify("initialized", {})
    return client, result


def open_params() -> dict[str, Any]:
    cells = [{"kind": k, "document": u} for k, u in zip(KINDS, CELLS, strict=True)]
    docs = [
        {"uri": u, "languageId": lang, "version": 1, "text": t}
        for u, lang, t in zip(CELLS, LANGUAGES, TEXTS, strict=True)
    ]
    notebook = {"uri": NOTEBOOK, "notebookType": "jupyter-notebook", "version": 1, "cells": cells}
    return {"notebookDocument": notebook, "cellTextDocuments": docs}


def codes(params: dict[str, Any]) -> list[str]:
    return sorted(d["code"] for d in params["diagnostics"])


async def test_notebook_cells_diagnostics_order_and_close(tmp_path: Path) -> None:
    client, result = await start_server(tmp_path)
    try:
        sync = result["capabilities"]["notebookDocumentSync"]
        assert sync["notebookSelector"] == [{"notebook": {"notebookType": "jupyter-notebook"}}]

        client.notify("notebookDocument/didOpen", open_params())
        first = {uri: await client.next(uri) for uri in CELLS}
        assert all(p["version"] == 1 for p in first.values())
        assert first[CELLS[0]]["diagnostics"] == []
        assert first[CELLS[1]]["diagnostics"] == []  # markdown: not read
        # cell 3: `%env TORCH_LOGS=` (empty: import torch crashes), after the import
        assert codes(first[CELLS[2]]) == ["TL001", "TL501"]
        # cell 4: the unknown name, and the import in cell 1 makes the write ineffective
        start = utf16(LINE[: LINE.index("aot_g")])
        value = {
            "start": {"line": 1, "character": start},
            "end": {"line": 1, "character": start + 5},
        }
        by_code = {d["code"]: d for d in first[CELLS[3]]["diagnostics"]}
        assert sorted(by_code) == ["TL201", "TL501"]
        assert by_code["TL201"]["range"] == value
        assert by_code["TL501"]["range"] == value
        assert "`import torch` in cell 1:" in by_code["TL501"]["message"]

        # completion and hover work in a synced cell as in any document
        at = {"line": 1, "character": start + 5}
        items = await client.ask(
            "textDocument/completion", {"textDocument": {"uri": CELLS[3]}, "position": at}
        )
        labels = [i["label"] for i in (items["items"] if isinstance(items, dict) else items)]
        assert "aot_graphs" in labels

        # edit cell 4: the name is fixed, the import order is still wrong
        edit = {
            "range": {"start": at | {"character": start}, "end": at},
            "text": "aot_graphs",
        }
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": NOTEBOOK, "version": 2},
                "change": {
                    "cells": {
                        "textContent": [
                            {"document": {"uri": CELLS[3], "version": 2}, "changes": [edit]}
                        ]
                    }
                },
            },
        )
        second = await client.next(CELLS[3])
        assert second["version"] == 2
        (late,) = second["diagnostics"]
        assert late["code"] == "TL501"
        assert late["range"]["end"]["character"] == start + 10
        hover = await client.ask(
            "textDocument/hover",
            {"textDocument": {"uri": CELLS[3]}, "position": {"line": 1, "character": start + 2}},
        )
        assert "aot_graphs" in hover["contents"]["value"]

        # move cell 4 before the import: the warning goes
        moved = [{"kind": k, "document": u} for k, u in zip(KINDS, CELLS, strict=True)]
        moved = moved[3:] + moved[:3]
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": NOTEBOOK, "version": 3},
                "change": {
                    "cells": {
                        "structure": {"array": {"start": 0, "deleteCount": 4, "cells": moved}}
                    }
                },
            },
        )
        third = await client.next(CELLS[3])
        assert third["diagnostics"] == []

        # move it back after the import: the warning is back, naming cell 1 still
        back = moved[1:] + moved[:1]
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": NOTEBOOK, "version": 4},
                "change": {
                    "cells": {"structure": {"array": {"start": 0, "deleteCount": 4, "cells": back}}}
                },
            },
        )
        assert codes(await client.next(CELLS[3])) == ["TL501"]

        # remove the import cell: its diagnostics are cleared, the warning goes
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": NOTEBOOK, "version": 5},
                "change": {
                    "cells": {
                        "structure": {
                            "array": {"start": 0, "deleteCount": 1},
                            "didClose": [{"uri": CELLS[0]}],
                        }
                    }
                },
            },
        )
        gone = await client.next(CELLS[0])
        while "version" in gone:  # its publications after the moves above (every cell's)
            gone = await client.next(CELLS[0])
        assert gone["diagnostics"] == []
        assert (await client.next(CELLS[3]))["diagnostics"] == []

        # close the notebook: every remaining cell is cleared
        client.notify(
            "notebookDocument/didClose",
            {
                "notebookDocument": {"uri": NOTEBOOK},
                "cellTextDocuments": [{"uri": u} for u in CELLS[1:]],
            },
        )
        for uri in CELLS[1:]:
            # (the %env cell was republished by the moves above, unread: its last one counts)
            while (await client.next(uri))["diagnostics"]:
                assert uri == CELLS[2]
        # and they are no longer open: a hover there reads nothing
        hover = await client.ask(
            "textDocument/hover",
            {"textDocument": {"uri": CELLS[3]}, "position": {"line": 1, "character": start + 2}},
        )
        assert hover is None
    finally:
        await client.close()


async def test_cells_as_plain_documents(tmp_path: Path) -> None:
    """A client without notebook sync opens cells as text documents: each is checked on
    its own (no order across cells is known); a markdown cell is not read."""
    client, _ = await start_server(tmp_path)
    try:
        for i, (uri, lang, text) in enumerate(zip(CELLS, LANGUAGES, TEXTS, strict=True)):
            item = {"uri": uri, "languageId": lang, "version": 1, "text": text}
            client.notify("textDocument/didOpen", {"textDocument": item})
            params = await client.next(uri)
            assert params["version"] == 1
            assert codes(params) == {2: ["TL001"], 3: ["TL201"]}.get(i, [])
        markdown = {"uri": CELLS[1], "languageId": "markdown", "version": 2, "text": TEXTS[3]}
        client.notify("textDocument/didClose", {"textDocument": {"uri": CELLS[1]}})
        assert (await client.next(CELLS[1]))["diagnostics"] == []
        client.notify("textDocument/didOpen", {"textDocument": markdown})
        assert (await client.next(CELLS[1]))["diagnostics"] == []  # Python text, markdown cell
    finally:
        await client.close()


async def test_change_of_a_notebook_that_is_not_open(tmp_path: Path) -> None:
    """A didChange for a notebook never opened is logged and ignored: the server goes on."""
    client, _ = await start_server(tmp_path)
    try:
        client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": "file:///nowhere.ipynb", "version": 2},
                "change": {"cells": {"structure": {"array": {"start": 0, "deleteCount": 1}}}},
            },
        )
        client.notify("notebookDocument/didOpen", open_params())
        assert codes(await client.next(CELLS[3])) == ["TL201", "TL501"]
        assert "not open: ignored" in (tmp_path / "stderr.txt").read_text()
    finally:
        await client.close()


async def test_a_cell_moved_in_two_steps_loses_its_note(tmp_path: Path) -> None:
    """A client may move a cell as two changes (removed, then inserted before the import):
    the moved cell is published again, without the TL501 it had."""
    client, _ = await start_server(tmp_path)
    uri = "file:///work/nb/moved.ipynb"
    cells = [f"vscode-notebook-cell:/work/nb/moved.ipynb#C{i}" for i in range(4)]
    texts = ["import os\n", "import torch\n", 'os.environ["TORCH_TRACE"] = d\n', "x = 1\n"]
    try:
        notebook = {
            "uri": uri,
            "notebookType": "jupyter-notebook",
            "version": 1,
            "cells": [{"kind": 2, "document": c} for c in cells],
        }
        docs = [
            {"uri": c, "languageId": "python", "version": 1, "text": t}
            for c, t in zip(cells, texts, strict=True)
        ]
        client.notify(
            "notebookDocument/didOpen", {"notebookDocument": notebook, "cellTextDocuments": docs}
        )
        first = {c: await client.next(c) for c in cells}
        assert codes(first[cells[2]]) == ["TL501"]

        def structure(version: int, array: dict[str, Any]) -> None:
            change = {"cells": {"structure": {"array": array}}}
            params = {"notebookDocument": {"uri": uri, "version": version}, "change": change}
            client.notify("notebookDocument/didChange", params)

        structure(2, {"start": 2, "deleteCount": 1})
        structure(3, {"start": 0, "deleteCount": 0, "cells": [{"kind": 2, "document": cells[2]}]})
        while True:  # the last publication of the moved cell has no note
            got = await client.next(cells[2])
            if client.nothing_pending(cells[2]) and codes(got) == []:
                break
            assert not client.nothing_pending(cells[2]), got
    finally:
        await client.close()
