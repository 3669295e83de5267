"""Running a Lua driver in a headless Neovim: one place for the process, its isolated
XDG folders and the JSON result the driver writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def run_driver(
    nvim: str, driver: str, ws: Path, tmp_path: Path, timeout: int = 120, **env: str
) -> dict[str, Any]:
    """Run ``tests/editors/<driver>`` in Neovim ``nvim`` (headless, no user config) with
    ``ws`` as its working directory and ``env`` added to the environment (``PY``: this
    Python, ``OUT``: where the driver writes its result); return that result, asserting
    the driver wrote one and reported ``ok``."""
    out = tmp_path / "result.json"
    full = dict(
        os.environ,
        PY=sys.executable,
        OUT=str(out),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        **env,
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-c", f"luafile {HERE / driver}"],
        cwd=ws,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert out.exists(), proc.stderr
    result: dict[str, Any] = json.loads(out.read_text())
    assert result["ok"], result["error"]
    return result
