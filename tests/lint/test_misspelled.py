"""TL408: misspelled variable names, in every host, and the packaged
list of names torch reads (checked against the installed torch 2.13)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.oracles import read_torch_logs
from tests.support.paths import ROOT
from torch_logs_lsp import hosts
from torch_logs_lsp.knowledge.env_reads import decode, encode, torch_names_read
from torch_logs_lsp.knowledge.env_reads import names_read as scan_source
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.knowledge.versions import holds
from torch_logs_lsp.lint.misspelled import (
    names_read,
    near_misses,
    packaged_releases,
    suggestion,
)
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.spans import FAMILY
from torch_logs_lsp.value.family import SINCE_FACT

PACKAGE = ROOT / "src" / "torch_logs_lsp"
DATA = PACKAGE / "knowledge" / "data" / "env-reads-by-version.json"


def misses(host: str, text: str, release: str = "2.13", **kw: bool) -> list[tuple[str, str]]:
    """(name as written, suggestion) of each TL408, with the rename checked: the host then
    reads the suggested variable exactly where the name was."""
    found = near_misses(host, text, release, **kw)
    for miss in found:
        assert text[miss.start : miss.end] == miss.name
        fixed = text[: miss.start] + miss.suggestion + text[miss.end :]
        spans = hosts.extract(host, fixed)
        assert any(s.variable == miss.suggestion and s.name_start == miss.start for s in spans)
    return [(m.name, m.suggestion) for m in found]


# (host, document, expected (name, suggestion) pairs)
CASES = [
    # a SLURM script, and more
    (
        "shell",
        "#SBATCH -N 1\nexport TORCH_LOG=perf_hints\nsrun python t.py\n",
        [("TORCH_LOG", "TORCH_LOGS")],
    ),
    ("shell", "TORCHLOGS=+dynamo python t.py\n", [("TORCHLOGS", "TORCH_LOGS")]),
    (
        "shell",
        "export TORCH_LOGS_FMT=short TORCH_LOG_OUT=/tmp/l.txt\n",
        [("TORCH_LOGS_FMT", "TORCH_LOGS_FORMAT"), ("TORCH_LOG_OUT", "TORCH_LOGS_OUT")],
    ),
    ("shell", "torch_logs=dynamo python t.py\n", [("torch_logs", "TORCH_LOGS")]),
    # mentioned elsewhere: the script's own variable, or a rename that would leave
    # `export TORCH_LOG` behind (TORCH_LOGS then not exported: checked with bash)
    ("shell", "torch_logs=dynamo\nexport torch_logs\n", []),
    ("shell", "TORCH_LOG=+dynamo\nexport TORCH_LOG\npython t.py\n", []),
    ("shell", "export TORCH_LOG=/tmp/t.log\nprintenv TORCH_LOG\n", []),
    ("shell", "export TORCH_LOG=x\npython - <<EOF\nimport os; os.environ['TORCH_LOG']\nEOF\n", []),
    ("python", 'os.environ["TORCH_LOG"] = "x"\nprint(os.environ["TORCH_LOG"])\n', []),
    ("dotenv", "TORCH_LOG=a\nTORCH_LOG=b\n", [("TORCH_LOG", "TORCH_LOGS")] * 2),
    ("shell", "env TORCH_TRACES=/tmp/tr python t.py\n", [("TORCH_TRACES", "TORCH_TRACE")]),
    ("shell", "echo $TORCH_LOG\n# export TORCH_LOG=dynamo\nprintf '%s' TORCH_LOG=x\n", []),
    ("dotenv", "TORCH_LOG=perf_hints\n", [("TORCH_LOG", "TORCH_LOGS")]),
    (
        "dotenv",
        "export TORCHLOGS=dynamo\nTORCH_TRACES=/tmp/t\n",
        [("TORCHLOGS", "TORCH_LOGS"), ("TORCH_TRACES", "TORCH_TRACE")],
    ),
    ("dotenv", "TORCH_LOGS_OUTPUT=/tmp/l.txt # out\n", [("TORCH_LOGS_OUTPUT", "TORCH_LOGS_OUT")]),
    (
        "dotenv",
        "TORCH_TRACE_ID_FILTER=[0/0]\n",
        [("TORCH_TRACE_ID_FILTER", "TORCH_LOGS_TRACE_ID_FILTER")],
    ),
    ("dotenv", "# TORCH_LOG=dynamo\nA=TORCH_LOG\n", []),
    (
        "jsonc",
        '{"configurations": [{"env": {"TORCH_LOG": "perf_hints"}}]}',
        [("TORCH_LOG", "TORCH_LOGS")],
    ),
    (
        "jsonc",
        '{"configurations": [{"env": {"TORCH_LOGS_FMT": "short", "TORCH_TRACES": "/t"}}]}',
        [("TORCH_LOGS_FMT", "TORCH_LOGS_FORMAT"), ("TORCH_TRACES", "TORCH_TRACE")],
    ),
    (
        "jsonc",
        '{"configurations": [{"env": {"TORCH_COMPILE_DEBUGS": "1"}}]}',
        [("TORCH_COMPILE_DEBUGS", "TORCH_COMPILE_DEBUG")],
    ),
    ("jsonc", '{"configurations": [{"args": ["TORCH_LOG"], "TORCH_LOG": "x"}]}', []),
    (
        "python",
        'import os\nos.environ["TORCH_LOG"] = "perf_hints"\n',
        [("TORCH_LOG", "TORCH_LOGS")],
    ),
    ("python", 'os.environ.setdefault("TORCHLOGS", "+dynamo")\n', [("TORCHLOGS", "TORCH_LOGS")]),
    (
        "python",
        'subprocess.run(cmd, env={**os.environ, "TORCH_LOG_FORMAT": "short"})\n',
        [("TORCH_LOG_FORMAT", "TORCH_LOGS_FORMAT")],
    ),
    ("python", 'os.environ.update(TORCH_LOGSS="dynamo")\n', [("TORCH_LOGSS", "TORCH_LOGS")]),
    ("python", 'x = os.environ.get("TORCH_LOG")\nTORCH_LOG = "dynamo"\n"TORCH_LOG"\n', []),
    # the document's own variable: it reads it itself
    (
        "shell",
        'TORCH_LOG=/tmp/t.log\npython t.py > "$TORCH_LOG"\nexport TORCHLOGS=x\n',
        [("TORCHLOGS", "TORCH_LOGS")],
    ),
    ("shell", "export TORCH_TRACES=/tmp/t\nls ${TORCH_TRACES:-/tmp}\n", []),
    ("dotenv", "TORCH_LOG=/tmp/x\nOTHER=${TORCH_LOG}/y\n", []),
    (
        "jsonc",
        '{"configurations": [{"env": {"TORCH_LOG": "a"}, "args": ["${env:TORCH_LOG}"]}]}',
        [],
    ),
    ("python", 'os.environ["TORCH_LOG"] = "x"\nprint(os.getenv("TORCH_LOG"))\n', []),
]


@pytest.mark.parametrize(("host", "text", "expected"), CASES)
def test_near_misses(host: str, text: str, expected: list[tuple[str, str]]):
    assert misses(host, text) == expected


NEVER = [
    "TORCH_COMPILE_DEBUG_DIR",
    "TORCHINDUCTOR_CACHE_DIR",
    "TORCH_HOME",
    "TORCH_CUDA_ARCH_LIST",
    "TORCH_SHOW_CPP_STACKTRACES",
    "TORCH_LOGS_OUT",
    "TORCH_TRACE",
    "TORCH_LOGS",
    "TORCH_LOGS_FORMAT",
    "TORCH_LOGS_TRACE_ID_FILTER",
    "TORCH_COMPILE_DEBUG",
    "TORCH_COMPILE_DEBUG_SAVE_REAL",
    "TORCH_LOGS_2",
    "TORCH_LOGS_DIR",
    "TORCH_TRACE_DIR",
    "TORCH_LOGS_FILE",
    "TORCH_LOGS_LEVEL",
    "TORCH_CPP_LOG_LEVEL",
    "TORCH_NCCL_TRACE_BUFFER_SIZE",
    "TORCHDYNAMO_VERBOSE",
    "PYTORCH_CUDA_ALLOC_CONF",
    "torch_compile_debug_dir",  # a case variant of a read name that is not in the family
]


@pytest.mark.parametrize("name", NEVER)
def test_never_flagged(name: str):
    for host, text in [
        ("shell", f"export {name}=1\n{name}=2 python t.py\n"),
        ("dotenv", f"{name}=1\n"),
        ("jsonc", f'{{"configurations": [{{"env": {{"{name}": "1"}}}}]}}'),
        ("python", f'os.environ["{name}"] = "1"\n'),
    ]:
        for release in [*packaged_releases(), "9.9"]:
            assert misses(host, text, release) == [], (host, release)


@pytest.mark.parametrize(
    "name",
    [
        "TORCH_HOME",
        "TORCH_CUDA_ARCH_LIST",
        "TORCH_SHOW_CPP_STACKTRACES",
        "TORCHINDUCTOR_CACHE_DIR",
        "TORCH_USE_CUDA_DSA",
        "TORCH_DISABLE_ADDR2LINE",
        "TORCH_LOGS_LEVEL",
        "TORCH_NCCL_TRACE_BUFFER_SIZE",
    ],
)
def test_unrelated_names_even_if_the_static_list_misses_them(name: str):
    assert suggestion(name, FAMILY) is None


def test_case_only_difference_depends_on_the_platform():
    text = "torch_logs=dynamo\n"
    assert misses("dotenv", text, case_sensitive=True) == [("torch_logs", "TORCH_LOGS")]
    assert misses("dotenv", text, case_sensitive=False) == []
    # a near miss is one in any case
    assert misses("dotenv", "torch_log=dynamo\n", case_sensitive=False) == [
        ("torch_log", "TORCH_LOGS")
    ]


def test_release_not_packaged_uses_every_release():
    assert names_read("9.9") >= names_read("2.13") | names_read("2.1")
    assert "TORCH_COMPILE_DEBUG_DIR" in names_read("2.13.0")


def test_renamed_value_is_the_one_torch_gets():
    text = "export TORCH_LOG=perf_hints\n"
    (miss,) = near_misses("shell", text, "2.13")
    edit = miss.edit()
    fixed = text[: edit.start] + edit.new_text + text[edit.end :]
    assert read_torch_logs("shell", fixed) == "perf_hints"
    assert read_torch_logs("shell", text) is None


def test_findings_message_and_place():
    text = "#!/bin/bash\nexport TORCH_LOG=perf_hints\n"
    (f,) = [
        f for f in findings(text, "shell", load_registry("2.13")) if f.diagnostic.code == "TL408"
    ]
    assert (f.line, f.column, f.end_column) == (1, 7, 16)
    assert f.diagnostic.message == "torch does not read `TORCH_LOG`; did you mean `TORCH_LOGS`?"
    assert f.diagnostic.suggestions == ("TORCH_LOGS",)
    assert f.span is None


def test_hostile_text_does_not_raise():
    for host in hosts.HOST_KINDS:
        for text in [
            "TORCH_LOG" * 5000,
            "TORCH_LOG=" * 3000,
            "\x00TORCH_LOG=\ud800",
            "{" * 500 + '"TORCH_LOG"',
        ]:
            near_misses(host, text, "2.13")


def test_scanner_patterns():
    src = """
