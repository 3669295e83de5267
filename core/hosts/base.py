"""Value spans: where a TORCH_LOGS-family value lives in a host document.

Every host extractor (``dotenv``, ``jsonc``, ``shell``) returns a list of :class:`ValueSpan`.
All offsets in this module are **code points into the document text** (indexes into the
Python ``str`` the document was decoded to, line endings kept as they are, CRLF counts as
two). Converting to LSP positions happens only in ``torch_logs_lsp.server``.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class ValueSpan:
    """One assignment of a family variable found in a host document.

    Attributes:
        variable: the variable name as written (``"TORCH_LOGS"``).
        host: the host kind that found it: ``"dotenv"``, ``"jsonc"`` or ``"shell"``.
        name_start, name_end: document offsets of the variable name (end exclusive).
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
            or ``"'"``; ``None`` for concatenations of differently quoted parts.
        terminated: ``False`` when an opening quote has no closing quote (the user is
            still typing); the span then runs to the end of the line.
    """

    variable: str
    host: str
    name_start: int
    name_end: int
    value: str | None
    char_starts: tuple[int, ...]
    char_ends: tuple[int, ...]
    content_start: int
    content_end: int
    raw_start: int
    raw_end: int
    quote: str | None = ""
    terminated: bool = True

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
            return self.char_ends[n - 1]
        return self.char_starts[index]

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
        return self.char_starts[start], self.char_ends[end - 1]

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
        count = 0
        for s in self.char_starts:
            if s >= offset:
                break
            count += 1
        # A cursor inside an escape (start < offset < end) belongs to that code point's start.
        if count and self.char_ends[count - 1] > offset:
            count -= 1
        return count


def simple_span(
    variable: str,
    host: str,
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
