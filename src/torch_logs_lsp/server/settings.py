"""Typed settings of the server (``torchLogs.*``), read with cattrs.

Settings arrive as ``initializationOptions`` and in ``workspace/didChangeConfiguration``,
either as ``{"torchLogs": {...}}`` or as the inner object. Keys are camelCase on the wire.
A bad setting never stops the server: it is reported and its default is used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import cattrs
from cattrs.gen import make_dict_structure_fn, override

from torch_logs_lsp.codes.table import all_codes
from torch_logs_lsp.knowledge.registry import releases
from torch_logs_lsp.knowledge.versions import parse_release
from torch_logs_lsp.lint.selection import CodeFilter, Selection, UnknownSelector
from torch_logs_lsp.torch_env.environment import interpreter_path

SEVERITY_NAMES = ("error", "warning", "information", "hint", "off")
#: ``torchLogs.diagnosticMode``: every file of the workspace folders, or the open ones.
DIAGNOSTIC_MODES = ("workspace", "openFilesOnly")


@dataclass(frozen=True)
class InlayHints:
    """``torchLogs.inlayHints``: ``enabled`` shows, after each item of a TORCH_LOGS value,
    what torch makes of it (server/features/inlay_hints.py)."""

    enabled: bool = True


@dataclass(frozen=True)
class Settings:
    """Server settings.

    ``locale``: ``"auto"`` (the client's ``locale``), ``"en"`` or ``"ru"``: language of hover
    text. ``torch_version``: ``"auto"`` or a packaged release such as ``"2.13"``: the
    registry names are checked against. ``severity``: diagnostic code -> one of
    :data:`SEVERITY_NAMES` (``"off"`` hides the code). ``python``: the interpreter whose
    torch and modules are checked (``""``: look for ``.venv``/``venv`` in the workspace,
    then ``python3`` on PATH); naming it makes module verdicts certain (errors).
    ``select`` / ``extend_select`` / ``ignore`` / ``extend_ignore`` (wire: ``select``,
    ``extendSelect``, ``ignore``, ``extendIgnore``): codes or prefixes, as
    ``torch-logs check --select`` etc. (:mod:`torch_logs_lsp.lint.selection`), applied
    after the document's project configuration; ``select`` ``None`` when not set.
    ``inlay_hints`` (wire: ``inlayHints``, ``{"enabled": bool}``): :class:`InlayHints`.
    ``diagnostic_mode`` (wire: ``diagnosticMode``): one of :data:`DIAGNOSTIC_MODES`:
    ``"workspace"`` also checks the files of the workspace folders that are not open
    (``server/workspace_scan.py``), ``"openFilesOnly"`` only the open documents.
    """

    locale: str = "auto"
    torch_version: str = "auto"
    severity: dict[str, str] = field(default_factory=dict)
    python: str = ""
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    inlay_hints: InlayHints = field(default_factory=InlayHints)
    diagnostic_mode: str = "workspace"

    def selection(self) -> Selection:
        """The settings' code choices (checked by :func:`parse_settings`: never raises
        for parsed settings)."""
        return _selection(
            None if self.select is None else tuple(self.select),
            tuple(self.extend_select),
            tuple(self.ignore),
            tuple(self.extend_ignore),
        )


@cache
def _selection(
    select: tuple[str, ...] | None,
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_ignore: tuple[str, ...],
) -> Selection:
    return Selection.of("torchLogs.", select, extend_select, ignore, extend_ignore)


@cache
def hidden_codes(settings_selection: Selection, project: Selection | None = None) -> frozenset[str]:
    """Codes whose diagnostics are not shown: not chosen by the project configuration
    (``project``, from ``[tool.torch-logs]`` and the like) followed by the settings."""
    sources = [project] if project is not None else []
    chosen = CodeFilter.resolve([*sources, settings_selection]).enabled
    return frozenset(c for c in all_codes() if c not in chosen)


def off_codes(settings: Settings, project: Selection | None = None) -> frozenset[str]:
    """Codes the editor hides: ``severity`` ``"off"`` and the codes not chosen
    (:func:`hidden_codes`)."""
    off = frozenset(c for c, sev in settings.severity.items() if sev == "off")
    return off | hidden_codes(settings.selection(), project)


@cache
def _converter() -> cattrs.Converter:
    """The settings converter, built on first use (most sessions never send settings)."""
    converter = cattrs.Converter(forbid_extra_keys=False)
    converter.register_structure_hook(
        Settings,
        make_dict_structure_fn(
            Settings,
            converter,
            torch_version=override(rename="torchVersion"),
            extend_select=override(rename="extendSelect"),
            extend_ignore=override(rename="extendIgnore"),
            inlay_hints=override(rename="inlayHints"),
            diagnostic_mode=override(rename="diagnosticMode"),
        ),
    )
    return converter


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a client payload, and messages about values that were ignored.

    Accepts ``None``, ``{"torchLogs": {...}}`` or the inner object. Never raises.
    """
    if isinstance(raw, dict) and isinstance(raw.get("torchLogs"), dict):
        raw = raw["torchLogs"]
    if not isinstance(raw, dict):
        return Settings(), []
    converter = _converter()
    problems: list[str] = []
    clean: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            converter.structure({key: value}, Settings)
        except (cattrs.BaseValidationError, TypeError, ValueError) as exc:
            problems.append(f"torchLogs.{key}: ignored ({type(exc).__name__})")
            continue
        clean[key] = value
    settings = converter.structure(clean, Settings)
    if settings.locale not in ("auto", "en", "ru"):
        problems.append(f"torchLogs.locale: unknown locale {settings.locale!r}, using auto")
        settings = replace(settings, locale="auto")
    if settings.diagnostic_mode not in DIAGNOSTIC_MODES:
        problems.append(
            f"torchLogs.diagnosticMode: unknown mode {settings.diagnostic_mode!r} "
            f"(use one of {DIAGNOSTIC_MODES}), using workspace"
        )
        settings = replace(settings, diagnostic_mode="workspace")
    bad = {k: v for k, v in settings.severity.items() if v not in SEVERITY_NAMES}
    if bad:
        problems.append(f"torchLogs.severity: ignored {bad} (use one of {SEVERITY_NAMES})")
        good = {k: v for k, v in settings.severity.items() if k not in bad}
        settings = replace(settings, severity=good)
    for key, attr in _SELECTION_KEYS.items():
        try:
            Selection.of("torchLogs.", **{attr: getattr(settings, attr)})
        except UnknownSelector as exc:
            problems.append(f"{exc}; torchLogs.{key} ignored")
            settings = _without(settings, attr)
    return settings, problems