import os
from os import environ, getenv
NAME = "C_RESOLVED"
os.environ.get("A_GET"); os.environ["A_SUB"]; os.getenv("A_GETENV"); getenv("B")
if "A_IN" in os.environ or "A_NOTIN" not in environ: pass
get_tristate_env("A_HELPER"); os.environ.pop(NAME)
x = Config(default=1, env_name_default="A_DEFAULT", env_name_force=["A_F1", "A_F2"])
print("NOT_READ"); d["NOT_READ_2"]; os.environ.get(f"X{y}")
"""
    assert scan_source(src) == {
        "A_GET",
        "A_SUB",
        "A_GETENV",
        "B",
        "A_IN",
        "A_NOTIN",
        "A_HELPER",
        "C_RESOLVED",
        "A_DEFAULT",
        "A_F1",
        "A_F2",
    }
    assert scan_source("def (") == set()


def test_packaged_data_shape():
    raw = json.loads(DATA.read_text())
    assert list(raw["names"]) == sorted(raw["names"])
    data = decode(raw)
    assert encode(data) == raw  # the packaged form is the canonical one
    assert "2.13" in data and list(data) == raw["releases"]
    for release, names in data.items():
        assert {"TORCH_LOGS", "TORCH_COMPILE_DEBUG"} <= names, release
        assert "TORCH_LOG" not in names and "TORCHLOGS" not in names


@pytest.mark.oracle
def test_packaged_2_13_equals_a_scan_of_the_installed_torch():
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    torch_dir = Path(spec.origin).parent
    version = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version.startswith("2.13.")
    packaged = decode(json.loads(DATA.read_text()))["2.13"]
    assert packaged == torch_names_read(torch_dir)


def test_cli_reports_misspelled_names_in_a_folder(tmp_path: Path):
    (tmp_path / "job.slurm.sh").write_text(
        "#!/bin/bash\n#SBATCH -N 1\nexport TORCH_LOG=perf_hints\n"
        "export TORCH_COMPILE_DEBUG_DIR=/tmp/d TORCHINDUCTOR_CACHE_DIR=/tmp/c\nsrun python t.py\n"
    )
    (tmp_path / ".env").write_text("TORCHLOGS=+dynamo\nTORCH_HOME=/h\n")
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text(
        '{"configurations": [{"env": {"TORCH_TRACES": "/tmp/t", "TORCH_LOGS_OUT": "/tmp/l"}}]}\n'
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_logs_lsp.cli.main",
            "check",
            "--torch-version",
            "2.13",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [row.replace(str(tmp_path) + "/", "") for row in proc.stdout.splitlines()]
    assert rows == [
        ".env:1:1: TL408 torch does not read `TORCHLOGS`; did you mean `TORCH_LOGS`?",
        "job.slurm.sh:3:8: TL408 torch does not read `TORCH_LOG`; did you mean `TORCH_LOGS`?",
        ".vscode/launch.json:1:31: TL408 torch does not read `TORCH_TRACES`; did you mean"
        " `TORCH_TRACE`?",
    ], proc.stdout
    assert proc.returncode == 0, proc.stderr  # warnings only


def test_scan_agrees_with_the_release_facts_on_the_family():
    """The wheels' scan finds each family variable exactly in the releases that
    knowledge/versions.py says read it (TORCH_LOGS_FORMAT from 2.2, ..._TRACE_ID_FILTER 2.7)."""
    data = decode(json.loads(DATA.read_text()))
    assert list(data) == [f"2.{n}" for n in range(1, 16)]
    for release, names in data.items():
        for variable, key in SINCE_FACT.items():
            assert (variable in names) == (key is None or holds(key, release)), (release, variable)
