"""The torch-logs command on the bundled examples and on generated trees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.oracles import read_torch_logs
from tests.support.paths import EXAMPLES
from torch_logs_lsp import hosts
from torch_logs_lsp.cli.main import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_examples_flags_the_done_when_list():
    proc = run("check", str(EXAMPLES))
    assert proc.returncode == 1
    out = proc.stdout.replace(str(EXAMPLES) + "/", "")
    expected = [
        "envs/recompiles.env:2:12: TL201 unknown name `aot_g`",
        "envs/inductor.env:2:28: TL104 trailing comma",
        "envs/quiet.env:2:12: TL001",
        "debugging-knobs/autotune.env:4:28: TL441 `TORCHINDUCTOR_MAX_AUTOTUNE=true`: torch"
        ' compares the value with "1"',
        ".vscode/launch.json:17:31: TL107",
        ".vscode/launch.json:35:37: TL201 unknown name `Dynamo`",
        "containers/.devcontainer/devcontainer.json:7:28: TL201 unknown name `gards`",
        "scripts/train.sh:8:27: TL102",
        "scripts/train.sh:11:12: TL301",
        "scripts/debug_compile:3:12: TL002",
        "scripts/debug_compile:4:17: TL201 unknown name `Dynamo`",
        "scripts/debug_compile:6:24: TL301",
        "scripts/debug_compile:6:41: TL106",
        "python/train.py:16:95: TL001",
        "python/train.py:20:53: TL201 unknown name `aot_g`",
        "python/train.py:28:33: TL501 TORCH_LOGS is set after `import torch` (line 11)",
        # set_logs(...) calls: a keyword torch 2.13 lacks, True for a level
        "python/train_set_logs.py:11:25: TL602 set_logs() got an unexpected keyword argument"
        " 'loop_ordering'",
        "python/train_set_logs.py:13:32: TL611 torch raises ValueError: Unrecognized log level"
        " for log dynamo: True",
        "python/train_set_logs.py:18:29: TL501 TORCH_LOGS is set after `import torch` (line 8)",
        "python/train_set_logs.py:23:81: TL001",
        "python/ignored_set_logs.py:11:1: TL631 set_logs(...) is ignored: TORCH_LOGS is set"
        " (line 5)",
        # a launch configuration runs the script with TORCH_LOGS set (examples/.env)
        "python/launched_set_logs.py:13:1: TL632 set_logs(...) is ignored when run with launch"
        ' configuration "set_logs script" (the Python debugger\'s default envFile .env sets'
        " TORCH_LOGS on line 3) and 1 other configuration",
    ]
    for line in expected:
        assert any(row.startswith(line) for row in out.splitlines()), (line, out)
    # correct values and computed values are not reported
    clean_rows = ("train.sh:14:", "train.sh:16:", "debug_compile:5:")
    clean_rows += ("train.py:8:", "train.py:9:", "train.py:23:")  # right or computed
    clean_rows += ("devcontainer.json:8:", "devcontainer.json:11:", "devcontainer.json:12:")
    clean_rows += ("train_set_logs.py:14:", "train_set_logs.py:26:", "ignored_set_logs.py:5:")
    for clean in ("examples/.env", *clean_rows):
        assert clean not in proc.stdout


def test_set_logs_call_in_a_python_file(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(
        "import logging\nimport torch\ntorch._logging.set_logs(loop_ordering=True)\n"
        "torch._logging.set_logs(loop_ordering=logging.DEBUG, dynamo=True)\n"
        "torch._logging.set_logs(dynamo=True)\n"
    )
    proc = run("check", "--python", sys.executable, str(script))
    assert proc.returncode == 1, proc.stderr
    rows = [row.split(" ", 2)[:2] for row in proc.stdout.splitlines()]
    # line 4: a TypeError while binding comes first, so dynamo=True is never read there
    assert rows == [
        [f"{script}:3:25:", "TL602"],
        [f"{script}:4:25:", "TL602"],
        [f"{script}:5:32:", "TL611"],
    ]
    proc = run("check", "--format", "json", "--python", sys.executable, str(script))
    first, _, second = json.loads(proc.stdout)
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (
        3,
        25,
        3,
        38,
    )
    assert (second["code"], second["column"], second["end_column"]) == ("TL611", 32, 36)
    assert first["variable"] is None and first["value"] is None  # about no value


def test_set_logs_calls_that_are_right_or_not_torchs_are_silent(tmp_path: Path):
    script = tmp_path / "quiet.py"
    script.write_text(
        "import logging\nimport torch\nfrom torch._logging import set_logs\n"
        "set_logs(dynamo=logging.DEBUG, graph_breaks=True)\n"
        "level = logging.INFO\n"
        "torch._logging.set_logs(dynamo=level, aot=None)\n"  # not static: not judged
    )
    other = tmp_path / "other.py"  # set_logs that is not (certainly) torch's
    other.write_text(
        "import torch\nfrom mylib import set_logs\nset_logs(dynamo=True)\n"
        "logger.set_logs(loop_ordering=True)\n"
    )
    shadowed = tmp_path / "shadowed.py"
    shadowed.write_text(
        "from torch._logging import set_logs\n"
        "def configure(set_logs):\n"  # a parameter: the name may be anything here
        "    set_logs(dynamo=True)\n"
    )
    proc = run("check", "--python", sys.executable, str(script), str(other), str(shadowed))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout == ""


def test_check_json_format():
    proc = run("check", "--format", "json", str(EXAMPLES / "envs" / "recompiles.env"))
    assert proc.returncode == 1
    (row,) = json.loads(proc.stdout)
    assert row["code"] == "TL201"
    assert (row["line"], row["column"], row["end_line"], row["end_column"]) == (2, 12, 2, 17)
    assert row["suggestions"][0] == "aot_graphs"


def test_check_clean_tree_exits_zero(tmp_path: Path):
    (tmp_path / ".env").write_text("TORCH_LOGS=+dynamo,guards\n")
    venv = tmp_path / ".venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "bad.env").write_text("TORCH_LOGS=aot_g\n")  # inside a virtualenv: skipped
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.sh").write_text("TORCH_LOGS=aot_g\n")
    assert main(["check", str(tmp_path)]) == 0


def test_check_usage_errors_exit_two(tmp_path: Path):
    assert run("check", str(tmp_path / "missing")).returncode == 2
    assert run("check").returncode == 2
    assert run("frobnicate").returncode == 2


def test_check_columns_count_characters_not_bytes(tmp_path: Path):
    (tmp_path / "a.env").write_text("# ü\nA=é🙂 TORCH_LOGS=aot_g\n", encoding="utf-8")
    (tmp_path / "b.env").write_text("TORCH_LOGS=aot_g\r\n", encoding="utf-8")
    proc = run("check", str(tmp_path))
    rows = proc.stdout.splitlines()
    assert any("b.env:1:12: TL201" in r for r in rows), rows


@pytest.mark.parametrize(
    ("value", "outcome", "code"),
    [
        ("+dynamo,guards", "ok", 0),
        ("aot_g", "invalid", 1),
        ("help", "help", 1),
        ("", "crash", 1),
        ("+torch._dynamo.guards", "ok", 0),
        (".json", "module_not_found", 1),
    ],
)
def test_explain_json(value: str, outcome: str, code: int):
    proc = run("explain", value, "--json")
    assert proc.returncode == code
    data = json.loads(proc.stdout)
    assert data["torch_outcome"] == outcome
    assert set(data) >= {"torch_outcome", "diagnostics", "logs", "artifacts", "modules"}


def test_explain_json_configuration():
    # run in .venv's directory: module names resolve in that environment (json.decoder)
    data = json.loads(run("explain", "+dynamo,-guards,json.decoder", "--json").stdout)
    assert data["logs"]["torch._dynamo"] == "DEBUG"
    assert data["logs"]["json.decoder"] == "INFO"
    assert data["artifacts"] == ["guards"]
    assert data["modules"] == ["json.decoder"]
    assert [d["code"] for d in data["diagnostics"]] == ["TL301", "TL202"]


def test_explain_text():
    proc = run("explain", "+dynamo,guards")
    assert proc.returncode == 0
    assert "torch._dynamo" in proc.stdout and "DEBUG" in proc.stdout
    assert "artifacts: guards" in proc.stdout


def test_server_accepts_stdio_flag_and_prints_version():
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.server", "--stdio", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("torch-logs-lsp ")


@pytest.mark.parametrize("value", ["-dynamo", "-help", "-guards,+aot"])
def test_explain_takes_values_starting_with_a_dash(value: str):
    proc = run("explain", value, "--json")
    assert proc.returncode in (0, 1), proc.stderr
    assert json.loads(proc.stdout)["value"] == value


def test_wrong_python_is_a_usage_error(tmp_path: Path):
    (tmp_path / "a.env").write_text("TORCH_LOGS=dynamo\n")
    proc = run("check", "--python", str(tmp_path / "nope" / "python"), str(tmp_path))
    assert proc.returncode == 2
    assert "no such interpreter" in proc.stderr


def test_fifo_and_unsupported_files_do_not_block(tmp_path: Path):
    os.mkfifo(tmp_path / "fifo.env")
    (tmp_path / "notes.txt").write_text("TORCH_LOGS=aot_g\n")  # a kind no host reads
    (tmp_path / "ok.env").write_text("TORCH_LOGS=dynamo\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_logs_lsp.cli.main",
            "check",
            str(tmp_path),
            str(tmp_path / "notes.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert f"notes.txt: not one of {hosts.describe_kinds('or')}; skipped" in proc.stderr


def test_bom_is_not_counted_in_columns(tmp_path: Path):
    (tmp_path / "a.env").write_bytes(b"\xef\xbb\xbfTORCH_LOGS=+dynamo,gaurds\r\n")
    proc = run("check", str(tmp_path))
    assert ":1:20: TL201" in proc.stdout, proc.stdout


def test_broken_pipe_is_quiet():
    proc = subprocess.run(
        f"{sys.executable} -m torch_logs_lsp.cli.main registry | head -1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in proc.stderr


UNTERMINATED = [
    ("shell", "a.sh", 'echo hi\nexport TORCH_LOGS="+dynamo,aot_g\n', 2, 20),
    ("shell", "b.sh", "TORCH_LOGS='dynamo python train.py\n", 1, 13),
    ("dotenv", "c.env", 'A=1\nTORCH_LOGS="+dynamo\nB=2\n', 2, 13),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("host", "name", "text", "line", "column"), UNTERMINATED)
def test_a_quote_left_open_in_a_file_is_tl108(
    tmp_path: Path, host: str, name: str, text: str, line: int, column: int
):
    # the oracle: bash stops with a syntax error, python-dotenv skips the line
    if host == "shell":
        with pytest.raises(subprocess.CalledProcessError):
            read_torch_logs(host, text)
    else:
        assert read_torch_logs(host, text) is None
    (tmp_path / name).write_text(text)
    proc = run("check", str(tmp_path / name))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, lines  # only this: not the findings of a value never set
    assert lines[0].startswith(f"{tmp_path / name}:{line}:{column}: TL108 the closing ")
    assert "never set" in lines[0]


def test_a_quote_closed_on_a_later_line_is_not_tl108(tmp_path: Path):
    (tmp_path / "a.sh").write_text('export TORCH_LOGS="dynamo\n"\n')
    proc = run("check", str(tmp_path / "a.sh"))
    assert "TL108" not in proc.stdout and "TL101" in proc.stdout


BAD_NAME = os.fsdecode(b"bad\xff.env")  # not UTF-8: Python holds it as "bad\udcff.env"
#: Strict stdout encodings: the ones where printing such a name used to raise.
STRICT = [
    {"PYTHONIOENCODING": "utf-8"},
    {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": ""},
    {"PYTHONIOENCODING": "ascii"},
]


def _run_env(extra: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LANG")}
    env.update(extra)
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=60,
        env=env,
        check=False,
    )


@pytest.mark.parametrize("extra", STRICT, ids=["pythonioencoding", "c.utf-8", "ascii"])
def test_a_file_name_that_is_not_utf8_prints_safely(tmp_path: Path, extra: dict[str, str]):
    (tmp_path / BAD_NAME).write_text("TORCH_LOGS=dynamo,\n")
    (tmp_path / "z.env").write_text("TORCH_LOGS=dynamo,\n")
    proc = _run_env(extra, "check", str(tmp_path))
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr[-2000:]
    assert f"{tmp_path}/bad\\xff.env:1:18: TL104" in proc.stdout
    assert f"{tmp_path}/z.env:1:18: TL104" in proc.stdout

    proc = _run_env(extra, "check", "--format", "json", str(tmp_path))
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr[-2000:]
    rows = json.loads(proc.stdout)
    assert [r["path"] for r in rows] == [str(tmp_path / BAD_NAME), str(tmp_path / "z.env")]

    proc = _run_env(extra, "check", "--fix", str(tmp_path))
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stderr[-2000:]
    assert "2 value(s) fixed" in proc.stderr
    assert (tmp_path / BAD_NAME).read_text() == (tmp_path / "z.env").read_text()
    assert (tmp_path / "z.env").read_text() == "TORCH_LOGS=dynamo\n"


def test_explain_json_of_an_undecodable_argument_is_valid_json():
    value = os.fsdecode(b"dyn\xffamo")
    proc = _run_env({"PYTHONIOENCODING": "utf-8"}, "explain", "--json", value)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["value"] == value


def test_a_file_named_twice_is_checked_once(tmp_path: Path):
    path = tmp_path / "a.env"
    path.write_text("TORCH_LOGS=dynamo,\n")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "a.env", str(path), "./a.env"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.stdout == "a.env:1:18: TL104 trailing comma; remove it\n"
    assert proc.stderr == "1 file(s) checked: 1 error(s)\n"


def test_kinds_named_from_the_host_table(tmp_path: Path):
    """The skipped-file message and the help of ``check`` list every host's DESCRIPTION."""
    from torch_logs_lsp.hosts import HOST_KINDS, describe_kinds, host_module

    descriptions = [getattr(host_module(kind), "DESCRIPTION", "") for kind in HOST_KINDS]
    assert all(descriptions) and len(set(descriptions)) == len(descriptions)
    assert "devcontainer.json" in describe_kinds("or")
    other = tmp_path / "notes.txt"
    other.write_text("TORCH_LOGS=+dynamo\n")
    proc = run("check", str(other))
    assert proc.returncode == 0
    line = f"torch-logs: {other}: not one of {describe_kinds('or')}; skipped\n"
    assert proc.stderr.startswith(line)
    assert describe_kinds("or").endswith(f" or {descriptions[-1]}")
    help_text = "".join(run("--help").stdout.split())  # argparse wraps the line
    assert "".join(f"check {describe_kinds('and')}".split()) in help_text


