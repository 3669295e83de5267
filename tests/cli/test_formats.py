"""``torch-logs check --format github|sarif|json``: escaping as GitHub's toolkit does,
positions and their units, and real output validated against the SARIF 2.1.0 schema
(tests/cli/data) and the project's own JSON output schema (docs/json-output.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.paths import ROOT
from torch_logs_lsp.cli.formats import (
    Row,
    escape_data,
    escape_property,
    github_line,
    relative_path,
    sarif_log,
    utf16_units,
)
from torch_logs_lsp.cli.main import main
from torch_logs_lsp.codes.table import all_codes
from torch_logs_lsp.package_info import codes_doc_url
from torch_logs_lsp.value.analysis import Severity

SARIF_SCHEMA = json.loads((ROOT / "tests/cli/data/sarif-schema-2.1.0.json").read_text("utf-8"))
JSON_SCHEMA = json.loads((ROOT / "docs/json-output.schema.json").read_text("utf-8"))
TORCH = ["--torch-version", "2.13"]


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *TORCH, *args])
    out, err = capsys.readouterr()
    return code, out, err


def notebook(source: list[str]) -> str:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# t"},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": source},
    ]  # fmt: skip
    meta = {"kernelspec": {"display_name": "p", "language": "python", "name": "python3"}}
    nb = {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with findings on a line holding an emoji before the value, a plain
    .env, a notebook and a file name that needs escaping; the current directory."""
    (tmp_path / "a.env").write_text("TORCH_LOGS=aot_g,dynamo,\n", encoding="utf-8")
    sub = tmp_path / "sub dir"
    sub.mkdir()
    (sub / "t,1.py").write_text(
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo,,"  # 😀\n'
        'X = "😀"; os.environ["TORCH_LOGS"] = "aot_g"\n',
        encoding="utf-8",
    )
    source = ["import os\n", 'X = "😀"; os.environ["TORCH_LOGS"] = "aot_g"\n']
    (tmp_path / "nb.ipynb").write_text(notebook(source), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_escaping_is_the_toolkits():
    # escapeData: % first (so an escape sequence in the text survives), then CR, LF
    assert escape_data("100%0A done\r\nnext") == "100%250A done%0D%0Anext"
    assert escape_data("a:b,c") == "a:b,c"
    # escapeProperty: the same plus ':' and ','
    assert escape_property("dir:x,y%\n") == "dir%3Ax%2Cy%25%0A"


def test_github_annotations(tree: Path, capsys: pytest.CaptureFixture[str]):
    code, out, err = check(capsys, "--format", "github", ".")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=a.env,line=1,col=12,endLine=1,endColumn=16,title=TL201::unknown name `aot_g`"
    ), lines
    # a zero-width place (the trailing comma's end) is one character
    assert "::error file=a.env,line=1,col=24,endLine=1,endColumn=24,title=TL104::" in out
    # ',' in a path is escaped; columns are code points: the emoji before the value counts 1
    assert any(
        line.startswith("::error file=sub dir/t%2C1.py,line=3,col=38,endLine=3,endColumn=42,"
                        "title=TL201::")
        for line in lines
    ), lines  # fmt: skip
    # a notebook's finding: where its characters are in the .ipynb file (the JSON
    # string's line), the place in the cell in the message
    raw = (tree / "nb.ipynb").read_text("utf-8").splitlines()
    n = next(i for i, text in enumerate(raw) if "aot_g" in text)
    col = raw[n].index("aot_g") + 1
    want = f"::error file=nb.ipynb,line={n + 1},col={col},endLine={n + 1},endColumn={col + 4},"
    assert any(
        line.startswith(f"{want}title=TL201::cell 2, line 2, column 38: unknown") for line in lines
    ), lines
    assert "file(s) checked" in err


def test_github_line_severities_and_multiline():
    row = Row("x/y.env", "dotenv", "TL304", Severity.INFORMATION, "a\nb: 50%", (), "TORCH_LOGS",
              "v", 2, 5, 4, 3)  # fmt: skip
    assert github_line(row, cwd="/nowhere").startswith("::notice file=")
    line = github_line(row, cwd=str(Path("x").resolve().parent))
    # several lines: no col/endColumn (@actions/core allows them on one line only)
    assert line == "::notice file=x/y.env,line=2,endLine=4,title=TL304::a%0Ab: 50%25"
    hint = Row("y.env", "dotenv", "TL202", Severity.HINT, "m", (), None, None, 1, 1, 1, 2)
    warn = Row("y.env", "dotenv", "TL302", Severity.WARNING, "m", (), None, None, 1, 1, 1, 2)
    assert github_line(hint).startswith("::notice ")
    assert github_line(warn).startswith("::warning ")


def test_relative_path(tmp_path: Path):
    assert relative_path(str(tmp_path / "a" / "b.env"), str(tmp_path)) == "a/b.env"
    assert relative_path(str(tmp_path), str(tmp_path / "a")) is None


