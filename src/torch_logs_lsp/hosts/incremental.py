"""Incremental extraction: reuse the previous version of a document when it is edited.

An editor sends small edits to large documents. :class:`DocumentCache` keeps, per open
document, the previous text, its value spans and host-specific state (the tree-sitter
tree, the ``.env`` binding chain). For the next text it computes the edited region
(:func:`diff`) and the host extractor re-reads only what the edit can affect; spans that
are certain to be unchanged are reused, shifted by the edit's length change.

Exactness is the contract: ``extract(host, text, cache)`` returns exactly
``extract(host, text)`` for any sequence of texts (tested with random edit sequences).
All offsets are code points unless named ``*_byte``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan


@dataclass(frozen=True)
class Edit:
    """The region where two texts differ: ``old[start:old_end]`` was replaced by
    ``new[start:new_end]`` (code point offsets; ``delta = new_end - old_end``)."""

    start: int
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end


#: Code points compared at a time by :func:`_common_prefix` and :func:`_common_suffix`.
_CHUNK = 8192


def _common_prefix(a: str | bytes, b: str | bytes) -> int:
    """Length of the common prefix: C slice compares a chunk at a time, then a binary
    search inside the first chunk that differs (linear, ~0.2 ms for 500 KB)."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n:
        hi = min(lo + _CHUNK, n)
        if a[lo:hi] != b[lo:hi]:
            break
        lo = hi
    else:
        return n
    hi = min(lo + _CHUNK, n)  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while lo < hi:  # invariant: a[:lo] == b[:lo], the first difference is below hi
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str | bytes, b: str | bytes, limit: int) -> int:
    """Length of the common suffix, at most ``limit`` (as :func:`_common_prefix`)."""
    la, lb = len(a), len(b)
    lo = 0
    while lo < limit:
        hi = min(lo + _CHUNK, limit)
        if a[la - hi : la - lo] != b[lb - hi : lb - lo]:
            break
        lo = hi
    else:
        return limit
    hi = min(lo + _CHUNK, limit)
    while lo < hi:  # invariant: the last lo agree, the first difference is within hi
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def diff(old: str | bytes, new: str | bytes) -> Edit | None:
    """The single region where ``old`` and ``new`` differ (``None`` when equal). Several
    edits in one version are covered by one region spanning all of them."""
    if old == new:
        return None
    start = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - start)
    return Edit(start, len(old) - suffix, len(new) - suffix)


#: How far before an edit a backslash can make the edit part of an escape (``\\u002b``).
ESCAPE_REACH = 6


def near_escape(data: bytes, start: int) -> bool:
    """Whether a backslash lies up to :data:`ESCAPE_REACH` bytes before ``start``: an edit
    there may change an escape, or make one (deleting ``x2b`` from ``$'\\x2b'`` leaves
    ``$'\\'``, whose backslash escapes the quote). The edit shortcuts decline it."""
    return b"\\" in data[max(0, start - ESCAPE_REACH) : start]


def shift_span(span: ValueSpan, delta: int) -> ValueSpan:
    """``span`` moved by ``delta`` code points (every offset; O(1), see
    :meth:`ValueSpan.moved`)."""
    return span.moved(delta)


