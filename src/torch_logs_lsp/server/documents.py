"""Per-document state: one document version as the checking pipeline found it.

Computed once per version and shared by every feature (diagnostics, completion, hover).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import unquote, urlparse

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.ipython import host as ipython
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.checker import analyse_span
from torch_logs_lsp.lint.pipeline import CheckedDocument, Links, check_document
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server.positions import PositionMapper
from torch_logs_lsp.torch_env.context import TorchContext
from torch_logs_lsp.value.analysis import Analysis, Diagnostic
from torch_logs_lsp.value.analysis_cache import AnalysisCache

log = logging.getLogger(__name__)


def uri_path(uri: str) -> str:
    """The path part of a URI, percent-decoded (``file:///a/.env`` -> ``/a/.env``)."""
    try:
        return unquote(urlparse(uri).path)
    except ValueError:
        return uri


def document_path(uri: str) -> str | None:
    """The file of a document: a ``file:`` URI's path, a notebook cell's notebook
    (``vscode-notebook-cell:``); ``None`` for others (``untitled:``)."""
    if not uri.startswith(("file:", "vscode-notebook-cell:")):
        return None
    path = uri_path(uri)
    return path if os.path.isabs(path) else None


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts 3, as ``surrogatepass``)."""
    return len(text.encode("utf-8", "surrogatepass"))


#: A language id meaning "read as nothing" (a notebook's markdown and raw cells, whose path
#: is the notebook's).
NOT_ANALYSED = "torch-logs:not-analysed"


def detect(uri: str, text: str, language_id: str | None) -> HostKind | None:
    """Host kind of a document: from its path and content first, the languageId last;
    ``None`` for :data:`NOT_ANALYSED`."""
    if language_id == NOT_ANALYSED:
        return None
    kind = hosts.detect_host(uri_path(uri), text[:256])
    if kind == "ipython" and language_id and language_id not in ipython.CELL_LANGUAGE_IDS:
        return None  # a markdown or raw cell of a notebook, or another kernel's language
    if kind is None and language_id:
        kind = hosts.host_for_language(language_id)
    return kind


def _never() -> bool:
    return False


@dataclass
class DocumentState:
    """One checked document version: ``checked`` (what the pipeline found), the
    ``mapper`` between document offsets and LSP positions, and the user's torch it was
    checked against (``context``, when resolved)."""

    uri: str
    version: int | None
    checked: CheckedDocument
    mapper: PositionMapper
    #: The user's torch for this document (registry + module finder), when resolved.
    context: TorchContext | None = None

    @property
    def host(self) -> HostKind | None:
        """The host kind the document was read as (``None``: not read)."""
        return self.checked.host

    @property
    def text(self) -> str:
        """The document version's text."""
        return self.checked.text

    @property
    def entries(self) -> list[tuple[ValueSpan, Analysis | None]]:
        """Every span with its analysis (``None``: not analysed), in document order."""
        return self.checked.entries

    @property
    def calls(self) -> list[Diagnostic]:
        """Diagnostics not tied to a value (document offsets): ``set_logs(...)`` calls,
        typographic quotes, misspelled names, where the reader stops, the pin comment,
        launch configurations."""
        return self.checked.document

    def span_at(self, offset: int) -> ValueSpan | None:
        """The span whose name or value contains the document offset, if any."""
        for span, _ in self.entries:
            if span.name_start <= offset <= span.name_end:
                return span
            if span.content_start <= offset <= span.content_end:
                return span
        return None

    def analysis_of(self, span: ValueSpan) -> Analysis | None:
        """The analysis of one of :attr:`entries`' spans (by identity)."""
        for s, a in self.entries:
            if s is span:
                return a
        return None


