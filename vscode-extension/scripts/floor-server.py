"""The floor of the e2e's open -> squiggle time (E2E_SCENARIO=floor): the fastest possible
language server, stdlib only, no pygls. It answers initialize, and on didOpen publishes
one error over the first "aot_g" of the document; every other request gets null. Whatever
time the e2e then measures is the editor's and the machine's, not the server's.
"""

import json
import sys

inp, out = sys.stdin.buffer, sys.stdout.buffer


def send(msg):
    b = json.dumps(msg).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    out.flush()


while True:
    n = None
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    msg = json.loads(inp.read(n))
    m = msg.get("method")
    if m == "initialize":
        send(
            {"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": {"textDocumentSync": 1}}}
        )
    elif m == "textDocument/didOpen":
        doc = msg["params"]["textDocument"]
        diags = []
        for i, line_text in enumerate(doc["text"].splitlines()):
            c = line_text.find("aot_g")
            if c >= 0:
                diags.append(
                    {
                        "range": {
                            "start": {"line": i, "character": c},
                            "end": {"line": i, "character": c + 5},
                        },
                        "message": "floor",
                        "severity": 1,
                    }
                )
                break
        send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/publishDiagnostics",
                "params": {"uri": doc["uri"], "diagnostics": diags},
            }
        )
    elif m == "shutdown":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
    elif m == "exit":
        sys.exit(0)
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