@dataclass
class DocumentCache:
    """What one open document's previous extraction left for the next one.

    ``text``/``spans``: the previous text and its spans (``None`` before the first
    extraction). ``state``: host-specific data (a tree-sitter tree, a binding chain).
    ``host``: the host kind the state belongs to (a change of kind starts afresh).
    ``reused``/``computed``: span counts of the last extraction (for tests and profiles).
    """

    host: HostKind | None = None
    text: str | None = None
    spans: list[ValueSpan] | None = None
    state: Any = None
    reused: int = 0
    computed: int = 0
    _by_start: dict[int, tuple[ValueSpan, object]] = field(default_factory=dict)
    #: What a rule over the whole document found for the last version, by the rule's
    #: name: ``(key, text, spans, result)`` (see :meth:`remembered`).
    _rules: dict[str, tuple[object, str, list[ValueSpan], Any]] = field(default_factory=dict)
    #: The last :func:`diff` the rules asked for: ``(old, new, edit)`` (every rule of a
    #: version compares the same two texts).
    _diffed: tuple[str, str, Edit | None] | None = None

    def _diff(self, old: str, new: str) -> Edit | None:
        seen = self._diffed
        if seen is not None and seen[0] is old and seen[1] is new:
            return seen[2]
        edit = diff(old, new)
        self._diffed = (old, new, edit)
        return edit

    def remembered(
        self,
        rule: str,
        key: object,
        text: str,
        spans: list[ValueSpan],
        strip: Callable[[ValueSpan], bool],
        compute: Callable[[], Any],
    ) -> Any:
        """``compute()``, or the result kept for ``rule`` when its last version had the
        same ``key`` and differed from ``text`` (with ``spans``) only inside a value the
        rule does not read (:func:`only_values_differ` with ``strip``). One result kept
        per rule."""
        return self.remembered_moved(rule, key, text, spans, strip, compute, _unmoved)

    def remembered_moved(
        self,
        rule: str,
        key: object,
        text: str,
        spans: list[ValueSpan],
        strip: Callable[[ValueSpan], bool],
        compute: Callable[[], Any],
        move: Callable[[Any, Edit], Any],
    ) -> Any:
        """:meth:`remembered` for a result that holds document offsets: a result kept
        from a version that differs from ``text`` only inside a value ``strip`` selects
        is returned as ``move(result, edit)`` (``edit``: that difference, old to new; what
        lies after it moves by ``edit.delta``). One result kept per rule."""
        kept = self._rules.get(rule)
        if kept is not None:
            old_key, old_text, old_spans, result = kept
            if old_key == key:
                edit = None if old_text is text else self._diff(old_text, text)
                if edit is None or edited_values_only(
                    edit, old_text, old_spans, text, spans, strip
                ):
                    if edit is not None and edit.delta:
                        result = move(result, edit)
                    self._rules[rule] = (key, text, spans, result)
                    return result
        result = compute()
        self._rules[rule] = (key, text, spans, result)
        return result

    def edit_for(self, host: HostKind, text: str) -> Edit | None:
        """The edit from the previous text to ``text``; resets the cache (and returns
        ``None``) when there is no usable previous version of the same host kind."""
        self.reused = self.computed = 0
        if self.host != host or self.text is None or self.spans is None:
            self.host, self.text, self.spans, self.state = host, None, None, None
            self._by_start = {}
            return None
        return diff(self.text, text) or Edit(len(text), len(text), len(text))

    def holds(self, host: HostKind, text: str) -> bool:
        """Whether the previous extraction was of ``text`` as ``host`` (its spans are
        ``text``'s: a feature asking again for a version already read, e.g. the check of a
        version whose spans a completion request read first)."""
        if self.host != host or self.spans is None or self.text is None:
            return False
        if self.text is not text and self.text != text:
            return False
        self.reused, self.computed = len(self.spans), 0
        return True

    def reset(self) -> None:
        """Forget the previous version (after a failure: the next extraction is fresh)."""
        self.host, self.text, self.spans, self.state = None, None, None, None
        self._by_start = {}

    def store(
        self, text: str, spans: list[ValueSpan], state: Any, contexts: dict[int, object]
    ) -> None:
        """Remember this version for the next call; ``contexts`` maps a span's
        ``name_start`` to what the host decided about it from the surrounding syntax
        (compared by :meth:`reusable`)."""
        self.text, self.spans, self.state = text, spans, state
        self._by_start = {s.name_start: (s, contexts.get(s.name_start)) for s in spans}

    def context_of(self, name_start: int) -> object:
        """The context stored for the previous span at ``name_start`` (old offsets)."""
        entry = self._by_start.get(name_start)
        return entry[1] if entry is not None else None

    def reusable(
        self, edit: Edit | None, variable: str, name_start: int, value_start: int, context: object
    ) -> ValueSpan | None:
        """The previous span for an assignment of ``variable`` found at ``name_start`` /
        ``value_start`` (new offsets) in the same syntactic ``context``, when the edit
        cannot have changed its text: a terminated span that ends (with the character
        after it) before the edit, or that starts after the edit."""
        if edit is None:
            return None
        before = name_start < edit.start
        if before:
            entry = self._by_start.get(name_start)
            delta = 0
        elif name_start >= edit.new_end:
            entry = self._by_start.get(name_start - edit.delta)
            delta = edit.delta
        else:
            return None
        if entry is None or entry[1] != context:
            return None
        old = entry[0]
        if not old.terminated or old.variable != variable or old.raw_start + delta != value_start:
            return None
        if before and old.raw_end >= edit.start:
            return None
        if not before and old.name_start < edit.old_end:
            return None
        self.reused += 1
        return shift_span(old, delta)


#: A value's text that cannot change what surrounds it (no quote, blank, `$`, separator).
PLAIN_VALUE = re.compile(r"[\w,+.:/=@%-]*")


def only_values_differ(
    old: str,
    old_spans: list[ValueSpan],
    new: str,
    new_spans: list[ValueSpan],
    strip: Callable[[ValueSpan], bool],
) -> bool:
    """Whether ``new`` is ``old`` (their spans ``new_spans``, ``old_spans``) but for the
    content of one value that ``strip`` selects and that is plain (:data:`PLAIN_VALUE`)
    before and after: a rule that does not read such contents finds the same in both
    (typing in a TORCH_LOGS value changes no command, directory or path fact). One
    :func:`diff` (C compares) and a search of the spans."""
    return old is new or edited_values_only(diff(old, new), old, old_spans, new, new_spans, strip)


def _unmoved(result: Any, edit: Edit) -> Any:
    """A kept result without document offsets: the same after any edit."""
    return result


def _content_start(span: ValueSpan) -> int:
    return span.content_start


def edited_values_only(
    edit: Edit | None,
    old: str,
    old_spans: list[ValueSpan],
    new: str,
    new_spans: list[ValueSpan],
    strip: Callable[[ValueSpan], bool],
) -> bool:
    """:func:`only_values_differ` for ``edit``, the caller's ``diff(old, new)``."""
    if edit is None:
        return True
    if len(old_spans) != len(new_spans) or not new_spans:
        return False
    i = bisect_right(new_spans, edit.start, key=_content_start) - 1
    if i < 0:
        return False
    before, after = old_spans[i], new_spans[i]
    return (
        before.content_start == after.content_start
        and edit.old_end <= before.content_end
        and edit.new_end <= after.content_end
        and before.variable == after.variable
        and strip(before)
        and strip(after)
        and PLAIN_VALUE.fullmatch(old, before.content_start, before.content_end) is not None
        and PLAIN_VALUE.fullmatch(new, after.content_start, after.content_end) is not None
    )
