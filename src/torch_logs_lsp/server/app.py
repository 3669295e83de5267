"""The glue: one server class, and one place that registers every LSP feature.

Handlers are module-level functions taking the server (``ls``) and the params; each
converts positions with the document's :class:`~.positions.PositionMapper` and calls a
feature module. Any exception inside a handler is logged and answered with an empty
result: bad input never takes the server down.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from torch_logs_lsp.files import MAX_FILE_BYTES, SkippedFile
from torch_logs_lsp.hosts.comments import pin_comment
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint import misspelled
from torch_logs_lsp.lint.checker import read_document
from torch_logs_lsp.lint.pipeline import Cancelled
from torch_logs_lsp.server import codecache, notebooks, requests
from torch_logs_lsp.server import launch_links as launch_links_feature
from torch_logs_lsp.server.documents import (
    DocumentState,
    QuickState,
    build_state,
    quick_state,
    uri_path,
    utf8_size,
)
from torch_logs_lsp.server.features import code_actions as code_actions_feature
from torch_logs_lsp.server.features import completion as completion_feature
from torch_logs_lsp.server.features import compose as compose_feature
from torch_logs_lsp.server.features import definition as definition_feature
from torch_logs_lsp.server.features import diagnostics as diagnostics_feature
from torch_logs_lsp.server.features import document_links as document_links_feature
from torch_logs_lsp.server.features import pull_diagnostics as pull_feature
from torch_logs_lsp.server.features import references as references_feature
from torch_logs_lsp.server.features import status as status_feature
from torch_logs_lsp.server.positions import encoding_name
from torch_logs_lsp.server.project_config import project_selection
from torch_logs_lsp.server.pygls_fixes import stdio
from torch_logs_lsp.server.pygls_fixes.protocol import ServerProtocol
from torch_logs_lsp.server.pygls_fixes.wire import Encoded
from torch_logs_lsp.server.pygls_fixes.workspace import is_open, open_uris
from torch_logs_lsp.server.settings import Settings, checked_settings
from torch_logs_lsp.server.texts import label
from torch_logs_lsp.server.warmup import Warmup, grammar_steps, module_steps
from torch_logs_lsp.server.workspace_scan import WorkspaceScan, result_of, watched
from torch_logs_lsp.torch_env.context import TorchContext, TorchResolver, prefetch
from torch_logs_lsp.value.analysis_cache import AnalysisCache

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Times the check of one version may be stopped by the editor's messages before it runs to
#: its end whatever arrives (an editor that never stops sending would starve it).
MAX_STOPS = 3

#: The package version (``serverInfo``, ``--version``). A constant: reading it with
#: ``importlib.metadata`` costs ~40 ms of start-up; tests/server/test_startup.py holds it equal to
#: the installed distribution's version (pyproject.toml).
VERSION = "0.1.0"


def too_large(text: str) -> bool:
    """Whether ``text`` is over :data:`MAX_FILE_BYTES` in UTF-8 (a code point is 1-4
    bytes: the exact size only when those bounds do not decide)."""
    return len(text) * 4 > MAX_FILE_BYTES and (
        len(text) > MAX_FILE_BYTES or utf8_size(text) > MAX_FILE_BYTES
    )


class TorchLogsServer(LanguageServer):
    """pygls server holding the settings, the client's preferences and document states."""

    def __init__(self) -> None:
        super().__init__(
            "torch-logs-lsp",
            VERSION,
            protocol_cls=ServerProtocol,
            notebook_document_sync=notebooks.SYNC_OPTIONS,
        )
        self.settings = Settings()
        self.client_locale = ""
        self.states: dict[str, DocumentState] = {}
        self.language_ids: dict[str, str] = {}
        #: Open notebooks' cell URIs, and their notes across cells (see .notebooks).
        self.notebook_cells: dict[str, list[str]] = {}
        self.cross_cells: notebooks.CrossCache = {}
        self.resolver = TorchResolver()
        self.workspace_root: str | None = None
        #: Every workspace folder (paths): TL402/TL403 judge only paths inside them.
        self.workspace_roots: tuple[str, ...] = ()
        #: Whether the client names workspace folders (``initialize`` or a change): then
        #: no folder means none, not the root URI.
        self.folders_given = False
        self._notes: set[str] = set()
        #: Open documents that went over :data:`MAX_FILE_BYTES` (the user has been told;
        #: kept until the document is closed).
        self.too_large: set[str] = set()
        #: Open documents whose text is not the file's: edited since they were opened or
        #: last saved, or opened with text that is not on disk (restored edits, untitled):
        #: a quote left open there may just not be closed yet (no TL108 until saved).
        self.unsaved: set[str] = set()
        #: Per open document: the previous version's tree and spans (incremental parsing).
        self.doc_caches: dict[str, DocumentCache] = {}
        #: Analyses of values, shared by every document.
        self.analyses = AnalysisCache()
        #: Diagnostics wait this long (seconds) after a change; a later change of the same
        #: document restarts the wait, so a burst of edits is analysed and published once,
        #: for its last version. 0 coalesces the edits already received.
        self.debounce_s = 0.0
        self._pending: dict[str, asyncio.TimerHandle] = {}
        #: Diagnostics already written as JSON (see features/diagnostics), for every document.
        self.diagnostic_memo: diagnostics_feature.Memo = {}
        #: ``time.perf_counter()`` when ``__main__.main()`` began (set there), until the
        #: first diagnostics are published and logged (INFO).
        self.started_at: float | None = None
        #: What the first documents would pay for, made in the background from
        #: ``initialized`` on (see .warmup); paused while a document is checked.
        self.warmup = Warmup()
        #: The messages read ahead (stdio; ``None`` on other transports and in tests that
        #: call handlers directly): a check runs when none is waiting, and stops at its
        #: next checkpoint when one arrives (see :meth:`publish`).
        self.inbox: stdio.Inbox | None = None
        #: Documents whose diagnostics wait for a moment when no message is waiting, in
        #: the order they were asked for.
        self._deferred: dict[str, None] = {}
        #: Work that waits for such a moment too, by name (asked again before it ran: once).
        self._later: dict[str, Callable[[], None]] = {}
        #: Per document: the requests waiting for the check of its current version (see
        #: :meth:`checked`), and how many handlers wait so in all.
        self._checks: dict[str, list[asyncio.Future[None]]] = {}
        self._awaiting = 0
        #: Per document: the version whose check was stopped for newer messages, and how
        #: many times (after :data:`MAX_STOPS` it runs to its end).
        self._stops: dict[str, tuple[int | None, int]] = {}
        #: Per open document: its newest version's spans while its check waits (see
        #: :meth:`quick_state`).
        self.quick: dict[str, QuickState] = {}
        #: Whether the client pulls open documents' diagnostics (``textDocument/diagnostic``,
        #: :mod:`.features.pull_diagnostics`): then none is pushed for them.
        self.pull_documents = False
        #: Per document: the ``resultId`` last answered to a pull, and pulls waiting.
        self.pulled: dict[str, str] = {}
        self.pulling: dict[str, int] = {}
        #: The files of the workspace folders that are not open (:mod:`.workspace_scan`).
        self.scan = WorkspaceScan(self)

    @contextlib.contextmanager
    def awaiting(self) -> Iterator[None]:
        """While a handler waits in this block (for a check, for news), it does not count
        as a request being answered (:meth:`busy`)."""
        self._awaiting += 1
        try:
            yield
        finally:
            self._awaiting -= 1

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio with the bounded, strict message loop of :mod:`.stdio`."""
        stdio.start_io(self, stdin, stdout)

    def attach(self, inbox: stdio.Inbox) -> None:
        """The stdio loop's inbox (:class:`.stdio.Paced`); from now on, the end of the
        last running handler is a moment to publish too."""
        self.inbox = inbox
        protocol = self.protocol
        if isinstance(protocol, ServerProtocol):
            protocol.settled = self._settled

    def _settled(self) -> None:
        if self.busy():
            return  # (the last handler to answer, or the next message, comes back here)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a handler run in a thread: the loop's next message will do
            return
        loop.call_soon(self.idle)

    def waiting(self) -> bool:
        """Whether a message from the editor is waiting to be handled."""
        return self.inbox is not None and self.inbox.waiting() > 0

    def busy(self) -> bool:
        """Whether a message is waiting or a handler has not answered yet (a request's
        answer goes out before any diagnostics computed after it)."""
        protocol = self.protocol
        handling = protocol.handling if isinstance(protocol, ServerProtocol) else 0
        return handling > self._awaiting or self.waiting()

    async def checked(self, uri: str) -> None:
        """Wait, without holding the message loop, until the current version of the open
        document ``uri`` has been checked (at once when it has, when it is not open, and
        on transports without an inbox, where :meth:`state` checks it on the spot): a
        request that needs the check (a code action) lets the requests after it answer
        first."""
        if self.inbox is None or not is_open(self.workspace, uri):
            return
        doc = self.workspace.get_text_document(uri)
        kept = self.states.get(uri)
        if kept is not None and kept.version == doc.version and kept.text == doc.source:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._checks.setdefault(uri, []).append(future)
        self._deferred[uri] = None
        loop.call_soon(self.idle)
        with self.awaiting():
            await future

    async def wait_for(self, future: Future[T]) -> T:
        """The result of work running in another thread or process (``future``), awaited
        without holding the message loop or the publication of diagnostics meanwhile
        (as :meth:`checked`)."""
        self._awaiting += 1
        try:
            return await asyncio.wrap_future(future)
        finally:
            self._awaiting -= 1

    def _checked(self, uri: str) -> None:
        """The current version of ``uri`` has been checked (or cannot be): wake the
        requests waiting for it."""
        for future in self._checks.pop(uri, []):
            if not future.done():
                future.set_result(None)

    def later(self, name: str, work: Callable[[], None]) -> None:
        """Run ``work`` once no message is waiting (now, when none is, or on transports
        without an inbox); asked again under the same ``name`` before it ran, it runs once
        (2,000 file events in a burst re-read the launch configurations once). It runs
        before the answers of the requests handled meanwhile are written, so what it
        publishes reaches the editor before them."""
        self._later[name] = work
        self._run_later()

    def _run_later(self) -> None:
        while self._later and not self.waiting():
            name = next(iter(self._later))
            work = self._later.pop(name)
            try:
                work()
            except Exception:
                log.exception("%s failed", name)

    def idle(self) -> None:
        """No message is waiting (:class:`.stdio.Paced`): run the work asked for
        :meth:`later`, then publish the deferred documents, one at a time, while no
        message arrives and no handler is answering."""
        self._run_later()
        while self._deferred and not self.busy():
            uri = next(iter(self._deferred))
            del self._deferred[uri]
            if is_open(self.workspace, uri):
                self.publish(uri)

    @property
    def exit_code(self) -> int:
        """The exit code the client asked for: 0 after ``shutdown`` + ``exit``, 1 for an
        ``exit`` without ``shutdown``, 0 when the client closed the stream."""
        protocol = self.protocol
        return protocol.exit_code if isinstance(protocol, ServerProtocol) else 0

    # -- preferences ---------------------------------------------------------------
    @property
    def registry(self) -> Registry:
        """Registry of the user's torch for a document without a pin comment."""
        return self.context_for("").registry

    def context_for(self, text: str) -> TorchContext:
        """The user's torch for a document: ``torchLogs.torchVersion``, a pin comment in
        ``text``, ``torchLogs.python``, the workspace's ``.venv``, ``python3`` on PATH
        (see ``torch_env/context``). Resolved lazily on first use, cached per
        interpreter, re-read when the interpreter or its torch changes."""
        context = self.resolver.context(
            torch_version=self.settings.torch_version,
            pin=pin_comment(text),
            python=self.settings.python or None,
            workspace=self.workspace_root,
        )
        for note in context.notes:
            if note not in self._notes:
                self._notes.add(note)
                log.warning(note)
        return context

    def registry_of(self, state: DocumentState) -> Registry:
        """The registry a document was analysed with."""
        return state.context.registry if state.context else self.registry

    @property
    def locale(self) -> str:
        """``"ru"`` or ``"en"``: the setting, else the client's ``locale``."""
        if self.settings.locale in ("en", "ru"):
            return self.settings.locale
        return "ru" if self.client_locale.lower().startswith("ru") else "en"

    @property
    def encoding(self) -> str:
        """The position encoding negotiated at initialize (``utf-16`` by default)."""
        return encoding_name(self.workspace.position_encoding)

    def markdown(self, formats: Sequence[types.MarkupKind] | None) -> bool:
        """Whether the client accepts Markdown for a feature (its ``contentFormat``)."""
        return formats is None or types.MarkupKind.Markdown in formats

    # -- documents -----------------------------------------------------------------
    def state(self, uri: str, cancellable: bool = False) -> DocumentState | None:
        """The analysed current version of a document; ``None`` for one that is not
        analysed: one larger than :data:`MAX_FILE_BYTES` bytes (UTF-8; see
        :meth:`refuse_large`), or one that is not open and not a regular file of at most
        that size (the reason is logged). Only open documents are kept (per version, with
        their incremental-parsing cache): one that is not open is read and analysed again
        on each request, as any number of URIs may name one (a 7.5 MB file kept ~545 MB).
        ``cancellable``: the check stops with
        :class:`~torch_logs_lsp.lint.pipeline.Cancelled` when a message arrives from the
        editor meanwhile (up to :data:`MAX_STOPS` times for a version)."""
        with self.warmup.foreground():
            return self._state(uri, cancellable)

    def _text(self, uri: str) -> tuple[TextDocument, str] | None:
        """The document and its text; ``None`` (logged) when it cannot be read."""
        try:
            doc = self.workspace.get_text_document(uri)
            return doc, doc.source
        except SkippedFile as exc:  # not open: a FIFO, a device, too large, unreadable
            missing = exc.reason.startswith("cannot open: No such file")
            log.log(
                logging.INFO if missing else logging.WARNING, "%s not read: %s", uri, exc.reason
            )
            return None
        except Exception:
            log.exception("cannot read %s", uri)
            return None

    def quick_state(self, uri: str) -> DocumentState | None:
        """What completion and hover answer from: the checked state of the document's
        current version when its check has run, else the version's spans with each value
        analysed on request (:class:`.documents.QuickState`: no rules over the whole
        document), so a request sent right after an edit never waits for the edit's check
        (which runs when no message is waiting). ``None`` as :meth:`state`."""
        if not is_open(self.workspace, uri):
            return self.state(uri)
        read = self._text(uri)
        if read is None:
            return None
        doc, text = read
        for kept in (self.states.get(uri), self.quick.get(uri)):
            if kept is not None and kept.version == doc.version and kept.text == text:
                return kept
        if too_large(text):
            return None  # refused by the check (said once there)
        with self.warmup.foreground():
            context, language_id = self._read_as(uri, text)
            state = quick_state(
                uri,
                doc.version,
                text,
                language_id,
                context.registry,
                self.encoding,
                context,
                self.doc_caches.setdefault(uri, DocumentCache()),
                self.analyses,
                self.workspace_root,
            )
        self.quick[uri] = state
        return state

    def _read_as(self, uri: str, text: str) -> tuple[TorchContext, str | None]:
        """The user's torch for a document's ``text`` and the languageId it is read with
        (:data:`.notebooks.NOT_ANALYSED` for a notebook's markdown or raw cell)."""
        language_id = self.language_ids.get(uri)
        if notebooks.skip_cell(self, uri):
            language_id = notebooks.NOT_ANALYSED
        return self.context_for(text), language_id

    def _stoppable(self, uri: str, version: int | None) -> Callable[[], bool] | None:
        """``cancelled`` for a check of ``uri`` at ``version``: a waiting message stops it,
        unless this version was stopped :data:`MAX_STOPS` times already."""
        seen, stops = self._stops.get(uri, (None, 0))
        if self.inbox is None or (seen == version and stops >= MAX_STOPS):
            return None
        return self.waiting

    def _state(self, uri: str, cancellable: bool = False) -> DocumentState | None:
        opened = is_open(self.workspace, uri)
        read = self._text(uri)
        if read is None:
            return None
        doc, text = read
        if too_large(text):
            self.refuse_large(uri, text, opened)
            return None
        cached = self.states.get(uri)
        if cached is not None and cached.version == doc.version and cached.text == text:
            return cached
        context, language_id = self._read_as(uri, text)
        cache = self.doc_caches.setdefault(uri, DocumentCache()) if opened else DocumentCache()
        state = build_state(
            uri,
            doc.version,
            text,
            language_id,
            context.registry,
            self.encoding,
            context,
            cache,
            self.analyses,
            self.workspace_root,
            self.workspace_roots,
            saved=uri not in self.unsaved,
            links=launch_links_feature.links_of(self, uri),  # TL632: a launch.json runs it
            cancelled=self._stoppable(uri, doc.version) if cancellable and opened else None,
        )
        if opened:
            self.states[uri] = state
            self.quick.pop(uri, None)
            self._stops.pop(uri, None)
        return state

    def refuse_large(self, uri: str, text: str, opened: bool = True) -> None:
        """A document (``text``) is over the limit: drop what was kept for it and log it
        (its UTF-8 size); for an open document, the first time, also say so with
        ``window/showMessage`` (one that is not open, e.g. 8 MB of invalid UTF-8 whose
        replacement characters take 3 bytes each, is only logged)."""
        self.states.pop(uri, None)
        self.doc_caches.pop(uri, None)
        if uri in self.too_large:
            return
        size = utf8_size(text)
        log.warning(
            "%s is %d bytes, over the %d-byte limit: not analysed", uri, size, MAX_FILE_BYTES
        )
        if not opened:
            return
        self.too_large.add(uri)
        message = label(
            "too_large",
            self.locale,
            name=uri_path(uri).rsplit("/", 1)[-1] or uri,
            size=str(size),
            limit=str(MAX_FILE_BYTES),
        )
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def schedule_publish(self, uri: str) -> None:
        """Publish ``uri``'s diagnostics after :attr:`debounce_s`, for the version current
        then (a pending publication of the document is replaced)."""
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (called directly): publish now
            self.publish(uri)
            return
        self._pending[uri] = loop.call_later(self.debounce_s, self._publish_pending, uri)

    def _publish_pending(self, uri: str) -> None:
        self._pending.pop(uri, None)
        if not is_open(self.workspace, uri):  # pygls keys documents by the decoded URI
            return
        if self.busy():  # the editor's messages first (more edits, requests)
            self._deferred[uri] = None
        else:
            self.publish(uri)

    def forget(self, uri: str) -> None:
        """Drop everything kept for a closed document."""
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self.states.pop(uri, None)
        self.doc_caches.pop(uri, None)
        self.language_ids.pop(uri, None)
        self.too_large.discard(uri)
        self.unsaved.discard(uri)
        self.quick.pop(uri, None)
        self._deferred.pop(uri, None)
        self._stops.pop(uri, None)
        self._checked(uri)

    def publish(self, uri: str) -> None:
        """Publish the diagnostics of the current version of ``uri`` now, or, when a
        message from the editor arrives during the check, when none is waiting (the check
        stops at its next checkpoint and is deferred; see :meth:`idle`)."""
        with self.warmup.foreground():
            try:
                self._publish(uri)
                self._checked(uri)
            except Cancelled:
                version = self.workspace.get_text_document(uri).version
                seen, stops = self._stops.get(uri, (None, 0))
                self._stops[uri] = (version, stops + 1 if seen == version else 1)
                self._deferred[uri] = None

    def _publish(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        began = time.perf_counter()
        state = self.state(uri, cancellable=True)
        if state is None:
            if uri in self.too_large:  # clear what an earlier, smaller version had
                version = self.workspace.get_text_document(uri).version
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[])
                )
            return
        diags = self._pieces(uri, state)
        # a client that pulls is asked to pull again (when it has not just asked)
        if self.pull_documents and not self.is_cell(uri):
            result = result_of(diags)
            if uri not in self.pulling and self.pulled.get(uri, result.result_id) != (
                result.result_id
            ):
                self.later("diagnostic refresh", self.refresh_pulled)
        else:
            self.text_document_publish_diagnostics(
                diagnostics_feature.PreparedDiagnostics.of(uri, state.version, diags)
            )
        if self.started_at is not None:  # the first publication: how the start went
            now = time.perf_counter()
            log.info(
                "first diagnostics published %.0f ms after main() began (%.0f ms for %s, "
                "finding its torch included)",
                (now - self.started_at) * 1000,
                (now - began) * 1000,
                uri,
            )
            self.started_at = None

    def _pieces(self, uri: str, state: DocumentState) -> list[str]:
        """A checked document's diagnostics as JSON pieces (never raises)."""
        try:
            extra = notebooks.cross_cell(self, uri)  # the notes across a notebook's cells
            return diagnostics_feature.diagnostic_json(  # + [tool.torch-logs] code choices
                state, self.settings, self.diagnostic_memo, project_selection(uri), extra
            )
        except Exception:
            log.exception("diagnostics failed for %s", uri)
            return []

    def is_cell(self, uri: str) -> bool:
        """Whether ``uri`` is a cell of an open notebook (its diagnostics are pushed, also
        to a client that pulls: VS Code's client does not pull a notebook's cells)."""
        return any(uri in cells for cells in self.notebook_cells.values())

    def document_pieces(self, uri: str) -> list[str]:
        """The diagnostics of the current version of ``uri`` (open, else read from disk:
        :meth:`state`) as JSON pieces; ``[]`` for a document that is not analysed."""
        state = self.state(uri)
        return [] if state is None else self._pieces(uri, state)

    def refresh_pulled(self) -> None:
        """Ask a client that pulls diagnostics to pull again
        (``workspace/diagnostic/refresh``, when it supports it)."""
        caps = self.client_capabilities.workspace
        diagnostics = caps.diagnostics if caps is not None else None
        if diagnostics is not None and diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def apply_settings(self, raw: Any) -> None:
        settings, problems = checked_settings(raw, self.workspace_root)
        for problem in problems:
            log.warning(problem)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=problem)
            )
        self.settings = settings
        self.states.clear()
        self.analyses.clear()


