"""Benchmark the workspace scan (server/workspace_scan.py) against ``torch-logs check``.

A generated tree of ``files`` files (Python modules, C headers, shell scripts, data
files, ``.env`` files; :data:`FAMILY` of them set a TORCH_LOGS-family variable, a third of
those with a mistake) is checked by ``torch-logs check TREE`` (a program, wall time) and
by a server started with the tree as its workspace folder, while an open ``.env`` in it
is edited: one character typed and a completion asked every 20 ms until the scan ends.
Measured: the CLI's time; the server's first scan (``initialized`` to the end of its
``$/progress``), files per second, the time to the first published problem of a file that
is not open; the latencies (ms, p50/p99) of the completions and of each edit's
diagnostics during the scan. Target: the scan within 2x the CLI's time, and the edit
latencies within the open-document targets of docs/benchmarks.md.

Run: ``scripts/bench.py --only scan`` (part of ``./dev bench``), or
``python scripts/bench_scan.py [--files N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rawlsp import CAPABILITIES, RawClient

#: Files that set a family variable in the generated tree.
FAMILY = 30


def generated_tree(root: Path, files: int, family: int = FAMILY) -> int:
    """Write ``files`` files under ``root`` (see the module docstring); how many set a
    family variable."""
    every = max(1, files // family)
    setting = 0
    for i in range(files):
        d = root / f"pkg{i % 50}" / f"sub{i % 9}"
        d.mkdir(parents=True, exist_ok=True)
        sets = i % every == 0 and setting < family
        kind = i % 10
        if sets:
            setting += 1
            value = "+dynamo,aot_g" if setting % 3 == 0 else "+dynamo,guards"
            if kind < 5:
                (d / f"m{i}.py").write_text(f'import os\nos.environ["TORCH_LOGS"] = "{value}"\n')
            else:
                (d / f"run{i}.env").write_text(f"TORCH_LOGS={value}\n")
        elif kind < 4:
            (d / f"m{i}.py").write_text("import os\n" + "x = 1\n" * 40)
        elif kind < 7:
            (d / f"h{i}.h").write_text("#define API\n" + "int f(void);\n" * 40)
        elif kind < 9:
            (d / f"s{i}.sh").write_text("#!/bin/sh\necho hi\n" * 5)
        else:
            (d / f"d{i}.txt").write_text("data\n" * 20)
    return setting


class ScanClient(RawClient):
    """The raw client, keeping the notifications and when each arrived."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        super().__init__(proc)
        self.seen: list[tuple[float, dict[str, Any]]] = []
        self.news = asyncio.Event()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" not in msg:
            self.seen.append((time.perf_counter(), msg))
            self.news.set()
        super()._dispatch(msg)

    def ended(self) -> float | None:
        for at, msg in self.seen:
            if msg["method"] == "$/progress" and msg["params"]["value"].get("kind") == "end":
                return at
        return None


def pct(samples: list[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def cli_ms(tree: Path) -> float:
    argv = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(tree)]
    subprocess.run(argv, capture_output=True, check=False)  # warm: the tree in the page cache
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False)
    return (time.perf_counter() - t0) * 1000


