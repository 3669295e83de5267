"""TL421 (names no release reads), TL405 (names other releases read), TL422 (``~`` in a
path), TL423 (TORCH_DTRACE with TORCH_TRACE), TL424 (TORCHDYNAMO_VERBOSE alone): in every
host, and the packaged facts they rest on."""

from __future__ import annotations

import pytest

from torch_logs_lsp import hosts
from torch_logs_lsp.knowledge.env_reads import (
    decode,
    encode,
    literal_names,
    native_names,
    packaged_reads,
    releases_reading,
)
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.knobs import PLACEHOLDER, assignments, knob_diagnostics
from torch_logs_lsp.lint.pipeline import findings

#: A document of each host that assigns NAME=VALUE (VALUE reaches the process as written).
HOST_DOCS = {
    "shell": "export NAME='VALUE'\n",
    "dotenv": "NAME=VALUE\n",
    "python": 'import os\nos.environ["NAME"] = "VALUE"\n',
    "jsonc": '{"configurations": [{"env": {"NAME": "VALUE"}}]}',
    "dockerfile": "FROM python\nENV NAME=VALUE\n",
    "yaml": 'services:\n  app:\n    environment:\n      NAME: "VALUE"\n',
    "makefile": "export NAME = VALUE\n",
    "powershell": '$env:NAME = "VALUE"\n',
    "batch": "set NAME=VALUE\n",
    "toml": '[tool.pytest.ini_options]\nenv = ["NAME=VALUE"]\n',
    "ini": "[pytest]\nenv =\n    NAME=VALUE\n",
}


def codes(text: str, host: str, release: str = "2.13") -> list[tuple[str, str]]:
    """(code, the text under it) of the TL405/TL42x findings of a document."""
    return [
        (f.diagnostic.code, text[f.start : f.end])
        for f in findings(text, host, load_registry(release))  # type: ignore[arg-type]
        if f.diagnostic.code in {"TL405", "TL421", "TL422", "TL423", "TL424"}
    ]


def doc(host: str, name: str, value: str) -> str:
    return HOST_DOCS[host].replace("NAME", name).replace("VALUE", value)


@pytest.mark.parametrize("host", sorted(HOST_DOCS))
def test_unread_names_in_every_host(host: str):
    text = doc(host, "TORCHINDUCTOR_FORCE_DISABLE_CACHE", "1")
    found = [
        f
        for f in findings(text, host, load_registry("2.13"))
        if f.diagnostic.code == "TL421"  # type: ignore[arg-type]
    ]
    assert [text[f.start : f.end] for f in found] == ["TORCHINDUCTOR_FORCE_DISABLE_CACHE"]
    d = found[0].diagnostic
    assert d.suggestions == ("TORCHINDUCTOR_FORCE_DISABLE_CACHES",)
    assert "no release 2.1-2.15" in d.message
    # the rename gives an assignment the host reads, and then nothing is reported
    fixed = text[: found[0].start] + d.suggestions[0] + text[found[0].end :]
    assert [a.name for a in assignments(host, fixed)] == ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"]
    assert codes(fixed, host) == []


@pytest.mark.parametrize(
    "name",
    ["TORCH_LOGS_RANKS", "TORCHINDUCTOR_DUMP_IR", "TORCHINDUCTOR_DUMP_CODE", "TORCHINDUCTOR_TRACE"],
)
def test_names_from_public_scripts_are_reported_without_a_rename(name: str):
    text = f"export {name}=1\npython t.py\n"
    found = [
        f for f in findings(text, "shell", load_registry("2.13")) if f.diagnostic.code == "TL421"
    ]
    assert len(found) == 1 and found[0].diagnostic.suggestions == ()
    if name.startswith("TORCHINDUCTOR_"):
        assert "TORCH_COMPILE_DEBUG=1" in found[0].diagnostic.message


@pytest.mark.parametrize(
    "text",
    [
        "export TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 TORCHINDUCTOR_CACHE_DIR=/c\n",
        "export TORCH_COMPILE_DEBUG_DIR=/d TORCHDYNAMO_DISABLE=1\n",
        "echo $TORCHINDUCTOR_DUMP_IR\n",
        "# export TORCHINDUCTOR_DUMP_IR=1\n",
        "TORCHINDUCTOR_MINE=1\necho $TORCHINDUCTOR_MINE\n",  # the script's own variable
        "export TORCH_LOG=dynamo\n",  # TL408's
        "export TORCH_NCCL_NOT_A_THING=1 PYTORCH_NOT_A_THING=1 NCCL_DEBUG=INFO\n",  # not owned
        "export torchinductor_dump_ir=1\n",  # lower case: not a name of torch's
    ],
)
def test_not_reported(text: str):
    assert codes(text, "shell") == []


def test_python_reads_are_not_assignments():
    text = 'import os\nos.environ.get("TORCHINDUCTOR_DUMP_IR")\nx = "TORCHINDUCTOR_DUMP_IR"\n'
    assert codes(text, "python") == []