def test_sarif_validates_and_places_findings(tree: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _ = check(capsys, "--format", "sarif", ".")
    assert code == 1
    log = json.loads(out)
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    run: dict[str, Any] = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert run["columnKind"] == "utf16CodeUnits"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tree.resolve().as_uri() + "/"
    driver = run["tool"]["driver"]
    assert driver["name"] == "torch-logs"
    assert [r["id"] for r in driver["rules"]] == list(all_codes())
    tl201 = driver["rules"][all_codes().index("TL201")]
    assert tl201["shortDescription"]["text"] == "unknown name"
    assert tl201["fullDescription"]["text"].startswith("Message: unknown name `aot_g`")
    assert tl201["help"]["markdown"].startswith("**Message:**")
    assert "find_spec" in tl201["help"]["text"]
    by_place = {}
    for result in run["results"]:
        phys = result["locations"][0]["physicalLocation"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        by_place[(phys["artifactLocation"]["uri"], result["ruleId"])] = (result, phys)
    result, phys = by_place[("a.env", "TL201")]
    assert result["level"] == "error"
    assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert phys["region"] == {"startLine": 1, "startColumn": 12, "endLine": 1, "endColumn": 17}
    # the emoji before the value is two UTF-16 code units: columns 39-44, not 38-43
    result, phys = by_place[("sub%20dir/t%2C1.py", "TL201")]
    assert phys["region"] == {"startLine": 3, "startColumn": 39, "endLine": 3, "endColumn": 44}
    line = (tree / "sub dir" / "t,1.py").read_text("utf-8").splitlines()[2]
    utf16 = line.encode("utf-16-le")
    region = phys["region"]
    cut = utf16[(region["startColumn"] - 1) * 2 : (region["endColumn"] - 1) * 2]
    assert cut.decode("utf-16-le") == "aot_g"  # what a UTF-16 consumer underlines
    # the notebook: the region in the .ipynb file, the cell in the message and properties
    result, phys = by_place[("nb.ipynb", "TL201")]
    region = phys["region"]
    raw = (tree / "nb.ipynb").read_text("utf-8").splitlines()[region["startLine"] - 1]
    utf16 = raw.encode("utf-16-le")
    cut = utf16[(region["startColumn"] - 1) * 2 : (region["endColumn"] - 1) * 2]
    assert cut.decode("utf-16-le") == "aot_g"
    assert result["message"]["text"].startswith("cell 2, line 2, column 38: ")
    assert result["properties"] == {
        "cell": 2, "cellLine": 2, "cellColumn": 38, "cellEndLine": 2, "cellEndColumn": 43,
    }  # fmt: skip


def test_sarif_without_findings_and_outside_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (outside / "b.env").write_text("TORCH_LOGS=+dynamo,\n", encoding="utf-8")
    (inside / "ok.env").write_text("TORCH_LOGS=+dynamo\n", encoding="utf-8")
    monkeypatch.chdir(inside)
    code, out, _ = check(capsys, "--format", "sarif", ".")
    assert code == 0
    log = json.loads(out)
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []
    code, out, _ = check(capsys, "--format", "sarif", str(outside))
    log = json.loads(out)
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": (outside / "b.env").resolve().as_uri()}


def test_sarif_help_uri_from_a_repository_url():
    assert codes_doc_url("TL201", "https://github.com/o/r/") == (
        "https://github.com/o/r/blob/main/docs/codes.md#tl201"
    )
    log = sarif_log([], cwd="/")
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)


def test_utf16_units():
    assert utf16_units("a😀é") == 4
    assert utf16_units("\udcff") == 1


def test_json_output_matches_its_schema(tree: Path, capsys: pytest.CaptureFixture[str]):
    _, out, _ = check(capsys, "--format", "json", "--show-hints", ".")
    rows = json.loads(out)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(rows)
    assert {r["path"] for r in rows} == {"a.env", "sub dir/t,1.py", "nb.ipynb"}
    cell = [r for r in rows if "cell" in r]
    assert cell and all(r["cell"] == 2 and r["host"] == "ipython" for r in cell)
    first = rows[0]
    assert (first["code"], first["line"], first["column"], first["end_column"]) == (
        "TL201", 1, 12, 17,
    )  # fmt: skip
    # the schema is strict: a field it does not describe fails
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{**first, "extra": 1}], JSON_SCHEMA)


def test_the_sarif_schema_rejects_a_broken_log():
    row = Row("a.env", "dotenv", "TL104", Severity.ERROR, "m", (), "TORCH_LOGS", "v,", 1, 3, 1, 4)
    log = sarif_log([row], cwd=str(Path("a.env").resolve().parent))
    validator = jsonschema.Draft202012Validator(SARIF_SCHEMA)
    validator.validate(log)
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(log)
    log["runs"][0]["columnKind"] = "bytes"
    assert len(list(validator.iter_errors(log))) == 2


