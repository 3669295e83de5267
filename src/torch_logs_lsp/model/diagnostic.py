"""Diagnostics of a TORCH_LOGS value: stable codes (``docs/codes.md``), severities, the
finding itself, and the cap on how many one value shows (:data:`.limits.MAX_DIAGNOSTICS`).
All offsets are code points into the decoded value."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from torch_logs_lsp.model.limits import MAX_DIAGNOSTICS

EMPTY_VALUE = "TL001"
HELP = "TL002"
UNKNOWN_NAME = "TL201"
MODULE_NAME = "TL202"
INVALID_MODULE_NAME = "TL203"
MODULE_NOT_FOUND = "TL204"
NOT_IN_RELEASE = "TL205"
RENAMED_NAME = "TL206"
PREFIX_IGNORED = "TL301"
DUPLICATE_ITEM = "TL302"
CONFLICTING_ITEMS = "TL303"
OVERLAPPING_LOGGERS = "TL304"
MORE_PROBLEMS = "TL901"


class Severity(IntEnum):
    """Diagnostic severity; the numbers are the LSP ``DiagnosticSeverity`` values."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4


@dataclass(frozen=True)
class Diagnostic:
    """A finding on the value: stable ``code``, one-line ``message``, range
    ``[start, end)`` in code points of the decoded value, and ``suggestions``: names that
    could replace the text in the range's item name (best first)."""

    code: str
    severity: Severity
    message: str
    start: int
    end: int
    suggestions: tuple[str, ...] = ()


def capped(
    diagnostics: list[Diagnostic], limit: int = MAX_DIAGNOSTICS
) -> tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]:
    """Split diagnostics sorted by position into what is shown and what is hidden: the
    first ``limit`` plus one ``TL901`` summary of the rest (as severe as the most severe
    of them; its range runs from the first hidden one to the furthest hidden end), and the
    rest. Fewer than ``limit + 1``: all shown, nothing hidden."""
    if len(diagnostics) <= limit:
        return tuple(diagnostics), ()
    hidden = tuple(diagnostics[limit:])
    severity = min(d.severity for d in hidden)
    end = max(d.end for d in hidden)
    msg = f"{len(hidden)} more problems in this value not shown (first {limit} shown)"
    summary = Diagnostic(MORE_PROBLEMS, severity, msg, hidden[0].start, end)
    return (*diagnostics[:limit], summary), hidden


__all__ = [
    "CONFLICTING_ITEMS",
    "DUPLICATE_ITEM",
    "EMPTY_VALUE",
    "HELP",
    "INVALID_MODULE_NAME",
    "MODULE_NAME",
    "MODULE_NOT_FOUND",
    "MORE_PROBLEMS",
    "NOT_IN_RELEASE",
    "OVERLAPPING_LOGGERS",
    "PREFIX_IGNORED",
    "RENAMED_NAME",
    "UNKNOWN_NAME",
    "Diagnostic",
    "Severity",
    "capped",
]