def test_a_utf16_script_is_reported_as_skipped_not_found_clean(tmp_path: Path):
    # Windows PowerShell 5.1 writes UTF-16LE with a BOM (`Out-File`, `>`): read as UTF-8 it
    # held no family name and counted as checked with no findings
    script = tmp_path / "run.ps1"
    script.write_bytes("\ufeff$env:TORCH_LOGS = 'gaurds'\r\n".encode("utf-16-le"))
    proc = run("check", str(script))
    assert proc.returncode == 0
    assert "skipped (UTF-16 or UTF-32 text; only UTF-8 is read" in proc.stderr
    assert "0 file(s) checked" in proc.stderr + proc.stdout


def test_an_ignored_env_file_that_sets_a_value_is_named(tmp_path: Path):
    """Most projects ignore `.env`, where the values live: `check .` leaves it out (as
    the ignore files say) but names it, with the option that checks it."""
    (tmp_path / ".git").mkdir()  # a repository top: its .gitignore applies
    (tmp_path / ".gitignore").write_text(".env\nsub/\n")
    (tmp_path / ".env").write_text("TORCH_LOGS=aot_g\n")
    (tmp_path / "run.sh").write_text("export TORCH_LOGS=+dynamo\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".env").write_text("OTHER=1\n")  # ignored? no: not listed
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / ".gitignore").write_text(".env\n")
    (tmp_path / "other" / ".env").write_text("OTHER=1\n")  # ignored, sets nothing of ours
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_text("TORCH_LOGS=x\n")  # an ignored directory
    proc = run("check", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "--no-ignore" in line]
    assert notes == [
        "torch-logs: note: not checked, left out by the ignore files (.gitignore) but "
        f"setting TORCH_LOGS-family variables: {tmp_path / '.env'}; --no-ignore checks them"
    ]
    proc = run("check", "--no-ignore", str(tmp_path))
    assert proc.returncode == 1 and "TL201" in proc.stdout
    assert "--no-ignore checks" not in proc.stderr