def test_a_name_other_releases_read_gets_tl405_with_the_releases():
    text = "TORCH_DTRACE=/tmp/d\n"
    found = [f.diagnostic for f in findings(text, "dotenv", load_registry("2.6"))]
    assert [d.code for d in found] == ["TL405"]
    assert "not read by torch 2.6 (read by torch 2.7-2.15)" in found[0].message
    assert codes(text, "dotenv", "2.13") == []


def test_rename_only_when_the_file_names_the_variable_nowhere_else():
    text = "export TORCHINDUCTOR_FORCE_DISABLE_CACHE=1\nunset TORCHINDUCTOR_FORCE_DISABLE_CACHE\n"
    found = [f.diagnostic for f in findings(text, "shell", load_registry("2.13"))]
    assert [(d.code, d.suggestions) for d in found] == [("TL421", ())]


def test_offsets_map_back_across_replacements_of_other_lengths():
    text = (
        "export TORCHINDUCTOR_A_LONG_UNREAD_NAME=1 TORCH_DTRACE='~/d' X=1\n"
        "export TORCHDYNAMO_VERBOSE=1\n"
    )
    found = assignments("shell", text)
    assert [a.name for a in found] == [
        "TORCHINDUCTOR_A_LONG_UNREAD_NAME",
        "TORCH_DTRACE",
        "TORCHDYNAMO_VERBOSE",
    ]
    for a in found:
        assert text[a.start : a.end] == a.name
    dtrace = found[1]
    assert dtrace.value == "~/d" and text[dtrace.content_start : dtrace.content_end] == "~/d"
    assert PLACEHOLDER not in text


def test_yaml_item_with_value_first():
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    env:\n"
        "    - value: '~/t'\n      name: TORCH_DTRACE\n"
    )
    found = assignments("yaml", text)
    if not found:  # the host reads only some shapes; nothing to map then
        pytest.skip("the yaml host reads no value-first item here")
    a = found[0]
    assert text[a.start : a.end] == "TORCH_DTRACE"
    assert text[a.content_start : a.content_end] == "~/t"


# --- TL422: `~` that reaches torch unexpanded


@pytest.mark.parametrize("host", sorted(HOST_DOCS))
@pytest.mark.parametrize("name", ["TORCH_TRACE", "TORCH_DTRACE", "TORCH_LOGS_OUT"])
def test_tilde_in_every_host(host: str, name: str):
    text = doc(host, name, "~/traces")
    found = [c for c in codes(text, host) if c[0] == "TL422"]
    assert found == [("TL422", "~/traces")]


@pytest.mark.parametrize(
    "text",
    [
        "export TORCH_TRACE=~/traces\n",  # bash expands an unquoted tilde
        "TORCH_TRACE=~/traces python t.py\n",
        'export TORCH_TRACE="$HOME/traces"\n',
        "export TORCH_TRACE=/tmp/~x\n",
    ],
)
def test_tilde_the_shell_expands_or_not_at_the_start(text: str):
    assert [c for c in codes(text, "shell") if c[0] == "TL422"] == []


def test_tilde_quoted_in_shell_and_dockerfile_env():
    assert ("TL422", "~/traces") in codes('TORCH_TRACE="~/traces" python t.py\n', "shell")
    assert ("TL422", "~/t") in codes("FROM python\nENV TORCH_TRACE=~/t\n", "dockerfile")
    # a RUN line is shell: an unquoted tilde is expanded
    assert codes("FROM python\nRUN TORCH_TRACE=~/t python t.py\n", "dockerfile") == []


def test_tilde_not_for_a_release_that_does_not_read_the_variable():
    assert [c for c in codes("TORCH_TRACE=~/t\n", "dotenv", "2.2") if c[0] == "TL422"] == []
    assert [c for c in codes("TORCH_DTRACE=~/t\n", "dotenv", "2.6") if c[0] == "TL422"] == []


# --- TL423, TL424


def test_dtrace_wins_over_trace():
    text = "export TORCH_TRACE=/tmp/t TORCH_DTRACE=/tmp/d\n"
    assert codes(text, "shell") == [("TL423", "/tmp/t")]
    # before 2.7 TORCH_DTRACE is not read: TL405 on it instead
    assert codes(text, "shell", "2.6") == [("TL405", "TORCH_DTRACE")]
    # the empty TORCH_DTRACE is ignored by torch
    assert codes("export TORCH_TRACE=/tmp/t TORCH_DTRACE=\n", "shell") == []
    # a shell's prefix assignments are for their command only
    text = "TORCH_TRACE=/tmp/t python a.py\nTORCH_DTRACE=/tmp/d python b.py\n"
    assert codes(text, "shell") == []
    # a .env file is one environment
    assert codes("TORCH_TRACE=/tmp/t\nTORCH_DTRACE=/tmp/d\n", "dotenv") == [("TL423", "/tmp/t")]


