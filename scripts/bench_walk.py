"""Benchmark ``torch-logs check TREE`` against ``rg -l TORCH_ TREE`` (ripgrep) on one tree.

Both are run as programs, alternately, after one warm-up run each (the tree in the page
cache), ``--runs`` times (default 5); the wall times' medians and their ratio are printed
(the target: ``check`` within 3x of ripgrep). ripgrep is the ``ripgrep`` wheel from
PyPI (it provides ``rg``), installed into this interpreter's environment when no ``rg`` is
found. The default tree is the installed torch package (``site-packages/torch``: ~14,000
files, of which ~2,300 Python files), found without importing it; with no torch installed,
a tree of 12,000 generated files is used.

Run: ``./dev bench walk [--tree DIR] [--runs N] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def find_rg() -> str:
    """``rg`` of this environment or PATH; installs the ``ripgrep`` wheel when missing."""
    here = Path(sys.executable).parent / "rg"
    found = str(here) if here.exists() else shutil.which("rg")
    if found:
        return found
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--only-binary=:all:", "ripgrep"],
        check=True,
    )
    return str(here) if here.exists() else "rg"


def torch_tree() -> str | None:
    """The directory of the installed torch package (not imported), or ``None``."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


def generated_tree(root: Path, files: int = 12_000) -> str:
    """A tree of ``files`` files: Python modules, C headers, shell scripts, .env files,
    data files; 1 in 50 Python files sets TORCH_LOGS."""
    for i in range(files):
        d = root / f"pkg{i % 40}" / f"sub{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        kind = i % 10
        if kind < 4:
            body = "import os\n" + "x = 1\n" * 40
            if i % 50 == 0:
                body += 'os.environ["TORCH_LOGS"] = "+dynamo"\n'
            (d / f"m{i}.py").write_text(body)
        elif kind < 8:
            (d / f"h{i}.h").write_text("#define TORCH_API\n" + "int f(void);\n" * 40)
        elif kind == 8:
            (d / f"s{i}.sh").write_text("#!/bin/sh\necho hi\n")
        else:
            (d / f"d{i}.txt").write_text("data\n" * 20)
    return str(root)


def count_files(tree: str) -> int:
    return sum(len(files) for _, _, files in os.walk(tree))


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Wall time (s) and the process; its CPU time (user + system, all threads) is
    added to :data:`CPU` under ``argv[0]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(argv[0], []).append(cpu)
    return wall, proc


#: CPU seconds of each run, by program.
CPU: dict[str, list[float]] = {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", help="the tree to walk (default: the installed torch)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="write the numbers to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or torch_tree() or generated_tree(Path(tmp))
        rg = find_rg()
        ours = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", tree]
        theirs = [rg, "-l", "TORCH_", tree]
        _, proc = timed(ours)  # warm-up: the tree in the page cache
        checked = proc.stderr.decode(errors="replace").strip().splitlines()[-1:]
        _, rg_proc = timed(theirs)
        CPU.clear()
        times: dict[str, list[float]] = {"check": [], "rg": []}
        for _ in range(args.runs):
            times["check"].append(timed(ours)[0])
            times["rg"].append(timed(theirs)[0])
        result = {
            "tree": tree,
            "files": count_files(tree),
            "check_summary": checked[0] if checked else "",
            "rg_files_listed": len(rg_proc.stdout.splitlines()),
            "runs": args.runs,
            "check_ms": round(statistics.median(times["check"]) * 1000),
            "rg_ms": round(statistics.median(times["rg"]) * 1000),
            "check_cpu_ms": round(statistics.median(CPU[sys.executable]) * 1000),
            "rg_cpu_ms": round(statistics.median(CPU[rg]) * 1000),
            "load_average": os.getloadavg()[0],
            "rg_version": subprocess.run([rg, "--version"], capture_output=True, text=True)
            .stdout.split("\n")[0]
            .strip(),
        }
    result["ratio"] = round(result["check_ms"] / max(result["rg_ms"], 1), 2)
    print(f"tree: {result['tree']} ({result['files']:,} files)")
    print(f"torch-logs check: {result['check_summary']}")
    print(f"{result['rg_version']}: {result['rg_files_listed']:,} files contain TORCH_")
    print(f"median of {args.runs} runs (warm cache), ms, wall (CPU: user + system):")
    print(f"  torch-logs check  {result['check_ms']} ({result['check_cpu_ms']})")
    print(f"  rg -l TORCH_      {result['rg_ms']} ({result['rg_cpu_ms']})")
    print(f"  ratio             {result['ratio']}x (target: within 3x)")
    print(f"load average (1 min) at the end: {result['load_average']:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
