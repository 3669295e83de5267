"""Document edits for value spans: write a new decoded value back into its host, with the
host's quoting kept valid, or remove the assignment altogether.

All offsets are **code points into the document text** (like :class:`~.base.ValueSpan`).
Every edit this module returns has been checked by re-reading: the edit is applied to
the document, the host extractor runs again, and the edit is kept only when the target
assignment now reads exactly the intended value (or, for a removal, is gone) and every
other family assignment of the document reads as before, and the document keeps its
line-end style (:func:`keeps_line_ends`: no ``\\r`` of a CRLF dropped). A candidate
that fails is dropped, so a bug here costs a fix, never a broken file.

The encodings and removals are the host modules' own (``encode_part``, ``removal``; see
:class:`.interface.Host`).
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from torch_logs_lsp.hosts import extract, host_module
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.edits import splice

log = logging.getLogger(__name__)


def apply_text_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (code points; O(n + edits))."""
    return splice(text, ((e.start, e.end, e.new_text) for e in edits))


def line_ends(text: str) -> tuple[int, int, int]:
    """The line ends of ``text`` by kind: ``(CRLF, LF alone, CR alone)``."""
    crlf = text.count("\r\n")
    return crlf, text.count("\n") - crlf, text.count("\r") - crlf


@lru_cache(maxsize=4)
def _style(text: str) -> int | None:
    """The index (in :func:`line_ends`' order) of the most common line end of ``text``;
    LF alone for a text without any; ``None`` for a tie (a mixed file)."""
    counts = line_ends(text)
    if not any(counts):
        return 1
    most = max(counts)
    return counts.index(most) if counts.count(most) == 1 else None


def keeps_line_ends(text: str, edits: Iterable[TextEdit]) -> bool:
    """Whether applying the non-overlapping ``edits`` to ``text`` adds no line end of a
    kind other than the document's most common one (a fix that drops the ``\\r`` of a
    CRLF, or writes a bare LF into a CRLF file, changes the file's line-end style), and
    removes no lone ``\\r`` (an editor shows it as a line end where bash reads a
    character of the value: replacing it joins two lines; another removed line end is
    fine). Each run of nearby edits is compared on its own window,
    one code point wider on each side (so a pair split at an edit's edge counts):
    O(size of the edits)."""
    style = _style(text)
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    added = [0, 0, 0]
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and ordered[j].start - 1 <= ordered[j - 1].end + 1:
            j += 1
        a, b = max(0, ordered[i].start - 1), min(len(text), ordered[j - 1].end + 1)
        new = splice(text[a:b], ((e.start - a, e.end - a, e.new_text) for e in ordered[i:j]))
        pairs = zip(line_ends(text[a:b]), line_ends(new), strict=True)
        for kind, (before, after) in enumerate(pairs):
            added[kind] += after - before
        i = j
    return added[2] >= 0 and all(n <= 0 for kind, n in enumerate(added) if kind != style)


def encode_part(host: HostKind, quote: str, value: str) -> str | None:
    """``value`` written as the body of a part quoted with ``quote`` (``""``, ``'"'`` or
    ``"'"``) in ``host``, without the quotes; ``None`` when it cannot be written so."""
    module = host_module(host)
    return module.encode_part(quote, value) if module is not None else None


def encode_value(host: HostKind, value: str, quote: str | None) -> list[str]:
    """Candidate raw texts (quotes included) for a whole value, the span's own quoting
    (``quote``, as in :class:`ValueSpan`) first; none for a value inside embedded code
    (a layered quote, see :mod:`.embedded`: its quotes are not the document's)."""
    if quote is not None and LAYER in quote:
        return []
    order = ["", "'", '"']
    if quote is not None:  # the span's own first (a Python ``"""`` too)
        order = [quote, *(q for q in order if q != quote)]
    out = []
    for q in order:
        body = encode_part(host, q, value)
        if body is not None and not (q == "" and not value):
            out.append(q + body + q)
    return out


@lru_cache(maxsize=4)
def _spans(host: HostKind, text: str) -> tuple[ValueSpan, ...]:
    """The spans of a document, kept for the few texts in use: every fix of a request is
    verified against the same original text (a ``str`` keeps its hash: a lookup is cheap)."""
    return tuple(extract(host, text))


def _reading(spans: Iterable[ValueSpan]) -> list[tuple[str, str | None, bool]]:
    return [(s.variable, s.value, s.terminated) for s in spans]


