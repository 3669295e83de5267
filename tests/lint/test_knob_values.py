"""TL441 (``lint/knob_values.py``): a compile knob's value torch never matches, found in
each host's assignments with the host's own decoding, at exact document offsets."""

from __future__ import annotations

import pytest

from torch_logs_lsp.lint.knob_values import KNOB_VALUE, knob_assignments, knob_value_diagnostics
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.model.host_kind import HostKind


@pytest.mark.parametrize(
    ("host", "text", "value"),
    [
        ("dotenv", "TORCHINDUCTOR_MAX_AUTOTUNE=true\n", "true"),
        ("dotenv", "TORCHINDUCTOR_MAX_AUTOTUNE='true'  # on?\n", "true"),
        ("shell", "export TORCHINDUCTOR_MAX_AUTOTUNE=\"tr\"'ue'\n", "true"),
        ("shell", "TORCHINDUCTOR_MAX_AUTOTUNE=true python train.py\n", "true"),
        ("python", 'import os\nos.environ["TORCHINDUCTOR_MAX_AUTOTUNE"] = "true"\n', "true"),
        ("yaml", "env:\n  TORCHINDUCTOR_MAX_AUTOTUNE: 'true'\n", "true"),
        ("dockerfile", "FROM x\nENV TORCHINDUCTOR_MAX_AUTOTUNE=true\n", "true"),
        ("powershell", "$env:TORCHINDUCTOR_MAX_AUTOTUNE = 'true'\n", "true"),
        (
            "jsonc",
            '{"configurations": [{"env": {"TORCHINDUCTOR_MAX_AUTOTUNE": "tru\\u0065"}}]}',
            "true",
        ),
    ],
)
def test_found_in_every_host_with_its_decoding(host: HostKind, text: str, value: str):
    diags = knob_value_diagnostics(host, text, "2.13")
    assert [d.code for d in diags] == [KNOB_VALUE]
    d = diags[0]
    assert "reads it as off" in d.message
    assert d.message.startswith(f"`TORCHINDUCTOR_MAX_AUTOTUNE={value}`")
    # the range is the value as written (quotes excluded)
    written = text[d.start : d.end]
    assert written.strip("'\"") in (value, "tr\"'ue", "tru\\u0065")


def test_offsets_after_several_knobs_of_other_lengths():
    text = (
        "TORCHDYNAMO_VERBOSE=1\n"
        "TORCHINDUCTOR_FX_GRAPH_CACHE=false\n"
        "TORCH_COMPILE_DISABLE=yes\n"
        "TORCHINDUCTOR_CACHE_DIR=/tmp/x\n"
    )
    found = knob_assignments("dotenv", text, "2.13")
    assert [a.knob.name for a in found] == [
        "TORCHDYNAMO_VERBOSE",
        "TORCHINDUCTOR_FX_GRAPH_CACHE",
        "TORCH_COMPILE_DISABLE",
        "TORCHINDUCTOR_CACHE_DIR",
    ]
    for a in found:
        assert text[a.name_start : a.name_end] == a.knob.name
        span = a.span
        assert text[span.content_start : span.content_end] == span.value
    diags = knob_value_diagnostics("dotenv", text, "2.13")
    assert [text[d.start : d.end] for d in diags] == ["false", "yes"]


def test_values_torch_tells_apart_are_not_reported():
    text = (
        "TORCHINDUCTOR_MAX_AUTOTUNE=1\n"
        "TORCHINDUCTOR_MAX_AUTOTUNE_GEMM=0\n"  # not "1": off, as it says
        "TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=2\n"  # off, but what "2" means is not known
        "TORCHINDUCTOR_CACHE_DIR=anything\n"  # any text: a path
        "TORCHINDUCTOR_FX_GRAPH_CACHE=$X\n"
    )
    assert knob_value_diagnostics("shell", text, "2.13") == []


def test_reads_comments_and_other_names_are_not_assignments():
    text = (
        "# TORCHINDUCTOR_MAX_AUTOTUNE=true\n"
        "echo TORCHINDUCTOR_MAX_AUTOTUNE=true\n"
        "X=TORCHINDUCTOR_MAX_AUTOTUNE\n"
        "MY_TORCHINDUCTOR_MAX_AUTOTUNE=true\n"
        "torchinductor_max_autotune=true\n"
    )
    assert knob_value_diagnostics("shell", text, "2.13") == []
    py = 'import os\nx = os.environ.get("TORCHINDUCTOR_MAX_AUTOTUNE", "true")\n'
    assert knob_value_diagnostics("python", py, "2.13") == []


def test_a_value_holding_another_knob_name_is_not_judged():
    text = "TORCHINDUCTOR_MAX_AUTOTUNE=TORCHDYNAMO_VERBOSE\n"
    assert knob_value_diagnostics("dotenv", text, "2.13") == []


def test_through_the_pipeline_with_the_release_of_the_registry():
    text = "# torch-logs: torch=2.13\nTORCHINDUCTOR_MAX_AUTOTUNE=on\nTORCH_LOGS=+dynamo\n"
    checked = check_document(text, "dotenv")
    codes = [f.diagnostic.code for f in checked.findings()]
    assert codes.count("TL441") == 1


def test_bad_input_never_raises():
    for text in ("TORCHINDUCTOR_MAX_AUTOTUNE", "TORCHINDUCTOR_MAX_AUTOTUNE='", "\x00TORCH", ""):
        for host in ("dotenv", "shell", "python", "yaml", "jsonc"):
            knob_value_diagnostics(host, text, "2.13")  # type: ignore[arg-type]
