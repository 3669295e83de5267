"""Typed settings of the server (``torchLogs.*``), read with cattrs.

Settings arrive as ``initializationOptions`` and in ``workspace/didChangeConfiguration``,
either as ``{"torchLogs": {...}}`` or as the inner object. Keys are camelCase on the wire.
A bad setting never stops the server: it is reported and its default is used.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import cattrs
from cattrs.gen import make_dict_structure_fn, override

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
