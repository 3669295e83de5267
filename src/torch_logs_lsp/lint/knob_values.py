"""TL441: a compile knob's value that never matches what torch compares it with
(``TORCHINDUCTOR_MAX_AUTOTUNE=true``: torch checks ``== "1"``, so autotuning stays off).

All offsets are **code points into the document text**.

Which assignments: every host reports assignments of the TORCH_LOGS family only, so a
knob's assignment is found as TL408 confirms a rename (:mod:`.stand_ins`): each occurrence of
a knob name of the release (:func:`~..knowledge.knobs.knobs`) is replaced by a family name
in a copy of the document, the copy is extracted once (the same copy as TL421-TL424's:
:func:`.stand_ins.compiler_spans`), and a span of that name starting where the knob's name
started is the knob's assignment, with the value decoded by the host's own reader (quotes,
escapes). A value that is not static, or whose raw text holds another knob name (the copy
changed it), is not judged.

What torch does with the value is :func:`~..knowledge.knobs.judge` (every read of the
name in torch's Python code must leave the value without a meaning of its own).
"""

from __future__ import annotations

from typing import NamedTuple

from torch_logs_lsp.hosts.incremental import DocumentCache, Edit
from torch_logs_lsp.knowledge.knobs import KnobInfo, judge, knobs
from torch_logs_lsp.lint.stand_ins import MAX_WORDS, compiler_spans, knob_words, no_compiler_word
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.limits import excerpt
from torch_logs_lsp.model.spans import ValueSpan

KNOB_VALUE = "TL441"
#: Most knob names looked at in one document.
MAX_NAMES = MAX_WORDS


class KnobAssignment(NamedTuple):
    """A knob assigned in a document: ``name_start``/``name_end`` its name (document
    offsets) and ``span`` its value as the host reads it, with document offsets
    (``span.variable`` is the stand-in: not used)."""

    knob: KnobInfo
    name_start: int
    name_end: int
    span: ValueSpan


def knob_assignments(
    host: HostKind,
    text: str,
    release: str | None,
    kept: DocumentCache | None = None,
    spans: list[ValueSpan] | None = None,
) -> list[KnobAssignment]:
    """The assignments of knobs of torch ``release`` in ``text`` (a document of ``host``
    kind), in document order. ``kept`` and ``spans``: the document's cache and the family
    spans extracted from ``text`` (as :func:`.knobs.assignments`). Never raises."""
    if kept is not None and spans is not None:
        return kept.remembered_moved(  # type: ignore[no-any-return]
            "knob assignments",
            (host, release),
            text,
            spans,
            no_compiler_word,
            lambda: knob_assignments(host, text, release),
            _moved,
        )
    try:
        found = compiler_spans(host, text, release, "knobs")
    except Exception:
        return []
    if not found:
        return []
    names = knobs(release)
    return [
        KnobAssignment(names[m.group()], m.start(), m.end(), hit.span)
        for m, hit in found
        if not hit.changed  # the copy changed this value's text
    ]


def _moved(found: list[KnobAssignment], edit: Edit) -> list[KnobAssignment]:
    """``found`` after ``edit`` (inside a family value: before or after each of them)."""
    d = edit.delta
    return [
        KnobAssignment(a.knob, a.name_start + d, a.name_end + d, a.span.moved(d))
        if a.name_start >= edit.old_end
        else a
        for a in found
    ]


def knob_value_diagnostics(
    host: HostKind,
    text: str,
    release: str | None,
    kept: DocumentCache | None = None,
    spans: list[ValueSpan] | None = None,
) -> list[Diagnostic]:
    """TL441 diagnostics of ``text`` (document offsets, over the value as written; over the
    name for an empty value), in document order; ``kept`` and ``spans`` as
    :func:`knob_assignments`."""
    out: list[Diagnostic] = []
    for knob, name_start, name_end, span in knob_assignments(host, text, release, kept, spans):
        if span.value is None or not span.terminated:
            continue
        why = judge(knob, span.value)
        if why is None:
            continue
        if span.content_start < span.content_end:
            start, end = span.content_start, span.content_end
        else:
            start, end = name_start, name_end
        shown = excerpt(span.value)
        message = f"`{knob.name}={shown}`: {why}"
        out.append(Diagnostic(KNOB_VALUE, Severity.WARNING, message, start, end))
    return out


__all__ = [
    "KNOB_VALUE",
    "KnobAssignment",
    "knob_assignments",
    "knob_value_diagnostics",
    "knob_words",
]
