"""The places in an installed torch that log a TORCH_LOGS name, found statically.

Every ``.py`` file under the torch package is read (the one safe reader, at most
:data:`MAX_SOURCE_BYTES` each); only those that mention ``getLogger``,
``getArtifactLogger`` or ``is_artifact_enabled`` (a bytes search) are parsed with
:mod:`ast`. Found:

- per artifact: each ``getArtifactLogger(module, "name")`` call (the literal), each
  ``is_artifact_enabled("name")`` call, and each ``X.debug(...)`` / ``info`` / ``warning``
  / ... / ``log`` call on a name ``X`` the file assigns only that artifact's logger to
  (``guards_log = torch._logging.getArtifactLogger(__name__, "guards")``);
- per logger name: each ``getLogger(__name__)`` (the module's dotted name) and
  ``getLogger("literal")`` call.

Parsing all of torch 2.13's candidates takes seconds and holds the interpreter in C for up
to ~300 ms a file (``_inductor/lowering.py``), so the server never scans in its own
process: :class:`LogSiteCache` runs :func:`scan` in a child process of the server's own
interpreter (``python -I``, this module's ``_main``) and keeps the answer per torch
installation (its directory, version and modification times).
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field

from torch_logs_lsp.files import SkippedFile, read_regular
from torch_logs_lsp.torch_env.locations import Lines, Site
from torch_logs_lsp.torch_env.reader import read_version

log = logging.getLogger(__name__)

#: Largest source file read (torch 2.13's largest: ``testing/_internal/
#: common_methods_invocations.py``, 1.4 MB).
MAX_SOURCE_BYTES = 4 * 1024 * 1024
#: Most ``.py`` files looked at (torch 2.13: 2,285).
MAX_FILES = 50_000
#: Longest a scan may take in its process before it is stopped (seconds).
SCAN_TIMEOUT_S = 300.0
#: Most bytes of a scan's answer read (torch 2.13's: ~0.1 MB).
MAX_ANSWER_BYTES = 64 * 1024 * 1024

_MARKERS = (b"getLogger", b"getArtifactLogger", b"is_artifact_enabled")
#: The ``logging.Logger`` methods that emit a record.
LEVEL_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)


@dataclass
class LogSites:
    """What :func:`scan` found in one torch: ``artifacts`` (artifact name -> sites) and
    ``loggers`` (logger name -> ``getLogger`` sites), each in file walk order then source
    order; ``files`` read, ``parsed`` of them, ``seconds`` the scan took, ``skipped``
    files not read (with why)."""

    torch_dir: str
    artifacts: dict[str, list[Site]] = field(default_factory=dict)
    loggers: dict[str, list[Site]] = field(default_factory=dict)
    files: int = 0
    parsed: int = 0
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)

    def covered(self, qnames: Iterable[str]) -> list[tuple[str, Site]]:
        """``(logger name, site)`` of every logger a level set on ``qnames`` reaches: the
        logger itself and those below it (``torch._dynamo`` covers
        ``torch._dynamo.guards``), for each qname in order, then by logger name (a
        package before its modules); each site once."""
        out: list[tuple[str, Site]] = []
        seen: set[Site] = set()
        names = sorted(self.loggers, key=lambda n: n.split("."))
        for q in qnames:
            for name in names:
                if name == q or name.startswith(q + "."):
                    for s in self.loggers[name]:
                        if s not in seen:
                            seen.add(s)
                            out.append((name, s))
        return out


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _head(lines: Lines, path: str, call: ast.Call) -> Site | None:
    """The call when it fits on one line, else its called expression."""
    node: ast.AST = call if call.lineno == call.end_lineno else call.func
    return lines.site(path, node)


_MARKER_WORDS = re.compile(rb"getArtifactLogger|is_artifact_enabled|getLogger")
_BYTES_LINE_END = re.compile(rb"\r\n|\r|\n")


def _line_numbers(data: bytes, pattern: re.Pattern[bytes]) -> list[int]:
    """The 1-based lines (ending as :mod:`ast` counts them) where ``pattern`` matches."""
    ends = [m.end() for m in _BYTES_LINE_END.finditer(data)]
    return sorted({bisect_right(ends, m.start()) + 1 for m in pattern.finditer(data)})


def _nodes_on(tree: ast.AST, lines: list[int]) -> Iterator[ast.AST]:
    """The nodes of ``tree`` whose lines include one of ``lines`` (sorted), with the
    nodes without positions below them: the rest of the tree is not visited."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is not None:
                last = getattr(child, "end_lineno", None) or first
                i = bisect_left(lines, first)
                if i == len(lines) or lines[i] > last:
                    continue
            stack.append(child)


