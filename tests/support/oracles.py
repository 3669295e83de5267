"""What the real readers of each host see: bash, python-dotenv, json5.

``read_torch_logs(host, text)`` returns the value of ``TORCH_LOGS`` a process started from
the document would get (``None``: not set), read by the program that really reads it:

- shell: ``bash`` runs the script in an empty temporary folder (it must be runnable:
  assignments, ``export``, ``unset``, commands defined in the script itself) and prints
  ``${TORCH_LOGS-}``;
- dotenv: ``dotenv_values`` of python-dotenv (no interpolation);
- jsonc: ``json5.loads`` and the ``env`` of the first configuration
  (``configurations[0].env``).
"""

from __future__ import annotations

import atexit
import io
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any

import json5
from dotenv import dotenv_values

BASH = shutil.which("bash")
_UNSET = "<unset>"
_SCRATCH = tempfile.mkdtemp(prefix="torch-logs-oracle-")
atexit.register(shutil.rmtree, _SCRATCH, True)


def scratch_dir() -> str:
    """A fresh empty folder (removed when the tests end) for an oracle process to run in:
    whatever it writes by a relative path (a script's ``> file``, IPython's
    ``%%writefile``) lands there, never in the checkout or another test's folder."""
    return tempfile.mkdtemp(dir=_SCRATCH)


def run_python(
    code: str, env: dict[str, str] | None = None, timeout: float = 300, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """``python -c code`` with this interpreter in a :func:`scratch_dir`, its output
    captured as text."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=check,
        cwd=scratch_dir(),
    )


def run_bash(script: str) -> str | None:
    """Run ``script`` with bash and return ``$TORCH_LOGS`` at its end (``None``: unset)."""
    assert BASH is not None
    tail = f"\nprintf '%s' \"${{TORCH_LOGS-{_UNSET}}}\"\n"
    out = subprocess.run(
        [BASH, "--noprofile", "--norc"],
        input=(script + tail).encode(),
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        cwd=scratch_dir(),
        check=True,
        timeout=60,
    )
    value = out.stdout.decode("utf-8", "surrogateescape")
    return None if value == _UNSET else value


def read_torch_logs(host: str, text: str) -> str | None:
    """``TORCH_LOGS`` as the host's real reader sees it (see the module docstring)."""
    if host == "shell":
        return run_bash(text)
    if host == "dotenv":
        return dotenv_values(stream=io.StringIO(text), interpolate=False).get("TORCH_LOGS")
    doc: Any = json5.loads(text)
    env = doc["configurations"][0].get("env", {})
    value = env.get("TORCH_LOGS")
    return value if isinstance(value, str) else None
