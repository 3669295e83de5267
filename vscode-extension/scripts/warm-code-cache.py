"""Write the generated-code table (server/codecache.py) that the bundle ships for one
CPython: run the bundled server once, as an editor would use it, with its cache directory
set to the package's seed directory.

    python3.X warm-code-cache.py BUNDLED_LIBS

Runs ``python3.X -m torch_logs_lsp.server`` (this interpreter) with ``PYTHONPATH`` set to
BUNDLED_LIBS, over stdio: initialize (VS Code's parameters, from
vscode-client-capabilities.json), initialized, didOpen of a ``.env`` with a TORCH_LOGS
value, hover, completion, codeAction, didChangeConfiguration, torchLogs/status,
documentLink, setTrace,
didChange, shutdown, exit; the server
writes the table after the handshake and at shutdown (inlayHint is asked right after the
hover: VS Code asks for it on every open). Prints the server's log lines
about the table; exits 1 when no table was written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

LIBS = os.path.abspath(sys.argv[1])
SEEDS = os.path.join(LIBS, "torch_logs_lsp", "server", "code-cache")
URI = "file:///warm/.env"
TEXT = "TORCH_LOGS=+dynamo,guards,aot_g\n"


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def at(character: int) -> dict[str, object]:
    return {"textDocument": {"uri": URI}, "position": {"line": 0, "character": character}}


# What VS Code sends (cattrs generates a structure function per class it meets, so the
# table covers what the editor's own handshake needs).
with open(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "vscode-client-capabilities.json")
) as f:
    VSCODE = json.load(f)
SETTINGS = {"torchLogs": {"locale": "auto", "torchVersion": "auto", "severity": {}}}
whole_line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 31}}
SESSION = [
    {
        "id": 1,
        "method": "initialize",
        "params": {
            "processId": None,
            "clientInfo": VSCODE["clientInfo"],
            "rootUri": "file:///warm",
            "workspaceFolders": [{"uri": "file:///warm", "name": "warm"}],
            "capabilities": VSCODE["capabilities"],
            "initializationOptions": SETTINGS,
            "trace": "off",
        },
    },
    {"method": "initialized", "params": {}},
    {
        "method": "textDocument/didOpen",
        "params": {
            "textDocument": {"uri": URI, "languageId": "dotenv", "version": 1, "text": TEXT}
        },
    },
    {"id": 2, "method": "textDocument/hover", "params": at(20)},
    {
        "id": 9,
        "method": "textDocument/inlayHint",
        "params": {"textDocument": {"uri": URI}, "range": whole_line},
    },
    {"id": 3, "method": "textDocument/completion", "params": at(14)},
    {
        "id": 4,
        "method": "textDocument/codeAction",
        "params": {
            "textDocument": {"uri": URI},
            "range": whole_line,
            "context": {"diagnostics": []},
        },
    },
    {"method": "workspace/didChangeConfiguration", "params": {"settings": SETTINGS}},
    {"id": 6, "method": "torchLogs/status", "params": {"textDocument": {"uri": URI}}},
    {"id": 7, "method": "textDocument/documentLink", "params": {"textDocument": {"uri": URI}}},
    {"method": "$/setTrace", "params": {"value": "messages"}},
    {
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"text": TEXT.replace("aot_g", "aot_graphs")}],
        },
    },
    {"method": "textDocument/didClose", "params": {"textDocument": {"uri": URI}}},
    {"id": 5, "method": "shutdown"},
    {"method": "exit"},
]

env = dict(
    os.environ,
    PYTHONPATH=LIBS,
    PYTHONNOUSERSITE="1",
    PYTHONDONTWRITEBYTECODE="1",  # the bundle's bytecode is written by compileall alone
    TORCH_LOGS_LSP_CODE_CACHE=SEEDS,
)
proc = subprocess.run(
    [sys.executable, "-m", "torch_logs_lsp.server", "--log-level", "INFO"],
    input=b"".join(frame(m) for m in SESSION),
    capture_output=True,
    env=env,
    timeout=120,
)
lines = [line for line in proc.stderr.decode(errors="replace").splitlines() if "code" in line]
print("\n".join(lines))
name = f"code-{sys.implementation.cache_tag}.marshal"
sys.exit(0 if proc.returncode == 0 and os.path.isfile(os.path.join(SEEDS, name)) else 1)
