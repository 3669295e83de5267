"""The claims of TL422, TL423 and TL424 against the installed torch 2.13: each case runs a
small ``torch.compile`` in a fresh process (torch reads these variables at import) in a
temporary working directory, and looks at what it wrote. TL421's facts are checked against
the installed torch's files in ``tests/lint/test_misspelled.py`` (the packaged 2.13 list)
and below (names read only in C++)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge.env_reads import native_names, packaged_reads

pytestmark = pytest.mark.oracle

#: A compile with a graph break (so dynamo has something to say), on the eager backend.
PROGRAM = """
import torch

def f(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2

torch.compile(f, backend="eager")(torch.ones(3))
"""


def run(tmp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH", "PYTORCH"))}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM],
        cwd=tmp,
        env={**base, "HOME": str(tmp / "home"), **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )


def trace_files(where: Path) -> list[Path]:
    return sorted(where.rglob("dedicated_log_torch_trace_*.log"))


def test_tilde_in_torch_trace_makes_a_folder_named_tilde(tmp_path: Path):
    (tmp_path / "home").mkdir()
    run(tmp_path, TORCH_TRACE="~/traces")
    assert trace_files(tmp_path / "~" / "traces"), "torch expanded ~ in TORCH_TRACE"
    assert not trace_files(tmp_path / "home")


def test_tilde_in_torch_logs_out_fails_at_import(tmp_path: Path):
    (tmp_path / "home").mkdir()
    with pytest.raises(subprocess.CalledProcessError) as err:
        run(tmp_path, TORCH_LOGS="dynamo", TORCH_LOGS_OUT="~/t.log")
    assert "FileNotFoundError" in err.value.stderr


def test_dtrace_replaces_trace(tmp_path: Path):
    run(tmp_path, TORCH_TRACE=str(tmp_path / "t"), TORCH_DTRACE=str(tmp_path / "d"))
    assert trace_files(tmp_path / "d")
    assert not trace_files(tmp_path / "t")
    # the empty TORCH_DTRACE is ignored
    run(tmp_path, TORCH_TRACE=str(tmp_path / "t2"), TORCH_DTRACE="")
    assert trace_files(tmp_path / "t2")


def test_verbose_alone_shows_no_logs(tmp_path: Path):
    quiet = run(tmp_path, TORCHDYNAMO_VERBOSE="1")
    assert "torch._dynamo" not in quiet.stderr and "[0/0]" not in quiet.stderr
    loud = run(tmp_path, TORCHDYNAMO_VERBOSE="1", TORCH_LOGS="+dynamo")
    assert "torch/_dynamo" in loud.stderr or "[0/0]" in loud.stderr


def test_names_read_only_in_cpp_are_in_the_native_libraries():
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    lib = Path(spec.origin).parent / "lib"
    found: set[str] = set()
    for pattern in ("libc10*.so*", "libtorch_cpu*.so*"):
        for path in lib.glob(pattern):
            found |= native_names(path.read_bytes())
    # read with getenv in C++ only: c10's log level (libc10), C++ stack traces in errors
    assert {"TORCH_CPP_LOG_LEVEL", "TORCH_SHOW_CPP_STACKTRACES"} <= found
    assert {"TORCH_CPP_LOG_LEVEL", "TORCH_SHOW_CPP_STACKTRACES"} <= packaged_reads()["2.13"]
