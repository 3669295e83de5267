"""Real editor: Emacs with eglot (Debian ``emacs-nox`` + ``elpa-eglot``), headless.

Eglot 1.9 asks for plain-text hover and sends the same languageId for every file; the
server must detect the file kind from the path. Columns are counted in characters from
the line start (not display columns: the emoji is two columns wide).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SH = '#!/bin/sh\necho "é🙂"; TORCH_LOGS=+dynamo,aot_g python x.py\n'
ENV = "# é🙂\nTORCH_LOGS=guards,aot_g\n"

needs_emacs = pytest.mark.skipif(
    not shutil.which("emacs") and not os.environ.get("TORCH_LOGS_LSP_REQUIRE_EDITORS"),
    reason="emacs not installed (./dev test installs emacs-nox and elpa-eglot)",
)


@needs_emacs
def test_eglot_diagnostics_completion_plaintext_hover(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "run.sh").write_text(SH, encoding="utf-8")
    (ws / ".env").write_text(ENV, encoding="utf-8")
    sh_line = SH.splitlines()[1]
    specs = [
        {"file": "run.sh", "line": 1, "col": sh_line.index("+dynamo") + 3},
        {"file": ".env", "line": 1, "col": 13},
    ]
    out = tmp_path / "result.json"
    env = dict(os.environ, PY=sys.executable, OUT=str(out), SPECS=json.dumps(specs))
    env["HOME"] = str(tmp_path)  # no user init, no writes to the real home
    proc = subprocess.run(
        ["emacs", "--batch", "-q", "-l", str(HERE / "eglot_check.el")],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["ok"] is True, result.get("error")
    files = result["files"]

    sh = files["run.sh"]
    assert [(d["line"], d["col"], d["len"]) for d in sh["diagnostics"]] == [
        (1, sh_line.index("aot_g"), 5)
    ]
    assert {"dynamo", "dynamic", "guards"} <= set(sh["completion"])
    assert "dynamo" in sh["hover"] and "DEBUG" in sh["hover"]
    assert "**" not in sh["hover"]  # plain text, as eglot asked

    env_file = files[".env"]
    assert [(d["line"], d["col"]) for d in env_file["diagnostics"]] == [(1, 18)]
    assert "guards" in env_file["hover"] and "artifact" in env_file["hover"]