def test_dtrace_pairs_keys_of_one_mapping_only():
    """Compose services, workflow jobs and launch configurations are separate processes:
    TL423 only when both keys are in one mapping."""
    two_services = (
        "services:\n  trainer:\n    image: x\n    environment:\n      TORCH_TRACE: /tmp/t\n"
        "  evaluator:\n    image: y\n    environment:\n      TORCH_DTRACE: /tmp/d\n"
    )
    assert codes(two_services, "yaml") == []
    one_service = (
        "services:\n  trainer:\n    environment:\n      TORCH_TRACE: /tmp/t\n"
        "      # the detailed trace\n      TORCH_DTRACE: /tmp/d\n"
    )
    assert codes(one_service, "yaml") == [("TL423", "/tmp/t")]
    assert codes("env: {TORCH_TRACE: /tmp/t, TORCH_DTRACE: /tmp/d}\n", "yaml") == [
        ("TL423", "/tmp/t")
    ]
    jobs = (
        "jobs:\n  a:\n    runs-on: x\n    env:\n      TORCH_TRACE: /tmp/t\n"
        "  b:\n    runs-on: x\n    env:\n      TORCH_DTRACE: /tmp/d\n"
    )
    assert codes(jobs, "yaml") == []
    launch = (
        '{"configurations": [{"name": "a", "env": {"TORCH_TRACE": "/tmp/t"}},'
        ' {"name": "b", "env": {"TORCH_DTRACE": "/tmp/d"}}]}'
    )
    assert codes(launch, "jsonc") == []
    launch_lines = (
        '{\n  "configurations": [\n    {\n      "env": {\n        "TORCH_TRACE": "/tmp/t",\n'
        '        "TORCH_DTRACE": "/tmp/d"\n      }\n    }\n  ]\n}\n'
    )
    assert codes(launch_lines, "jsonc") == [("TL423", "/tmp/t")]


@pytest.mark.parametrize(
    ("release", "tlparse", "provenance"),
    [("2.8", False, False), ("2.9", False, True), ("2.13", True, True)],
)
def test_tl413_per_release(release: str, tlparse: bool, provenance: bool):
    text = "export TORCH_TRACE=/tmp/t TORCH_COMPILE_DEBUG=1\n"
    [d] = [
        f.diagnostic
        for f in findings(text, "shell", load_registry(release))
        if f.diagnostic.code == "TL413"
    ]
    assert ("tlparse)" in d.message) == tlparse
    assert ("provenance tracking" in d.message) == provenance


def test_verbose_alone():
    assert codes("export TORCHDYNAMO_VERBOSE=1\n", "shell") == [("TL424", "TORCHDYNAMO_VERBOSE")]
    assert codes("TORCHDYNAMO_VERBOSE=1\nTORCH_LOGS=+dynamo\n", "dotenv") == []
    assert codes("TORCHDYNAMO_VERBOSE=0\n", "dotenv") == []
    text = (
        'import os\nos.environ["TORCHDYNAMO_VERBOSE"] = "1"\n'
        "import torch\ntorch._logging.set_logs(dynamo=10)\n"
    )
    assert codes(text, "python") == []


def test_knob_diagnostics_never_raise_on_odd_text():
    for text in ["TORCH", "TORCHINDUCTOR_" * 1000, "export TORCHINDUCTOR_X='", "\x00TORCH_DTRACE="]:
        for host in HOST_DOCS:
            knob_diagnostics(host, text, "2.13", hosts.extract(host, text))  # type: ignore[arg-type]


# --- the packaged facts


def test_packaged_form_round_trips():
    data = {"2.1": {"A", "B"}, "2.2": {"B"}, "2.3": {"A", "B", "C"}}
    raw = encode(data)
    assert raw == {
        "releases": ["2.1", "2.2", "2.3"],
        "names": {"A": "2.1,2.3", "B": "2.1-2.3", "C": "2.3"},
    }
    assert decode(raw) == {k: frozenset(v) for k, v in data.items()}


def test_native_and_literal_names():
    data = b"\x00TORCH_SHOW_CPP_STACKTRACES\x00set TORCH_NCCL_BLOCKING_WAIT=1\x00"
    data += b"xTORCH_NO\x00TORCHX\x00"
    assert native_names(data) == {"TORCH_SHOW_CPP_STACKTRACES", "TORCH_NCCL_BLOCKING_WAIT"}
    src = (
        'a = "use TORCHINDUCTOR_FOO_BAR=1"\nb = f"TORCHINDUCTOR_{x}"\nc = "TORCHINDUCTOR_PREFIX_"\n'
    )
    assert literal_names(src) == {"TORCHINDUCTOR_FOO_BAR"}


def test_packaged_release_facts():
    reads = packaged_reads()
    assert next(iter(reads)) == "2.1" and list(reads)[-1] == "2.15"
    every = frozenset().union(*reads.values())
    for name in [
        "TORCH_LOGS_RANKS",
        "TORCHINDUCTOR_DUMP_IR",
        "TORCHINDUCTOR_DUMP_CODE",
        "TORCHINDUCTOR_TRACE",
    ]:
        assert name not in every
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHE" not in every
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHES" in reads["2.13"]
    assert releases_reading("TORCH_DTRACE")[0] == "2.7"
    assert releases_reading("TORCHDYNAMO_VERBOSE") == list(reads)
    # read in C++ only, found in the native string tables
    assert {"TORCH_SHOW_CPP_STACKTRACES", "TORCH_CPP_LOG_LEVEL"} <= reads["2.13"]
