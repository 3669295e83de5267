"""Benchmark the language server the way an editor drives it, over stdio.

For each generated input (a 10,000-line shell script, a launch.json with 2,000
configurations, a 5,000-line .env, small versions of each, and one-line .env files with
one long value each: ``scripts/bench_values.py``) it measures:
spawn -> initialize, didOpen -> publishDiagnostics, 200 completions and 200 hovers at
TORCH_LOGS positions, 50 incremental edits each followed by a completion and by the
diagnostics of the new version, peak RSS (VmHWM) and shutdown. The workspace scan
(``scripts/bench_scan.py``: a tree of 20,000 generated files, 30 setting a family
variable) is timed against ``torch-logs check`` on the same tree, with the latencies of
edits in an open file during the scan. A memory soak then edits a
small .env 100,000 times and prints the RSS after 1,000 edits and after all of them
(target: within 10 MB). A bare pygls server that does nothing is measured in the same run
for spawn -> initialize. The long values are also run through the core and the CLI (time,
output size), and the 20 MB notebook (``notebook-20mb``) through the core and the CLI
only. Prints tables and, with ``--json FILE``, writes the numbers. Times are milliseconds
(p50/p90/p99).

The other language servers and a bare pygls server that publishes empty diagnostics (the
floor) are measured on the same inputs by ``scripts/bench_peers.py`` (``./dev bench
peers``); ``scripts/bench_guard.py`` (``./dev bench guard``) compares the ``--json`` of a
run with the committed baseline.

Run: ``./dev bench`` (or ``.venv/bin/python scripts/bench.py [--runs 3]``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_inputs import INPUTS, gen_env, measure_notebook
from bench_pace import pace, print_pace
from bench_scan import measure as measure_scan
from bench_scan import print_scan
from bench_values import VALUES, measure, print_values_table
from rawlsp import RawClient

#: Our server checks the open documents only here (the other inputs in the same folder would
#: be checked by the workspace scan meanwhile); the scan is measured by bench_scan.py.
OPEN_FILES_ONLY = {"torchLogs": {"diagnosticMode": "openFilesOnly"}}

BARE_SERVER = """
from pygls.lsp.server import LanguageServer
LanguageServer("bare", "0").start_io()
"""


# The languageId an editor sends for a file (VS Code's, by name then suffix); our server
# decides the host by the file's name first, so it matters only to the peers.
LANGUAGE_BY_NAME = {"Dockerfile": "dockerfile", "Makefile": "makefile"}
LANGUAGE_BY_SUFFIX = {
    ".sh": "shellscript",
    ".json": "jsonc",
    ".py": "python",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".ps1": "powershell",
    ".bat": "bat",
}


def language_id(path: Path) -> str:
    """The languageId sent in didOpen for ``path`` (``dotenv`` for anything else)."""
    return LANGUAGE_BY_NAME.get(path.name) or LANGUAGE_BY_SUFFIX.get(path.suffix, "dotenv")


def value_positions(text: str, limit: int) -> list[dict[str, int]]:
    """LSP positions just after ``TORCH_LOGS=`` / ``"TORCH_LOGS": "`` plus 3 characters."""
    out: list[dict[str, int]] = []
    for line_no, line in enumerate(text.splitlines()):
        for marker in ('TORCH_LOGS="', "TORCH_LOGS=", '"TORCH_LOGS": "', '"TORCH_LOGS"] = "'):
            at = line.find(marker)
            if at >= 0:
                out.append({"line": line_no, "character": at + len(marker) + 3})
                break
        if len(out) >= limit:
            break
    return out or [{"line": 0, "character": 0}]  # no value: requests outside any


