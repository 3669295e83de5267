"""Choosing codes: ruff's resolution (most specific selector wins, ignore on a tie,
a later ``select`` starts over) and ``check --select/--extend-select/--ignore/
--extend-ignore`` end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.cli.main import main
from torch_logs_lsp.codes.table import all_codes
from torch_logs_lsp.lint.selection import CodeFilter, Selection, UnknownSelector, normalise


def enabled(*sources: Selection) -> set[str]:
    return set(CodeFilter.resolve(sources).enabled)


def cli(**lists: list[str]) -> Selection:
    return Selection.of("--", **lists)  # type: ignore[arg-type]


def test_default_enables_every_code():
    assert enabled() == set(all_codes())
    assert enabled(cli(select=["ALL"])) == set(all_codes())


def test_prefixes_and_specificity():
    tl2 = {c for c in all_codes() if c.startswith("TL2")}
    assert enabled(cli(select=["TL2"])) == tl2
    assert enabled(cli(select=["TL2"], ignore=["TL201"])) == tl2 - {"TL201"}
    # the more specific selector wins, whichever list it is in
    assert enabled(cli(select=["TL201"], ignore=["TL2"])) == {"TL201"}
    assert enabled(cli(ignore=["TL2"], extend_select=["TL201"])) == (
        set(all_codes()) - tl2 | {"TL201"}
    )
    # a tie: ignore wins
    assert enabled(cli(select=["TL201"], ignore=["TL201"])) == set()
    assert enabled(cli(select=["ALL"], ignore=["ALL"])) == set()
    # ALL is the least specific
    assert enabled(cli(select=["TL1"], ignore=["ALL"])) == {
        c for c in all_codes() if c.startswith("TL1")
    }


def test_a_later_select_starts_over_and_ignores_add():
    config = Selection.of("", select=["TL2"], ignore=["TL201"])
    assert enabled(config, cli(select=["TL3"])) == {c for c in all_codes() if c[:3] == "TL3"}
    assert "TL201" not in enabled(config, cli(ignore=["TL202"]))
    assert "TL202" not in enabled(config, cli(ignore=["TL202"]))
    assert "TL203" in enabled(config, cli(ignore=["TL202"]))
    assert "TL201" in enabled(config, cli(extend_select=["TL201"]))  # more specific there
    assert enabled(config, cli(extend_ignore=["TL2"])) == set()


@pytest.mark.parametrize("bad", ["TL999", "TL7", "XX1", "T", "", "TL2x", "E501"])
def test_unknown_selectors(bad: str):
    with pytest.raises(UnknownSelector) as info:
        normalise(bad, "--select")
    assert "--select" in str(info.value)


def test_selectors_are_case_insensitive():
    assert normalise(" tl2 ", "x") == "TL2"
    assert normalise("all", "x") == "ALL"
    assert normalise("TL", "x") == "TL"


def test_server_style_names():
    with pytest.raises(UnknownSelector) as info:
        Selection.of("torchLogs.", extend_ignore=["TL000"])
    assert info.value.where == "torchLogs.extendIgnore"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "a.env").write_text("TORCH_LOGS=aot_g,dynamo,\n")
    (tmp_path / "b.env").write_text("TORCH_LOGS=+guards\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["check", "--python", sys.executable, *args, "."])
    out = capsys.readouterr().out
    return code, [line.split(" ")[1] for line in out.splitlines()]


def test_check_options(project: Path, capsys: pytest.CaptureFixture[str]):
    assert codes(capsys) == (1, ["TL201", "TL104", "TL301"])
    assert codes(capsys, "--select", "TL1") == (1, ["TL104"])
    assert codes(capsys, "--select", "TL104,TL201") == (1, ["TL201", "TL104"])
    # repeated options add up
    assert codes(capsys, "--select", "TL104", "--select", "TL201")[1] == ["TL201", "TL104"]
    code, left = codes(capsys, "--ignore", "TL1", "--extend-ignore", "TL2")
    assert "TL104" not in left and "TL201" not in left
    # only warnings left: exit 0 (the exit code counts shown findings)
    assert code == 0
    assert codes(capsys, "--ignore", "TL2", "--select", "TL201")[1] == ["TL201"]
    assert codes(capsys, "--ignore", "ALL") == (0, [])


def test_unknown_code_on_the_command_line_exits_2(
    project: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["check", "--select", "TL2,TL999", "."]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "torch-logs: --select: unknown code or prefix 'TL999'" in captured.err


def test_select_does_not_show_hints(project: Path, capsys: pytest.CaptureFixture[str]):
    (project / "a.env").write_text("TORCH_LOGS=+torch._dynamo\n")
    assert codes(capsys, "--select", "TL202")[1] == []
    assert codes(capsys, "--select", "TL202", "--show-hints")[1] == ["TL202"]


def test_fix_skips_the_fixes_of_codes_not_chosen(project: Path, capsys: pytest.CaptureFixture[str]):
    (project / "a.env").write_text("TORCH_LOGS=-guards,dynamo,\n")  # TL301 and TL104
    (project / "b.env").unlink()
    main(["check", "--python", sys.executable, "--fix", "--ignore", "TL104", "."])
    out = capsys.readouterr().out
    assert (project / "a.env").read_text() == "TORCH_LOGS=guards,dynamo,\n"
    assert 'fixed TORCH_LOGS: "-guards,dynamo," -> "guards,dynamo,"' in out
    # a structured format keeps stdout for itself: the changes go to stderr
    main(["check", "--python", sys.executable, "--fix", "--format", "sarif", "."])
    captured = capsys.readouterr()
    assert 'fixed TORCH_LOGS: "guards,dynamo," -> "guards,dynamo"' in captured.err
    assert json.loads(captured.out)["runs"][0]["results"] == []
    assert (project / "a.env").read_text() == "TORCH_LOGS=guards,dynamo\n"