def _index(host: HostKind, text: str, span: ValueSpan) -> int | None:
    for i, s in enumerate(_spans(host, text)):
        if s.name_start == span.name_start and s.variable == span.variable:
            return i
    return None


def verify(
    host: HostKind, text: str, span: ValueSpan, edits: Sequence[TextEdit], new_value: str | None
) -> bool:
    """Whether applying ``edits`` to ``text`` makes ``span``'s assignment read
    ``new_value`` (``None``: removes it) and leaves every other assignment as it was."""
    index = _index(host, text, span)
    if index is None or not keeps_line_ends(text, edits):
        return False
    expected = _reading(_spans(host, text))
    if new_value is None:
        del expected[index]
    else:
        expected[index] = (span.variable, new_value, True)
    return _reading(extract(host, apply_text_edits(text, edits))) == expected


def _changed_range(old: str, new: str) -> tuple[int, int, str]:
    """The smallest ``[a, b)`` of ``old`` and its replacement that turn it into ``new``
    (common prefix and suffix found by bisection over slice comparisons: C speed, so an
    80 KB value costs microseconds, not a Python loop per code point)."""
    lo, hi = 0, min(len(old), len(new))  # old[:lo] == new[:lo]; a mismatch before hi+1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    a = lo
    lo, hi = 0, min(len(old), len(new)) - a  # the common suffix, not overlapping the prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid :] == new[len(new) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    b_old, b_new = len(old) - lo, len(new) - lo
    return a, b_old, new[a:b_new]


#: Longest text (code points of old and new together) given to difflib, whose matching is
#: worse than quadratic on repetitive text (one fix of a 10,000-item value took minutes).
#: Measured (2-core machine): ``"a,"*N`` against ``"a"*N`` takes ~35 ms at 256 code points,
#: 1.3 s at 1,000 and 2.3 s for 200 ``+dynamoo`` items at 3,400 (a quickfix request diffs a
#: few times); longer changes are one edit of their changed middle.
MAX_DIFF = 256