# -- handlers ----------------------------------------------------------------------
def initialize(ls: TorchLogsServer, params: types.InitializeParams) -> None:
    ls.client_locale = params.locale or ""
    text_caps = params.capabilities.text_document
    ls.pull_documents = text_caps is not None and text_caps.diagnostic is not None
    folders = params.workspace_folders or []
    ls.folders_given = bool(folders)
    root = folders[0].uri if folders else params.root_uri
    if root:
        ls.workspace_root = uri_path(root)
    elif params.root_path:
        ls.workspace_root = params.root_path
    paths = [uri_path(f.uri) for f in folders]
    ls.workspace_roots = tuple(p for p in paths if p) or (
        (ls.workspace_root,) if ls.workspace_root else ()
    )
    if params.initialization_options is not None:
        ls.apply_settings(params.initialization_options)
    if ls.settings.torch_version == "auto" and ls.settings.python:
        # The first document needs the user's torch: asking the configured interpreter
        # takes ~100 ms; start now, while the client sends the document. (python3 on PATH
        # was started at launch, see __main__.)
        prefetch(ls.settings.python)


def initialized(ls: TorchLogsServer, params: types.InitializedParams) -> None:
    # The generated-code table is written when this start compiled much that it lacked
    # (the first start); shutdown writes what later requests added.
    codecache.save_active()
    # launch.json / .env changes on disk re-evaluate the Python documents (TL632)
    # ... and every file of the workspace folders (the workspace scan)
    launch_links_feature.register_watchers(ls, watched(ls))
    # What the first documents need, in the background: a document checked meanwhile
    # waits only for a piece it needs that is being made (see .warmup)
    ls.warmup.start(
        itertools.chain(
            [
                ("the workspace's torch", lambda: ls.context_for("")),
                ("packaged names read", misspelled.packaged_releases),
            ],
            module_steps(),
            grammar_steps(),
        )
    )
    ls.scan.start()  # the workspace's files, in slices while the editor sends nothing


