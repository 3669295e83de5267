"""Start-up stays light: what the first request does not need is imported on first use."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

from torch_logs_lsp.server.app import VERSION


def test_version_is_the_distributions():
    assert metadata.version("torch-logs-lsp") == VERSION


def test_server_starts_without_the_fixer_or_tree_sitter():
    code = (
        "import json, sys\n"
        "from torch_logs_lsp.server.app import create_server\n"
        "create_server()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "torch_logs_lsp.server.app" in loaded
    for lazy in ("torch_logs_lsp.lint.fixer", "torch_logs_lsp.value.fixes", "tree_sitter"):
        assert lazy not in loaded, lazy


def test_version_flag():
    out = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.server", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == f"torch-logs-lsp {VERSION}"
