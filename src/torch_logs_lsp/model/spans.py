"""Value spans: where a TORCH_LOGS-family value lives in a host document.

Every host extractor (``dotenv``, ``jsonc``, ``shell``, ``python``) returns a list of
:class:`ValueSpan`.
All offsets in this module are **code points into the document text** (indexes into the
Python ``str`` the document was decoded to, line endings kept as they are, CRLF counts as
two). Converting to LSP positions happens only in ``torch_logs_lsp.server``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence

from torch_logs_lsp.model.host_kind import HostKind

#: The variables of the TORCH_LOGS family, in the order completion offers them. Hosts
#: report an assignment of any of these; analysis decides what to do with each.
FAMILY_ORDER: tuple[str, ...] = (
    "TORCH_LOGS",
    "TORCH_LOGS_OUT",
    "TORCH_LOGS_FORMAT",
    "TORCH_TRACE",
    "TORCH_LOGS_TRACE_ID_FILTER",
    "TORCH_COMPILE_DEBUG",
)
FAMILY: frozenset[str] = frozenset(FAMILY_ORDER)
#: Every family name contains one of these: a document without them has no spans.
NEEDLES: tuple[str, ...] = ("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DEBUG")


def names_family(text: str) -> bool:
    """Whether ``text`` contains a family name (substring searches only)."""
    return any(needle in text for needle in NEEDLES)


_FIELDS: tuple[str, ...] = ("variable", "host", "name_start", "name_end", "value")
_FIELDS += ("char_starts", "char_ends", "content_start", "content_end", "raw_start", "raw_end")
_FIELDS += ("quote", "terminated")


class ValueSpan:
    """One assignment of a family variable found in a host document.

    Attributes:
        variable: the variable name as written (``"TORCH_LOGS"``).
        host: the host kind that found it: ``"dotenv"``, ``"jsonc"``, ``"shell"`` or
            ``"python"``.
        name_start, name_end: document offsets of the variable name (end exclusive);
            before the value but in YAML (a Kubernetes item written ``value:`` first).
        value: the decoded value, i.e. exactly the string the process would see in its
            environment (quotes removed, escapes decoded, concatenations joined); ``None``
            when the value is not static (``$X``, ``${X:-y}``, ``$(cmd)``, a non-string
            JSON value): such a value is never diagnosed.
        char_starts, char_ends: one entry per code point of ``value``: the document offsets
            of the source text that produces that code point (``char_ends`` exclusive).
            An escape such as ``\\u002b`` in JSON gives one decoded code point whose source
            is six document code points. Empty tuples when ``value`` is ``None`` or empty.
        content_start, content_end: document offsets of the value's text between its
            quotes (for an unquoted value, the value itself; for a concatenation, from the
            first part's content to the last part's content). For an empty value both are
            the insertion point (e.g. just after ``=`` or between ``""``).
        raw_start, raw_end: document offsets of the whole value as written, quotes
            included. ``raw_start == raw_end`` for ``KEY=`` with nothing after.
        quote: the quoting of the value when it is a single part: ``""`` (none), ``'"'``
            or ``"'"`` (in Python also the triple quotes; a prefix such as ``r`` is not
            part of it); ``None`` for concatenations of differently quoted
            parts (in Python: any implicit concatenation).
        terminated: ``False`` when an opening quote has no closing quote (the user is
            still typing); the span then runs to the end of the line.

    Immutable and compared by value. :meth:`moved` makes a copy at another place in O(1):
    the offset maps are kept as built and the move is added on access, because an edit
    moves every span after it and a large document has thousands.
    """

    __slots__ = (
        "_ends",
        "_shift",
        "_starts",
        "content_end",
        "content_start",
        "host",
        "name_end",
        "name_start",
        "quote",
        "raw_end",
        "raw_start",
        "terminated",
        "value",
        "variable",
    )
    variable: str
    host: HostKind
    name_start: int
    name_end: int
    value: str | None
    content_start: int
    content_end: int
    raw_start: int
    raw_end: int
    quote: str | None
    terminated: bool
    _starts: tuple[int, ...]
    _ends: tuple[int, ...]
    _shift: int

    def __init__(
        self,
        variable: str,
        host: HostKind,
        name_start: int,
        name_end: int,
        value: str | None,
        char_starts: tuple[int, ...],
        char_ends: tuple[int, ...],
        content_start: int,
        content_end: int,
        raw_start: int,
        raw_end: int,
        quote: str | None = "",
        terminated: bool = True,
    ) -> None:
        init = object.__setattr__
        for name, value_ in (
            ("variable", variable),
            ("host", host),
            ("name_start", name_start),
            ("name_end", name_end),
            ("value", value),
            ("_starts", tuple(char_starts)),
            ("_ends", tuple(char_ends)),
            ("_shift", 0),
            ("content_start", content_start),
            ("content_end", content_end),
            ("raw_start", raw_start),
            ("raw_end", raw_end),
            ("quote", quote),
            ("terminated", terminated),
        ):
            init(self, name, value_)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ValueSpan is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ValueSpan is immutable (cannot delete {name})")

    @property
    def char_starts(self) -> tuple[int, ...]:
        """Document offset where each decoded code point's source starts."""
        d = self._shift
        return tuple(s + d for s in self._starts) if d else self._starts

    @property
    def char_ends(self) -> tuple[int, ...]:
        """Document offset just after each decoded code point's source."""
        d = self._shift
        return tuple(e + d for e in self._ends) if d else self._ends

    def _key(self) -> tuple[object, ...]:
        return (
            self.variable,
            self.host,
            self.name_start,
            self.name_end,
            self.value,
            self.char_starts,
            self.char_ends,
            self.content_start,
            self.content_end,
            self.raw_start,
            self.raw_end,
            self.quote,
            self.terminated,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValueSpan):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={v!r}" for n, v in zip(_FIELDS, self._key(), strict=True))
        return f"ValueSpan({body})"

    def moved(self, delta: int) -> ValueSpan:
        """This span ``delta`` code points later in the document (earlier when negative):
        every offset moves; the value and the offset maps are shared, so the cost does not
        depend on the value's length."""
        if delta == 0:
            return self
        span = object.__new__(ValueSpan)
        _S["variable"](span, self.variable)
        _S["host"](span, self.host)
        _S["value"](span, self.value)
        _S["_starts"](span, self._starts)
        _S["_ends"](span, self._ends)
        _S["quote"](span, self.quote)
        _S["terminated"](span, self.terminated)
        _S["_shift"](span, self._shift + delta)
        _S["name_start"](span, self.name_start + delta)
        _S["name_end"](span, self.name_end + delta)
        _S["content_start"](span, self.content_start + delta)
        _S["content_end"](span, self.content_end + delta)
        _S["raw_start"](span, self.raw_start + delta)
        _S["raw_end"](span, self.raw_end + delta)
        return span

    @property
    def is_static(self) -> bool:
        """True when ``value`` is known (no expansion or command substitution)."""
        return self.value is not None

    def document_offset(self, index: int) -> int:
        """Document offset where decoded code point ``index`` starts.

        ``index`` may equal ``len(value)``: the offset just after the last code point (the
        insertion point at the end of the value). Raises ``ValueError`` for a non-static
        span and ``IndexError`` for an index outside ``0..len(value)``.
        """
        if self.value is None:
            raise ValueError("span has no static value")
        n = len(self.value)
        if index < 0 or index > n:
            raise IndexError(index)
        if n == 0:
            return self.content_start
        if index == n:
            return self._ends[n - 1] + self._shift
        return self._starts[index] + self._shift

    def document_range(self, start: int, end: int) -> tuple[int, int]:
        """Map the decoded range ``[start, end)`` to a document range ``(start, end)``.

        An empty decoded range maps to an empty document range at the insertion point.
        Raises like :meth:`document_offset`.
        """
        if start == end:
            off = self.document_offset(start)
            return off, off
        if self.value is None:
            raise ValueError("span has no static value")
        if not (0 <= start < end <= len(self.value)):
            raise IndexError((start, end))
        return self._starts[start] + self._shift, self._ends[end - 1] + self._shift

    def value_index(self, offset: int) -> int | None:
        """The decoded index for a cursor at document ``offset``, or ``None``.

        A cursor is *in* the value when it lies between ``content_start`` and
        ``content_end`` inclusive (the end of the value counts, so that completion works
        while typing). The returned index is the number of decoded code points before the
        cursor. A cursor inside a multi-character escape maps to the escape's start.
        """
        if self.value is None:
            return None
        if offset < self.content_start or offset > self.content_end:
            return None
        # Offsets are compared before the move (see :meth:`moved`).
        offset -= self._shift
        count = bisect_left(self._starts, offset)
        # A cursor inside an escape (start < offset < end) belongs to that code point's start.
        if count and self._ends[count - 1] > offset:
            count -= 1
        return count