def _without(settings: Settings, attr: str) -> Settings:
    """``settings`` with the code choice ``attr`` back at its default."""
    if attr == "select":
        return replace(settings, select=None)
    if attr == "extend_select":
        return replace(settings, extend_select=[])
    if attr == "ignore":
        return replace(settings, ignore=[])
    return replace(settings, extend_ignore=[])


#: Wire name -> attribute of the code choice settings.
_SELECTION_KEYS = {
    "select": "select",
    "extendSelect": "extend_select",
    "ignore": "ignore",
    "extendIgnore": "extend_ignore",
}


def checked_settings(raw: Any, workspace_root: str | None) -> tuple[Settings, list[str]]:
    """:func:`parse_settings`, then the values checked against the machine: a
    ``torchVersion`` that is not a release becomes ``"auto"``; ``python`` is made a path
    (``interpreter_path``, relative to ``workspace_root``) and a missing interpreter is
    reported. Returns the settings and every problem (messages for the user)."""
    settings, problems = parse_settings(raw)
    if settings.torch_version != "auto" and parse_release(settings.torch_version) is None:
        problems.append(
            f"torchLogs.torchVersion: {settings.torch_version!r} is not a release like "
            f"2.13 (packaged: {', '.join(releases())}); using the installed torch"
        )
        settings = replace(settings, torch_version="auto")
    python = interpreter_path(settings.python, workspace_root)
    if python != settings.python:
        settings = replace(settings, python=python)
    if python and not os.path.isfile(python):
        problems.append(
            f"torchLogs.python: no interpreter at {python!r}; names are checked against "
            "the packaged registry until it is fixed"
        )
    return settings, problems
