"""Per-document state: host kind, value spans and analyses of one document version.

Computed once per version and shared by every feature (diagnostics, completion, hover).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts import typographic
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.ipython import host as ipython
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.checker import analyse_span, call_diagnostics, stop_diagnostics
from torch_logs_lsp.lint.dead_values import with_document_hints
from torch_logs_lsp.lint.misspelled import name_diagnostics
from torch_logs_lsp.lint.paths import places
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server.positions import PositionMapper
from torch_logs_lsp.torch_env.context import TorchContext, pin_diagnostics
from torch_logs_lsp.value.analysis import Analysis, Diagnostic
from torch_logs_lsp.value.analysis_cache import AnalysisCache

log = logging.getLogger(__name__)


def uri_path(uri: str) -> str:
    """The path part of a URI, percent-decoded (``file:///a/.env`` -> ``/a/.env``)."""
    try:
        return unquote(urlparse(uri).path)
    except ValueError:
        return uri


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts 3, as ``surrogatepass``)."""
    return len(text.encode("utf-8", "surrogatepass"))


#: A language id meaning "read as nothing" (a notebook's markdown and raw cells, whose path
#: is the notebook's).
NOT_ANALYSED = "torch-logs:not-analysed"


def detect(uri: str, text: str, language_id: str | None) -> str | None:
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


@dataclass
class DocumentState:
    """One analysed document version. ``entries`` pairs every span with its analysis
    (``None`` for spans that are not analysed: other variables, non-static values)."""

    uri: str
    version: int | None
    host: str | None
    text: str
    mapper: PositionMapper
    entries: list[tuple[ValueSpan, Analysis | None]]
    #: The user's torch for this document (registry + module finder), when resolved.
    context: TorchContext | None = None
    #: Diagnostics not tied to a value, offsets in the document: of the ``set_logs(...)``
    #: calls, misspelled variable names (TL408), where the reader stops (TL504) and the
    #: pin comment (``TL902``).
    calls: list[Diagnostic] = field(default_factory=list)

    def span_at(self, offset: int) -> ValueSpan | None:
        """The span whose name or value contains the document offset, if any."""
        for span, _ in self.entries:
            if span.name_start <= offset <= span.name_end:
                return span
            if span.content_start <= offset <= span.content_end:
                return span
        return None

    def analysis_of(self, span: ValueSpan) -> Analysis | None:
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
) -> DocumentState:
    """Analyse a document (with ``context``'s registry and module finder when given).

    ``cache`` (the document's own, kept across its versions) makes extraction incremental
    and ``analyses`` (shared) reuses analyses of values seen before; both give the same
    result as without them. ``base_dir``: where relative TORCH_LOGS_OUT / TORCH_TRACE
    paths are resolved (the first workspace folder; not checked without one); ``roots``:
    the workspace folders, outside which no path is judged (:mod:`torch_logs_lsp.lint.paths`). Never
    raises: a failing
    extractor is logged and yields no spans."""
    if context is not None:
        registry = context.registry
    finder = context.finder if context is not None else None
    host = detect(uri, text, language_id)
    entries: list[tuple[ValueSpan, Analysis | None]] = []
    quotes: list[typographic.QuoteFinding] = []
    if host is not None:
        try:
            spans = hosts.extract(host, text, cache)
        except Exception:  # an extractor bug must not take the server down
            log.exception("extracting %s values from %s failed", host, uri)
            spans = []
        if analyses is not None:
            analyses.refresh(finder)
        for span, where in zip(spans, places(host, text, spans, base_dir, roots), strict=True):
            entries.append((span, analyse_span(span, registry, finder, analyses, where)))
        entries = with_document_hints(host, text, entries, analyses)
        entries, quotes = typographic.apply(host, text, entries)  # TL109
    calls: list[Diagnostic] = []
    if host is not None:
        calls += [q.diagnostic() for q in quotes]  # typographic quotes (TL109)
        try:
            calls += call_diagnostics(host, text, registry, finder)
        except Exception:  # a bug must not take the server down
            log.exception("checking the set_logs calls of %s failed", uri)
        try:  # TL504: the file's reader stops before any process sees a value
            calls += stop_diagnostics(host, text)
        except Exception:  # a bug must not take the server down
            log.exception("reading where the reader of %s stops failed", uri)
        try:  # TL408, placed like the calls' diagnostics (document offsets)
            calls += name_diagnostics(host, text, registry.release)
        except Exception:  # a bug must not take the server down
            log.exception("checking the variable names of %s failed", uri)
    if host is not None and context is not None:
        calls += pin_diagnostics(text, context)  # a pin to a release that is not packaged
    mapper = PositionMapper(text, encoding)
    return DocumentState(uri, version, host, text, mapper, entries, context, calls)
