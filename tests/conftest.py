"""Session-wide test setup: servers started by the tests keep their generated-code table
(server/codecache.py) in a temporary directory, never in the user's cache directory."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE_DIR = tempfile.mkdtemp(prefix="torch-logs-code-cache-")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("TORCH_LOGS_LSP_CODE_CACHE", _CACHE_DIR)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
