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

from torch_logs_lsp.core.environment import interpreter_path
from torch_logs_lsp.core.registry import releases
from torch_logs_lsp.core.versions import parse_release

SEVERITY_NAMES = ("error", "warning", "information", "hint", "off")


@dataclass(frozen=True)
class Settings:
    """Server settings.

    ``locale``: ``"auto"`` (the client's ``locale``), ``"en"`` or ``"ru"``: language of hover
    text. ``torch_version``: ``"auto"`` or a packaged release such as ``"2.13"``: the
    registry names are checked against. ``severity``: diagnostic code -> one of
    :data:`SEVERITY_NAMES` (``"off"`` hides the code). ``python``: the interpreter whose
    torch and modules are checked (``""``: look for ``.venv``/``venv`` in the workspace,
    then ``python3`` on PATH); naming it makes module verdicts certain (errors).
    """

    locale: str = "auto"
    torch_version: str = "auto"
    severity: dict[str, str] = field(default_factory=dict)
    python: str = ""


@cache
def _converter() -> cattrs.Converter:
    """The settings converter, built on first use (most sessions never send settings)."""
    converter = cattrs.Converter(forbid_extra_keys=False)
    converter.register_structure_hook(
        Settings,
        make_dict_structure_fn(Settings, converter, torch_version=override(rename="torchVersion")),
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
    bad = {k: v for k, v in settings.severity.items() if v not in SEVERITY_NAMES}
    if bad:
        problems.append(f"torchLogs.severity: ignored {bad} (use one of {SEVERITY_NAMES})")
        good = {k: v for k, v in settings.severity.items() if k not in bad}
        settings = replace(settings, severity=good)
    return settings, problems


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
