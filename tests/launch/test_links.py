"""TL632: which launch configurations certainly run a Python file with TORCH_LOGS set
(launch/links.py, launch/config.py), and the CLI on a temporary workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.launch.config import env_file_line, launch_configurations
from torch_logs_lsp.launch.links import (
    LINKED_CALL,
    call_hints,
    launch_links,
    substitute,
)

SCRIPT = "import logging\nimport torch\n\ntorch._logging.set_logs(dynamo=logging.DEBUG)\n"


def workspace(tmp_path: Path, configs: list[dict[str, object]], extra: str = "") -> Path:
    """A folder with train.py, pkg/run.py (a regular package) and a launch.json."""
    (tmp_path / ".vscode").mkdir()
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "run.py").write_text(SCRIPT)
    body = json.dumps({"version": "0.2.0", "configurations": configs}, indent=2)
    (tmp_path / ".vscode" / "launch.json").write_text("// launch\n" + body + extra)
    return tmp_path


def config(**fields: object) -> dict[str, object]:
    out: dict[str, object] = {"name": "Train", "type": "debugpy", "request": "launch"}
    out.update(fields)
    return out


def names(tmp_path: Path, file: str = "train.py") -> list[tuple[str, str]]:
    return [(link.config, link.via) for link in launch_links(str(tmp_path / file), str(tmp_path))]


ENV = {"TORCH_LOGS": "+dynamo"}


@pytest.mark.parametrize(
    "program",
    [
        "${workspaceFolder}/train.py",
        "${workspaceRoot}/train.py",
        "${workspaceFolder}${/}train.py",
        "${workspaceFolder}/pkg/../train.py",
        "train.py",  # relative: from cwd, which defaults to the workspace folder
    ],
)
def test_program_paths_that_resolve_to_the_file(tmp_path: Path, program: str):
    workspace(tmp_path, [config(program=program, env=ENV)])
    assert names(tmp_path) == [("Train", "env")]


def test_absolute_program_and_relative_program_from_cwd(tmp_path: Path):
    workspace(
        tmp_path,
        [
            config(name="abs", program=str(tmp_path / "train.py"), env=ENV),
            config(name="cwd", program="run.py", cwd="${workspaceFolder}/pkg", env=ENV),
            config(name="other", program="${workspaceFolder}/pkg/run.py", env=ENV),
        ],
    )
    assert names(tmp_path) == [("abs", "env")]
    assert names(tmp_path, "pkg/run.py") == [("cwd", "env"), ("other", "env")]


@pytest.mark.parametrize(
    "fields",
    [
        {"program": "${file}"},  # whatever file is active: not certain
        {"program": "${env:HOME}/train.py"},
        {"program": "${workspaceFolder:elsewhere}/train.py"},  # an unknown folder name
        {"program": "train.py", "cwd": "${fileDirname}"},
        {"program": "train.py", "cwd": "relative/dir"},
        {"program": "~/train.py"},
        {"program": "${workspaceFolder}/train.py", "module": "train"},  # debugpy rejects it
        {"program": "${workspaceFolder}/train.py", "type": "node"},
        {"program": "${workspaceFolder}/train.py", "type": "python", "request": "attach"},
        {"program": "${workspaceFolder}/train.py", "linux": {"env": {"TORCH_LOGS": ""}}},
        {"program": "${workspaceFolder}/train.py", "env": {"TORCH_LOGS": ""}},  # TL001 there
        {"program": "${workspaceFolder}/train.py", "env": {"TORCH_LOGS": "${env:TL}"}},
        {"program": "${workspaceFolder}/train.py", "env": {"TORCH_LOGS": None}},
        {"program": "${workspaceFolder}/train.py", "env": {"OTHER": "1"}},
        {"program": 42, "env": ENV},
    ],
)
def test_uncertain_links_are_skipped(tmp_path: Path, fields: dict[str, object]):
    workspace(tmp_path, [config(**fields) if "env" in fields else config(env=ENV, **fields)])
    assert names(tmp_path) == []


def test_named_workspace_folder(tmp_path: Path):
    workspace(tmp_path, [config(program="${workspaceFolder:proj}/train.py", env=ENV)])
    file, folder = str(tmp_path / "train.py"), str(tmp_path)
    assert launch_links(file, folder, folders={"proj": folder})[0].config == "Train"
    assert launch_links(file, folder, folders={"other": folder}) == []


def test_module_configurations(tmp_path: Path):
    workspace(
        tmp_path,
        [
            config(name="run", module="pkg.run", env=ENV),
            config(name="top", module="train", env=ENV),
            config(name="stdlib", module="json", env=ENV),
            config(name="missing", module="pkg.nothere", env=ENV),
        ],
    )
    assert names(tmp_path, "pkg/run.py") == [("run", "env")]
    assert names(tmp_path) == [("top", "env")]


def test_module_in_a_namespace_package_is_not_certain(tmp_path: Path):
    workspace(tmp_path, [config(module="ns.run", env=ENV)])
    (tmp_path / "ns").mkdir()
    (tmp_path / "ns" / "run.py").write_text(SCRIPT)  # no __init__.py
    assert names(tmp_path, "ns/run.py") == []


def test_module_package_runs_its_main(tmp_path: Path):
    workspace(tmp_path, [config(module="pkg", env=ENV)])
    (tmp_path / "pkg" / "__main__.py").write_text(SCRIPT)
    assert names(tmp_path, "pkg/__main__.py") == [("Train", "env")]


def test_env_wins_over_env_file_and_env_file_lines(tmp_path: Path):
    workspace(
        tmp_path,
        [
            config(name="file", program="train.py", envFile="${workspaceFolder}/dev.env"),
            # env holds TORCH_LOGS (empty): the envFile's value is not used
            config(
                name="both",
                program="train.py",
                envFile="${workspaceFolder}/dev.env",
                env={"TORCH_LOGS": ""},
            ),
            config(name="missing file", program="train.py", envFile="${workspaceFolder}/no.env"),
            config(name="relative file", program="train.py", envFile="dev.env"),
        ],
    )
    (tmp_path / "dev.env").write_text("# dev\nOTHER=1\nTORCH_LOGS='+guards'\n")
    (link,) = launch_links(str(tmp_path / "train.py"), str(tmp_path))
    assert (link.config, link.via, link.line) == ("file", "envFile", 2)
    assert link.source_path == str(tmp_path / "dev.env")


def test_default_env_file_and_settings(tmp_path: Path):
    workspace(tmp_path, [config(program="train.py")])
    assert names(tmp_path) == []  # no .env
    (tmp_path / ".env").write_text("TORCH_LOGS=+dynamo\n")
    assert names(tmp_path) == [("Train", "python.envFile")]
    settings = tmp_path / ".vscode" / "settings.json"
    settings.write_text('{\n  // mine\n  "python.envFile": "${workspaceFolder}/other.env",\n}\n')
    assert names(tmp_path) == []  # the setting names another file, which does not exist
    (tmp_path / "other.env").write_text("TORCH_LOGS=+guards\n")
    assert names(tmp_path) == [("Train", "python.envFile")]
    settings.write_text('{"python.envFile": "${env:HOME}/x.env"}')
    assert names(tmp_path) == []  # not resolvable: no default either
    settings.write_text('{"python.envFile": ')  # broken: not certain
    assert names(tmp_path) == []


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("TORCH_LOGS=+dynamo\n", 0),
        ('  TORCH_LOGS = "+dynamo"  \r\n', 0),
        ("TORCH_LOGS=+dynamo\nTORCH_LOGS=guards\n", 1),  # the last one wins
        ("TORCH_LOGS=+dynamo\nTORCH_LOGS=\n", None),  # empty: import torch crashes
        ("TORCH_LOGS=''\n", None),
        ("TORCH_LOGS=${LEVEL}\n", None),  # substituted, maybe to nothing
        ("export TORCH_LOGS=+dynamo\n", None),  # the debugger's parser skips this line
        ("# TORCH_LOGS=+dynamo\n", None),
    ],
)
def test_env_file_line(text: str, line: int | None):
    found = env_file_line(text)
    assert (found[0] if found else None) == line


def test_substitute():
    assert substitute("${workspaceFolder}/a.py", "/w") == "/w/a.py"
    assert substitute("${file}", "/w") is None
    assert substitute("${workspaceFolder:x}/a", "/w", {"x": "/x"}) == "/x/a"
    assert substitute("${unclosed", "/w") is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"configurations": {}}',
        '{"configurations": [1, "x", null]}',
        '{"configurations": [{"program": "${workspaceFolder}/train.py", "env": {"TORCH_LOGS": "x"',
        '{"configurations": [{"name": "\\u12"}]}',
        "{" * 5000,
        '{"configurations": [' + '{"a": ' * 200 + "1" + "}" * 200 + "]}",
    ],
)
def test_malformed_launch_json_does_not_crash(tmp_path: Path, text: str):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text(text)
    (tmp_path / "train.py").write_text(SCRIPT)
    assert launch_links(str(tmp_path / "train.py"), str(tmp_path)) == []
    launch_configurations(text)  # never raises


def test_a_broken_configuration_is_skipped_and_the_others_kept(tmp_path: Path):
    text = (
        '{"configurations": [\n'
        '  {"name": "broken", "type": "debugpy", "request": "launch", "program": "train.py",'
        ' "env": {"TORCH_LOGS": "+dynamo" "x": 1}},\n'
        '  {"name": "ok", "type": "debugpy", "request": "launch", "program": "train.py",'
        ' "env": {"TORCH_LOGS": "+dynamo",},},\n'
        "]}\n"
    )
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text(text)
    (tmp_path / "train.py").write_text(SCRIPT)
    (link,) = launch_links(str(tmp_path / "train.py"), str(tmp_path))
    assert (link.config, link.line) == ("ok", 2)


def test_call_hints_keep_one_diagnostic_per_call(tmp_path: Path):
    workspace(
        tmp_path,
        [config(program="train.py", env=ENV), config(name="Again", program="train.py", env=ENV)],
    )
    text = SCRIPT + "torch._logging.set_logs(graph_breaks=True)\n"
    diags, links = call_hints(str(tmp_path / "train.py"), text, [str(tmp_path)])
    assert [d.code for d in diags] == [LINKED_CALL, LINKED_CALL]
    assert len(links) == 2
    assert diags[0].start == text.index("torch._logging.set_logs")
    assert '"Train" (.vscode/launch.json line ' in diags[0].message
    assert "and 1 other configuration;" in diags[0].message
    # no set_logs call: the launch.json is not even read
    assert call_hints(str(tmp_path / "train.py"), "import torch\n", [str(tmp_path)]) == ([], [])


def run_check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
    )


def test_cli_on_a_workspace(tmp_path: Path):
    (tmp_path / "ws").mkdir()
    ws = workspace(tmp_path / "ws", [])
    (ws / ".vscode" / "launch.json").write_text(
        '{\n  // train\n  "configurations": [\n    {\n      "name": "Train",\n'
        '      "type": "debugpy",\n      "request": "launch",\n'
        '      "program": "${workspaceFolder}/train.py",\n'
        '      "env": { "TORCH_LOGS": "+dynamo" },\n    },\n  ],\n}\n'
    )
    want = (
        'train.py:4:1: TL632 set_logs(...) is ignored when run with launch configuration "Train"'
        " (.vscode/launch.json line 9 sets TORCH_LOGS)"
    )
    proc = run_check(tmp_path, "ws")
    assert proc.returncode == 0, proc.stderr
    assert [row.startswith("ws/" + want) for row in proc.stdout.splitlines()] == [True]
    # the file alone: linked when the current directory is the workspace folder ...
    proc = run_check(ws, "train.py")
    assert proc.stdout.startswith(want), proc.stdout
    # ... not from elsewhere: the CLI does not know ws/ is a workspace folder then
    assert run_check(tmp_path, "ws/train.py").stdout == ""
    proc = run_check(tmp_path, "--format", "json", "ws")
    (row,) = json.loads(proc.stdout)
    assert (row["code"], row["severity"], row["line"], row["column"]) == ("TL632", "info", 4, 1)


def test_strings_are_decoded_as_json():
    (cfg,) = launch_configurations('{"configurations": [{"name": "a\\u0041\\"", "n": "plain"}]}')
    assert (cfg["name"].value, cfg["n"].value) == ('aA"', "plain")
    # the cache gives the same answer for the same text
    text = '{"configurations": [{"program": "${workspaceFolder}/\\u0074rain.py"}]}'
    assert launch_configurations(text) == launch_configurations(text)
    (cfg,) = launch_configurations(text) or []
    assert cfg["program"].value == "${workspaceFolder}/train.py"