def pct(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def load_average() -> list[float]:
    """The machine's load average over 1, 5 and 15 minutes (``os.getloadavg``)."""
    return list(os.getloadavg())


def fmt_load(load: list[float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


def peak_rss_mb(pid: int, field: str = "VmHWM") -> float:
    """A process's peak resident memory (``VmRSS``: the current one), MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


SOAK_EDITS = 100_000
SOAK_EARLY = 1_000
SOAK_TARGET_MB = 10.0


async def soak(server: list[str], root: Path, edits: int = SOAK_EDITS) -> dict[str, Any]:
    """Memory over many edits: a small .env is edited ``edits`` times (one character typed,
    then deleted, so the text stays the same size); the server's RSS after the first
    ``SOAK_EARLY`` edits and after all of them (each read once that version's diagnostics
    have arrived). Target: the second within ``SOAK_TARGET_MB`` of the first."""
    path = root / "soak.env"
    text = gen_env(100)
    path.write_text(text)
    uri = path.as_uri()
    client, _ = await RawClient.start(server, root.as_uri(), init_options=OPEN_FILES_ONLY)
    rss: dict[int, float] = {}
    t0 = time.perf_counter()
    try:
        fut = client.diagnostics(uri, 1)
        item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": item})
        await asyncio.wait_for(fut, 60)
        pos = {"line": 0, "character": 11}
        for version in range(2, edits + 2):
            end = pos if version % 2 == 0 else {"line": 0, "character": 12}
            change = {"range": {"start": pos, "end": end}, "text": "x" if version % 2 == 0 else ""}
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            done = version - 1
            if done % 500 == 0 or done in (SOAK_EARLY, edits):
                # let the server catch up (and bound what waits in the pipe)
                fut = client.diagnostics(uri, version)
                assert client.proc.stdin is not None
                await client.proc.stdin.drain()
                await asyncio.wait_for(fut, 120)
                if done in (SOAK_EARLY, edits):
                    rss[done] = peak_rss_mb(client.proc.pid, "VmRSS")
        await client.stop()
    except BaseException:
        if client.proc.returncode is None:
            client.proc.kill()
        raise
    early, late = rss[SOAK_EARLY], rss[edits]
    return {
        "edits": edits,
        "rss_mb_after_early": early,
        "rss_mb_after_all": late,
        "growth_mb": late - early,
        "within_target": late - early <= SOAK_TARGET_MB,
        "seconds": time.perf_counter() - t0,
    }


async def wait_ms(
    fut: asyncio.Future[Any], t0: float, timeout: float, strict: bool
) -> float | None:
    """Milliseconds from ``t0`` until ``fut`` is done; ``None`` after ``timeout`` seconds
    unless ``strict`` (then the timeout is raised)."""
    try:
        await asyncio.wait_for(fut, timeout)
    except asyncio.TimeoutError:
        if strict:
            raise
        return None
    return (time.perf_counter() - t0) * 1000


async def bench_input(
    server: list[str],
    name: str,
    rel: str,
    text: str,
    root: Path,
    *,
    open_delay: float = 0.0,
    capabilities: dict[str, Any] | None = None,
    init_options: Any = None,
    strict: bool = True,
    open_timeout: float = 60.0,
    edit_timeout: float = 60.0,
    open_probe: bool = False,
) -> dict:
    """One server (``server``: its argv) on one input, written to ``root / rel``.

    ``open_delay``: seconds between ``initialized`` and the didOpen (0: at once, as an
    editor with the file open). ``capabilities`` and ``init_options`` go in ``initialize``
    (default: :data:`rawlsp.CAPABILITIES`). Diagnostics that do not arrive within
    ``open_timeout`` / ``edit_timeout`` seconds raise when ``strict`` (ours), else they are
    ``None`` in the result (another server), and so are the times of the requests such a
    server does not know (listed in ``unsupported``). ``open_probe``: also send a
    documentSymbol request right after the didOpen and time its answer
    (``open_to_symbols_ms``: for a server that may publish no diagnostics on open). Times
    in ms, RSS in MB."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    uri = path.as_uri()
    language = language_id(path)
    client, init_ms = await RawClient.start(
        server, root.as_uri(), capabilities=capabilities, init_options=init_options
    )
    try:
        if open_delay:
            await asyncio.sleep(open_delay)
        fut = client.diagnostics(uri, 1)
        t0 = time.perf_counter()
        item = {"uri": uri, "languageId": language, "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": item})
        symbols: asyncio.Future[Any] | None = None
        answered: list[float] = []  # when the documentSymbol answer came
        if open_probe:
            symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            symbols.add_done_callback(lambda _: answered.append(time.perf_counter()))
        open_ms = await wait_ms(fut, t0, open_timeout, strict)
        symbols_ms = None
        if symbols is not None:
            try:
                await asyncio.wait_for(symbols, open_timeout)
                symbols_ms = (answered[0] - t0) * 1000
            except (asyncio.TimeoutError, RuntimeError, IndexError):  # no answer, an error
                symbols_ms = None
        diagnostics_arrive = open_ms is not None
        doc = {"uri": uri}
        positions = value_positions(text, 200)
        unsupported: set[str] = set()

        async def ask(method: str, pos: dict[str, int]) -> bool:
            """Send a request and wait for its answer; ``False`` when the server does not
            know the method (another server: -32601, remembered, not asked again)."""
            if method in unsupported:
                return False
            params = {"textDocument": doc, "position": pos}
            try:
                await client.request(f"textDocument/{method}", params)
            except RuntimeError as exc:
                error = exc.args[0] if exc.args else None
                if strict or not isinstance(error, dict) or error.get("code") != -32601:
                    raise
                unsupported.add(method)
                return False
            return True

        comp, hov = [], []
        for i in range(200):
            pos = positions[i % len(positions)]
            t0 = time.perf_counter()
            if await ask("completion", pos):
                comp.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            if await ask("hover", pos):
                hov.append((time.perf_counter() - t0) * 1000)
        edit_comp: list[float] = []
        edit_diag: list[float] = []
        for i in range(50):
            version = i + 2
            pos = positions[(i * 7) % len(positions)]
            if diagnostics_arrive:
                fut = client.diagnostics(uri, version)
            t0 = time.perf_counter()
            change = {"range": {"start": pos, "end": pos}, "text": "x"}
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            if await ask("completion", pos):
                edit_comp.append((time.perf_counter() - t0) * 1000)
            if diagnostics_arrive:
                ms = await wait_ms(fut, t0, edit_timeout, strict)
                if ms is None:  # stop waiting: the other edits would time out as well
                    diagnostics_arrive, edit_diag = False, []
                else:
                    edit_diag.append(ms)
        rss = peak_rss_mb(client.proc.pid)
        shutdown_ms = await client.stop()
    except BaseException:  # a server that fails or hangs must not outlive the benchmark
        if client.proc.returncode is None:
            client.proc.kill()
        raise
    return {
        "input": name,
        "bytes": len(text.encode()),
        "initialize_ms": init_ms,
        "open_to_diagnostics_ms": open_ms,
        "open_to_symbols_ms": symbols_ms,
        "completion_ms": {q: pct(comp, q) if comp else None for q in (50, 90, 99)},
        "hover_ms": {q: pct(hov, q) if hov else None for q in (50, 90, 99)},
        "edit_to_completion_ms": {
            q: pct(edit_comp, q) if edit_comp else None for q in (50, 90, 99)
        },
        "edit_to_diagnostics_ms": {
            q: pct(edit_diag, q) if edit_diag else None for q in (50, 90, 99)
        },
        "peak_rss_mb": rss,
        "shutdown_ms": shutdown_ms,
        "unsupported": sorted(unsupported),
    }


async def bare_initialize_ms(root: Path) -> float:
    script = root / "bare_server.py"
    script.write_text(BARE_SERVER)
    client, ms = await RawClient.start([sys.executable, str(script)], root.as_uri())
    await client.stop()
    return ms


def median_of(runs: list[dict], key: str, q: int | None = None) -> float | None:
    """The median over runs; ``None`` when a run has no value (a peer's missing
    diagnostics)."""
    vals = [r[key][q] if q is not None else r[key] for r in runs]
    if any(v is None for v in vals):
        return None
    return statistics.median(vals)


def summarize(runs: list[dict]) -> dict[str, Any]:
    return {
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


async def main_async(args: argparse.Namespace) -> dict:
    server = [sys.executable, "-m", "torch_logs_lsp.server"]
    if args.profile:
        server[1:1] = ["-m", "pyinstrument", "-r", "text", "--show-all", "-o", str(args.profile)]
    results: dict[str, Any] = {"runs": args.runs, "load_average": load_average(), "inputs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare: list[float] = []
        for name, (rel, make) in INPUTS.items():
            if args.only and name not in args.only:
                continue
            text = make()
            if rel.endswith(".ipynb"):  # the CLI and the core (the server: notebook sync)
                results.setdefault("notebooks", {})[name] = measure_notebook(
                    name, rel, text, args.runs
                )
                continue
            runs, bare_here = [], []
            for _ in range(args.runs):
                # a bare pygls server started just before each of ours, so that the init
                # ratio compares starts under the same machine load
                bare_here.append(await bare_initialize_ms(root))
                runs.append(
                    await bench_input(
                        server,
                        name,
                        rel,
                        text,
                        root,
                        open_delay=args.open_delay,
                        init_options=OPEN_FILES_ONLY,
                    )
                )
            bare += bare_here
            ours = results["inputs"][name] = summarize(runs)
            ours["bare_initialize_ms"] = statistics.median(bare_here)
        if not args.only or "soak" in args.only:
            results["soak"] = await soak(server, root, args.soak_edits)
        if not args.only or "pace" in args.only:
            results["pace"] = await pace(server, root, args.runs)
        if not args.only or "scan" in args.only:  # once: a tree of --scan-files files
            results["scan"] = await measure_scan(server, args.scan_files)
    results["bare_pygls_initialize_ms"] = statistics.median(bare) if bare else float("nan")
    results["values"] = {
        name: measure(name, args.runs) for name in VALUES if not args.only or name in args.only
    }
    results["load_average_end"] = load_average()
    return results


def print_table(results: dict) -> None:
    start, end = results["load_average"], results["load_average_end"]
    print(f"load average (1/5/15 min): {fmt_load(start)} at the start, {fmt_load(end)} at the end")
    bare = results["bare_pygls_initialize_ms"]
    print(f"bare pygls spawn->initialize: {bare:.0f} ms (median of all; one before each run)")
    head = (
        f"{'input':<13}{'init':>7}{'ratio':>7}{'open':>8}{'cmp p50':>9}{'cmp p99':>9}"
        f"{'hov p99':>9}{'e->cmp p50':>11}{'e->diag p50':>12}{'e->diag p99':>12}{'RSS MB':>8}"
    )
    print(head)
    for name, r in results["inputs"].items():
        print(
            f"{name:<13}{r['initialize_ms']:>7.0f}"
            f"{r['initialize_ms'] / r.get('bare_initialize_ms', bare):>7.2f}"
            f"{r['open_to_diagnostics_ms']:>8.1f}{r['completion_ms_p50']:>9.2f}"
            f"{r['completion_ms_p99']:>9.2f}{r['hover_ms_p99']:>9.2f}"
            f"{r['edit_to_completion_ms_p50']:>11.2f}{r['edit_to_diagnostics_ms_p50']:>12.2f}"
            f"{r['edit_to_diagnostics_ms_p99']:>12.2f}{r['peak_rss_mb']:>8.1f}"
        )
    if "soak" in results:
        r = results["soak"]
        verdict = "within" if r["within_target"] else "NOT within"
        print(
            f"soak: RSS {r['rss_mb_after_early']:.1f} MB after {SOAK_EARLY:,} edits, "
            f"{r['rss_mb_after_all']:.1f} MB after {r['edits']:,} ({r['growth_mb']:+.1f} MB, "
            f"{verdict} the {SOAK_TARGET_MB:.0f} MB target; {r['seconds']:.0f} s)"
        )
    if "pace" in results:
        print_pace(results["pace"])
    if "scan" in results:
        print_scan(results["scan"])
    if results.get("values"):
        print_values_table(results["values"])
    for name, r in results.get("notebooks", {}).items():
        print(
            f"{name}: {r['bytes'] / 1e6:.1f} MB, {r['cells']} cells: read {r['read_ms']:.0f} ms,"
            f" check the cells {r['check_cells_ms']:.0f} ms; torch-logs check"
            f" {r['cli_check_ms']:.0f} ms (a 2-line .py: {r['cli_check_small_py_ms']:.0f} ms)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per input (median)")
    parser.add_argument(
        "--only",
        nargs="*",
        help="input names to run ('soak': the memory soak; 'pace': the burst of changes "
        "and the storm of file events, scripts/bench_pace.py; 'scan': the workspace scan "
        "against torch-logs check, scripts/bench_scan.py; none: all)",
    )
    parser.add_argument(
        "--scan-files",
        type=int,
        default=20_000,
        help="files of the tree the workspace scan benchmark generates (default 20,000)",
    )
    parser.add_argument(
        "--soak-edits",
        type=int,
        default=SOAK_EDITS,
        help=f"edits in the memory soak (default {SOAK_EDITS:,}; RSS is also read after "
        f"the first {SOAK_EARLY:,})",
    )
    parser.add_argument(
        "--open-delay",
        type=float,
        default=0.0,
        help="seconds between initialized and the didOpen (default 0: at once, as an editor "
        "that has the file open; a delay lets the server's background warm-up finish)",
    )
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
