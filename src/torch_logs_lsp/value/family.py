"""Checks of the variables that travel with TORCH_LOGS: ``TORCH_LOGS_FORMAT``,
``TORCH_LOGS_OUT``, ``TORCH_TRACE``, ``TORCH_LOGS_TRACE_ID_FILTER``, ``TORCH_COMPILE_DEBUG``.

Facts from ``torch/_logging/_internal.py`` of torch 2.13.0 (``_default_formatter``,
``_init_logs``, ``LazyTraceHandler``) and ``torch/_guards.py`` (``CompileId``/``TraceId``
``__str__``):

- ``TORCH_LOGS_FORMAT``: ``short``/``basic`` (2.3+) mean ``logging.BASIC_FORMAT``; any other
  set value, the empty one included, is passed to ``logging.Formatter(fmt)``, which raises
  ``ValueError`` at ``import torch`` unless ``logging.PercentStyle(fmt).validate()`` passes.
  A set format replaces torch's formatter, so ``TORCH_LOGS_TRACE_ID_FILTER`` is not used.
- ``TORCH_LOGS_OUT``: ``logging.FileHandler(value)`` at ``import torch`` (the path relative
  to the process's working directory): a missing directory raises ``FileNotFoundError``, a
  directory (or the empty value, the working directory) ``IsADirectoryError``.
- ``TORCH_TRACE``: a directory, created with ``os.makedirs`` on the first trace event.
- ``TORCH_LOGS_TRACE_ID_FILTER``: comma-separated items, stripped, compared with the record's
  ``[<trace id>]``; a trace id is ``F/C``, ``!A`` or ``!A/F/C``, with ``_N`` (N >= 1) for a
  restarted attempt, numbers written without leading zeros.

All checks are pure functions of the value, the torch release and (for paths) a base
directory; offsets are code points into the decoded value.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence

from torch_logs_lsp.knowledge.registry import release_tuple
from torch_logs_lsp.knowledge.versions import fact, holds
from torch_logs_lsp.model.diagnostic import capped
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, Severity
from torch_logs_lsp.value.paths import Where, as_where, created, judged_path

INVALID_FORMAT = "TL401"
OUT_DIR_MISSING = "TL402"
TRACE_IS_FILE = "TL403"
BAD_TRACE_ID = "TL404"
NOT_READ = "TL405"
OUT_IS_DIR = "TL406"
UNKNOWN_FIELD = "TL407"
OUTPUT_CODE_NO_FILE = "TL411"
FORMAT_DISABLES_FILTER = "TL412"
DEBUG_AND_TRACE = "TL413"

#: The fact of :mod:`.versions` that says since when torch reads a variable (``None``:
#: every packaged release).
SINCE_FACT: dict[str, str | None] = {
    "TORCH_LOGS": None,
    "TORCH_LOGS_FORMAT": "logs_format",
    "TORCH_LOGS_OUT": "logs_out",
    "TORCH_TRACE": "torch_trace",
    "TORCH_LOGS_TRACE_ID_FILTER": "trace_id_filter",
    "TORCH_COMPILE_DEBUG": None,
}

#: Named formats (2.3+): torch replaces them with ``logging.BASIC_FORMAT``.
NAMED_FORMATS = ("short", "basic")

#: Attributes a ``logging.LogRecord`` has when a ``logging.Formatter`` formats it.
LOG_RECORD_FIELDS: tuple[str, ...] = (
    "asctime",
    "created",
    "filename",
    "funcName",
    "levelname",
    "levelno",
    "lineno",
    "message",
    "module",
    "msecs",
    "name",
    "pathname",
    "process",
    "processName",
    "relativeCreated",
    "thread",
    "threadName",
    "taskName",
)

#: What each LogRecord attribute holds (Python's ``logging`` documentation, abridged).
FIELD_DOCS: dict[str, str] = {
    "asctime": "Time the record was created, human-readable (`2003-07-08 16:49:45,896`).",
    "created": "Time the record was created (`time.time()`).",
    "filename": "File name part of `pathname`.",
    "funcName": "Name of the function that logged.",
    "levelname": "Level: `DEBUG`, `INFO`, `WARNING`, `ERROR`, `CRITICAL`.",
    "levelno": "Numeric level (10 DEBUG ... 50 CRITICAL).",
    "lineno": "Source line number of the logging call.",
    "message": "The logged message, `msg % args`.",
    "module": "Module name part of `filename`.",
    "msecs": "Millisecond part of the creation time.",
    "name": "Name of the logger (`torch._dynamo`, `torch._inductor.graph` ...).",
    "pathname": "Full path of the source file of the logging call.",
    "process": "Process id.",
    "processName": "Process name.",
    "relativeCreated": "Milliseconds since the logging module was loaded.",
    "thread": "Thread id.",
    "threadName": "Thread name.",
    "taskName": "asyncio task name (Python 3.12 and newer).",
    "msg": "The format string passed to the logging call.",
    "args": "The arguments merged into `msg`.",
    "exc_info": "Exception tuple, or None.",
    "exc_text": "Formatted exception text, or None.",
    "stack_info": "Stack information, or None.",
}

#: Attributes torch's own formatter sets and a custom format does not have.
TORCH_ONLY_FIELDS = ("rankprefix", "traceid", "artifactprefix")

_FIELD = re.compile(r"%%|%\((\w+)\)")


def format_fields(fmt: str) -> list[tuple[str, int, int]]:
    """The ``%(name)`` fields of a %-style format: ``(name, start, end)`` of each name
    (``%%`` is a literal percent sign)."""
    return [(m.group(1), m.start(1), m.end(1)) for m in _FIELD.finditer(fmt) if m.group(1)]


_NUM = r"(?:0|[1-9]\d*)"
_TRACE_ID = re.compile(rf"\[(?:{_NUM}/{_NUM}|!{_NUM}(?:/{_NUM}/{_NUM})?)(?:_[1-9]\d*)?\]")


def format_valid(fmt: str) -> bool:
    """Whether ``logging.Formatter(fmt)`` accepts ``fmt`` (``%`` style, validated)."""
    try:
        logging.PercentStyle(fmt).validate()
    except ValueError:
        return False
    return True


def check_format(value: str, release: str) -> list[Diagnostic]:
    """TL401 for a TORCH_LOGS_FORMAT value that makes ``import torch`` raise."""
    if value in NAMED_FORMATS and holds("logs_format_short_basic", release):
        return []
    if format_valid(value):
        return [
            Diagnostic(
                UNKNOWN_FIELD,
                Severity.WARNING,
                f"{quote(name)} is not a LogRecord attribute"
                + (
                    " (torch sets it only in its own formatter, which TORCH_LOGS_FORMAT replaces)"
                    if name in TORCH_ONLY_FIELDS
                    else ""
                )
                + ": logging prints 'Formatting field not found in record' instead of "
                "each log line",
                start,
                end,
            )
            for name, start, end in format_fields(value)
            if name not in FIELD_DOCS
        ]
    why = "no `%(name)s` field"
    if value in NAMED_FORMATS:
        why = f"`{value}` is a named format only from torch 2.3 (here {release})"
    return [
        Diagnostic(
            INVALID_FORMAT,
            Severity.ERROR,
            f"invalid TORCH_LOGS_FORMAT: {why}; `import torch` raises ValueError "
            f"(logging.Formatter validates a %-style format); use `short`, `basic` or "
            f"e.g. `%(levelname)s %(name)s: %(message)s`",
            0,
            len(value),
        )
    ]


def check_out(value: str, base_dir: Where | str | None) -> list[Diagnostic]:
    """TL402 (missing directory) / TL406 (a directory) for TORCH_LOGS_OUT. Only a path
    that can be judged here is (:func:`.paths.judged_path`: a relative one against
    ``base_dir``, a base directory or a :class:`.paths.Where`); a directory the document
    creates earlier is not missing (:func:`.paths.created`)."""
    whole = (0, len(value))
    if value == "":
        return [
            Diagnostic(
                OUT_IS_DIR,
                Severity.WARNING,
                "empty TORCH_LOGS_OUT names the working directory: `import torch` raises "
                "IsADirectoryError; give a file path or remove the line",
                *whole,
            )
        ]
    where = as_where(base_dir)
    judged = judged_path(value, where)
    if judged is None:
        return []
    path, note = judged
    if os.path.isdir(path):
        return [
            Diagnostic(
                OUT_IS_DIR,
                Severity.WARNING,
                f"TORCH_LOGS_OUT names a directory ({path}){note}: `import torch` raises "
                "IsADirectoryError; name a file inside it",
                *whole,
            )
        ]
    parent = os.path.dirname(path)
    if not os.path.isdir(parent) and not created(parent, where):
        return [
            Diagnostic(
                OUT_DIR_MISSING,
                Severity.WARNING,
                f"directory {parent} does not exist{note}: `import torch` raises "
                "FileNotFoundError (torch does not create it)",
                *whole,
            )
        ]
    return []


def check_trace(value: str, base_dir: Where | str | None) -> list[Diagnostic]:
    """TL403 for a TORCH_TRACE that names an existing regular file (judged as in
    :func:`check_out`)."""
    if value == "":
        return []
    judged = judged_path(value, as_where(base_dir))
    if judged is None:
        return []
    path = judged[0]
    if os.path.isfile(path):
        return [
            Diagnostic(
                TRACE_IS_FILE,
                Severity.WARNING,
                f"TORCH_TRACE must be a directory, but {path} is a file: "
                "the first traced compile fails with FileExistsError (os.makedirs)",
                0,
                len(value),
            )
        ]
    return []


def check_trace_ids(value: str) -> list[Diagnostic]:
    """TL404 for each item of TORCH_LOGS_TRACE_ID_FILTER that no trace id can equal."""
    out: list[Diagnostic] = []
    pos = 0
    for part in value.split(","):
        start = pos + len(part) - len(part.lstrip())
        item = part.strip()
        pos += len(part) + 1
        if not item or _TRACE_ID.fullmatch(item):
            continue
        suggestions: tuple[str, ...] = ()
        if _TRACE_ID.fullmatch(f"[{item}]"):
            suggestions = (f"[{item}]",)
        hint = f"; did you mean {quote(suggestions[0])}?" if suggestions else ""
        out.append(
            Diagnostic(
                BAD_TRACE_ID,
                Severity.WARNING,
                f"{quote(item)} is not a trace id: torch compares items with `[frame/compile]` "
                f"(e.g. `[0/0]`, `[1/0_1]`, `[!0/1/0]`), so it matches nothing{hint}",
                start,
                start + len(item),
                suggestions,
            )
        )
    return out


def check_family_value(
    variable: str, value: str, release: str, base_dir: Where | str | None = None
) -> list[Diagnostic]:
    """Diagnostics of one family variable's (static) value; ``[]`` for TORCH_LOGS (paths
    judged where ``base_dir`` says: :func:`check_out`). Like a
    TORCH_LOGS value's, at most :data:`.limits.MAX_DIAGNOSTICS` and one ``TL901`` summary
    (in position order); messages quote excerpts of the value."""
    key = SINCE_FACT.get(variable)
    if key is not None and not holds(key, release):
        return [
            Diagnostic(
                NOT_READ,
                Severity.WARNING,
                f"{variable} is not read by torch {release} (from torch "
                f"{since(variable)}); it has no effect",
                0,
                len(value),
            )
        ]
    found: list[Diagnostic] = []
    if variable == "TORCH_LOGS_FORMAT":
        found = check_format(value, release)
    elif variable == "TORCH_LOGS_OUT":
        found = check_out(value, base_dir)
    elif variable == "TORCH_TRACE":
        found = check_trace(value, base_dir)
    elif variable == "TORCH_LOGS_TRACE_ID_FILTER":
        found = check_trace_ids(value)
    return list(capped(found)[0])  # at most MAX_DIAGNOSTICS and a TL901 summary


def since(variable: str) -> str:
    """First release that reads ``variable`` (``"2.1"``: every packaged release)."""
    key = SINCE_FACT.get(variable)
    return "2.1" if key is None else fact(key).since


def output_code_hint(analysis: Analysis | None) -> Diagnostic | None:
    """TL411 for a TORCH_LOGS analysis that enables ``output_code`` (on that item), to be
    given when the document sets no TORCH_LOGS_OUT and does not already keep the stderr of
    the process that reads the value; ``None`` otherwise."""
    if analysis is None or analysis.config is None:
        return None
    if "output_code" not in analysis.config.artifacts:
        return None
    for item in analysis.parsed.items:
        if item.name == "output_code":
            return Diagnostic(
                OUTPUT_CODE_NO_FILE,
                Severity.INFORMATION,
                "`output_code` prints all generated code (very long); "
                "set TORCH_LOGS_OUT=<file> to also keep it in a file",
                item.start,
                item.end,
            )
    return None


def cross_hints(
    entries: Sequence[tuple[ValueSpan, Analysis | None]],
    output_code: Callable[[Analysis | None], Diagnostic | None] = output_code_hint,
    captured: Callable[[int], bool] | None = None,
) -> list[tuple[int, Diagnostic]]:
    """Information-level hints across the variables of one document: ``(index into
    entries, diagnostic on that span's value)``. ``output_code``: :func:`output_code_hint`
    or a memoized version of it (a document repeats the same values). ``captured(i)``:
    whether the document already keeps the stderr of the process that reads
    ``entries[i]`` (redirected, piped or captured: torch logs there), asked only for a
    value that would get TL411, which it then does not; ``None``: never. TL413 names
    provenance tracking for the analysis's release 2.9 and later (``TORCH_COMPILE_DEBUG=1``
    sets ``trace.provenance_tracking_level`` there: each wheel's
    ``torch/_inductor/config.py``)."""
    present = {s.variable for s, _ in entries if s.value != ""}
    variables = {s.variable for s, _ in entries}
    out: list[tuple[int, Diagnostic]] = []
    for i, (span, analysis) in enumerate(entries):
        if span.value is None:
            continue
        if span.variable == "TORCH_LOGS":
            if "TORCH_LOGS_OUT" not in present:
                hint = output_code(analysis)
                if hint is not None and (captured is None or not captured(i)):
                    out.append((i, hint))
        elif (
            span.variable == "TORCH_LOGS_TRACE_ID_FILTER"
            and span.value.strip(" ,")
            and "TORCH_LOGS_FORMAT" in variables
        ):
            out.append(
                (
                    i,
                    Diagnostic(
                        FORMAT_DISABLES_FILTER,
                        Severity.INFORMATION,
                        "TORCH_LOGS_FORMAT is set in this file: torch then uses "
                        "logging.Formatter and ignores TORCH_LOGS_TRACE_ID_FILTER",
                        0,
                        len(span.value),
                    ),
                )
            )
        elif (
            span.variable == "TORCH_COMPILE_DEBUG"
            and span.value == "1"
            and "TORCH_TRACE" in present
        ):
            provenance = analysis is None or release_tuple(analysis.release) >= (2, 9)
            default = analysis is None or holds("compile_debug_trace", analysis.release)
            out.append(
                (
                    i,
                    Diagnostic(
                        DEBUG_AND_TRACE,
                        Severity.INFORMATION,
                        "TORCH_TRACE is set in this file too: structured traces go to "
                        + (
                            "TORCH_TRACE (not torch_compile_debug/.../tlparse), and "
                            if default
                            else "TORCH_TRACE, and "
                        )
                        + "TORCH_COMPILE_DEBUG=1 still writes its whole debug directory; "
                        "you may need only one of them"
                        + (
                            " (but TORCH_COMPILE_DEBUG=1 also turns on inductor's provenance "
                            "tracking, recorded in the trace: keep both for tlparse's "
                            "provenance view, or use INDUCTOR_PROVENANCE=1 instead)"
                            if provenance
                            else ""
                        ),
                        0,
                        len(span.value),
                    ),
                )
            )
    return out


__all__ = [
    "BAD_TRACE_ID",
    "DEBUG_AND_TRACE",
    "FIELD_DOCS",
    "FORMAT_DISABLES_FILTER",
    "INVALID_FORMAT",
    "LOG_RECORD_FIELDS",
    "NAMED_FORMATS",
    "NOT_READ",
    "OUTPUT_CODE_NO_FILE",
    "OUT_DIR_MISSING",
    "OUT_IS_DIR",
    "SINCE_FACT",
    "TORCH_ONLY_FIELDS",
    "TRACE_IS_FILE",
    "UNKNOWN_FIELD",
    "check_family_value",
    "check_format",
    "check_out",
    "check_trace",
    "check_trace_ids",
    "cross_hints",
    "format_fields",
    "format_valid",
    "output_code_hint",
    "since",
]