def scan_source(
    source: str, module: str, path: str, data: bytes | None = None
) -> tuple[list[tuple[str, Site]], list[tuple[str, Site]]]:
    """``(artifact sites, logger sites)`` of one module's text (``module``: its dotted
    name, what ``__name__`` is; ``path``: recorded in the sites; ``data``: the text's
    UTF-8 bytes, when at hand), each as ``(name, site)`` in source order. Only the
    statements on lines that mention the functions (and then the names holding an
    artifact's logger) are walked; a call split between a name and ``.debug`` on the
    next line is not seen. Raises what :func:`ast.parse` raises."""
    raw = source.encode("utf-8", "surrogatepass") if data is None else data
    tree = ast.parse(source)
    lines = Lines(source)
    holders: dict[str, str | None] = {}  # name -> its only artifact (None: anything else)
    calls: dict[int, ast.Call] = {}

    def visit(wanted: list[int]) -> None:
        for node in _nodes_on(tree, wanted):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                artifact = None
                if isinstance(value, ast.Call) and _call_name(value.func) == "getArtifactLogger":
                    args = value.args
                    artifact = _string(args[1]) if len(args) >= 2 else None
                for t in targets:
                    if isinstance(t, ast.Name):
                        before = holders.get(t.id, artifact)
                        holders[t.id] = artifact if before == artifact else None
            elif isinstance(node, ast.Call):
                calls[id(node)] = node

    visit(_line_numbers(raw, _MARKER_WORDS))
    names = sorted(n for n, a in holders.items() if a is not None)
    if names:
        words = b"|".join(re.escape(n.encode("utf-8")) for n in names)
        visit(_line_numbers(raw, re.compile(rb"(?<![\w.])(?:" + words + rb")(?!\w)")))
    artifacts: list[tuple[int, int, str, Site]] = []
    loggers: list[tuple[int, int, str, Site]] = []
    for call in calls.values():
        fn = _call_name(call.func)
        if fn == "getArtifactLogger" and len(call.args) >= 2:
            name = _string(call.args[1])
            site = lines.site(path, call.args[1])
            if name is not None and site is not None:
                artifacts.append((call.lineno, call.col_offset, name, site))
        elif fn == "is_artifact_enabled" and call.args:
            name = _string(call.args[0])
            site = lines.site(path, call.args[0])
            if name is not None and site is not None:
                artifacts.append((call.lineno, call.col_offset, name, site))
        elif fn == "getLogger" and len(call.args) == 1 and not call.keywords:
            arg = call.args[0]
            logger = module if isinstance(arg, ast.Name) and arg.id == "__name__" else _string(arg)
            site = _head(lines, path, call)
            if logger is not None and site is not None:
                loggers.append((call.lineno, call.col_offset, logger, site))
        elif (
            fn in LEVEL_METHODS
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
        ):
            name = holders.get(call.func.value.id)
            site = lines.site(path, call.func)
            if name is not None and site is not None:
                artifacts.append((call.lineno, call.col_offset, name, site))
    artifacts.sort(key=lambda x: (x[0], x[1]))
    loggers.sort(key=lambda x: (x[0], x[1]))
    return [(n, s) for _, _, n, s in artifacts], [(n, s) for _, _, n, s in loggers]