# The slots' own setters (a frozen span is built without ``__setattr__``): :meth:`moved`
# copies a span per span after every edit of a large document.
_S = {name: getattr(ValueSpan, name).__set__ for name in ValueSpan.__slots__}


def simple_span(
    variable: str,
    host: HostKind,
    name_start: int,
    value_start: int,
    value: str,
    *,
    raw_start: int | None = None,
    raw_end: int | None = None,
    quote: str = "",
    terminated: bool = True,
) -> ValueSpan:
    """Build a span whose value is copied verbatim from ``value_start`` (no escapes).

    Convenience for hosts where each decoded code point is one document code point.
    """
    starts = tuple(range(value_start, value_start + len(value)))
    ends = tuple(s + 1 for s in starts)
    end = value_start + len(value)
    return ValueSpan(
        variable=variable,
        host=host,
        name_start=name_start,
        name_end=name_start + len(variable),
        value=value,
        char_starts=starts,
        char_ends=ends,
        content_start=value_start,
        content_end=end,
        raw_start=value_start if raw_start is None else raw_start,
        raw_end=end if raw_end is None else raw_end,
        quote=quote,
        terminated=terminated,
    )


def in_document_order(spans: Iterable[ValueSpan]) -> list[ValueSpan]:
    """``spans`` sorted by their name's offset, one per name (the first of two found at
    the same place by two readings of a document)."""
    out: list[ValueSpan] = []
    for span in sorted(spans, key=lambda s: s.name_start):
        if not out or span.name_start > out[-1].name_start:
            out.append(span)
    return out


def set_again(spans: Sequence[ValueSpan]) -> Iterator[tuple[int, int]]:
    """``(earlier, later)`` indexes of ``spans`` (in document order) for each span that
    sets a variable some earlier span set: the candidates of an overwritten value
    (:meth:`.interface.Host.overwritten`), each earlier span paired with its next one."""
    last: dict[str, int] = {}
    for i, span in enumerate(spans):
        before = last.get(span.variable)
        last[span.variable] = i
        if before is not None:
            yield before, i