async def server_scan(
    server: list[str], tree: Path, timeout: float = 600, control: int = 0
) -> dict[str, Any]:
    """Start a server on ``tree`` and edit its open ``.env`` until the scan has ended; with
    ``control`` (a number of edits), the same with ``openFilesOnly`` (no scan) for that
    many edits: the latencies without the scan, under the same machine load."""
    caps = {**CAPABILITIES, "window": {"workDoneProgress": True}}
    t_spawn = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *server,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=1 << 26,
    )
    client = ScanClient(proc)
    params = {
        "processId": None,
        "rootUri": tree.as_uri(),
        "workspaceFolders": [{"uri": tree.as_uri(), "name": "bench"}],
        "capabilities": caps,
    }
    if control:
        params["initializationOptions"] = {"torchLogs": {"diagnosticMode": "openFilesOnly"}}
    try:
        await client.request("initialize", params)
        client.notify("initialized", {})
        t0 = time.perf_counter()
        doc = tree / "open.env"
        text = "TORCH_LOGS=+dyn\n"
        doc.write_text(text)
        uri = doc.as_uri()
        first = client.diagnostics(uri, 1)
        item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": item})
        await asyncio.wait_for(first, 60)
        completion: list[float] = []
        edits: list[float] = []
        version = 1
        deadline = time.perf_counter() + timeout

        def going() -> bool:
            if control:
                return len(edits) < control
            return client.ended() is None and time.perf_counter() < deadline

        while going():
            version += 1
            col = len(text) - 1
            at = {"line": 0, "character": col}
            fut = client.diagnostics(uri, version)
            t1 = time.perf_counter()
            if version % 2 == 0:  # typed, then deleted: the text stays the same size
                change = {"range": {"start": at, "end": at}, "text": "x"}
            else:
                change = {
                    "range": {"start": at, "end": {"line": 0, "character": col + 1}},
                    "text": "",
                }
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            await client.request(
                "textDocument/completion", {"textDocument": {"uri": uri}, "position": at}
            )
            completion.append((time.perf_counter() - t1) * 1000)
            await asyncio.wait_for(fut, 60)
            edits.append((time.perf_counter() - t1) * 1000)
            await asyncio.sleep(0.02)
        while not control and client.ended() is None and time.perf_counter() < deadline:
            client.news.clear()
            await asyncio.wait_for(client.news.wait(), timeout)
        end = client.ended() if not control else time.perf_counter()
        assert end is not None, "the scan did not end"
        problems = [
            at
            for at, msg in client.seen
            if msg["method"] == "textDocument/publishDiagnostics"
            and msg["params"]["uri"] != uri
            and msg["params"]["diagnostics"]
        ]
        published = {
            msg["params"]["uri"]
            for _, msg in client.seen
            if msg["method"] == "textDocument/publishDiagnostics"
            and msg["params"]["uri"] != uri
            and msg["params"]["diagnostics"]
        }
        await client.stop()
    except BaseException:
        if proc.returncode is None:
            proc.kill()
        raise
    return {
        "initialize_ms": (t0 - t_spawn) * 1000,
        "scan_ms": (end - t0) * 1000,
        "first_problem_ms": (problems[0] - t0) * 1000 if problems else None,
        "files_with_problems": len(published),
        "edits_during_scan": len(edits),
        "completion_ms_p50": pct(completion, 50),
        "completion_ms_p99": pct(completion, 99),
        "edit_to_diagnostics_ms_p50": pct(edits, 50),
        "edit_to_diagnostics_ms_p99": pct(edits, 99),
    }


async def measure(server: list[str], files: int) -> dict[str, Any]:
    """The scan benchmark on a generated tree of ``files`` files (see the module)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        family = generated_tree(tree, files)
        cli = cli_ms(tree)
        scan = await server_scan(server, tree)
        alone = await server_scan(server, tree, control=max(scan["edits_during_scan"], 20))
    scan["without_scan"] = {
        k: alone[k]
        for k in (
            "completion_ms_p50",
            "completion_ms_p99",
            "edit_to_diagnostics_ms_p50",
            "edit_to_diagnostics_ms_p99",
        )
    }
    scan_ms = scan["scan_ms"]
    return {
        "files": files,
        "family_files": family,
        "cli_check_ms": cli,
        **scan,
        "files_per_s": files / (scan_ms / 1000) if scan_ms else None,
        "ratio_to_cli": scan_ms / cli if cli else None,
    }


def print_scan(r: dict[str, Any]) -> None:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    print(
        f"workspace scan: {r['files']:,} files ({r['family_files']} setting a family "
        f"variable): torch-logs check {r['cli_check_ms']:.0f} ms; the server's first scan "
        f"{r['scan_ms']:.0f} ms ({r['ratio_to_cli']:.2f}x the CLI, target 2x; "
        f"{r['files_per_s']:,.0f} files/s), first problem after {ms(r['first_problem_ms'])} ms, "
        f"{r['files_with_problems']} files with problems; during the scan "
        f"({r['edits_during_scan']} edits): completion p50 {ms(r['completion_ms_p50'])} / "
        f"p99 {ms(r['completion_ms_p99'])} ms, edit->diagnostics p50 "
        f"{ms(r['edit_to_diagnostics_ms_p50'])} / p99 {ms(r['edit_to_diagnostics_ms_p99'])} ms"
    )
    w = r["without_scan"]
    print(
        f"  the same edits without the scan (openFilesOnly): completion p50 "
        f"{ms(w['completion_ms_p50'])} / p99 {ms(w['completion_ms_p99'])} ms, edit->diagnostics "
        f"p50 {ms(w['edit_to_diagnostics_ms_p50'])} / p99 {ms(w['edit_to_diagnostics_ms_p99'])} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = [sys.executable, "-m", "torch_logs_lsp.server"]
    result = asyncio.run(measure(server, args.files))
    print_scan(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
