"""The stages of checking a document (:mod:`.pipeline` runs them): analysing one value,
the host's notes and hints across values, ``TL108``/``TL504``/``set_logs`` diagnostics,
placing findings in lines and columns, reading files.

Offsets in :class:`Finding` are code points into the document text; ``line`` and
``column`` are 0-based, the column counted in code points (the CLI prints them 1-based).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import Path

from torch_logs_lsp import hosts
from torch_logs_lsp.files import MAX_FILE_BYTES, SkippedFile, read_regular
from torch_logs_lsp.hosts.embedded import LAYER, PWSH
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.set_logs.checks import check_set_logs
from torch_logs_lsp.set_logs.keywords import set_logs_signature
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, Severity, analyse, with_diagnostic
from torch_logs_lsp.value.analysis_cache import AnalysisCache
from torch_logs_lsp.value.family import check_family_value, cross_hints
from torch_logs_lsp.value.parser import ParsedValue
from torch_logs_lsp.value.paths import Where

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Finding:
    """A diagnostic placed in a document: ``start``/``end`` are document offsets (code
    points), ``line``/``column`` the 0-based position of ``start`` (column in code
    points), ``end_line``/``end_column`` that of ``end``. ``span``: the value it is
    about, ``None`` for a diagnostic of a ``set_logs(...)`` call (:func:`call_diagnostics`)."""

    span: ValueSpan | None
    diagnostic: Diagnostic
    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int


class LineIndex:
    """Maps document offsets (code points) to 0-based (line, column in code points).

    Lines end at ``\\n``; a ``\\r`` before it belongs to the line's text, as editors and
    the LSP treat ``\\r\\n``. A lone ``\\r`` also ends a line (LSP specification).
    """

    def __init__(self, text: str) -> None:
        if "\r" in text:
            self.starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
        else:  # the common case, at C speed: each line's length plus its "\n"
            lengths = map((1).__add__, map(len, text.split("\n")))
            self.starts = list(accumulate(lengths, initial=0))[:-1]

    def position(self, offset: int) -> tuple[int, int]:
        """0-based ``(line, column)`` of a document offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def offset(self, line: int, column: int) -> int:
        """Document offset of a 0-based ``(line, column)``; clamps to the document."""
        if line >= len(self.starts):
            return self.starts[-1]
        return self.starts[line] + column


