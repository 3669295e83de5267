"""Benchmark the language server the way an editor drives it, over stdio.

For each generated input (a 10,000-line shell script, a launch.json with 2,000
configurations, a 5,000-line .env, and small versions of each) it measures:
spawn -> initialize, didOpen -> publishDiagnostics, 200 completions and 200 hovers at
TORCH_LOGS positions, 50 incremental edits each followed by a completion and by the
diagnostics of the new version, peak RSS (VmHWM) and shutdown. A bare pygls server that
does nothing is measured in the same run for spawn -> initialize. Prints a table and,
with ``--json FILE``, writes the numbers. Times are milliseconds (p50/p90/p99).

Run: ``./dev bench`` (or ``.venv/bin/python scripts/bench.py [--runs 3]``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rawlsp import RawClient

BARE_SERVER = """
from pygls.lsp.server import LanguageServer
LanguageServer("bare", "0").start_io()
"""


def gen_shell(lines: int) -> str:
    out = ["#!/usr/bin/env bash", "set -euo pipefail"]
    for i in range(lines - 2):
        if i % 50 == 0:
            out.append(f'export TORCH_LOGS="+dynamo,guards,aot_g{i % 3}"')
        elif i % 7 == 0:
            out.append(f"TORCH_LOGS=+inductor,output_code python train.py --seed {i}")
        else:
            out.append(f'echo "step {i}" && run_job --name job{i} --retries 3')
    return "\n".join(out) + "\n"


def gen_launch(configs: int) -> str:
    parts = ['{\n  // generated\n  "version": "0.2.0",\n  "configurations": [']
    for i in range(configs):
        value = "+dynamo,guards" if i % 2 else "aot_g,\\u002bdynamo"
        parts.append(
            "    {\n"
            f'      "name": "run {i}", /* c */\n'
            '      "type": "debugpy",\n      "request": "launch",\n'
            f'      "env": {{ "TORCH_LOGS": "{value}", "OTHER": "x" }},\n'
            "    },"
        )
    parts.append("  ],\n}\n")
    return "\n".join(parts)


def gen_env(lines: int) -> str:
    out = []
    for i in range(lines):
        if i % 25 == 0:
            out.append(f"TORCH_LOGS=+dynamo,guards{',aot_g' if i % 2 else ''}")
        else:
            out.append(f'KEY_{i}="value {i}" # comment')
    return "\n".join(out) + "\n"


INPUTS = {
    "shell-10k": ("run.sh", lambda: gen_shell(10_000)),
    "launch-2000": (".vscode/launch.json", lambda: gen_launch(2_000)),
    "env-5000": (".env", lambda: gen_env(5_000)),
    "shell-small": ("small.sh", lambda: gen_shell(100)),
    "launch-small": ("small/.vscode/launch.json", lambda: gen_launch(10)),
    "env-small": ("small.env", lambda: gen_env(100)),
}


def value_positions(text: str, limit: int) -> list[dict[str, int]]:
    """LSP positions just after ``TORCH_LOGS=`` / ``"TORCH_LOGS": "`` plus 3 characters."""
    out: list[dict[str, int]] = []
    for line_no, line in enumerate(text.splitlines()):
        for marker in ('TORCH_LOGS="', "TORCH_LOGS=", '"TORCH_LOGS": "'):
            at = line.find(marker)
            if at >= 0:
                out.append({"line": line_no, "character": at + len(marker) + 3})
                break
        if len(out) >= limit:
            break
    return out


