"""Check documents: host detection + extraction + analysis, the part shared by the CLI and
the language server.

Offsets in :class:`Finding` are code points into the document text; ``line`` and
``column`` are 0-based, the column counted in code points (the CLI prints them 1-based).
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from . import hosts
from .analysis import Analysis, Diagnostic, Severity, analyse, with_diagnostic
from .analysis_cache import AnalysisCache
from .family import check_family_value, cross_hints
from .files import MAX_FILE_BYTES, SkippedFile, file_kind, read_head, read_regular
from .hosts import typographic
from .hosts.base import ValueSpan
from .hosts.embedded import LAYER
from .misspelled import name_diagnostics
from .modules import ModuleFinder
from .notebook import NOTEBOOK, is_notebook
from .parser import ParsedValue
from .paths import Where, places
from .registry import Registry, load_registry
from .set_logs import check_set_logs
from .set_logs_keywords import set_logs_signature

#: Directories never entered when walking a tree.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        ".ipynb_checkpoints",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
        "build",
        "dist",
    }
)

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


def with_host_notes(
    host: str, text: str, entries: list[tuple[ValueSpan, Analysis | None]]
) -> list[tuple[ValueSpan, Analysis | None]]:
    """``entries`` (every span of ``text`` with its analysis, in order) with the host's
    own warnings (:meth:`.hosts.interface.Host.notes`, e.g. the Python host's TL501)
    added over the whole value of the analyses they are about."""
    module = hosts.host_module(host)
    if module is None or not entries:
        return entries
    notes = module.notes(text, [span for span, _ in entries])
    if not notes:
        return entries
    out = list(entries)
    for index, code, message in notes:
        span, analysis = out[index]
        if analysis is not None and span.value is not None:
            diag = Diagnostic(code, Severity.WARNING, message, 0, len(span.value))
            out[index] = (span, with_diagnostic(analysis, diag))
    return out


def with_cross_hints(
    entries: list[tuple[ValueSpan, Analysis | None]],
    cache: AnalysisCache | None = None,
) -> list[tuple[ValueSpan, Analysis | None]]:
    """``entries`` with the hints across the variables of one document (see
    :func:`.family.cross_hints`) added to the analyses they are about (through ``cache``,
    which keeps one hinted copy per analysis and hint, when given)."""
    out = list(entries)
    hints = cross_hints(entries, cache.output_code_hint) if cache else cross_hints(entries)
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
    quote = (span.quote or "").split(LAYER)[0] or '"'  # code in code: the inner quote
    message = f"the closing {quote} is missing: {reason}, so this {span.variable} is never set"
    diag = Diagnostic(UNTERMINATED, Severity.ERROR, message, 0, len(span.value))
    parsed = ParsedValue(span.value, (), (), True, 0, len(span.value))
    # import torch is not affected: it never sees the value
    return Analysis(span.value, release, parsed, (diag,), "ok", None)


def check_text(
    text: str,
    host: str,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    base_dir: str | None = None,
    quotes: list[Diagnostic] | None = None,
    roots: tuple[str, ...] | None = None,
) -> list[tuple[ValueSpan, Analysis]]:
    """Extract the spans of ``text`` (a whole file of ``host`` kind) and analyse each
    (paths of TORCH_LOGS_OUT / TORCH_TRACE: relative ones against ``base_dir``, not
    checked without one; only inside the workspace ``roots`` when given; see
    :func:`places`). A quote left open to the end of the file is a finding here
    (:func:`unterminated_analysis`), unlike in an editor. ``quotes``: when given, the
    TL109 diagnostics (typographic quotes, document offsets) are appended to it.

    Never raises for any input text.
    """
    reg = registry or load_registry()
    spans = hosts.extract(host, text)
    wheres = places(host, text, spans, base_dir, roots)
    entries: list[tuple[ValueSpan, Analysis | None]] = [
        (
            span,
            unterminated_analysis(span, reg.release)
            or analyse_span(span, reg, finder, base_dir=where),
        )
        for span, where in zip(spans, wheres, strict=True)
    ]
    from .dead_values import with_document_hints  # it imports this module

    entries = with_document_hints(host, text, entries)
    entries, found = typographic.apply(host, text, entries)  # TL109
    if quotes is not None:
        quotes += [q.diagnostic() for q in found]
    return [(s, a) for s, a in entries if a is not None]


def call_diagnostics(
    host: str, text: str, registry: Registry, finder: ModuleFinder | None = None
) -> list[Diagnostic]:
    """The diagnostics of the ``torch._logging.set_logs(...)`` calls of ``text`` (found by
    the host: :meth:`.hosts.interface.Host.set_logs_calls`; checked by
    :func:`.set_logs.check_set_logs` for ``registry``'s torch, ``modules=`` keys with
    ``finder``), their offsets document offsets (code points), in document order.
    Never raises."""
    module = hosts.host_module(host)
    if module is None:
        return []
    calls = module.set_logs_calls(text)
    if not calls:
        return []
    signature = set_logs_signature(registry)
    out: list[Diagnostic] = []
    for call in calls:
        out += check_set_logs(call, registry, signature=signature, finder=finder)
    return out


def findings(
    text: str,
    host: str,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    base_dir: str | None = None,
    roots: tuple[str, ...] | None = None,
) -> list[Finding]:
    """Every diagnostic of a document, placed in document coordinates, in order (values,
    ``set_logs`` calls, misspelled variable names: :mod:`.misspelled`; paths judged as by
    :func:`check_text`)."""
    index = LineIndex(text)
    out: list[Finding] = []
    quotes: list[Diagnostic] = []  # TL109, document offsets
    for span, result in check_text(text, host, registry, finder, base_dir, quotes, roots):
        for diag in result.diagnostics:
            start, end = span.document_range(diag.start, diag.end)
            line, column = index.position(start)
            end_line, end_column = index.position(end)
            out.append(Finding(span, diag, start, end, line, column, end_line, end_column))
    reg = registry or load_registry()
    document_wide = quotes + call_diagnostics(host, text, reg, finder)
    for diag in document_wide + name_diagnostics(host, text, reg.release):
        line, column = index.position(diag.start)
        end_line, end_column = index.position(diag.end)
        out.append(Finding(None, diag, diag.start, diag.end, line, column, end_line, end_column))
    out.sort(key=lambda f: (f.start, f.end, f.diagnostic.code))
    return out


def iter_files(
    paths: list[str], skipped: Callable[[SkippedFile], None] | None = None
) -> Iterator[tuple[Path, str]]:
    """Files under ``paths`` that hold a host kind, with that kind, in sorted order
    (Jupyter notebooks too, with the kind :data:`.notebook.NOTEBOOK`).

    A path naming a file is checked when its kind can be detected (content included);
    directories are walked (:func:`walk`), skipping :data:`SKIP_DIRS` and virtualenvs
    (``pyvenv.cfg``), without following symlinked directories. A path given twice (or a
    file reached twice) is yielded once. Raises ``FileNotFoundError`` for a path that does
    not exist.

    Only names and ``stat`` (symlinks followed) are looked at before a file is opened: a
    FIFO, a device or a socket found by walking is never opened (a process writing into
    a FIFO keeps waiting, a ``/proc/kmsg`` link is not consumed); one whose name gives a
    kind is reported. The first bytes of a regular file whose name gives no kind (an
    extensionless script, a dotfile) are read with :func:`.files.read_head`. Each path
    that cannot be looked at is handed to ``skipped`` and left out: a directory that
    cannot be listed, a file that cannot be ``stat``-ed or whose first bytes cannot be
    read (``SkippedFile.error`` set), a path that is not a regular file or directory
    (``error`` ``None``). The files yielded may still fail to read (or be replaced by a
    FIFO meanwhile): :func:`read_document` raises then.
    """
    report = skipped or (lambda exc: None)
    seen: set[str] = set()

    def first_time(path: Path) -> bool:
        key = os.path.normpath(os.path.abspath(path))
        if key in seen:
            return False
        seen.add(key)
        return True

    for raw in paths:
        path = Path(raw)
        try:
            info = os.stat(raw)
        except FileNotFoundError:
            raise FileNotFoundError(raw) from None
        except OSError as exc:
            report(SkippedFile(raw, f"cannot open: {exc.strerror or exc}", exc))
            continue
        if not stat.S_ISDIR(info.st_mode):
            if not stat.S_ISREG(info.st_mode):
                report(SkippedFile(raw, f"{file_kind(info.st_mode)}, not a regular file"))
                continue
            kind = _kind_of(path, report)
            if kind and first_time(path):
                yield path, kind
            continue
        for entry in walk(raw, report):
            file = Path(entry.path)
            name = str(file)
            named = _notebook_kind(name) or hosts.detect_host(name, "")
            if not named and file.suffix and not file.name.startswith("."):
                continue  # no kind by name, and not a script's name: never looked at
            try:
                mode = entry.stat().st_mode  # follows a symlink; no open
            except OSError as exc:
                report(SkippedFile(name, f"cannot open: {exc.strerror or exc}", exc))
                continue
            if not stat.S_ISREG(mode):
                if named:  # a FIFO named .env: say why it is not checked
                    report(SkippedFile(name, f"{file_kind(mode)}, not a regular file"))
                continue
            kind = named or _kind_of(file, report)
            if kind and first_time(file):
                yield file, kind


def walk(top: str, report: Callable[[SkippedFile], None]) -> Iterator[os.DirEntry[str]]:
    """The non-directory entries under the directory ``top``, depth first in sorted
    order (a directory's files, then each subdirectory's, as ``os.walk`` top-down with
    sorted names), skipping :data:`SKIP_DIRS` and virtualenvs (``pyvenv.cfg``).

    Iterative (its own stack, ``os.scandir``): a tree thousands of levels deep does not
    hit Python's recursion limit. A symlink to a directory is not entered (so a symlink
    loop is never followed) nor yielded; a broken symlink is yielded like a file. A
    directory that cannot be listed is handed to ``report`` as a :class:`SkippedFile`
    ("cannot list: ...") and the walk goes on."""
    stack = [top]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            report(SkippedFile(str(Path(root)), f"cannot list: {exc.strerror or exc}", exc))
            continue
        subdirs: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # follows a symlink, like os.walk
            except OSError:
                is_dir = False
            if not is_dir:
                yield entry
            elif (
                entry.name not in SKIP_DIRS
                and not _is_symlink(entry)
                and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
            ):
                subdirs.append(entry.path)
        stack.extend(reversed(subdirs))


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # cannot tell: do not enter it


def _kind_of(path: Path, report: Callable[[SkippedFile], None]) -> str | None:
    """The host kind of a file by its name, else by its first bytes (only when the name
    could be a script's: no extension, or a dotfile); a Jupyter notebook is
    :data:`.notebook.NOTEBOOK`, a kind of file but no host's document (first: the
    IPython cell host claims ``*.ipynb`` names for the cells an editor opens)."""
    kind = _notebook_kind(str(path)) or hosts.detect_host(str(path), "")
    if kind or (path.suffix and not path.name.startswith(".")):
        return kind
    try:
        head = read_head(path, 256).decode("utf-8", "replace")
    except SkippedFile as exc:
        if exc.error is not None:  # a FIFO or device has no kind to detect: not reported
            report(exc)
        return None
    return hosts.detect_host(str(path), head)


def _notebook_kind(name: str) -> str | None:
    return NOTEBOOK if is_notebook(name) else None


def read_document(path: Path) -> str:
    """Read a file as UTF-8 (undecodable bytes replaced), keeping line endings.

    Raises :class:`.files.SkippedFile` when it cannot be read, is not a regular file (a
    FIFO would block; never opened for reading) or is larger than :data:`MAX_FILE_BYTES`.
    """
    return read_regular(path, MAX_FILE_BYTES).decode("utf-8", "replace")


__all__ = [
    "UNTERMINATED",
    "Finding",
    "LineIndex",
    "Severity",
    "analyse_span",
    "call_diagnostics",
    "check_text",
    "findings",
    "iter_files",
    "read_document",
    "walk",
    "with_cross_hints",
    "with_host_notes",
]