def _opcodes(old: str, new: str) -> list[tuple[int, int, str]] | None:
    """The changed ranges ``(a, b, replacement)`` of ``old`` that turn it into ``new``,
    unchanged code points kept (so their escapes in the document are kept too). A long
    pair is diffed only between its common prefix and suffix; ``None`` when even that
    is longer than :data:`MAX_DIFF` (the caller then edits the changed range as one)."""
    shift = 0
    if len(old) + len(new) > MAX_DIFF:
        a, b, replacement = _changed_range(old, new)
        old, new, shift = old[a:b], replacement, a
        if len(old) + len(new) > MAX_DIFF:
            return None
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        (i1 + shift, i2 + shift, new[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _placed(
    host: HostKind, span: ValueSpan, quote: str, changes: list[tuple[int, int, str]]
) -> tuple[TextEdit, ...] | None:
    out = []
    for a, b, repl in changes:
        if a < b:
            start, end = span.char_starts[a], span.char_ends[b - 1]
        else:  # an insertion: after the previous code point (inside its quotes)
            start = end = span.document_offset(0) if a == 0 else span.char_ends[a - 1]
        # a deletion writes nothing (a host's plain ``encode_part("")`` is ``None``: an
        # empty plain YAML scalar is null); the re-reading (:func:`verify`) judges it
        body = encode_part(host, quote, repl) if repl else ""
        if body is None:
            return None
        out.append(TextEdit(start, end, body))
    return tuple(out)


def _candidates(host: HostKind, span: ValueSpan, new_value: str) -> Iterator[tuple[TextEdit, ...]]:
    """The unverified edits :func:`value_edit` tries, in its order."""
    old = span.value
    if old is None or not span.terminated or new_value == old:
        return
    smallest = _opcodes(old, new_value)
    plans = [*([smallest] if smallest is not None else []), [_changed_range(old, new_value)]]
    quotes = [span.quote] if span.quote is not None else ["", '"', "'"]
    for plan in plans:
        for q in dict.fromkeys(quotes):
            edits = _placed(host, span, q, plan)
            if edits is not None:
                yield edits
    for raw in encode_value(host, new_value, span.quote):
        yield (TextEdit(span.raw_start, span.raw_end, raw),)


def value_edit(
    host: HostKind, text: str, span: ValueSpan, new_value: str
) -> tuple[TextEdit, ...] | None:
    """Document edits that make ``span`` read ``new_value``, or ``None``.

    Tries the smallest edits first (only the changed decoded code points, encoded for the
    quoting around them: an escape such as ``\\u002b`` in an unchanged part stays), then
    one edit over the changed range, then rewriting the whole value with its quotes (see
    :func:`encode_value`). Only verified edits (:func:`verify`) are returned.
    """
    for edits in _candidates(host, span, new_value):
        if verify(host, text, span, edits, new_value):
            return edits
    return None


#: A value change: the span, the document edits, the value the span then reads.
ValueChange = tuple[ValueSpan, tuple[TextEdit, ...], str]


def verify_together(host: HostKind, text: str, changes: Sequence[ValueChange]) -> bool:
    """Whether applying every change's edits to ``text`` at once makes each change's span
    read its new value and leaves every other assignment as it was (one re-read of the
    document, whatever the number of changes; spans of distinct assignments), keeping
    the document's line-end style (:func:`keeps_line_ends`)."""
    if not keeps_line_ends(text, [e for _, es, _ in changes for e in es]):
        return False
    spans = _spans(host, text)
    where = {(s.name_start, s.variable): i for i, s in enumerate(spans)}
    expected = _reading(spans)
    for span, _, new_value in changes:
        i = where.get((span.name_start, span.variable))
        if i is None:
            return False
        expected[i] = (span.variable, new_value, True)
    edited = apply_text_edits(text, [e for _, es, _ in changes for e in es])
    return _reading(extract(host, edited)) == expected


#: Most re-reads of the document :func:`value_edits` makes: past it the values left are
#: not fixed (logged), so a hostile document costs a bounded number of re-reads.
MAX_REREADS = 64


def value_edits(
    host: HostKind, text: str, wanted: Sequence[tuple[ValueSpan, str]]
) -> list[ValueChange]:
    """Verified edits that make each ``(span, new value)`` of ``wanted`` read its new value,
    verified together (fix-all): each value's first candidate edit (see
    :func:`value_edit`), all applied at once and the document read once; when that
    reading differs, the changes are halved until the failing ones are found, and those
    try their next candidate in the next round. Costs ``O(1 + f log n)`` re-reads for
    ``f`` failing candidates, at most :data:`MAX_REREADS`; what the result holds was
    verified as a whole. The changes come in ``wanted``'s order."""
    left = MAX_REREADS
    tries = {id(span): _candidates(host, span, new) for span, new in wanted}
    done: list[ValueChange] = []
    todo = list(wanted)

    def check(group: list[ValueChange]) -> bool:
        nonlocal left
        if left <= 0:
            return False
        left -= 1
        return verify_together(host, text, [*done, *group])

    def split(group: list[ValueChange]) -> tuple[list[ValueChange], list[ValueChange]]:
        """(verified together with ``done``, failed)."""
        if not group or check(group):
            return group, []
        if len(group) == 1 or left <= 0:
            return [], group
        half = len(group) // 2
        ok, bad = split(group[:half])
        done.extend(ok)
        ok2, bad2 = split(group[half:])
        del done[len(done) - len(ok) :]
        return ok + ok2, bad + bad2

    while todo and left > 0:
        group: list[ValueChange] = []
        for span, new in todo:
            edits = next(tries[id(span)], None)
            if edits is not None:
                group.append((span, edits, new))
        if not group:
            todo = []
            break
        ok, bad = split(group)
        done.extend(ok)
        failed = {id(c[0]) for c in bad}
        todo = [(span, new) for span, new in todo if id(span) in failed]
    if todo:
        log.info(
            "fix-all: %d value(s) left unfixed after %d re-reads of the document",
            len(todo),
            MAX_REREADS - left,
        )
    order = {id(span): i for i, (span, _) in enumerate(wanted)}
    return sorted(done, key=lambda c: order[id(c[0])])


def removal_edit(host: HostKind, text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """A titled edit that removes ``span``'s assignment: the line in ``.env``,
    ``unset VAR`` for a shell statement (or dropping ``VAR=`` before a command), the
    property in JSONC (commas kept valid). ``None`` when there is no safe way."""
    module = host_module(host)
    found = module.removal(text, span) if module is not None else None
    if found is None or not verify(host, text, span, [found[1]], None):
        return None
    return found


__all__ = [
    "TextEdit",
    "apply_text_edits",
    "encode_part",
    "encode_value",
    "keeps_line_ends",
    "line_ends",
    "removal_edit",
    "value_edit",
    "value_edits",
    "verify",
    "verify_together",
]