def pct(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


async def bench_input(server: list[str], name: str, rel: str, text: str, root: Path) -> dict:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    uri = path.as_uri()
    language = {".sh": "shellscript", ".json": "jsonc"}.get(path.suffix, "dotenv")
    client, init_ms = await RawClient.start(server, root.as_uri())
    fut = client.diagnostics(uri, 1)
    t0 = time.perf_counter()
    item = {"uri": uri, "languageId": language, "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    await asyncio.wait_for(fut, 60)
    open_ms = (time.perf_counter() - t0) * 1000
    doc = {"uri": uri}
    positions = value_positions(text, 200)
    comp, hov = [], []
    for i in range(200):
        pos = positions[i % len(positions)]
        t0 = time.perf_counter()
        await client.request("textDocument/completion", {"textDocument": doc, "position": pos})
        comp.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        await client.request("textDocument/hover", {"textDocument": doc, "position": pos})
        hov.append((time.perf_counter() - t0) * 1000)
    edit_comp, edit_diag = [], []
    for i in range(50):
        version = i + 2
        pos = positions[(i * 7) % len(positions)]
        fut = client.diagnostics(uri, version)
        t0 = time.perf_counter()
        change = {"range": {"start": pos, "end": pos}, "text": "x"}
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        await client.request("textDocument/completion", {"textDocument": doc, "position": pos})
        edit_comp.append((time.perf_counter() - t0) * 1000)
        await asyncio.wait_for(fut, 60)
        edit_diag.append((time.perf_counter() - t0) * 1000)
    rss = peak_rss_mb(client.proc.pid)
    shutdown_ms = await client.stop()
    return {
        "input": name,
        "bytes": len(text.encode()),
        "initialize_ms": init_ms,
        "open_to_diagnostics_ms": open_ms,
        "completion_ms": {q: pct(comp, q) for q in (50, 90, 99)},
        "hover_ms": {q: pct(hov, q) for q in (50, 90, 99)},
        "edit_to_completion_ms": {q: pct(edit_comp, q) for q in (50, 90, 99)},
        "edit_to_diagnostics_ms": {q: pct(edit_diag, q) for q in (50, 90, 99)},
        "peak_rss_mb": rss,
        "shutdown_ms": shutdown_ms,
    }


async def bare_initialize_ms(root: Path) -> float:
    script = root / "bare_server.py"
    script.write_text(BARE_SERVER)
    client, ms = await RawClient.start([sys.executable, str(script)], root.as_uri())
    await client.stop()
    return ms


def median_of(runs: list[dict], key: str, q: int | None = None) -> float:
    vals = [r[key][q] if q is not None else r[key] for r in runs]
    return statistics.median(vals)


async def main_async(args: argparse.Namespace) -> dict:
    server = [sys.executable, "-m", "torch_logs_lsp.server"]
    if args.profile:
        server[1:1] = ["-m", "pyinstrument", "-r", "text", "--show-all", "-o", str(args.profile)]
    results: dict[str, Any] = {"runs": args.runs, "inputs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare = [await bare_initialize_ms(root) for _ in range(args.runs)]
        results["bare_pygls_initialize_ms"] = statistics.median(bare)
        for name, (rel, make) in INPUTS.items():
            if args.only and name not in args.only:
                continue
            text = make()
            runs = [await bench_input(server, name, rel, text, root) for _ in range(args.runs)]
            results["inputs"][name] = {
                "bytes": runs[0]["bytes"],
                "initialize_ms": median_of(runs, "initialize_ms"),
                "open_to_diagnostics_ms": median_of(runs, "open_to_diagnostics_ms"),
                **{
                    f"{k}_p{q}": median_of(runs, k, q)
                    for k in (
                        "completion_ms",
                        "hover_ms",
                        "edit_to_completion_ms",
                        "edit_to_diagnostics_ms",
                    )
                    for q in (50, 90, 99)
                },
                "peak_rss_mb": median_of(runs, "peak_rss_mb"),
                "shutdown_ms": median_of(runs, "shutdown_ms"),
            }
    return results


def print_table(results: dict) -> None:
    bare = results["bare_pygls_initialize_ms"]
    print(f"bare pygls spawn->initialize: {bare:.0f} ms (median of {results['runs']})")
    head = (
        f"{'input':<13}{'init':>7}{'ratio':>7}{'open':>8}{'cmp p50':>9}{'cmp p99':>9}"
        f"{'hov p99':>9}{'e->cmp p50':>11}{'e->diag p50':>12}{'e->diag p99':>12}{'RSS MB':>8}"
    )
    print(head)
    for name, r in results["inputs"].items():
        print(
            f"{name:<13}{r['initialize_ms']:>7.0f}{r['initialize_ms'] / bare:>7.2f}"
            f"{r['open_to_diagnostics_ms']:>8.1f}{r['completion_ms_p50']:>9.2f}"
            f"{r['completion_ms_p99']:>9.2f}{r['hover_ms_p99']:>9.2f}"
            f"{r['edit_to_completion_ms_p50']:>11.2f}{r['edit_to_diagnostics_ms_p50']:>12.2f}"
            f"{r['edit_to_diagnostics_ms_p99']:>12.2f}{r['peak_rss_mb']:>8.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per input (median)")
    parser.add_argument("--only", nargs="*", help="input names to run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--profile", type=Path, help="run the server under pyinstrument; write its report here"
    )
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
