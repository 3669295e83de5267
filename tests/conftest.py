"""Session-wide test setup.

- Servers started by the tests keep their generated-code table (server/codecache.py) in a
  temporary directory, never in the user's cache directory.
- The tests run in a temporary working directory: a subprocess started without ``cwd``, or
  code run in-process that writes to a relative path (IPython's ``%%writefile``), writes
  there, never into the checkout.
- Hypothesis profiles (failing examples kept in ``~/.cache/torch-logs-lsp/hypothesis``):
  ``ci`` (the default; each test's own example count) and ``dev``
  (``--hypothesis-profile dev``: at most ten examples a test, for the edit-test loop).
- The slow tier (``-m slow``, left out by ``./dev test --quick``): packaging, real
  editors, pre-commit, whole-installation scans of torch; listed in :data:`SLOW`.
- ``release_build``: the release files (sdist, wheel, seven .vsix) built once for the
  session by scripts/release-build.sh (tests/support/release_build.py); its tests are slow.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support.release_build import ReleaseBuild, release_build

_CACHE_DIR = tempfile.mkdtemp(prefix="torch-logs-code-cache-")
_WORK_DIR = tempfile.mkdtemp(prefix="torch-logs-cwd-")

#: Test files (paths under tests/) and test ids whose tests are marked ``slow`` (and so
#: is every test that uses the ``release_build`` fixture).
SLOW = (
    "release/test_vsix_platforms.py",
    "release/test_distribution.py",
    "release/test_precommit.py",
    "editors/",
    "lint/test_misspelled.py::test_packaged_2_13_equals_a_scan_of_the_installed_torch",
    "server/test_navigation_lsp.py::test_references_are_the_logging_sites",
    "lint/test_knobs_oracle.py::test_names_read_only_in_cpp_are_in_the_native_libraries",
)

# Hypothesis keeps its files (the examples it found failing, replayed first on the next
# run, and its caches) in the user's cache: its default is a ``.hypothesis`` folder of the
# working directory, which is the checkout when pytest starts.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY",
    os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "torch-logs-lsp",
        "hypothesis",
    ),
)
# ``ci`` (the default): the same examples on every machine and every run, so a gate's
# verdict depends on the commit only (a new hypothesis release, from a lock refresh, may
# change them). ``explore`` draws new examples on each run, to look for new failures:
# ``./dev test --hypothesis-profile explore``; a failure it finds becomes an ``@example``.
# ``dev``: ``./dev test --quick``.
settings.register_profile("ci", deadline=None, derandomize=True)
settings.register_profile("explore", deadline=None)
settings.register_profile("dev", deadline=None, max_examples=10)
settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("TORCH_LOGS_LSP_CODE_CACHE", _CACHE_DIR)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
    shutil.rmtree(_WORK_DIR, ignore_errors=True)


def _builds(item: pytest.Item) -> bool:
    return "release_build" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow tier; run one test file of the release build first and the others
    last, so that under pytest-xdist one worker builds while the other runs the rest
    (the build is the longest single piece of the suite) and no worker waits for it."""
    for item in items:
        where = item.nodeid.removeprefix("tests/")
        slow = where.startswith(SLOW) or where.split("[")[0] in SLOW
        if slow or _builds(item):
            item.add_marker(pytest.mark.slow)
    first = next((item.nodeid.split("::")[0] for item in items if _builds(item)), None)

    def place(item: pytest.Item) -> int:
        if not _builds(item):
            return 1
        return 0 if item.nodeid.split("::")[0] == first else 2

    items.sort(key=place)


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
