"""IPython itself as the oracle for what a notebook cell does (IPython 9, installed with
the test extras): one subprocess per batch of cells.

``run_cells(cells)`` runs each cell in a real ``InteractiveShell`` (the user namespace
kept across cells, the family variables removed from ``os.environ`` before each; ``$SHELL``
is bash) and returns per cell the family variables of ``os.environ`` after it, whether it
ran without an error, whether it failed before running (``before``: a SyntaxError of
the transformed cell), its stdout, and the user variable ``out`` when the cell set it (the
lines of ``out = !cmd``). ``transform_cells(cells)`` returns
``TransformerManager().transform_cell`` of each (``None`` when it raises). The process
runs in an empty temporary folder (:func:`tests.support.oracles.scratch_dir`): what a cell writes
by a relative path lands there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

from tests.support.oracles import scratch_dir

_SCRIPT = r"""
import contextlib, io, json, os, sys
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.inputtransformer2 import TransformerManager

FAMILY = %r
mode, cells = json.load(sys.stdin)
out = []
if mode == "transform":
    for cell in cells:
        try:
            out.append(TransformerManager().transform_cell(cell))
        except Exception:
            out.append(None)
else:
    shell = InteractiveShell.instance()
    for cell in cells:
        for k in FAMILY:
            os.environ.pop(k, None)
        shell.user_ns.pop("out", None)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            result = shell.run_cell(cell, store_history=False)
        got = shell.user_ns.get("out")
        out.append({
            "env": {k: os.environ.get(k) for k in FAMILY},
            "ok": bool(result.success),
            "before": result.error_before_exec is not None,
            "stdout": buf.getvalue(),
            "out": list(got) if got is not None and not isinstance(got, str) else got,
        })
sys.stdout.write(json.dumps(out))
"""

FAMILY = [
    "TORCH_LOGS",
    "TORCH_LOGS_OUT",
    "TORCH_LOGS_FORMAT",
    "TORCH_TRACE",
    "TORCH_LOGS_TRACE_ID_FILTER",
    "TORCH_COMPILE_DEBUG",
]


def _run(mode: str, cells: list[str]) -> list[Any]:
    bash = shutil.which("bash") or "/bin/bash"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C.UTF-8",
        "SHELL": bash,
        "HOME": os.environ.get("HOME", "/tmp"),
        "IPYTHONDIR": os.environ.get("IPYTHONDIR", "/tmp/ipython-oracle"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT % (FAMILY,)],
        input=json.dumps([mode, cells]).encode(),
        capture_output=True,
        env=env,
        cwd=scratch_dir(),  # a cell's %%writefile or !cmd writes here
        check=True,
        timeout=300,
    )
    result: list[Any] = json.loads(done.stdout)
    return result


def run_cells(cells: list[str]) -> list[dict[str, Any]]:
    """Run each cell in one IPython shell (see the module docstring)."""
    return _run("run", cells)


def transform_cells(cells: list[str]) -> list[str | None]:
    """IPython's transform of each cell into Python (``None`` when it raises)."""
    return _run("transform", cells)
