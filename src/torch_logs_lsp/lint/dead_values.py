"""Dead values: an assignment the host replaces before any process sees it (TL502).

``export TORCH_LOGS=+recompiles`` followed by ``export TORCH_LOGS=+graph_breaks`` with no
command between them: the first value never reaches torch. Each host says which of its
spans are overwritten (:meth:`.hosts.interface.Host.overwritten`); this module does the
rest once for every host: the dead value gets a :data:`OVERWRITTEN` hint naming the line
that overwrites it, loses every finding that describes what torch would do with it, and
takes no part in the hints across variables (TL411-TL413) or the host's notes (TL501).

What a dead value keeps (:data:`KEPT`): the findings about its own text, true whether or
not it is used: the grammar (TL101-TL108) and names torch does not know (TL201, TL205,
TL206), as warnings at most, since nothing fails while the value is overwritten. Dropped:
everything that claims an effect (TL001/TL002 crashes, TL202-TL204 module lookups,
TL301-TL304 levels and artifacts, TL4xx, TL411-TL413, TL501).

All offsets are code points (of the value, for diagnostics).
"""

from __future__ import annotations

from dataclasses import replace

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.lint.checker import (
    LineIndex,
    stderr_captured,
    with_cross_hints,
    with_host_notes,
)
from torch_logs_lsp.lint.warm_cache import with_warm_cache_hints
from torch_logs_lsp.model.diagnostic import MORE_PROBLEMS, capped
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, Severity
from torch_logs_lsp.value.analysis_cache import AnalysisCache

#: The code of an overwritten value (a hint over the whole value).
OVERWRITTEN = "TL502"
#: The codes a dead value keeps: findings about its own text, not about its effect.
KEPT = frozenset({f"TL10{n}" for n in range(1, 9)} | {"TL201", "TL205", "TL206"})

Entries = list[tuple[ValueSpan, Analysis | None]]


def dead_analysis(analysis: Analysis, span: ValueSpan, message: str) -> Analysis:
    """``analysis`` of an overwritten value: only the :data:`KEPT` findings (errors as
    warnings) and the :data:`OVERWRITTEN` hint over the whole value; no configuration."""
    value = span.value or ""
    kept = [
        replace(d, severity=max(d.severity, Severity.WARNING))
        for d in analysis.every_diagnostic
        if d.code in KEPT and d.code != MORE_PROBLEMS
    ]
    kept.append(Diagnostic(OVERWRITTEN, Severity.HINT, message, 0, len(value)))
    kept.sort(key=lambda d: (d.start, d.end, d.code))
    shown, hidden = capped(kept)
    return replace(analysis, diagnostics=shown, hidden=hidden, config=None)


def _any(span: ValueSpan) -> bool:
    return True


def overwrites(host: HostKind, text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """The host's overwritten spans of ``text`` (``[]`` for an unknown host)."""
    module = hosts.overwrites_host(host)
    return module.overwritten(text, spans) if module is not None and len(spans) > 1 else []


def with_document_hints(
    host: HostKind,
    text: str,
    entries: Entries,
    cache: AnalysisCache | None = None,
    unplaced: list[Diagnostic] | None = None,
    kept: DocumentCache | None = None,
) -> Entries:
    """``entries`` (every span of ``text`` with its analysis, in order) with the findings
    that depend on the whole document: overwritten values (:data:`OVERWRITTEN`), the hints
    across variables (:func:`.checker.with_cross_hints`, among the live values only; TL411
    not where the host says the reading process's stderr is kept) and
    the host's notes (:func:`.checker.with_host_notes`, on live values only; those on
    values that are not static go to ``unplaced``). ``kept``: the document's cache, which
    keeps the overwritten values while edits stay inside one plain value (a plain value
    reads no other)."""
    spans = [s for s, _ in entries]
    if kept is not None:
        found = kept.remembered(
            "overwrites", host, text, spans, _any, lambda: overwrites(host, text, spans)
        )
    else:
        found = overwrites(host, text, spans)
    captured = stderr_captured(host, text, spans)  # asked only for a TL411
    dead = {o.dead: o for o in found if 0 <= o.dead < o.live < len(entries)}
    if not dead:
        hinted = with_cross_hints(entries, cache, captured)
        hinted = with_warm_cache_hints(text, hinted, cache)  # TL431
        return with_host_notes(host, text, hinted, unplaced, kept)
    live = [i for i in range(len(entries)) if i not in dead]
    hinted = with_cross_hints([entries[i] for i in live], cache, lambda j: captured(live[j]))
    hinted = with_warm_cache_hints(text, hinted, cache)  # TL431
    out: Entries = [(span, None) for span, _ in entries]
    for i, entry in zip(live, hinted, strict=True):
        out[i] = entry
    out = with_host_notes(host, text, out, unplaced, kept)  # the dead ones have no analysis here
    index = LineIndex(text)  # once: a line count per dead value was quadratic
    for i, o in dead.items():
        span, analysis = entries[i]
        if analysis is None or span.value is None:
            continue
        later = entries[o.live][0]
        message = (
            f"this {span.variable} value never reaches a process: {o.why} "
            f"(line {index.position(later.name_start)[0] + 1})"
        )
        out[i] = (span, dead_analysis(analysis, span, message))
    return out


__all__ = ["KEPT", "OVERWRITTEN", "dead_analysis", "overwrites", "with_document_hints"]