def build_state(
    uri: str,
    version: int | None,
    text: str,
    language_id: str | None,
    registry: Registry,
    encoding: str,
    context: TorchContext | None = None,
    cache: DocumentCache | None = None,
    analyses: AnalysisCache | None = None,
    base_dir: str | None = None,
    roots: tuple[str, ...] = (),
    saved: bool = True,
    links: Links | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> DocumentState:
    """Check a document version (:func:`torch_logs_lsp.lint.pipeline.check_document`, with
    ``context``'s registry and module finder when given, else ``registry``).

    ``cache`` (the document's own, kept across its versions) makes extraction incremental
    and ``analyses`` (shared) reuses analyses of values seen before; both give the same
    result as without them. ``base_dir``: where relative TORCH_LOGS_OUT / TORCH_TRACE
    paths are resolved (the first workspace folder; not checked without one); ``roots``:
    the workspace folders, outside which no path is judged; ``saved``: whether the text is
    the file's saved text (a quote left open is ``TL108`` only then); ``links``: the
    launch configurations' ``TL632``. The document's path (a ``file:`` URI's, a notebook
    cell's notebook) tells where module names are looked for first; the state's
    ``context`` holds the finder the document was checked with, so hover, completion and
    fixes resolve names as its diagnostics did. Never raises: a failing stage is logged
    and skipped; but :class:`~torch_logs_lsp.lint.pipeline.Cancelled` when ``cancelled``
    answers ``True`` at one of the check's checkpoints."""

    def failed(stage: str, exc: Exception) -> None:
        log.error("%s of %s failed", stage, uri, exc_info=exc)

    checked = check_document(
        text,
        detect(uri, text, language_id),
        registry,
        context=context,
        saved=saved,
        base_dir=base_dir,
        roots=roots,
        path=document_path(uri),
        links=links,
        extraction=cache,
        analyses=analyses,
        failed=failed,
        cancelled=cancelled or _never,
    )
    mapper = PositionMapper(text, encoding)
    if context is not None and checked.finder is not None:
        context = replace(context, finder=checked.finder)
    return DocumentState(uri, version, checked, mapper, context)


@dataclass
class QuickState(DocumentState):
    """A version's spans before its check has run (:func:`quick_state`): each value is
    analysed when a feature asks (:meth:`analysis_of`), against the document's torch,
    without the rules over the whole document (a dead value's TL502, the hints across
    variables, the host's notes) and without document diagnostics. What completion and
    hover answer from while the check of the newest version waits for the editor's
    messages (server/app.py)."""

    registry: Registry | None = None
    analyses: AnalysisCache | None = None
    base_dir: str | None = None
    _analysed: dict[int, Analysis | None] | None = None

    def analysis_of(self, span: ValueSpan) -> Analysis | None:
        """The analysis of one of :attr:`entries`' spans, made on first request."""
        if self._analysed is None:
            self._analysed = {}
        key = id(span)
        if key not in self._analysed:
            registry = self.registry or (self.context.registry if self.context else None)
            if registry is None:
                return None
            finder = self.context.finder if self.context else None
            self._analysed[key] = analyse_span(span, registry, finder, self.analyses, self.base_dir)
        return self._analysed[key]


def quick_state(
    uri: str,
    version: int | None,
    text: str,
    language_id: str | None,
    registry: Registry,
    encoding: str,
    context: TorchContext | None = None,
    cache: DocumentCache | None = None,
    analyses: AnalysisCache | None = None,
    base_dir: str | None = None,
) -> QuickState:
    """A :class:`QuickState` of a document version: its spans (extracted through the
    document's ``cache``, so the full check of the same version reads them again for
    nothing), nothing analysed yet. Never raises (an extraction that fails gives no
    spans; logged)."""
    host = detect(uri, text, language_id)
    try:
        spans = hosts.extract(host, text, cache) if host is not None else []
    except Exception:
        log.exception("extraction of %s failed", uri)
        spans = []
    finder = context.finder if context is not None else None
    checked = CheckedDocument(host, text, [(s, None) for s in spans], [], finder)
    mapper = PositionMapper(text, encoding)
    reg = context.registry if context is not None else registry
    return QuickState(uri, version, checked, mapper, context, reg, analyses, base_dir)