def _sources(torch_dir: str) -> Iterator[tuple[str, str]]:
    """``(path, module name)`` of every ``.py`` file under ``torch_dir``, directories
    sorted, depth first (symbolic links to directories not followed)."""
    top = os.path.basename(os.path.normpath(torch_dir))
    for root, dirs, files in os.walk(torch_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and d.isidentifier())
        rel = os.path.relpath(root, torch_dir)
        package = top if rel == "." else ".".join([top, *rel.split(os.sep)])
        for fn in sorted(files):
            if not fn.endswith(".py"):
                continue
            stem = fn[:-3]
            module = package if stem == "__init__" else f"{package}.{stem}"
            yield os.path.join(root, fn), module


def scan(torch_dir: str, cancelled: Callable[[], bool] | None = None) -> LogSites:
    """:class:`LogSites` of the torch package in ``torch_dir``. A file that cannot be read
    (not regular, over :data:`MAX_SOURCE_BYTES`, not UTF-8) or parsed is skipped and
    listed in ``skipped``; never raises for what a file holds. Takes seconds: the server
    calls it through :class:`LogSiteCache` (another process)."""
    began = time.perf_counter()
    out = LogSites(os.path.abspath(torch_dir))
    for path, module in _sources(out.torch_dir):
        if cancelled is not None and cancelled():
            break
        out.files += 1
        if out.files > MAX_FILES:
            out.skipped.append(f"more than {MAX_FILES} files: the rest not read")
            break
        try:
            data = read_regular(path, MAX_SOURCE_BYTES)
        except SkippedFile as exc:
            out.skipped.append(f"{path}: {exc.reason}")
            continue
        if not any(m in data for m in _MARKERS):
            continue
        try:
            text = data.decode("utf-8")
            found_artifacts, found_loggers = scan_source(text, module, path, data)
        except Exception as exc:  # not UTF-8, SyntaxError, RecursionError, MemoryError
            out.skipped.append(f"{path}: {type(exc).__name__}")
            continue
        out.parsed += 1
        for name, site in found_artifacts:
            out.artifacts.setdefault(name, []).append(site)
        for name, site in found_loggers:
            out.loggers.setdefault(name, []).append(site)
    out.seconds = time.perf_counter() - began
    return out


# -- the child process -------------------------------------------------------------------
def _encode(sites: LogSites) -> str:
    paths: dict[str, int] = {}

    def rows(table: dict[str, list[Site]]) -> dict[str, list[list[object]]]:
        return {
            name: [
                [
                    paths.setdefault(s.path, len(paths)),
                    s.line,
                    s.column,
                    s.end_line,
                    s.end_column,
                    s.line_text,
                    s.end_text,
                ]
                for s in found
            ]
            for name, found in table.items()
        }

    artifacts, loggers = rows(sites.artifacts), rows(sites.loggers)
    return json.dumps(
        {
            "paths": list(paths),
            "artifacts": artifacts,
            "loggers": loggers,
            "files": sites.files,
            "parsed": sites.parsed,
            "seconds": sites.seconds,
            "skipped": sites.skipped,
        }
    )


def _decode(torch_dir: str, text: str) -> LogSites:
    data = json.loads(text)
    paths = [str(p) for p in data["paths"]]

    def sites(table: dict[str, list[list[object]]]) -> dict[str, list[Site]]:
        return {
            str(name): [
                Site(paths[int(p)], int(a), int(b), int(c), int(d), str(e), str(f))  # type: ignore[call-overload]
                for p, a, b, c, d, e, f in rows
            ]
            for name, rows in table.items()
        }

    return LogSites(
        torch_dir,
        sites(data["artifacts"]),
        sites(data["loggers"]),
        int(data["files"]),
        int(data["parsed"]),
        float(data["seconds"]),
        [str(s) for s in data["skipped"]],
    )


def _main() -> None:
    """``python -I -c ... TORCH_DIR``: print :func:`scan`'s answer as JSON."""
    sys.stdout.write(_encode(scan(sys.argv[1])))


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CHILD = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from torch_logs_lsp.torch_env.log_sites import _main; _main()"
)
_RUNNING: set[subprocess.Popen[bytes]] = set()


