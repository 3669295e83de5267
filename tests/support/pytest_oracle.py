"""Real pytest, with the installed pytest-env, as the oracle for what a test sees.

``pytest_run(files, ...)`` writes ``files`` (configuration files: ``pytest.ini``,
``pyproject.toml``, ``tox.ini``, ...) into a fresh folder, runs pytest there through its
public ``pytest.main`` with a test file that records ``os.environ`` (and, on request,
``request.config.getini(name)``), and returns a :class:`Run`: what the test saw, or that
pytest stopped before any test ran (a ``UsageError``, exit code 4, or, before
pytest-env 1.8.7, an exception out of its hook).

One driver process (``pytest_driver.py``) answers every case of a test session, one JSON
line each (a case costs a few milliseconds, so hypothesis can ask hundreds); it starts
with a clean environment (``PATH``, ``HOME``, ``LC_ALL`` only: no family variable) in a
temporary working directory, and resets ``os.environ`` to that before each case.
pytest and pytest-env look for configuration above the case's folder too, so the oracle
refuses to start when a folder above its own holds such a file.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

DRIVER = Path(__file__).with_name("pytest_driver.py")
#: The installed pytest-env release, as numbers (``(1, 8, 7)``).
PYTEST_ENV = tuple(int(p) for p in metadata.version("pytest-env").split(".")[:3])
#: The files pytest takes its configuration from, and pytest-env its TOML tables.
CONFIG_FILES = (
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
)
#: pytest's exit code for a usage error (``pytest.ExitCode.USAGE_ERROR``).
USAGE_ERROR = 4
_TIMEOUT = 120.0


@dataclass(frozen=True)
class Run:
    """One pytest run: ``exit`` its exit code (``None``: ``pytest.main`` raised, ``error``
    names the exception), ``env`` the environment the test saw and ``ini`` the values of
    the ``getini`` names asked for (both ``None`` when no test ran), ``output`` the tail
    of what pytest printed."""

    exit: int | None
    error: str | None
    env: dict[str, str] | None
    ini: dict[str, Any] | None
    output: str

    @property
    def stopped(self) -> bool:
        """pytest stopped before any test ran (a usage error or an exception)."""
        return self.env is None

    def describe(self) -> str:
        """The run in a few words, for an assertion message."""
        if not self.stopped:
            return f"the test ran (exit {self.exit})"
        why = self.error or f"exit code {self.exit}"
        return f"pytest stopped before any test ran ({why}): {self.output.strip()[-600:]}"


class _Driver:
    def __init__(self) -> None:
        self.home = tempfile.mkdtemp(prefix="pytest-oracle-")
        for folder in Path(self.home).parents:
            found = [n for n in CONFIG_FILES if (folder / n).exists()]
            if found:
                raise RuntimeError(
                    f"the pytest oracle needs a temporary folder with no pytest "
                    f"configuration above it, but {folder} has {found}: set TMPDIR"
                )
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER)],
            cwd=self.home,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )

    def ask(self, case: dict[str, Any]) -> Run:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(case) + "\n")
        stdin.flush()
        ready, _, _ = select.select([stdout], [], [], _TIMEOUT)
        line = stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(f"the pytest driver gave no answer (exit {self.proc.poll()})")
        got = json.loads(line)
        return Run(got["exit"], got["error"], got["env"], got["ini"], got["output"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


@cache
def _driver() -> _Driver:
    driver = _Driver()
    atexit.register(driver.close)
    return driver


def pytest_run(
    files: dict[str, str],
    *,
    at: str = "",
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    getini: tuple[str, ...] = (),
    addini: tuple[str, ...] = (),
) -> Run:
    """Run pytest on ``files`` (relative paths to their text, written exactly) with the
    test file in the folder ``at`` (relative, also the working directory), extra
    command-line ``args`` (``{root}`` stands for the case's folder), ``env`` added to the
    clean environment, ``addini`` registered as string ini options (by a plugin, as
    ``parser.addini(name, type="string")``), and ``request.config.getini`` of each name
    of ``getini``."""
    case = {
        "files": files,
        "at": at,
        "args": list(args),
        "env": env or {},
        "getini": getini,
        "addini": addini,
    }
    return _driver().ask(case)


__all__ = ["CONFIG_FILES", "PYTEST_ENV", "USAGE_ERROR", "Run", "pytest_run"]
