"""detect_host and the extract dispatcher."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp import hosts


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("/w/.env", "", "dotenv"),
        ("/w/.env.local", "", "dotenv"),
        ("/w/prod.env", "", "dotenv"),
        ("C:\\w\\.env.production", "", "dotenv"),
        ("/w/.envrc", "", "shell"),
        ("/w/.vscode/launch.json", "", "jsonc"),
        ("/w/.vscode/tasks.json", "", "jsonc"),
        ("/w/launch.json", "", "jsonc"),
        ("/w/proj.code-workspace", "", "jsonc"),
        ("/w/run.sh", "", "shell"),
        ("/w/run.bash", "", "shell"),
        ("/w/run.zsh", "", "shell"),
        ("/w/run.ksh", "", "shell"),
        ("/w/.bashrc", "", "shell"),
        ("/w/train", "#!/bin/bash\nTORCH_LOGS=x\n", "shell"),
        ("/w/train", "#!/usr/bin/env bash\n", "shell"),
        ("/w/train", "#! /usr/bin/env -S zsh -e\n", "shell"),
        ("/w/train", "\ufeff#!/bin/sh\r\n", "shell"),
        ("/w/train", "#!/bin/dash", "shell"),
        ("/w/train", "#!/usr/bin/env python3\n", None),
        ("/w/train", "TORCH_LOGS=x\n", None),
        ("/w/train.py", "#!/bin/bash\n", "python"),
        ("/w/stub.pyi", "", None),
        ("/w/settings.json", "", None),
        ("/w/environment.yml", "", "yaml"),
        ("/w/.github/workflows/CI.YML", "", "yaml"),
        ("/w/compose.yaml.bak", "", None),
        ("/w/.envrc.bak", "", None),
        # .env.<suffix>: a source or data file by its last suffix is not a .env file
        ("/w/.env.py", "", "python"),  # a Python module, as its suffix says
        ("/w/.env.d.ts", "", None),
        ("/w/.ENV.JSON", "", None),
        ("/w/.env.example.yaml", "", "yaml"),  # YAML, not a .env file
        ("/w/.env.mjs", "", None),
        ("/w/.env.md", "", None),
        ("/w/.env.example", "", "dotenv"),
        ("/w/.env.development.local", "", "dotenv"),
        ("/w/.env.test", "", "dotenv"),
        ("/w/.env.txt", "", "dotenv"),
        ("/w/.env.sh", "", "shell"),  # the .sh rule comes first
        ("/w/app.py.env", "", "dotenv"),
        ("", "", None),
        ("/", "\x00\ud800", None),
    ],
)
def test_detect_host(path: str, text: str, expected: str | None) -> None:
    assert hosts.detect_host(path, text) == expected


def test_dispatch() -> None:
    # every host package is registered (a kind of HostKind) and every kind has its package
    packages = {p.parent.name for p in Path(hosts.__file__).parent.glob("*/host.py")}
    assert set(hosts.HOST_KINDS) == packages
    for kind in hosts.HOST_KINDS:
        module = hosts.host_module(kind)
        assert module is not None and module.HOST == kind == module.SPEC.kind
    assert [s.value for s in hosts.extract("dotenv", "TORCH_LOGS=a")] == ["a"]
    assert [s.value for s in hosts.extract("shell", "export TORCH_LOGS='a'")] == ["a"]
    doc = '{"configurations": [{"env": {"TORCH_LOGS": "a"}}]}'
    assert [s.value for s in hosts.extract("jsonc", doc)] == ["a"]
    escaped = '{"configurations": [{"env": {"TORCH\\u005fLOGS": "a"}}]}'
    assert [s.value for s in hosts.extract("jsonc", escaped)] == ["a"]
    assert hosts.extract("yaml", "TORCH_LOGS: a") == []  # not under env:
    assert [s.value for s in hosts.extract("yaml", "env:\n  TORCH_LOGS: a\n")] == ["a"]
    assert hosts.extract("toml", "TORCH_LOGS: a") == []
    assert hosts.extract("shell", "OTHER=1") == []


def test_tree_sitter_hosts_are_imported_lazily() -> None:
    code = (
        "import sys; from torch_logs_lsp import hosts; "
        "hosts.extract('shell', 'no family here'); "
        "assert 'tree_sitter' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


#: Pieces of file names the hosts' name rules look at (globs, exceptions, cases).
_NAME_PARTS = sorted(
    {part for spec in hosts.host_specs() for glob in spec.globs for part in glob.split("*")}
    | {".", "py", "json", "d.ts", "dockerignore", "md", "x", "ENV", "Pytest.INI", "TOX.ini"}
)


@settings(max_examples=examples(400))
@given(st.lists(st.sampled_from(_NAME_PARTS), min_size=1, max_size=4).map("".join))
@example("Dockerfile.py")
@example("Dockerfile.dockerignore")
@example(".env.py")
@example("Tox.ini")
@example("x.Containerfile")
def test_a_name_rule_claims_only_names_its_globs_claim(name: str) -> None:
    # detection asks only the hosts whose declared globs claim a name: every name rule
    # (detect_name) must stay within its globs, and the answer is the first module's
    modules = [hosts.host_module(kind) for kind in hosts.HOST_KINDS]
    claimed = [m.HOST for m in modules if m is not None and m.detect_name(name)]
    for kind in claimed:
        spec = next(s for s in hosts.host_specs() if s.kind == kind)
        assert spec.claims(name), (kind, name)
    assert hosts.host_by_name(name) == (claimed[0] if claimed else None)


def test_detection_by_name_imports_only_the_claiming_hosts() -> None:
    code = (
        "import sys; from torch_logs_lsp import hosts; "
        "assert hosts.detect_host('/w/run.sh', '') == 'shell'; "
        "assert hosts.detect_host('/w/.env.local', '') == 'dotenv'; "
        "loaded = {m.split('.')[2] for m in sys.modules if m.endswith('.host') and "
        "m.startswith('torch_logs_lsp.hosts.')}; "
        "assert loaded == {'shell', 'dotenv'}, loaded; "
        "assert hosts.detect_host('/w/x', '#!/bin/sh') == 'shell'; "
        "assert hosts.detect_host('/w/x', '#!/usr/bin/env pwsh') == 'powershell'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_detection_imports_no_parser() -> None:
    """Detecting a file imports no parser (a name imports the hosts whose globs claim it,
    content every host)."""
    code = (
        "import sys; from torch_logs_lsp import hosts; "
        "assert hosts.detect_host('/w/run.sh', '') == 'shell'; "
        "assert hosts.detect_host('/w/x', '#!/bin/sh') == 'shell'; "
        "assert hosts.detect_host('/w/ci.yml', '') == 'yaml'; "
        "assert 'tree_sitter' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