class LazyLineIndex:
    """A :class:`LineIndex` of ``text`` built on the first :meth:`position` (a file
    without findings never needs one)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._index: LineIndex | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """See :meth:`LineIndex.position`."""
        if self._index is None:
            self._index = LineIndex(self._text)
        return self._index.position(offset)


def analyse_span(
    span: ValueSpan,
    registry: Registry,
    finder: ModuleFinder | None = None,
    cache: AnalysisCache | None = None,
    base_dir: Where | str | None = None,
) -> Analysis | None:
    """Analyse the value of a span (TORCH_LOGS: module names resolved with ``finder``,
    through ``cache`` when given; the other family variables with :mod:`.family`, paths
    judged where ``base_dir`` says: a :class:`.paths.Where`, or a directory relative paths
    are resolved against); ``None`` for a value that is not static (no diagnostics for
    what we cannot know).

    The analysis of a variable other than TORCH_LOGS has no items and no configuration."""
    if span.value is None:
        return None
    if not span.terminated:
        return None  # the user is still typing the closing quote
    if span.variable != "TORCH_LOGS":
        value = span.value
        diags = tuple(check_family_value(span.variable, value, registry.release, base_dir))
        errors = any(d.severity == Severity.ERROR for d in diags)
        parsed = ParsedValue(value, (), (), True, 0, len(value))
        return Analysis(value, registry.release, parsed, diags, "invalid" if errors else "ok", None)
    runs_on = hosts.runs_on(span.host)
    if cache is not None:
        return cache.analyse(span.value, registry, finder, runs_on)
    return analyse(span.value, registry, finder, runs_on)


#: Words whose typing in a value could change what the hosts' notes find (an import of
#: torch, a name for ``os.environ``, a re-read of the variables): a value holding none is
#: read by no note (the notes follow from where values sit, and from an empty value).
_NOTE_WORDS = ("torch", "environ", "import", "_init_logs", "set_logs")


def _note_free(span: ValueSpan) -> bool:
    """Whether an edit inside this value changes no host note: static, not empty, and
    none of :data:`_NOTE_WORDS` in it."""
    value = span.value
    if not value:
        return False
    lowered = value.lower()
    return not any(w in lowered for w in _NOTE_WORDS)


def with_host_notes(
    host: HostKind,
    text: str,
    entries: list[tuple[ValueSpan, Analysis | None]],
    unplaced: list[Diagnostic] | None = None,
    kept: DocumentCache | None = None,
) -> list[tuple[ValueSpan, Analysis | None]]:
    """``entries`` (every span of ``text`` with its analysis, in order) with the host's
    own warnings (:meth:`.hosts.interface.NotesHost.notes`, e.g. the Python host's TL501)
    added over the whole value of the analyses they are about. A note with the code of
    one of the analysis's diagnostics replaces that one's message instead (as a warning:
    the PowerShell host's TL001, true in some PowerShell versions only). A note on a value
    that is not static (``os.environ["TORCH_TRACE"] = trace_dir``: where it is written
    decides, not what it holds) is appended to ``unplaced`` when given, over the value's
    source (document offsets). ``kept``: the document's cache, which keeps the notes
    (by span index) while edits stay inside one value that cannot change them
    (:func:`_note_free`)."""
    module = hosts.notes_host(host)
    if module is None or not entries:
        return entries
    spans = [span for span, _ in entries]
    if kept is not None:
        notes = kept.remembered(
            "host notes", host, text, spans, _note_free, lambda: module.notes(text, spans)
        )
    else:
        notes = module.notes(text, spans)
    if not notes:
        return entries
    out = list(entries)
    for index, code, message, severity in notes:
        span, analysis = out[index]
        if span.value is None and span.terminated and unplaced is not None:
            unplaced.append(Diagnostic(code, severity, message, span.raw_start, span.raw_end))
        elif analysis is not None and span.value is not None:
            diag = Diagnostic(code, severity, message, 0, len(span.value))
            same = [d for d in analysis.diagnostics if d.code == code]
            if same:  # the host's words for the analysis's own finding (PowerShell's TL001)
                diag = replace(same[0], message=message, severity=severity)
                reworded = tuple(diag if d is same[0] else d for d in analysis.diagnostics)
                out[index] = (span, replace(analysis, diagnostics=reworded))
            else:
                out[index] = (span, with_diagnostic(analysis, diag))
    return out


def stderr_captured(host: HostKind, text: str, spans: list[ValueSpan]) -> Callable[[int], bool]:
    """``captured(i)``: whether the document ``text`` (of ``host`` kind) already keeps the
    stderr of the process that reads ``spans[i]`` (``spans``: its spans, in order), as the
    host's :meth:`~.hosts.interface.OutputHost.stderr_captured` says. The host is asked
    once, on the first call (most documents never need it); a host without the capability,
    or one that fails, keeps nothing. Never raises."""
    flags: list[bool] | None = None

    def captured(i: int) -> bool:
        nonlocal flags
        if flags is None:
            module = hosts.output_host(host)
            try:
                flags = module.stderr_captured(text, spans) if module is not None else []
            except Exception:  # a host bug keeps the hint: it is only a hint
                flags = []
            if len(flags) != len(spans):
                flags = [False] * len(spans)
        return 0 <= i < len(flags) and flags[i]

    return captured


def with_cross_hints(
    entries: list[tuple[ValueSpan, Analysis | None]],
    cache: AnalysisCache | None = None,
    captured: Callable[[int], bool] | None = None,
) -> list[tuple[ValueSpan, Analysis | None]]:
    """``entries`` with the hints across the variables of one document (see
    :func:`.family.cross_hints`; ``captured(i)``: whether the stderr of the process reading
    ``entries[i]`` is already kept, see :func:`stderr_captured`) added to the analyses they
    are about (through ``cache``, which keeps one hinted copy per analysis and hint, when
    given)."""
    out = list(entries)
    if cache is not None:
        hints = cross_hints(entries, cache.output_code_hint, captured)
    else:
        hints = cross_hints(entries, captured=captured)
    for i, diag in hints:
        span, analysis = out[i]
        if analysis is not None:
            if cache is not None:
                out[i] = (span, cache.with_diagnostic(analysis, diag))
            else:
                out[i] = (span, with_diagnostic(analysis, diag))
    return out


#: The code of a quote left open in a saved file (:func:`check_text`; not in an editor,
#: where the closing quote may simply not be typed yet).
UNTERMINATED = "TL108"


def unterminated_analysis(span: ValueSpan, release: str) -> Analysis | None:
    """For a span whose opening quote is never closed in a whole file: an analysis with
    the single diagnostic :data:`UNTERMINATED` over the value (code points of the value
    up to the line end), since the variable is then never set. ``None`` for a terminated
    span, a value that is not static, or a host where the outcome is not certain (JSONC:
    VS Code's lenient parser may still read such a string)."""
    module = hosts.host_module(span.host)
    reason = module.NEVER_SET if module is not None else None
    if span.terminated or span.value is None or reason is None:
        return None
    quote = (span.quote or "").split(LAYER)[0].lstrip(PWSH) or '"'  # code in code: the inner one
    message = f"the closing {quote} is missing: {reason}, so this {span.variable} is never set"
    diag = Diagnostic(UNTERMINATED, Severity.ERROR, message, 0, len(span.value))
    parsed = ParsedValue(span.value, (), (), True, 0, len(span.value))
    # import torch is not affected: it never sees the value
    return Analysis(span.value, release, parsed, (diag,), "ok", None)


#: The code of a place where the program that reads a file stops before any process
#: sees its values (:meth:`.hosts.interface.Host.stops`: pytest-env rejecting an entry).
STOPPED = "TL504"


def stop_diagnostics(host: HostKind, text: str) -> list[Diagnostic]:
    """:data:`STOPPED` errors of ``text`` (a document of ``host`` kind), document offsets,
    in document order. Never raises."""
    module = hosts.stops_host(host)
    if module is None:
        return []
    found = module.stops(text)
    return [Diagnostic(STOPPED, Severity.ERROR, s.message, s.start, s.end) for s in found]


def call_diagnostics(
    host: HostKind,
    text: str,
    registry: Registry,
    finder: ModuleFinder | None = None,
    binding_first: bool = True,
) -> list[Diagnostic]:
    """The diagnostics of the ``torch._logging.set_logs(...)`` calls of ``text`` (found by
    the host: :meth:`.hosts.interface.Host.set_logs_calls`; checked by
    :func:`.set_logs.check_set_logs` for ``registry``'s torch, ``modules=`` keys with
    ``finder``; ``binding_first``: see there), their offsets document offsets (code points),
    in document order.
    Never raises."""
    module = hosts.set_logs_host(host)
    if module is None:
        return []
    calls = module.set_logs_calls(text)
    if not calls:
        return []
    signature = set_logs_signature(registry)
    out: list[Diagnostic] = []
    for call in calls:
        out += check_set_logs(
            call, registry, signature=signature, finder=finder, binding_first=binding_first
        )
    return out


#: What every finding of a document needs in its text (any case): a family name or a near
#: miss of one (:data:`.misspelled.BROAD`), another name of a prefix torch owns
#: (:data:`.env_reads.OWNED`, :mod:`.knobs`), a pin comment (``torch-logs:``), a
#: ``set_logs`` call (also TL632's launch links). Searched in the lower-cased bytes:
#: ``bytes.lower`` is ~10 times faster than ``str.lower``, and a pattern with a literal
#: prefix is searched at C speed (``IGNORECASE`` is not: 1.6 ms for a 20 KB file).
_MAY_FIND = re.compile(
    rb"torch[-_]?(?:logs?|traces?|compile_?debug)|torch_(?:dtrace|compile)|torch(?:dynamo|inductor)_"
)
#: Non-ASCII letters that ``BROAD``'s case-insensitive match takes for ``s`` and ``k``
#: (U+017F, U+212A, in UTF-8): a document holding one is always checked.
_FOLDED = (b"\xc5\xbf", b"\xe2\x84\xaa")


def may_find(data: bytes) -> bool:
    """``False`` only when a document (its UTF-8 bytes) certainly has no finding of any
    host: ``check`` over a tree neither decodes nor parses most files."""
    lowered = data.lower()
    if b"set_logs" in lowered or _MAY_FIND.search(lowered) is not None:
        return True
    return not lowered.isascii() and any(letter in lowered for letter in _FOLDED)


#: Byte order marks of UTF-16 and UTF-32 (Windows PowerShell 5.1's ``Out-File`` writes
#: UTF-16LE): such a file is reported as skipped, not read as UTF-8 and found empty.
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


#: How much of a file is looked at for a NUL byte: git's ``buffer_is_binary``
#: (``xdiff-interface.c``, ``FIRST_FEW_BYTES``), which ripgrep's binary detection follows.
BINARY_PROBE = 8000


def read_bytes(path: Path) -> bytes:
    """The bytes of a document, as :func:`read_document` reads them (same errors; also
    :class:`.files.SkippedFile`, with no error, for a UTF-16 or UTF-32 file, and for a
    binary one: a NUL byte in its first :data:`BINARY_PROBE` bytes, as git decides; no
    file kind we check holds one, so it is never parsed)."""
    data = read_regular(path, MAX_FILE_BYTES)
    if data.startswith(_WIDE_BOMS):
        raise SkippedFile(str(path), "UTF-16 or UTF-32 text; only UTF-8 is read (save it as UTF-8)")
    if b"\0" in data[:BINARY_PROBE]:
        raise SkippedFile(str(path), "binary: a NUL byte in its first 8000 bytes")
    return data


def read_document(path: Path) -> str:
    """Read a file as UTF-8 (undecodable bytes replaced), keeping line endings.

    Raises :class:`.files.SkippedFile` when it cannot be read, is not a regular file (a
    FIFO would block; never opened for reading) or is larger than :data:`MAX_FILE_BYTES`.
    """
    return read_bytes(path).decode("utf-8", "replace")


__all__ = [
    "STOPPED",
    "UNTERMINATED",
    "Finding",
    "LazyLineIndex",
    "LineIndex",
    "Severity",
    "analyse_span",
    "call_diagnostics",
    "may_find",
    "read_bytes",
    "read_document",
    "stderr_captured",
    "stop_diagnostics",
    "unterminated_analysis",
    "with_cross_hints",
    "with_host_notes",
]
