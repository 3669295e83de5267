"""Session-wide test setup.

- Servers started by the tests keep their generated-code table (server/codecache.py) in a
  temporary directory, never in the user's cache directory.
- The tests run in a temporary working directory: a subprocess started without ``cwd``, or
  code run in-process that writes to a relative path (IPython's ``%%writefile``), writes
  there, never into the checkout.
- Hypothesis profiles: ``ci`` (the default; each test's own example count) and ``dev``
  (``--hypothesis-profile dev``: a tenth of the examples, for the edit-test loop).
- ``release_build``: the release files (sdist, wheel, seven .vsix) built once for the
  session by scripts/release-build.sh (tests/release_build.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.release_build import ReleaseBuild, release_build

_CACHE_DIR = tempfile.mkdtemp(prefix="torch-logs-code-cache-")
_WORK_DIR = tempfile.mkdtemp(prefix="torch-logs-cwd-")

settings.register_profile("ci", deadline=None)
settings.register_profile("dev", deadline=None, max_examples=10)
settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("TORCH_LOGS_LSP_CODE_CACHE", _CACHE_DIR)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
    shutil.rmtree(_WORK_DIR, ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _temporary_working_directory() -> Iterator[None]:
    old = os.getcwd()
    os.chdir(_WORK_DIR)
    try:
        yield
    finally:
        os.chdir(old)


@pytest.fixture(scope="session", name="release_build")
def _release_build(tmp_path_factory: pytest.TempPathFactory) -> ReleaseBuild:
    return release_build(tmp_path_factory)
