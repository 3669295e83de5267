"""Every host with :class:`.interface.OutputHost` answers one flag per span for any text
(junk, half-typed code, the wrong spans) and never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp import hosts

OUTPUT_KINDS = [k for k in hosts.HOST_KINDS if hosts.output_host(k) is not None]
_PIECES = st.sampled_from(
    [
        "TORCH_LOGS=output_code ", "export TORCH_LOGS=output_code\n", "python a.py ",
        "2>&1 ", "| tee l ", "|& ", "> f ", "2> e ", "&> a ", "exec ", "{ ", "} ", "( ",
        ") ", "; ", "\n", "'", '"', "$(", "`", "bash -c '", "f() { ", "\\\n", "\t",
        '$env:TORCH_LOGS = "output_code"\n', "*> x ", "| Tee-Object l ", "& { ",
        "set TORCH_LOGS=output_code\r\n", "2>nul ", "goto :eof\r\n", "%%bash\n", "!",
        "import subprocess, os\n", "subprocess.run(c, env={'TORCH_LOGS': 'output_code'}, ",
        "stderr=subprocess.PIPE)", "capture_output=True)", "env = {}\n",
        "env['TORCH_LOGS'] = 'x'\n",
        "jobs:\n  a:\n    steps:\n      - env:\n          TORCH_LOGS: output_code\n        run: ",
        "all:\n\t", "RUN ", "FROM x\n", "\x00", "é", "😀", "\ud800",
    ]
)  # fmt: skip


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
@settings(max_examples=examples(150), deadline=None)
@given(text=st.lists(_PIECES, max_size=30).map("".join))
def test_one_flag_per_span_for_any_text(kind: str, text: str) -> None:
    module = hosts.output_host(kind)
    assert module is not None
    spans = hosts.extract(kind, text)
    flags = module.stderr_captured(text, spans)
    assert len(flags) == len(spans) and all(isinstance(f, bool) for f in flags)
    # spans of another text: still one flag each, no exception
    assert len(module.stderr_captured(text[: len(text) // 2], spans)) == len(spans)


def test_every_host_that_runs_commands_has_it() -> None:
    assert set(OUTPUT_KINDS) == {
        "batch", "dockerfile", "ipython", "makefile", "powershell", "python", "shell", "yaml",
    }  # fmt: skip
