"""Strings left open on many lines are read in one scan of the table headers."""

from __future__ import annotations

import re
from typing import Any

import pytest

from torch_logs_lsp.hosts.toml import open as toml_open
from torch_logs_lsp.hosts.toml.host import extract


class _Counted:
    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scans = 0

    def finditer(self, *args: Any) -> Any:
        self.scans += 1
        return self.pattern.finditer(*args)


def test_headers_are_scanned_once_for_many_open_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    counted = _Counted(toml_open._HEADER)
    monkeypatch.setattr(toml_open, "_HEADER", counted)
    text = "[tool.other]\nx = 1\n[tool.pytest.ini_options]\nenv = [\n"
    text += '  "TORCH_LOGS=+dyn\n' * 200
    spans = extract(text)
    assert len(spans) == 200
    assert all(s.value == "+dyn" and not s.terminated for s in spans)
    assert counted.scans == 1
