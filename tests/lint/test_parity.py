"""The CLI and the language server give the same findings on the same text.

Both front ends run one pipeline (``lint.pipeline.check_document``); this test holds them
to it through their public surfaces: ``torch-logs check --format json --show-hints`` run
once over a workspace, and a real server process (``initialize`` with that workspace as
its folder, UTF-32 positions so characters are code points, as the JSON's columns are)
that opens every file the CLI checks and each notebook through notebook sync. The
workspace holds every example file and a generated corpus: each example file, per host,
with deterministic random insertions of values, typos, open quotes, suppressions,
``set_logs`` calls and pins.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from tests.support.paths import EXAMPLES, SCRIPTS
from tests.support.raw import SERVER
from torch_logs_lsp import hosts
from torch_logs_lsp.notebook.reader import NOTEBOOK, read_notebook
from torch_logs_lsp.project.walk import iter_files

sys.path.insert(0, str(SCRIPTS))
from rawlsp import RawClient

RELEASE = "2.13"
#: Variants of each example file in the generated corpus.
VARIANTS = 15
#: What the corpus inserts into the example files.
PIECES = [
    "TORCH_LOGS=",
    "TORCH_LOGS=aot_g",
    "TORCH_LOGS=+dynamo,guards",
    "TORCH_LOG=dynamo",
    "TORCH_LOGS_OUT=/nonexistent/dir/x.log",
    "TORCH_LOGS_FORMAT=%(foo)s",
    "TORCH_TRACE=.",
    "aot_g",
    "dynamo:DEBUG",
    "+",
    ",",
    ", ",
    '"',
    "'",
    "\u201c",
    "\n",
    "\r\n",
    " ",
    "=",
    "# torch-logs: ignore[TL201]",
    "# torch-logs: ignore",
    "# torch-logs: torch=2.1",
    "torch._logging.set_logs(dynamo=10, aot_g=True)",
    "import torch\n",
    "${X}",
    "$X",
    "é😀",
]
SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-32"]},
    "textDocument": {"publishDiagnostics": {"versionSupport": True}},
}

#: (path relative to the workspace, cell number or None) -> sorted findings.
Found = dict[tuple[str, int | None], list[tuple[Any, ...]]]


def _corpus(root: Path) -> None:
    """The examples, and :data:`VARIANTS` edited copies of each text file under
    ``generated/<n>/`` (same relative path, so each is read as the same kind)."""
    shutil.copytree(EXAMPLES, root, dirs_exist_ok=True)
    rng = random.Random(20261202)
    for path in sorted(p for p in EXAMPLES.rglob("*") if p.is_file()):
        rel = path.relative_to(EXAMPLES)
        text = path.read_text(encoding="utf-8")
        for n in range(VARIANTS):
            if path.suffix == ".ipynb":  # the code cells' sources edited
                notebook = json.loads(text)
                for cell in notebook["cells"]:
                    if cell["cell_type"] == "code":
                        cell["source"] = _edited(rng, "".join(cell["source"]), 2)
                edited = json.dumps(notebook, ensure_ascii=False, indent=1)
            else:
                edited = _edited(rng, text, 6)
            target = root / "generated" / str(n) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(edited.encode("utf-8", "surrogatepass"))


def _edited(rng: random.Random, text: str, most: int) -> str:
    """``text`` with 1 to ``most`` of :data:`PIECES` inserted (each maybe over a few
    characters) at random places."""
    for _ in range(rng.randint(1, most)):
        at = rng.randint(0, len(text))
        cut = min(len(text), at + rng.choice([0, 0, 1, 4]))
        text = text[:at] + rng.choice(PIECES) + text[cut:]
    return text


def _cli(root: Path) -> Found:
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_logs_lsp.cli.main",
            "check",
            "--format",
            "json",
            "--show-hints",
            "--torch-version",
            RELEASE,
            ".",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    # 2: a generated pyproject.toml that is no TOML cannot configure its project
    problems = [line for line in proc.stderr.splitlines() if "not valid TOML" not in line]
    assert proc.returncode in (0, 1, 2) and not problems, proc.stderr
    found: Found = defaultdict(list)
    for row in json.loads(proc.stdout):
        key = (os.path.normpath(row["path"]), row.get("cell"))
        found[key].append(
            (
                row["code"],
                row["severity"],
                row["message"],
                row["line"] - 1,
                row["column"] - 1,
                row["end_line"] - 1,
                row["end_column"] - 1,
            )
        )
    return {k: sorted(v) for k, v in found.items()}


def _rows(params: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            d["code"],
            SEVERITY[d["severity"]],
            d["message"],
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
        )
        for d in params["diagnostics"]
    )


def _bom_free(text: str) -> str:
    """The text an editor sends: without the byte order mark (VS Code hides it; the CLI's
    columns do not count it)."""
    return text[1:] if text.startswith("\ufeff") else text


async def _server(root: Path, files: list[tuple[Path, str]]) -> Found:
    init = {"torchVersion": RELEASE}
    argv = [*SERVER]
    client, _ = await RawClient.start(
        argv, root.as_uri(), capabilities=CAPABILITIES, init_options=init
    )
    found: Found = {}
    try:
        for path, kind in files:
            rel = os.path.normpath(os.path.relpath(path, root))
            data = path.read_bytes()
            if kind == NOTEBOOK:
                found.update(await _notebook(client, path, rel, data))
                continue
            uri = path.as_uri()
            text = _bom_free(data.decode("utf-8", "replace"))
            fut = client.diagnostics(uri, 1)
            client.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "", "version": 1, "text": text}},
            )
            rows = _rows(await asyncio.wait_for(fut, 60))
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            if rows:
                found[(rel, None)] = rows
    finally:
        await client.stop()
    return found


async def _notebook(client: RawClient, path: Path, rel: str, data: bytes) -> Found:
    """A notebook opened through notebook sync, as VS Code opens one: every cell a
    document (markdown cells too), code cells in Python."""
    notebook = read_notebook(data)
    uri = path.as_uri()
    cells = [f"vscode-notebook-cell:{path}#C{c.index}" for c in notebook.cells]
    futures = [client.diagnostics(u, 1) for u in cells]
    client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": uri,
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [
                    {"kind": 2 if c.kind == "code" else 1, "document": u}
                    for c, u in zip(notebook.cells, cells, strict=True)
                ],
            },
            "cellTextDocuments": [
                {
                    "uri": u,
                    "languageId": "python" if c.kind == "code" else "markdown",
                    "version": 1,
                    "text": c.text,
                }
                for c, u in zip(notebook.cells, cells, strict=True)
            ],
        },
    )
    found: Found = {}
    for cell, fut in zip(notebook.cells, futures, strict=True):
        rows = _rows(await asyncio.wait_for(fut, 60))
        if rows:
            found[(rel, cell.index + 1)] = rows
    client.notify(
        "notebookDocument/didClose",
        {"notebookDocument": {"uri": uri}, "cellTextDocuments": [{"uri": u} for u in cells]},
    )
    return found


def test_cli_and_server_find_the_same(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    _corpus(root)
    files = list(iter_files([str(root)], lambda exc: None))
    kinds = {kind for _, kind in files}
    assert {*hosts.HOST_KINDS, NOTEBOOK} - {"ipython"} <= kinds, "the corpus lacks a host"

    cli = _cli(root)
    server = asyncio.run(_server(root, files))

    assert sum(map(len, cli.values())) > 200, "the corpus finds too little to compare"
    for key in sorted(set(cli) | set(server), key=str):
        assert server.get(key, []) == cli.get(key, []), key