def shutdown(ls: TorchLogsServer, params: None) -> None:
    codecache.save_active()


def did_open(ls: TorchLogsServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.language_ids[doc.uri] = doc.language_id
    if not saved_on_disk(doc.uri, doc.text):  # restored unsaved edits, an untitled editor
        ls.unsaved.add(doc.uri)
    ls.scan.opened(doc.uri)
    ls.publish(doc.uri)
    launch_links_feature.refresh(ls, params.text_document.uri)


def saved_on_disk(uri: str, text: str) -> bool:
    """Whether ``text`` (an opened document's) is what the ``file:`` URI ``uri`` holds on
    disk (read by the one safe reader, decoded as the CLI decodes it; a byte order mark,
    which editors hide, is not compared): an editor may open unsaved text (restored edits,
    an untitled document). ``False`` when the file cannot be read."""
    if not uri.startswith("file:"):
        return False
    try:
        disk = read_document(Path(uri_path(uri)))
    except SkippedFile:
        return False
    return disk.removeprefix("\ufeff") == text.removeprefix("\ufeff")


def did_change(ls: TorchLogsServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.unsaved.add(uri)
    if not ls.pull_documents:  # (a client that pulls asks for them after each change)
        ls.schedule_publish(uri)
    ls.later("launch configurations", lambda: launch_links_feature.refresh(ls, uri))


def did_save(ls: TorchLogsServer, params: types.DidSaveTextDocumentParams) -> None:
    """The document's text is the file's now: what only a saved file has (TL108) shows."""
    uri = params.text_document.uri
    if uri in ls.unsaved:
        ls.unsaved.discard(uri)
        ls.states.pop(uri, None)  # checked as unsaved text
        ls.publish(uri)
    ls.scan.saved(uri)


def did_close(ls: TorchLogsServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)
    ls.pulled.pop(uri, None)
    # workspace diagnostics: its findings on disk stay listed (the scan checks it again)
    if not ls.scan.closed(uri) and not ls.pull_documents:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
    launch_links_feature.refresh(ls, uri)  # its text on disk counts again


def did_change_configuration(
    ls: TorchLogsServer, params: types.DidChangeConfigurationParams
) -> None:
    mode = ls.settings.diagnostic_mode
    ls.apply_settings(params.settings)
    for uri in open_uris(ls.workspace):  # as the client spelt them, not pygls' keys
        ls.publish(uri)
    refresh_inlay_hints(ls)
    if ls.settings.diagnostic_mode != mode and not ls.scan.enabled:
        ls.scan.stop()
    else:
        ls.scan.start()  # every file again: the settings choose codes and severities


def did_change_watched_files(
    ls: TorchLogsServer, params: types.DidChangeWatchedFilesParams
) -> None:
    """Files changed on disk: the launch configurations (TL632) and the workspace scan."""
    launch_links_feature.did_change_watched_files(ls, params)
    ls.scan.files_changed(params.changes)


def did_change_workspace_folders(
    ls: TorchLogsServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """Folders added or removed: the launch configurations (TL632) and the workspace scan
    (the folders walked again, once the burst of changes is over)."""
    ls.folders_given = True
    launch_links_feature.did_change_workspace_folders(ls, params)
    ls.scan.pause()  # a removed folder is not checked meanwhile
    ls.later("workspace walk", ls.scan.start)


async def completion(
    ls: TorchLogsServer, params: types.CompletionParams
) -> types.CompletionList | Encoded | None:
    return requests.answer(ls, params.text_document.uri, params, requests.completion, quick=True)


async def hover(ls: TorchLogsServer, params: types.HoverParams) -> types.Hover | None:
    return requests.answer(ls, params.text_document.uri, params, requests.hover, quick=True)


async def inlay_hint(
    ls: TorchLogsServer, params: types.InlayHintParams
) -> list[types.InlayHint] | None:
    return requests.answer(ls, params.text_document.uri, params, requests.inlay_hint, quick=True)


def refresh_inlay_hints(ls: TorchLogsServer) -> None:
    """Ask the client to ask for inlay hints again (the settings changed), when it can."""
    caps = ls.client_capabilities.workspace
    hints = caps.inlay_hint if caps else None
    if hints is not None and hints.refresh_support:
        ls.workspace_inlay_hint_refresh(None)


async def code_action(
    ls: TorchLogsServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    await ls.checked(params.text_document.uri)  # the fixes are of the current version's check
    return requests.answer(ls, params.text_document.uri, params, requests.code_action)


def create_server() -> TorchLogsServer:
    """A server with every feature registered (the one place features are wired)."""
    server = TorchLogsServer()
    server.feature(types.INITIALIZE)(initialize)
    # The generated-code table is written when a start compiled much that it lacked:
    # after the handshake (the first start), and at shutdown (what later requests added).
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(did_save)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)(notebooks.did_open)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)(notebooks.did_change)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)(notebooks.did_save)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)(notebooks.did_close)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_workspace_folders)
    server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=completion_feature.TRIGGER_CHARACTERS),
    )(completion)
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=code_actions_feature.KINDS),
    )(code_action)
    server.feature(status_feature.STATUS_REQUEST)(status_feature.status)
    server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )(document_links_feature.handler)
    # Go to definition / find references: torch's own source of a name
    server.feature(types.TEXT_DOCUMENT_DEFINITION)(definition_feature.definition)
    server.feature(types.TEXT_DOCUMENT_REFERENCES)(references_feature.references)
    server.feature(definition_feature.REGISTRY_REQUEST)(definition_feature.registry_document)
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))(
        inlay_hint
    )
    server.feature(compose_feature.OPTIONS_REQUEST)(compose_feature.compose_options)
    server.feature(compose_feature.COMPOSE_REQUEST)(compose_feature.compose)
    # pull diagnostics (used by clients that offer textDocument.diagnostic)
    server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="torch-logs", inter_file_dependencies=False, workspace_diagnostics=True
        ),
    )(pull_feature.document_diagnostic)
    server.feature(types.WORKSPACE_DIAGNOSTIC)(pull_feature.workspace_diagnostic)
    return server