def test_sarif_links_into_the_repository_when_the_metadata_names_it(
    monkeypatch: pytest.MonkeyPatch,
):
    from torch_logs_lsp import package_info
    from torch_logs_lsp.cli import formats as cli_formats

    repo = "https://github.com/example/torch-logs-lsp"
    monkeypatch.setattr(package_info, "repository_url", lambda: repo)
    monkeypatch.setattr(cli_formats, "repository_url", lambda: repo)
    log = sarif_log([], cwd="/")
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == repo
    assert driver["rules"][0]["helpUri"] == f"{repo}/blob/main/docs/codes.md#tl001"


def test_notebook_file_places_count_the_raw_json(tmp_path: Path):
    from torch_logs_lsp.lint.checker import Finding
    from torch_logs_lsp.notebook.cells import CellFinding
    from torch_logs_lsp.notebook.places import file_place, notebook_places
    from torch_logs_lsp.notebook.reader import read_notebook
    from torch_logs_lsp.value.analysis import Diagnostic

    source = ["import os\n", 'os.environ["TORCH_LOGS"] = "😀+aot_g"\n']
    text = notebook(source).replace("+aot_g", "\\u002baot_g")  # an escape in the file
    data = text.encode("utf-8")
    cell = read_notebook(data).cells[1]
    start = cell.text.index("+aot_g")
    place = file_place(data, cell, start, start + 6)
    assert place is not None
    line = text.splitlines()[place.line - 1]
    assert line[place.column - 1 : place.end_column - 1] == "\\u002baot_g"
    assert place.utf16_column == place.column + 1  # the emoji before it
    # a range over two source strings ends in the second one
    whole = file_place(data, cell, 0, len(cell.text))
    assert whole is not None and whole.end_line == whole.line + 1
    # the file gone: no place, and the annotation falls back to the file
    path = tmp_path / "gone.ipynb"
    d = Diagnostic("TL201", Severity.ERROR, "m", 0, 1)
    found = [CellFinding(2, Finding(None, d, start, start + 6, 1, 0, 1, 6))]
    assert notebook_places(path, found) == [None]
    path.write_bytes(data)
    assert notebook_places(path, found) == [place]


def test_text_output_escapes_control_characters_in_names_and_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newline in a file name would split a finding over two lines, and ESC would reach
    the terminal as a colour command: both are written as escapes, one line a finding."""
    (tmp_path / "a\nb.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    (tmp_path / "x\x1b[31mred.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    (tmp_path / "v.env").write_text("TORCH_LOGS=ab\x1b[2Jc\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, ".")
    assert code == 1
    lines = out.splitlines()
    assert "\x1b" not in out
    assert {line.split(":")[0] for line in lines} == {"a\\nb.env", "v.env", "x\\x1b[31mred.env"}


def test_github_and_text_output_escape_terminal_commands_and_reordering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """ESC and BEL (a terminal title command) and U+202E (the rest of a line shown
    reversed) in a file name: escaped in the workflow commands and in text; a newline
    still goes the toolkit's way (%0A), so the annotation names the real file."""
    (tmp_path / "c\x1b]0;pwned\x07.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    (tmp_path / "r\u202evne.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    (tmp_path / "a\nb.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, out, _ = check(capsys, "--format", "github", ".")
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "file=c\\x1b]0;pwned\\x07.env" in out and "file=r\\u202evne.env" in out
    assert "file=a%0Ab.env" in out
    _, out, _ = check(capsys, ".")
    assert "\u202e" not in out and "r\\u202evne.env:1:" in out


def test_printable_keeps_ordinary_text() -> None:
    from torch_logs_lsp.cli.text import printable

    assert printable("é 😀 a\\b") == "é 😀 a\\b"
    assert printable("\t\r\n\x00\x7f\x85\u2028") == "\\t\\r\\n\\x00\\x7f\\x85\\u2028"


def test_notes_on_stderr_escape_control_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown key of ``[tool.torch-logs]`` is user text too: named escaped."""
    (tmp_path / "pyproject.toml").write_text('[tool.torch-logs]\n"a\\u001b[2Jb" = 1\n')
    (tmp_path / "a.env").write_text("TORCH_LOGS=gaurds\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, _, err = check(capsys, ".")
    assert "unknown key(s) ignored: a\\x1b[2Jb" in err
    assert "\x1b" not in err


def test_json_writes_an_excerpt_of_a_long_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ",".join(f"nonsense{i}" for i in range(2000))  # ~22,000 code points
    (tmp_path / "a.env").write_text(f"TORCH_LOGS={names}\n")
    _, out, _ = check(capsys, "--format", "json", str(tmp_path / "a.env"))
    rows = json.loads(out)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(rows)
    assert len(rows) > 1  # each finding of the value carries it
    for row in rows:
        assert row["value_truncated"] is True and len(row["value"]) == 4096
        assert row["value"].startswith("nonsense0,") and row["value"].endswith(",nonsense1999")
    assert len(out) < 4096 * 3 * len(rows)