def test_a_binary_file_with_a_checked_name_is_skipped_unparsed(tmp_path: Path):
    """Bytes with a NUL among the first 8000 are binary (git's rule): named as skipped,
    never decoded and parsed."""
    (tmp_path / "pyproject.toml").write_bytes(b"TORCH_LOGS = 1\n\x00" + bytes(range(256)) * 8)
    (tmp_path / "ok.env").write_text("TORCH_LOGS=gaurds\n")
    proc = run("check", str(tmp_path))
    assert "pyproject.toml: skipped (binary" in proc.stderr
    assert "ok.env:1:12: TL201" in proc.stdout
    assert "1 file(s) checked" in proc.stderr


def test_a_value_named_many_times_is_analysed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """check keeps one analysis cache for the run, as the server does: 500 lines of the
    same value are one analysis, and each line still gets its findings."""
    from torch_logs_lsp.lint import checker
    from torch_logs_lsp.value import analysis_cache

    calls: list[str] = []
    for module in (checker, analysis_cache):
        real = module.analyse

        def counted(value: str, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            calls.append(value)
            return _real(value, *args, **kwargs)

        monkeypatch.setattr(module, "analyse", counted)
    (tmp_path / ".env").write_text("TORCH_LOGS=gaurds,dynamo\n" * 500)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 500
    assert out.splitlines()[-1].startswith(".env:500:12: TL201")
    assert calls == ["gaurds,dynamo"]


def test_a_toml_file_that_is_not_utf8_is_skipped_unparsed(tmp_path: Path) -> None:
    """tomllib (pip, pytest, tox) refuses a TOML file that is not UTF-8, so it sets
    nothing: named as skipped, never parsed. A .env file with the same bytes is still
    read."""
    body = b'[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=gaurds"]\n# caf\xe9\n'
    (tmp_path / "pyproject.toml").write_bytes(body)
    (tmp_path / "a.env").write_bytes(b"# caf\xe9\nTORCH_LOGS=gaurds\n")
    proc = run("check", str(tmp_path))
    assert "pyproject.toml: skipped (not UTF-8 at byte 59, which TOML readers refuse)" in (
        proc.stderr
    )
    assert "pyproject.toml:" not in proc.stdout
    assert "a.env:2:12: TL201" in proc.stdout
