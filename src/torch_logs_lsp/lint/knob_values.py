"""TL441: a compile knob's value that never matches what torch compares it with
(``TORCHINDUCTOR_MAX_AUTOTUNE=true``: torch checks ``== "1"``, so autotuning stays off).

All offsets are **code points into the document text**.

Which assignments: every host reports assignments of the TORCH_LOGS family only, so a
knob's assignment is found the way TL408 confirms a rename (:mod:`.misspelled`): each
occurrence of a knob name of the release (:func:`~..knowledge.knobs.knobs`) is replaced by
a family name in a copy of the document, the copy is extracted once, and a span of that
name starting where the knob's name started is the knob's assignment, with the value
decoded by the host's own reader (quotes, escapes). A value that is not static, or whose
raw text holds another knob name (the copy changed it), is not judged.

What torch does with the value is :func:`~..knowledge.knobs.judge` (every read of the
name in torch's Python code must leave the value without a meaning of its own).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import NamedTuple

from torch_logs_lsp import hosts
from torch_logs_lsp.knowledge.knobs import KnobInfo, judge, knobs
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.limits import excerpt
from torch_logs_lsp.model.spans import ValueSpan

KNOB_VALUE = "TL441"
#: The family name a knob's name is replaced with in the copy (any family name would do:
#: every host reads them alike).
_STAND_IN = "TORCH_LOGS_OUT"
_WORD = re.compile(r"(?:TORCH|INDUCTOR_)[A-Z0-9_]*(?![A-Za-z0-9_])")
_STARTS = ("TORCH", "INDUCTOR_")
#: Most knob names looked at in one document.
MAX_NAMES = 1000


def knob_words(text: str, names: dict[str, KnobInfo]) -> Iterator[re.Match[str]]:
    """The whole words of ``text`` that are knob names of ``names``, in document order."""
    starts: set[int] = set()
    for needle in _STARTS:
        at = text.find(needle)
        while at >= 0:
            if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
                starts.add(at)
            at = text.find(needle, at + len(needle))
    for at in sorted(starts):
        m = _WORD.match(text, at)
        if m is not None and m.group() in names:
            yield m


class KnobAssignment(NamedTuple):
    """A knob assigned in a document: ``name_start``/``name_end`` its name (document
    offsets) and ``span`` its value as the host reads it, with document offsets for the
    value (``span.variable`` and ``span.name_*`` belong to the stand-in: not used)."""

    knob: KnobInfo
    name_start: int
    name_end: int
    span: ValueSpan


def knob_assignments(host: HostKind, text: str, release: str | None) -> list[KnobAssignment]:
    """The assignments of knobs of torch ``release`` in ``text`` (a document of ``host``
    kind), in document order. Never raises."""
    names = knobs(release)
    found: list[re.Match[str]] = []
    for m in knob_words(text, names):
        if len(found) >= MAX_NAMES:
            break
        found.append(m)
    if not found:
        return []
    pieces: list[str] = []
    copy_starts: list[int] = []  # where each replacement starts in the copy
    shifts: list[int] = []  # the copy's shift after each replacement
    at = 0
    shift = 0
    for m in found:
        pieces += [text[at : m.start()], _STAND_IN]
        copy_starts.append(m.start() + shift)
        shift += len(_STAND_IN) - len(m.group())
        shifts.append(shift)
        at = m.end()
    pieces.append(text[at:])
    try:
        spans = hosts.extract(host, "".join(pieces))
    except Exception:
        return []
    index = {start: i for i, start in enumerate(copy_starts)}
    out: list[KnobAssignment] = []
    for span in spans:
        i = index.get(span.name_start)
        if span.variable != _STAND_IN or i is None:
            continue
        lo, hi = min(span.raw_start, span.content_start), max(span.raw_end, span.content_end)
        if any(lo <= s < hi for s in copy_starts):
            continue  # the copy changed this value's text
        before = bisect_left(copy_starts, lo)  # replacements before the value
        delta = shifts[before - 1] if before else 0
        m = found[i]
        out.append(KnobAssignment(names[m.group()], m.start(), m.end(), span.moved(-delta)))
    return out


def knob_value_diagnostics(host: HostKind, text: str, release: str | None) -> list[Diagnostic]:
    """TL441 diagnostics of ``text`` (document offsets, over the value as written; over the
    name for an empty value), in document order."""
    out: list[Diagnostic] = []
    for knob, name_start, name_end, span in knob_assignments(host, text, release):
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
