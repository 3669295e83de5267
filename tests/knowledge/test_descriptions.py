"""Packaged descriptions: every registered name of every release, in English and Russian."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any

import pytest

DATA = files("torch_logs_lsp.knowledge") / "data"
SPECIAL_NAMES = {"all", "help", "+help"}
VARIABLES = {
    "TORCH_LOGS",
    "TORCH_LOGS_OUT",
    "TORCH_LOGS_FORMAT",
    "TORCH_TRACE",
    "TORCH_LOGS_TRACE_ID_FILTER",
    "TORCH_COMPILE_DEBUG",
}
CYRILLIC = re.compile("[\u0400-\u04ff]")


def _load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


DESCRIPTIONS: dict[str, Any] = _load("descriptions.json")
RELEASES: dict[str, Any] = _load("names-by-torch-version.json")
ALL_NAMES = sorted(
    {name for release in RELEASES.values() for name in (*release["logs"], *release["artifacts"])}
)


def _check_texts(en: str, ru: str) -> None:
    assert en.strip() and ru.strip()
    assert en.isascii(), en
    assert CYRILLIC.search(ru), ru
    assert en.endswith("."), en
    assert ru.endswith("."), ru


def test_names_are_exactly_the_registered_names_plus_special_names() -> None:
    assert set(DESCRIPTIONS["names"]) == set(ALL_NAMES) | SPECIAL_NAMES


@pytest.mark.parametrize("name", [*ALL_NAMES, *sorted(SPECIAL_NAMES)])
def test_every_name_has_english_and_russian(name: str) -> None:
    entry = DESCRIPTIONS["names"][name]
    _check_texts(entry["en"], entry["ru"])
    assert entry["ru_source"] in {"seed", "ours"}


def test_every_release_is_covered() -> None:
    assert len(RELEASES) >= 15
    for version, release in RELEASES.items():
        missing = (set(release["logs"]) | set(release["artifacts"])) - set(DESCRIPTIONS["names"])
        assert not missing, (version, missing)


def test_variables() -> None:
    assert set(DESCRIPTIONS["variables"]) == VARIABLES
    for entry in DESCRIPTIONS["variables"].values():
        _check_texts(entry["en"], entry["ru"])


def test_source_note() -> None:
    assert DESCRIPTIONS["_source"].strip()
