"""The checking pipeline: one document's text in, its diagnostics out.

``torch-logs check`` (and ``--fix``), its notebook adapter and the language server all call
:func:`check_document`; where they differ it is a parameter, not a second pipeline:

- ``saved``: whether the text is a saved file. A quote left open to the end of a saved file
  is an error (``TL108``); in an editor's unsaved text the closing quote may simply not be
  typed yet, so that value gets no diagnostic.
- ``links``: the launch configurations that run the document with ``TORCH_LOGS`` set
  (``TL632``): the CLI builds them from the folders named on its command line, the server
  from its workspace folders and open documents.
- ``base_dir`` / ``roots``: where relative paths are resolved and which folders hold the
  paths that are judged (:mod:`.paths`).
- ``path``: the document's file (absolute; ``None`` for text that is not one): with
  ``base_dir``, ``roots`` and the scripts the document names it says where module names
  are looked for first (:mod:`.script_dirs`: the process's ``sys.path[0]``).
- ``extraction`` / ``analyses``: the server's caches kept across versions; the result is
  the same without them.
- ``failed``: what happens when a stage raises (a bug): re-raised by default; the server
  logs it and goes on with the other stages.
- ``cancelled``: asked between the stages and every :data:`CHECKPOINT` values; when it
  answers ``True`` the check stops with :class:`Cancelled` (the server's editor has sent
  something newer to answer first).

Stages, in order: the host extracts the values; each is analysed (or is ``TL108``); the
rules over the whole document (values overwritten before any process reads them, hints
across variables, the host's notes); typographic quotes (``TL109``); ``set_logs(...)``
calls; where the file's reader stops (``TL504``); misspelled variable names (``TL408``);
the compiler's and logging's other variables (``TL421``-``TL424``, :mod:`.knobs`);
compile knobs' values (``TL441``); the pin comment (``TL902``); launch configurations
(``TL632``). Then :meth:`CheckedDocument.diagnostics` adds what was found across
documents (a notebook's cell order), applies the suppression comments and sorts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts import typographic
from torch_logs_lsp.hosts.comments import pin_comment
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.knowledge.registry import Registry, load_registry
from torch_logs_lsp.lint.checker import (
    Finding,
    LazyLineIndex,
    analyse_span,
    call_diagnostics,
    stop_diagnostics,
    unterminated_analysis,
)
from torch_logs_lsp.lint.dead_values import with_document_hints
from torch_logs_lsp.lint.knob_values import knob_value_diagnostics
from torch_logs_lsp.lint.knobs import knob_diagnostics
from torch_logs_lsp.lint.misspelled import name_diagnostics
from torch_logs_lsp.lint.paths import places
from torch_logs_lsp.lint.script_dirs import NEEDLES, script_dirs, script_words
from torch_logs_lsp.lint.suppressions import Silencer
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.set_logs.checks import raising_calls_only_raise
from torch_logs_lsp.torch_env.context import TorchContext, fallback_finder, pin_diagnostics
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, quotes_before_2_9, with_diagnostic
from torch_logs_lsp.value.analysis_cache import AnalysisCache
from torch_logs_lsp.value.parser import QUOTED_VALUE

#: The launch-configuration hint's code (:mod:`torch_logs_lsp.launch.links`).
LINKED_CALL = "TL632"

#: Every span of a document with its analysis (``None``: not analysed, e.g. a value that
#: is not static), in document order.
Entries = list[tuple[ValueSpan, Analysis | None]]
#: ``(host, text) -> TL632 diagnostics`` (document offsets) of a document.
Links = Callable[[HostKind, str], list[Diagnostic]]
#: Called with the stage's name and the exception when a stage raises.
Failed = Callable[[str, Exception], None]


def _raise(stage: str, exc: Exception) -> None:
    raise exc


#: Values analysed between two questions to ``cancelled``.
CHECKPOINT = 64


class Cancelled(BaseException):
    """:func:`check_document` stopped because its ``cancelled`` said so (a
    ``BaseException``: the stages' handlers of failures do not catch it)."""


def _never() -> bool:
    return False


def _torch_logs(span: ValueSpan) -> bool:
    return span.variable == "TORCH_LOGS"


def _wordless(span: ValueSpan) -> bool:
    value = span.value or ""
    return not any(needle in value for needle in NEEDLES)


@dataclass(frozen=True, slots=True)
class Placed:
    """A diagnostic with its range in the document (``start``/``end``: code points) and
    the value it is about (``span``; ``None`` for one not tied to a value)."""

    diagnostic: Diagnostic
    start: int
    end: int
    span: ValueSpan | None


def _order(p: Placed) -> tuple[int, int, str]:
    return (p.start, p.end, p.diagnostic.code)


@dataclass
class CheckedDocument:
    """What :func:`check_document` found in one document. ``entries``: every span with its
    analysis (offsets inside the analyses: code points into the span's value);
    ``document``: diagnostics not tied to a value (document offsets, code points);
    ``host``: ``None`` for a document no host reads (it has no diagnostics); ``finder``:
    the module finder the names were resolved with (the document's candidates for
    ``sys.path[0]`` included), ``None`` when nothing was resolved."""

    host: HostKind | None
    text: str
    entries: Entries
    document: list[Diagnostic] = field(default_factory=list)
    finder: ModuleFinder | None = None

    def placed(self, extra: Sequence[Diagnostic] = ()) -> list[Placed]:
        """Every diagnostic in document offsets, suppression comments not applied, in
        document order; ``extra``: more diagnostics found across documents (document
        offsets), e.g. a notebook cell's notes from the cells before it."""
        out = [
            Placed(d, *span.document_range(d.start, d.end), span)
            for span, analysis in self.entries
            if analysis is not None
            for d in analysis.diagnostics
        ]
        out += [Placed(d, d.start, d.end, None) for d in (*self.document, *extra)]
        out.sort(key=_order)
        return out

    def silencer(self, extra: Sequence[Diagnostic] = ()) -> Silencer:
        """The document's suppression comments, each marked with the codes that silence
        one of its diagnostics (:attr:`.suppressions.Suppression.used`)."""
        silencer = Silencer(self.text, self.host)
        if silencer:
            for p in self.placed(extra):
                silencer.silenced(p.diagnostic.code, p.start)
        return silencer

    def diagnostics(self, extra: Sequence[Diagnostic] = ()) -> list[Placed]:
        """What the user is shown: :meth:`placed` without what the document's suppression
        comments silence, plus a ``TL903`` hint for each suppression that silences
        nothing, in document order."""
        placed = self.placed(extra)
        silencer = Silencer(self.text, self.host)
        if not silencer:
            return placed
        kept = [p for p in placed if not silencer.silenced(p.diagnostic.code, p.start)]
        kept += [Placed(d, d.start, d.end, None) for d in silencer.unused()]
        kept.sort(key=_order)
        return kept

    def findings(self, extra: Sequence[Diagnostic] = (), silence: bool = True) -> list[Finding]:
        """:meth:`diagnostics` (or, without ``silence``, :meth:`placed`) with 0-based lines
        and columns (code points) of their starts and ends."""
        shown = self.diagnostics(extra) if silence else self.placed(extra)
        index = LazyLineIndex(self.text)  # built on the first finding: most files have none
        out: list[Finding] = []
        for p in shown:
            line, column = index.position(p.start)
            end_line, end_column = index.position(p.end)
            out.append(
                Finding(p.span, p.diagnostic, p.start, p.end, line, column, end_line, end_column)
            )
        return out

    def linked(self, links: list[Diagnostic]) -> CheckedDocument:
        """This document with ``links`` as its ``TL632`` diagnostics (replacing earlier
        ones; none on a call Python rejects before torch could log anything)."""
        kept = [d for d in self.document if d.code != LINKED_CALL]
        return replace(self, document=raising_calls_only_raise(kept + links))


def check_document(
    text: str,
    host: HostKind | None,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    *,
    context: TorchContext | None = None,
    saved: bool = True,
    base_dir: str | None = None,
    roots: tuple[str, ...] | None = None,
    path: str | None = None,
    links: Links | None = None,
    extraction: DocumentCache | None = None,
    analyses: AnalysisCache | None = None,
    failed: Failed = _raise,
    binding_first: bool = True,
    cancelled: Callable[[], bool] = _never,
) -> CheckedDocument:
    """Check one document: ``text`` (a whole file or an editor's text, any line endings)
    read as ``host`` (``None``: nothing is read). Names are checked against ``context``'s
    torch when given (its registry and module finder; its pin comment may get ``TL902``),
    else ``registry`` (default: the packaged one for the default release) and ``finder``.
    See the module docstring for ``saved``, ``base_dir``, ``roots``, ``path``, ``links``,
    ``extraction``, ``analyses``, ``failed`` and ``cancelled``; ``binding_first``: a
    ``set_logs`` call Python rejects while binding its arguments gets only those errors
    (every problem of it without: a fix's verification). Never raises unless ``failed``
    does, or :class:`Cancelled` when ``cancelled`` answers ``True``."""

    def checkpoint() -> None:
        if cancelled():
            raise Cancelled

    if context is not None:
        registry, finder = context.registry, context.finder
    reg = registry or load_registry()
    if host is None:
        return CheckedDocument(None, text, [])
    reg = with_registered(host, text, reg, failed)
    entries: Entries = []
    document: list[Diagnostic] = []
    try:
        spans = hosts.extract(host, text, extraction)
    except Exception as exc:
        failed("extract", exc)
        spans = []
    checkpoint()
    if extraction is not None:  # typing in a TORCH_LOGS value changes no path fact
        wheres = extraction.remembered(
            "places",
            (host, base_dir, roots),
            text,
            spans,
            _torch_logs,
            lambda: places(host, text, spans, base_dir, roots),
        )
    else:
        wheres = places(host, text, spans, base_dir, roots)
    # where the reading process may look first (sys.path[0]): for values and set_logs calls
    words = None
    if extraction is not None:  # typing in a value without a script's word changes none
        words = extraction.remembered(
            "script words", None, text, spans, _wordless, lambda: script_words(text)
        )
    finder = (finder or fallback_finder()).with_first(
        script_dirs(text, path, wheres, base_dir, roots, words)
    )
    if analyses is not None:
        analyses.refresh(finder)
    try:
        for i, (span, where) in enumerate(zip(spans, wheres, strict=True)):
            if i % CHECKPOINT == CHECKPOINT - 1:
                checkpoint()
            unterminated = unterminated_analysis(span, reg.release) if saved else None
            analysis = unterminated or analyse_span(span, reg, finder, analyses, where)
            entries.append((span, analysis))
        if context is not None and context.guessed:  # TL107 where 2.1-2.8 read otherwise
            entries = with_release_quotes(host, entries, reg)
        unplaced: list[Diagnostic] = []  # the host's notes on values that are not static
        checkpoint()
        entries = with_document_hints(host, text, entries, analyses, unplaced, extraction)
        entries, quotes = typographic.apply(host, text, entries)  # TL109
        document += unplaced + [q.diagnostic() for q in quotes]
    except Exception as exc:
        failed("analyse", exc)
        entries = [(span, None) for span in spans]
    stages: list[tuple[str, Callable[[], list[Diagnostic]]]] = [
        ("set_logs calls", lambda: call_diagnostics(host, text, reg, finder, binding_first)),
        ("reader stops", lambda: stop_diagnostics(host, text)),  # TL504
        # TL408
        ("variable names", lambda: name_diagnostics(host, text, reg.release, extraction, spans)),
        # TL421, TL405 of other names, TL422-TL424
        (
            "knob names",
            lambda: knob_diagnostics(
                host, text, reg.release, [s for s, _ in entries], extraction, spans
            ),
        ),
        # TL441
        ("knob values", lambda: knob_value_diagnostics(host, text, reg.release, extraction, spans)),
    ]
    if context is not None:
        stages.append(("pin comment", lambda: own_pin_diagnostics(text, context)))  # TL902
    if links is not None:
        stages.append(("launch configurations", lambda: links(host, text)))  # TL632
    for stage, run in stages:
        checkpoint()
        try:
            document += run()
        except Exception as exc:
            failed(stage, exc)
    checked = CheckedDocument(host, text, entries, document, finder)
    if any(d.code == LINKED_CALL for d in document):
        checked = checked.linked([d for d in document if d.code == LINKED_CALL])
    return checked


def own_pin_diagnostics(text: str, context: TorchContext) -> list[Diagnostic]:
    """:func:`.context.pin_diagnostics` of the pin comment ``text`` itself holds, at its
    own offsets, when it is the one that chose ``context`` (a notebook's cells share the
    context of all its code; only the cell with the pin gets TL902); ``[]`` otherwise."""
    own = pin_comment(text)
    if context.pin is None or own is None or own.release != context.pin.release:
        return []
    return pin_diagnostics(text, replace(context, pin=own))


def with_registered(host: HostKind, text: str, registry: Registry, failed: Failed) -> Registry:
    """``registry`` with the names ``text`` registers with torch itself (a Python
    document's ``register_log``/``register_artifact`` calls: a value the program reads
    after them accepts them; :mod:`.hosts.python.registrations`)."""
    module = hosts.set_logs_host(host)
    if module is None or "register_" not in text:
        return registry
    try:
        names = module.registered(text)
    except Exception as exc:
        failed("registered names", exc)
        return registry
    return registry.with_registered(names.components, names.artifacts)


def with_release_quotes(host: HostKind, entries: Entries, registry: Registry) -> Entries:
    """``entries`` with, for a host whose values a Windows process reads (``RUNS_ON``
    ``"windows"``: a batch file), the information TL107 of a ``TORCH_LOGS`` value wrapped
    in quotes (:func:`.analysis.quotes_before_2_9`), for a check against ``registry``
    because nothing named the user's release."""
    module = hosts.host_module(host)
    if module is None or module.RUNS_ON != "windows":
        return entries
    out = list(entries)
    for i, (span, analysis) in enumerate(entries):
        if span.variable != "TORCH_LOGS" or span.value is None or analysis is None:
            continue
        if any(d.code == QUOTED_VALUE for d in analysis.diagnostics):
            continue
        diag = quotes_before_2_9(span.value, registry)
        if diag is not None:
            out[i] = (span, with_diagnostic(analysis, diag))
    return out


def check_text(
    text: str,
    host: HostKind,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    base_dir: str | None = None,
    quotes: list[Diagnostic] | None = None,
    roots: tuple[str, ...] | None = None,
) -> list[tuple[ValueSpan, Analysis]]:
    """The analysed values of a saved file (:func:`check_document`): every span with an
    analysis, in order. ``quotes``: when given, the ``TL109`` diagnostics (typographic
    quotes, document offsets) are appended to it. Never raises for any input text."""
    checked = check_document(text, host, registry, finder, base_dir=base_dir, roots=roots)
    if quotes is not None:
        quotes += [d for d in checked.document if d.code == typographic.CODE]
    return [(s, a) for s, a in checked.entries if a is not None]


def findings(
    text: str,
    host: HostKind,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    base_dir: str | None = None,
    roots: tuple[str, ...] | None = None,
    silence: bool = True,
    binding_first: bool = True,
) -> list[Finding]:
    """Every diagnostic of a saved file placed in document coordinates, in order
    (:func:`check_document`, :meth:`CheckedDocument.findings`); with ``silence``, the
    document's suppression comments applied."""
    checked = check_document(
        text, host, registry, finder, base_dir=base_dir, roots=roots, binding_first=binding_first
    )
    return checked.findings(silence=silence)


__all__ = [
    "CHECKPOINT",
    "LINKED_CALL",
    "Cancelled",
    "CheckedDocument",
    "Entries",
    "Links",
    "Placed",
    "check_document",
    "check_text",
    "findings",
]
