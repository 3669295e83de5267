"""The table of diagnostic codes: the one place a code, its title, default severity,
fixability and first release are written. ``docs/codes.md`` is generated from it and from
``sections.md`` (:mod:`.markdown`; ``./dev gen``); ``torch-logs codes``, the code
selection and the SARIF rules read it.

Where the facts come from:

- ``severity``: the default severity the checks give (``model/diagnostic.py`` and each
  code's module), worded as the table has always worded it; the language server's
  ``torchLogs.severity`` setting overrides it per code.
- ``fix``: read from the fixers. ``value/fixes.py`` (``Fix.safe``) and ``value/levels.py``
  for the value fixes, ``lint/fixer.py`` for the removal of an assignment (TL001/TL002,
  never safe) and the typographic quotes (TL109), ``lint/set_logs_fixes.py`` (TL501, TL601-TL613;
  safe only ``torch=`` -> ``all=`` of TL602), ``server/features/name_actions.py`` (TL408, TL421)
  and ``server/features/suppress_actions.py`` (TL903). "Ignore CODE on this line", offered
  for every code, is not a fix.
- ``since``: the torch-logs release the code first ships in. Every code below is in 0.1.0,
  the first release (CHANGELOG.md; no release was tagged before it). A new code gets the
  version of the release it will first ship in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: How a code can be fixed: ``"none"``; ``"quick fix"`` (an editor code action only);
#: ``"--fix"`` (also a safe fix, at least in some cases, applied by the
#: ``source.fixAll.torch-logs`` action and ``torch-logs check --fix``).
Fixability = Literal["none", "quick fix", "--fix"]

FIRST_RELEASE = "0.1.0"


@dataclass(frozen=True)
class CodeInfo:
    """One code of the table: ``code`` (``"TL201"``), its default ``severity`` as the
    table words it (``"error / warning"``, ``"as the worst hidden one"``), its one-line
    ``title`` (markdown: backticks kept), ``fix`` (:data:`Fixability`) and ``since``
    (the torch-logs version it first ships in, ``"0.1.0"``)."""

    code: str
    severity: str
    title: str
    fix: Fixability
    since: str


def _c(code: str, severity: str, fix: Fixability, title: str) -> CodeInfo:
    return CodeInfo(code, severity, title, fix, FIRST_RELEASE)


E, W, EW = "error", "warning", "error / warning"
INFO, HINT = "information", "hint"
NONE: Fixability = "none"
QUICK: Fixability = "quick fix"
SAFE: Fixability = "--fix"

#: Every code, in documentation order.
CODES: tuple[CodeInfo, ...] = (
    _c("TL001", E, QUICK, "empty value"),
    _c("TL002", E, QUICK, "`help` / `+help`"),
    _c("TL101", E, SAFE, "leading or trailing whitespace"),
    _c("TL102", E, SAFE, "whitespace before a comma"),
    _c("TL103", E, SAFE, "empty item"),
    _c("TL104", E, SAFE, "trailing comma"),
    _c("TL105", E, SAFE, "more than one prefix"),
    _c("TL106", E, SAFE, "illegal character"),
    _c("TL107", "error / warning / information", SAFE, "quotes inside the value"),
    _c("TL108", E, NONE, "quote never closed (in a saved file)"),
    _c("TL109", EW, SAFE, "typographic quotes (`“+dynamo”`)"),
    _c("TL201", EW, SAFE, "unknown name"),
    _c("TL202", HINT, NONE, "module name"),
    _c("TL203", E, NONE, "invalid module name"),
    _c("TL204", EW, NONE, "module not found"),
    _c("TL205", E, SAFE, "name not in this torch release"),
    _c("TL206", E, SAFE, "name renamed in a later release"),
    _c("TL207", EW, SAFE, "a level in another logger's syntax (`name:DEBUG`)"),
    _c("TL208", EW, QUICK, "a level or switch word as an item (`DEBUG`, `1`)"),
    _c("TL301", W, SAFE, "prefix on an artifact is ignored"),
    _c("TL302", W, SAFE, "duplicate item"),
    _c("TL303", W, QUICK, "conflicting levels for one name"),
    _c("TL304", INFO, NONE, "a later component overrides loggers of an earlier one"),
    _c("TL401", E, NONE, "invalid `TORCH_LOGS_FORMAT`"),
    _c("TL402", W, NONE, "`TORCH_LOGS_OUT` directory does not exist"),
    _c("TL403", W, NONE, "`TORCH_TRACE` is an existing file"),
    _c("TL404", W, NONE, "malformed trace id in `TORCH_LOGS_TRACE_ID_FILTER`"),
    _c("TL405", W, NONE, "variable not read by this torch release"),
    _c("TL406", W, NONE, "`TORCH_LOGS_OUT` names a directory (or is empty)"),
    _c("TL407", W, NONE, "`TORCH_LOGS_FORMAT` field that is not a LogRecord attribute"),
    _c("TL408", W, QUICK, "misspelled variable name (`TORCH_LOG`): torch does not read it"),
    _c("TL411", INFO, NONE, "`output_code` without `TORCH_LOGS_OUT`"),
    _c("TL412", INFO, NONE, "a custom format disables the trace-id filter"),
    _c("TL413", INFO, NONE, "`TORCH_COMPILE_DEBUG=1` together with `TORCH_TRACE`"),
    _c("TL421", W, QUICK, "variable of a prefix torch owns that no release reads"),
    _c("TL422", W, NONE, "`~` in a trace or log path: torch does not expand it"),
    _c("TL423", W, NONE, "`TORCH_DTRACE` together with `TORCH_TRACE`: DTRACE wins"),
    _c("TL424", INFO, NONE, "`TORCHDYNAMO_VERBOSE=1` without `TORCH_LOGS` shows no logs"),
    _c("TL431", HINT, QUICK, "enabled log not printed when the compiled graph is cached"),
    _c(
        "TL441",
        W,
        NONE,
        "a compile knob's value torch never matches (`TORCHINDUCTOR_MAX_AUTOTUNE=true`)",
    ),
    _c("TL501", W, QUICK, "set in Python after `import torch`: no effect"),
    _c("TL502", HINT, NONE, "value overwritten before any process sees it"),
    _c(
        "TL503",
        W,
        NONE,
        "stored for later processes only: `setx` (batch), "
        "`SetEnvironmentVariable(..., 'User')` (PowerShell)",
    ),
    _c(
        "TL504",
        E,
        NONE,
        "pytest stops before any test runs: pytest-env rejects an entry of the file",
    ),
    _c("TL505", INFO, NONE, "set in Python after `import torch`: only child processes see it"),
    _c("TL601", E, QUICK, "`set_logs()` keyword that no torch release has"),
    _c("TL602", E, SAFE, "registered name that is not a `set_logs` keyword"),
    _c("TL603", E, QUICK, "`set_logs` keyword of other torch releases"),
    _c("TL604", E, NONE, "`set_logs` keyword that names no registered log (torch 2.4)"),
    _c("TL605", E, NONE, "keyword given twice in one call"),
    _c("TL606", E, NONE, "positional argument to `set_logs()`"),
    _c("TL611", E, QUICK, "component (or `all`) value that is not a level"),
    _c("TL612", E, QUICK, "artifact value that is not a bool"),
    _c("TL613", W, QUICK, '`False` as a level (NOTSET, not "off")'),
    _c("TL614", E, NONE, "`modules=` value that is not a dict"),
    _c("TL621", EW, NONE, "`modules` key torch cannot find"),
    _c("TL622", EW, NONE, "`modules` value for a module that is not a level"),
    _c("TL631", INFO, NONE, "`set_logs` ignored: `TORCH_LOGS` is set"),
    _c("TL632", INFO, NONE, "`set_logs` ignored when a launch configuration runs the file"),
    _c("TL901", "as the worst hidden one", NONE, "more problems in this value not shown"),
    _c("TL902", HINT, NONE, "pin comment names a release that is not packaged, or none"),
    _c("TL903", HINT, QUICK, "suppression comment that silences nothing"),
)

#: Codes kept out of use on purpose (none so far): documented, never emitted.
RESERVED: frozenset[str] = frozenset()


def code_table() -> dict[str, CodeInfo]:
    """Every code, in the table's order: code -> :class:`CodeInfo`."""
    return _TABLE


def all_codes() -> tuple[str, ...]:
    """Every code (``"TL001"`` ...), in the table's order."""
    return _ALL


_TABLE: dict[str, CodeInfo] = {info.code: info for info in CODES}
_ALL: tuple[str, ...] = tuple(_TABLE)

__all__ = [
    "CODES",
    "FIRST_RELEASE",
    "RESERVED",
    "CodeInfo",
    "Fixability",
    "all_codes",
    "code_table",
]
