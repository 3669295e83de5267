"""Workspace diagnostics: the files of the workspace folders that are not open, checked
in the background so the editor's problem list shows every finding of the project.

The files are those ``torch-logs check FOLDER`` reads: the same walk
(:func:`torch_logs_lsp.project.walk.iter_files`: ignore files, hidden and skipped
directories, virtualenvs, special files never opened), the same reader
(:func:`torch_logs_lsp.lint.checker.read_bytes`: regular files of at most
``MAX_FILE_BYTES``, no binary, no UTF-16), the same shortcut (a file without a family
name, near miss, pin comment or ``set_logs`` is not parsed: :func:`.checker.may_find`)
and the same pipeline as an open document (:func:`.documents.build_state`, the server's
workspace folders, launch configurations and settings). Notebooks (``.ipynb``) are left
to the notebook sync of the editor (their cells are documents only there).

Pace: the scan runs in slices of at most :data:`SLICE_S` seconds, each when no message
from the editor is waiting and every request has been answered (``TorchLogsServer.later``),
one file at a time; the check of one file stops at the pipeline's checkpoints when a
message arrives (:data:`~torch_logs_lsp.lint.pipeline.CHECKPOINT`) and is done again
later (at most :data:`MAX_STOPS` times). Each file is checked as soon as the walk finds
it (the first problems show early); a client that offers
``window.workDoneProgress`` is shown the progress (``$/progress``: begin, report, end).

Results: per file URI, the LSP diagnostics as JSON pieces
(:func:`.features.diagnostics.diagnostic_json`) and a ``resultId`` that names them. A
client that pulls workspace diagnostics (``workspace/diagnostic``,
:mod:`.features.pull_diagnostics`) reads them; to any other client they are pushed
(``textDocument/publishDiagnostics`` without a version) as each file is checked, and
cleared (an empty list) when a file's findings go away.

Updates: ``workspace/didChangeWatchedFiles`` (the server asks for ``**/*``) re-checks
a changed file the walk found, drops a deleted one, and walks the folders again when a
file is created or an ignore file changes (once per burst); a document closed in the
editor is checked again from disk (its findings on disk stay listed); a settings change
checks every file again; a saved launch configuration or env file re-checks the files
with ``set_logs`` calls (``TL632``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from torch_logs_lsp.files import SkippedFile
from torch_logs_lsp.lint.checker import may_find, read_bytes
from torch_logs_lsp.lint.pipeline import Cancelled
from torch_logs_lsp.notebook.reader import NOTEBOOK, FileKind
from torch_logs_lsp.project.gitignore import IGNORE_FILES
from torch_logs_lsp.project.walk import SHOWN_DOT_DIRS, SKIP_DIRS, iter_files
from torch_logs_lsp.server import launch_links
from torch_logs_lsp.server.documents import build_state, uri_path
from torch_logs_lsp.server.features import diagnostics as diagnostics_feature
from torch_logs_lsp.server.project_config import project_selection
from torch_logs_lsp.server.pygls_fixes.workspace import open_uris

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

#: Longest run of one slice of the scan (seconds); a file's check is not cut by it (its
#: own checkpoints stop it when a message arrives).
SLICE_S = 0.008
#: Times the check of one file may be stopped by the editor's messages before it runs to
#: its end whatever arrives (more than an open document's: nobody waits for a file that is
#: not open, and a large one's check holds the loop once it can no longer stop).
MAX_STOPS = 10
#: Least time between two ``$/progress`` reports (seconds).
REPORT_S = 0.25
#: The ``resultId`` of a file without findings.
EMPTY = "empty"
#: The ``resultId`` of a closed document until its file is checked again.
CLOSED = "closed"
#: The name of the work asked of ``TorchLogsServer.later``.
WORK = "workspace scan"
#: The progress token of the scan.
TOKEN_PREFIX = "torch-logs-workspace-scan"


@dataclass(frozen=True)
class Result:
    """One file's diagnostics: ``pieces`` (JSON text of LSP ``Diagnostic`` objects, in the
    negotiated position encoding) and the ``result_id`` naming them (:data:`EMPTY` for
    none)."""

    pieces: tuple[str, ...]
    result_id: str


def result_of(pieces: list[str]) -> Result:
    """A :class:`Result` whose ``result_id`` is a digest of ``pieces`` (the same pieces
    always get the same id, so a file checked again without change is ``unchanged``)."""
    if not pieces:
        return Result((), EMPTY)
    digest = hashlib.blake2b("\n".join(pieces).encode("utf-8", "surrogatepass"), digest_size=12)
    return Result(tuple(pieces), digest.hexdigest())


def path_uri(path: Path) -> str:
    """The ``file:`` URI of an absolute path."""
    return path.absolute().as_uri()


class WorkspaceScan:
    """The workspace diagnostics of one server (see the module docstring). Every method
    runs on the server's event loop."""

    def __init__(self, ls: TorchLogsServer) -> None:
        self.ls = ls
        #: Per file URI: its latest result (files checked so far; open ones too, from disk).
        self.results: dict[str, Result] = {}
        #: Every file the last walk found (normalised paths), with its kind.
        self.known: dict[str, FileKind] = {}
        #: Files waiting for their check, in walk order (normalised paths).
        self._queue: dict[str, None] = {}
        self._walker: Iterator[tuple[Path, FileKind]] | None = None
        self._walked: dict[str, FileKind] = {}
        self._stops: dict[str, int] = {}
        #: Whether the first complete scan has ended (walk and checks).
        self.done = False
        self.running = False
        #: URIs whose findings were pushed (publishDiagnostics) and not cleared since.
        self.pushed: set[str] = set()
        #: Set once the client pulls workspace diagnostics: nothing is pushed from then on.
        self.pulled = False
        self._changed: asyncio.Event | None = None
        self._token: str | None = None
        self._created = False
        self._last_report = 0.0
        self._generation = 0
        #: Seconds of the last complete scan (walk and checks) and its counts.
        self.seconds = 0.0
        self.checked = 0
        self._began = 0.0

    # -- state ---------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        """Whether the setting asks for the workspace (``torchLogs.diagnosticMode``)."""
        return self.ls.settings.diagnostic_mode == "workspace"

    def changed(self) -> asyncio.Event:
        """An event set whenever results change or a scan ends (cleared by its waiter)."""
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _signal(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def roots(self) -> list[str]:
        """The workspace folders walked (absolute paths)."""
        return launch_links.folders(self.ls)[0]

    def open_paths(self) -> set[str]:
        """Normalised paths of the open ``file:`` documents."""
        return {
            os.path.normpath(uri_path(uri))
            for uri in open_uris(self.ls.workspace)
            if uri.startswith("file:")
        }

    # -- running -------------------------------------------------------------------
    def start(self) -> None:
        """(Re)start the scan: walk the folders again and check every file found (kept
        results stay until their file is checked again or is not found any more)."""
        if not self.enabled:
            return
        if not self.roots():  # the last folder removed: nothing of it stays listed
            self.stop()
            return
        self._generation += 1
        self.known.update(self._walked)  # a walk cut short: what it found is known
        self._walker = iter_files(self.roots(), self._skipped)
        self._walked = {}
        self._queue.clear()
        self._stops.clear()
        self.running = True
        self._began = time.perf_counter()
        self.checked = 0
        self._begin_progress()
        self._schedule()

    def pause(self) -> None:
        """Stop walking and checking until the next :meth:`start` (the folders changed:
        a removed folder's files are not checked meanwhile); results stay."""
        self.known.update(self._walked)
        self._walked = {}
        self._walker = None
        self._queue.clear()
        self.running = False

    def stop(self) -> None:
        """Stop scanning and clear everything pushed (``openFilesOnly``)."""
        self._walker = None
        self._queue.clear()
        self.running = False
        self._end_progress("stopped")
        opened = {os.path.normpath(uri_path(u)) for u in open_uris(self.ls.workspace)}
        for uri in sorted(self.pushed):
            if os.path.normpath(uri_path(uri)) not in opened:
                self.push(uri, [])
        self.pushed.clear()
        self.results.clear()
        self.known.clear()
        self._signal()

    def _skipped(self, exc: SkippedFile) -> None:
        log.debug("workspace scan: %s skipped: %s", exc.path, exc.reason)

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (called directly, in tests): run to the end now
            while self.running:
                self._slice()
            return
        loop.call_soon(self.ls.later, WORK, self._slice)

    def _slice(self) -> None:
        """Walk or check until :data:`SLICE_S` has passed or a message waits; then let
        the loop run (the next slice is asked for again)."""
        if not self.running:
            return
        if self.ls.busy():  # a handler is answering: come back once it has
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_later(0.005, self._schedule)
            return
        began = time.perf_counter()
        while self.running and time.perf_counter() - began < SLICE_S:
            if self._queue:  # each file as soon as the walk finds it (first problems early)
                key = next(iter(self._queue))
                if not self._check_one(key):
                    break  # stopped for a message: the same file again in the next slice
                del self._queue[key]
                self.checked += 1
            elif self._walker is not None:
                try:
                    path, kind = next(self._walker)
                except StopIteration:
                    self._walked_all()
                    continue
                key = os.path.normpath(str(path))
                self._walked[key] = kind
                self._queue[key] = None
            else:
                self._finished()
                return
            if self.ls.waiting():
                break
        self._report_progress()
        if self.running:
            self._schedule()

    def _walked_all(self) -> None:
        """The walk has ended: files that were found before and are gone now are dropped."""
        self._walker = None
        listed = {os.path.normpath(uri_path(uri)) for uri in self.results}
        gone = [k for k in self.known.keys() | listed if k not in self._walked]
        self.known = self._walked
        self._walked = {}
        for key in gone:
            self._drop(key)

    def _finished(self) -> None:
        self.running = False
        self.seconds = time.perf_counter() - self._began
        first = not self.done
        self.done = True
        with_findings = sum(1 for r in self.results.values() if r.pieces)
        log.info(
            "workspace scan: %d files found, %d checked with findings, in %.0f ms%s",
            len(self.known),
            with_findings,
            self.seconds * 1000,
            " (the first scan)" if first else "",
        )
        self._end_progress(f"{len(self.known)} files, {with_findings} with findings")
        self._signal()

    # -- one file ------------------------------------------------------------------
    def _check_one(self, key: str) -> bool:
        """Check the file ``key`` and record (and push) its result; ``False`` when the
        check was stopped for a message (done again later)."""
        kind = self.known.get(key) or self._walked.get(key)
        if kind is None:
            return True
        path = Path(key)
        uri = path_uri(path)
        try:
            pieces = self._diagnostics(uri, path, kind, self._stops.get(key, 0) < MAX_STOPS)
        except Cancelled:
            self._stops[key] = self._stops.get(key, 0) + 1
            return False
        self._stops.pop(key, None)
        self._record(uri, key, pieces)
        return True

    def _diagnostics(self, uri: str, path: Path, kind: FileKind, cancellable: bool) -> list[str]:
        """The file's diagnostics as JSON pieces (``[]``: none, or not read: the reason
        is logged at DEBUG). Raises :class:`Cancelled` when ``cancellable`` and a
        message arrives during the check."""
        ls = self.ls
        if kind == NOTEBOOK:
            return []
        try:
            data = read_bytes(path)
        except SkippedFile as exc:
            self._skipped(exc)
            return []
        if not may_find(data):
            return []
        text = data.decode("utf-8", "replace")  # as read_document, as the CLI
        from torch_logs_lsp.server.app import too_large  # (app imports this module)

        if too_large(text):
            log.debug("workspace scan: %s over the size limit once decoded", path)
            return []
        with ls.warmup.foreground():
            context = ls.context_for(text)
            state = build_state(
                uri,
                None,
                text,
                None,
                context.registry,
                ls.encoding,
                context,
                None,
                ls.analyses,
                ls.workspace_root,
                ls.workspace_roots,
                saved=True,
                links=launch_links.links_of(ls, uri),
                cancelled=ls.waiting if cancellable and ls.inbox is not None else None,
            )
        try:
            return diagnostics_feature.diagnostic_json(
                state, ls.settings, ls.diagnostic_memo, project_selection(uri)
            )
        except Exception:
            log.exception("diagnostics failed for %s", uri)
            return []

    def _record(self, uri: str, key: str, pieces: list[str]) -> None:
        result = result_of(pieces)
        old = self.results.get(uri)
        if result == old:
            return
        if old is None and not result.pieces and uri not in self.pushed:
            return  # nothing to say, nothing said before
        self.results[uri] = result
        self._signal()
        if not self.pulled and key not in self.open_paths():
            self.push(uri, list(result.pieces))

    def _drop(self, key: str) -> None:
        """A file that is gone (or no longer walked): its findings are cleared."""
        uri = path_uri(Path(key))
        self.known.pop(key, None)
        self._queue.pop(key, None)
        old = self.results.get(uri)
        if old is not None and old.pieces:
            self.results[uri] = result_of([])
            self._signal()
            if not self.pulled and key not in self.open_paths():
                self.push(uri, [])

    def push(self, uri: str, pieces: list[str]) -> None:
        """Publish ``pieces`` for the file ``uri`` (an empty list only to clear what was
        pushed for it)."""
        if pieces:
            self.pushed.add(uri)
        elif uri not in self.pushed:
            return
        else:
            self.pushed.discard(uri)
        self.ls.text_document_publish_diagnostics(
            diagnostics_feature.PreparedDiagnostics.of(uri, None, pieces)
        )

    def recheck(self, keys: list[str]) -> None:
        """Check these files again (normalised paths the walk found), in the background."""
        if not self.enabled:
            return
        added = False
        for key in keys:
            if key in self.known:
                self._queue[key] = None
                added = True
        if added and not self.running:
            self.running = True
            self._began = time.perf_counter()
            self._schedule()

    # -- the editor's events -------------------------------------------------------
    def opened(self, uri: str) -> None:
        """A document was opened: its own diagnostics replace what was pushed for it
        (pushed again, empty, for a client that pulls the open document's)."""
        if uri in self.pushed and self.ls.pull_documents:
            self.push(uri, [])

    def closed(self, uri: str) -> bool:
        """A document was closed: check its file again from disk (workspace mode); its
        findings there stay listed. ``True`` when the scan takes care of the document's
        diagnostics (else the caller clears them)."""
        if not self.enabled or not uri.startswith("file:") or not self.roots():
            return False
        key = os.path.normpath(uri_path(uri))
        if key not in self.known:
            return False
        # what the editor shows for it now is the open document's: told again, even empty
        self.results[path_uri(Path(key))] = Result((), CLOSED)
        if not self.pulled:
            self.pushed.add(path_uri(Path(key)))
        self.recheck([key])
        return True

    def saved(self, uri: str) -> None:
        """A document was saved: a launch configuration or env file changes ``TL632`` of
        the files with ``set_logs`` calls."""
        if uri_path(uri).endswith(("launch.json", ".env")):
            self.recheck_linked()

    def recheck_linked(self) -> None:
        """Check again the files whose findings may come from a launch configuration."""
        self.recheck([k for k in self.known if k.endswith((".py", ".pyi"))])

    def files_changed(self, changes: Sequence[types.FileEvent]) -> None:
        """``workspace/didChangeWatchedFiles``: see the module docstring."""
        if not self.enabled or not self.roots():
            return
        again: list[str] = []
        linked = False
        for change in changes:
            if not change.uri.startswith("file:"):
                continue
            key = os.path.normpath(uri_path(change.uri))
            name = os.path.basename(key)
            if key not in self.known and self._never_walked(key):
                continue  # (a build writing into build/, a package into node_modules/)
            if name in IGNORE_FILES or (
                change.type == types.FileChangeType.Created and key not in self.known
            ):
                self._created = True
            elif change.type == types.FileChangeType.Deleted:
                if key in self.known:
                    self._drop(key)
            elif key in self.known:
                again.append(key)
            if name == "launch.json" or name.endswith(".env"):
                linked = True
        if self._created:
            self._created = False
            self.ls.later("workspace walk", self.start)
            return
        self.recheck(again)
        if linked:
            self.recheck_linked()

    def _never_walked(self, key: str) -> bool:
        """Whether the walk never enters a directory above the file ``key`` (outside the
        workspace folders, or under a skipped or hidden directory)."""
        for root in self.roots():
            rel = os.path.relpath(key, root)
            if rel.startswith(os.pardir):
                continue
            parts = rel.split(os.sep)[:-1]
            return any(
                p in SKIP_DIRS or (p.startswith(".") and p not in SHOWN_DOT_DIRS) for p in parts
            )
        return True

    # -- progress ------------------------------------------------------------------
    def _begin_progress(self) -> None:
        window = self.ls.client_capabilities.window
        if window is None or not window.work_done_progress or self.done or self._token:
            return  # only the first scan is shown
        token = f"{TOKEN_PREFIX}-{self._generation}"

        def created(*args: object) -> None:
            if self._token is None and self.running:
                self._token = token
                self.ls.work_done_progress.begin(
                    token,
                    types.WorkDoneProgressBegin(
                        title="TORCH_LOGS: checking the workspace", percentage=0
                    ),
                )

        try:
            self.ls.work_done_progress.create(token, created)
        except Exception:
            log.exception("cannot create the progress of the workspace scan")

    def _report_progress(self) -> None:
        if self._token is None:
            return
        now = time.perf_counter()
        if now - self._last_report < REPORT_S:
            return
        self._last_report = now
        if self._walker is not None:  # the number of files is not known yet
            message, percentage = f"{self.checked} files checked", 0
        else:
            total = self.checked + len(self._queue)
            message = f"{self.checked}/{total} files"
            percentage = (100 * self.checked) // total if total else 100
        self.ls.work_done_progress.report(
            self._token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    def _end_progress(self, message: str) -> None:
        if self._token is None:
            return
        token, self._token = self._token, None
        self.ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


def watched(ls: TorchLogsServer) -> tuple[str, ...]:
    """The glob patterns of the files whose changes the scan wants reported
    (``workspace/didChangeWatchedFiles``, registered with the launch configurations'):
    every file of the workspace folders (``**/*``: a file of any host kind, and the ignore
    files) when the setting asks for the workspace; none otherwise."""
    return ("**/*",) if ls.scan.enabled else ()


__all__ = [
    "CLOSED",
    "EMPTY",
    "SLICE_S",
    "Result",
    "WorkspaceScan",
    "path_uri",
    "result_of",
    "watched",
]