@atexit.register
def _stop_running() -> None:
    for proc in list(_RUNNING):
        proc.kill()


def scan_in_child(torch_dir: str, timeout: float = SCAN_TIMEOUT_S) -> LogSites:
    """:func:`scan` run in a child process of this interpreter (``-I``: no environment
    variables or user site of the user's; the package is found where this one is), at a
    lower CPU priority; blocks until it answers. Raises ``RuntimeError`` (with the reason)
    when it cannot start or fails, answers more than :data:`MAX_ANSWER_BYTES`, or takes longer than
    ``timeout`` seconds (it is killed)."""
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _CHILD, _PACKAGE_ROOT, torch_dir],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except (OSError, ValueError) as exc:  # no interpreter, a NUL in the path, ...
        raise RuntimeError(f"cannot start: {exc}") from exc
    _RUNNING.add(proc)
    try:
        if hasattr(os, "setpriority"):
            with contextlib.suppress(OSError):  # a lower priority is only a kindness
                os.setpriority(os.PRIO_PROCESS, proc.pid, 10)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise RuntimeError(f"no answer in {timeout:.0f} s") from None
    finally:
        _RUNNING.discard(proc)
    if proc.returncode != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"exit code {proc.returncode}: {tail[0][:200]}")
    if len(out) > MAX_ANSWER_BYTES:
        raise RuntimeError(f"answer larger than {MAX_ANSWER_BYTES} bytes")
    return _decode(torch_dir, out.decode("utf-8"))


def _key(torch_dir: str) -> tuple[str, str | None, int, int]:
    def mtime(path: str) -> int:
        try:
            return os.stat(path).st_mtime_ns
        except OSError:
            return 0

    return (
        os.path.abspath(torch_dir),
        read_version(torch_dir),
        mtime(os.path.join(torch_dir, "version.py")),
        mtime(torch_dir),
    )


class LogSiteCache:
    """:class:`LogSites` per torch installation, made in the background. The key is the
    torch directory, its version (``version.py``) and the modification times of
    ``version.py`` and the directory: a reinstall scans again. Thread-safe."""

    def __init__(self, scanner: Callable[[str], LogSites] = scan_in_child) -> None:
        self._scanner = scanner
        self._lock = threading.Lock()
        self._found: dict[str, tuple[tuple[str, str | None, int, int], Future[LogSites]]] = {}

    def get(self, torch_dir: str) -> Future[LogSites]:
        """The sites of ``torch_dir``: a finished future when known, else the future of the
        scan started now (or already running) in a daemon thread. A failed scan's future
        holds its exception (logged) and is tried again on the next call."""
        key = _key(torch_dir)
        with self._lock:
            found = self._found.get(key[0])
            if found is not None and found[0] == key:
                future = found[1]
                if not (future.done() and future.exception() is not None):
                    return future
            future = Future()
            self._found[key[0]] = (key, future)
        threading.Thread(
            target=self._run, args=(torch_dir, future), name="torch-logs-log-sites", daemon=True
        ).start()
        return future

    def _run(self, torch_dir: str, future: Future[LogSites]) -> None:
        began = time.perf_counter()
        try:
            sites = self._scanner(torch_dir)
        except Exception as exc:
            log.warning("log sites of %s not found: %s", torch_dir, exc)
            future.set_exception(exc)
            return
        log.info(
            "log sites of %s: %d files, %d parsed, %.1f s (%.1f s with the process); %d skipped",
            torch_dir,
            sites.files,
            sites.parsed,
            sites.seconds,
            time.perf_counter() - began,
            len(sites.skipped),
        )
        future.set_result(sites)


__all__ = [
    "LEVEL_METHODS",
    "MAX_SOURCE_BYTES",
    "LogSiteCache",
    "LogSites",
    "scan",
    "scan_in_child",
    "scan_source",
]
