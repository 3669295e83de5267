"""Project configuration (project/config.py): found per checked file like ruff finds its
own (the closest file with the table; ``.torch-logs.toml`` > ``torch-logs.toml`` >
``pyproject.toml`` in one directory), applied before the command line, and a file that
cannot be used reported once with exit 2 while everything is still checked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from torch_logs_lsp.cli.main import main
from torch_logs_lsp.project.config import ConfigError, ConfigFinder, read_config

BAD = "TORCH_LOGS=aot_g,dynamo,\n"  # TL201 and TL104, both errors


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["check", "--python", sys.executable, *args])
    captured = capsys.readouterr()
    rows = [" ".join(line.split(" ")[:2]) for line in captured.out.splitlines()]
    return code, rows, captured.err


def test_closest_file_with_the_table(tmp_path: Path):
    write(tmp_path / "pyproject.toml", '[tool.torch-logs]\nignore = ["TL1"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n")  # no table
    deep = write(tmp_path / "pkg" / "deep" / "a.env", BAD)
    finder = ConfigFinder()
    config = finder.for_file(deep)
    assert config is not None and config.path == str(tmp_path / "pyproject.toml")
    assert config.selection.ignore == ("TL1",)
    write(tmp_path / "pkg" / "deep" / "torch-logs.toml", 'select = ["TL2"]\n')
    assert ConfigFinder().for_file(deep).path.endswith("deep/torch-logs.toml")  # type: ignore[union-attr]
    write(tmp_path / "pkg" / "deep" / ".torch-logs.toml", "")  # empty still counts
    found = ConfigFinder().for_file(deep)
    assert found is not None and found.path.endswith(".torch-logs.toml")
    assert found.selection.select is None


def test_no_configuration(tmp_path: Path):
    # tmp_path has no configuration above it in the test machine's /tmp
    assert ConfigFinder().for_file(write(tmp_path / "a.env", BAD)) is None


def test_read_config_errors_and_unknown_keys(tmp_path: Path):
    ok = write(tmp_path / "torch-logs.toml", 'ignore = ["tl2"]\nexclude = ["x"]\n')
    config = read_config(str(ok))
    assert config is not None
    assert config.selection.ignore == ("TL2",) and config.unknown == ("exclude",)
    assert config.table["exclude"] == ["x"]  # other keys kept for other features
    cases = {
        "select = [\n": "not valid TOML",
        'select = "TL2"\n': "select must be a list of strings",
        'extend-ignore = ["TL999"]\n': "extend-ignore: unknown code or prefix 'TL999'",
        "a = " + "[" * 5000 + "]" * 5000 + "\n": "nested too deeply",
        "a = " + "{b=" * 5000 + "1" + "}" * 5000 + "\n": "nested too deeply",
    }
    for text, reason in cases.items():
        write(ok, text)
        with pytest.raises(ConfigError) as info:
            read_config(str(ok))
        assert reason in info.value.reason
    py = write(tmp_path / "p" / "pyproject.toml", '[tool.torch-logs]\nselect = ["TL8"]\n')
    with pytest.raises(ConfigError, match=r"\[tool.torch-logs\] select: unknown"):
        read_config(str(py))
    write(py, "tool = {torch-logs = 3}\n")
    with pytest.raises(ConfigError, match="not a table"):
        read_config(str(py))
    py.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_config(str(py))


def test_check_applies_each_files_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    write(tmp_path / "pyproject.toml", '[tool.torch-logs]\nignore = ["TL104"]\n')
    write(tmp_path / "a.env", BAD)
    write(tmp_path / "other" / "torch-logs.toml", 'select = ["TL104"]\n')
    write(tmp_path / "other" / "b.env", BAD)
    monkeypatch.chdir(tmp_path)
    code, rows, _ = check(capsys, ".")
    assert code == 1
    assert rows == ["a.env:1:12: TL201", "other/b.env:1:24: TL104"]
    # the command line comes after the configuration: --select starts over
    _, rows, _ = check(capsys, "--select", "TL1", ".")
    assert rows == ["a.env:1:24: TL104", "other/b.env:1:24: TL104"]
    # --ignore adds to it
    _, rows, _ = check(capsys, "--ignore", "TL201", ".")
    assert rows == ["other/b.env:1:24: TL104"]
    # --isolated: no configuration file
    _, rows, _ = check(capsys, "--isolated", ".")
    assert len(rows) == 4


def test_a_broken_configuration_is_reported_once_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    write(tmp_path / "pyproject.toml", '[tool.torch-logs]\nignore = ["TL104", "TL77"]\n')
    write(tmp_path / "a.env", BAD)
    write(tmp_path / "b.env", BAD)
    monkeypatch.chdir(tmp_path)
    code, rows, err = check(capsys, ".")
    assert code == 2
    assert len(rows) == 4  # every file checked, without the configuration
    message = "torch-logs: pyproject.toml: [tool.torch-logs] ignore: unknown code or prefix 'TL77'"
    assert err.count(message) == 1, err


def test_unknown_keys_are_noted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    write(tmp_path / "torch-logs.toml", 'ingore = ["TL104"]\n')
    write(tmp_path / "a.env", BAD)
    write(tmp_path / "b.env", BAD)
    monkeypatch.chdir(tmp_path)
    code, rows, err = check(capsys, ".")
    assert code == 1 and len(rows) == 4  # the typo chose nothing
    assert err.count("torch-logs: note: torch-logs.toml: unknown key(s) ignored: ingore") == 1
