"""``torch-logs check --format``: ``text`` (``PATH:LINE:COL: CODE message``), ``json``
(docs/json-output.md), ``github`` (workflow commands that GitHub shows as annotations)
and ``sarif`` (SARIF 2.1.0). Every finding becomes a :class:`Row`; text lines are
printed as they come, the other formats when the check is done (:meth:`Output.finish`).

Positions in a :class:`Row` are 1-based; columns count code points (``column``,
``end_column``; the end is exclusive: the column just after the finding) and, for SARIF,
UTF-16 code units (``utf16_column``, ``utf16_end_column``). A notebook's rows carry
``cell`` and positions inside that cell's source, and for ``sarif``/``github`` the
finding's place in the ``.ipynb`` file itself (:mod:`.notebook_places`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from torch_logs_lsp.cli.text import json_text, printable, shown
from torch_logs_lsp.codes.doc import code_doc
from torch_logs_lsp.codes.table import CodeInfo, code_table
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.limits import excerpt
from torch_logs_lsp.notebook.places import FilePlace
from torch_logs_lsp.package_info import codes_doc_url, repository_url, version
from torch_logs_lsp.value.analysis import Severity

FORMATS = ("text", "json", "github", "sarif")
#: Formats that place a notebook's findings in the ``.ipynb`` file.
FILE_PLACES = ("github", "sarif")

SEVERITY_WORDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "info",
    Severity.HINT: "hint",
}

#: GitHub workflow command per severity (GitHub has error, warning and notice).
GITHUB_COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}

#: SARIF ``level`` per severity (SARIF has error, warning, note and none).
SARIF_LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
#: Longest ``value`` written by ``--format json`` (code points): a longer one is written as
#: its :func:`~torch_logs_lsp.model.limits.excerpt` with ``"value_truncated": true`` (an
#: 880 KB value, repeated in each of its findings, made 89 MB of JSON).
MAX_JSON_VALUE = 4096
#: The base every relative ``artifactLocation.uri`` is resolved against.
SRCROOT = "%SRCROOT%"


@dataclass(frozen=True)
class Row:
    """One finding for output (positions 1-based, see the module docstring)."""

    path: str
    host: HostKind
    code: str
    severity: Severity
    message: str
    suggestions: tuple[str, ...]
    variable: str | None
    value: str | None
    line: int
    column: int
    end_line: int
    end_column: int
    cell: int | None = None
    utf16_column: int | None = None
    utf16_end_column: int | None = None
    file_place: FilePlace | None = None

    def json(self) -> dict[str, Any]:
        """The row as ``--format json`` writes it (docs/json-output.md)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": SEVERITY_WORDS[self.severity],
            "message": self.message,
            "path": self.path,
            "host": self.host,
        }
        if self.cell is not None:
            out["cell"] = self.cell
        value = self.value
        long = value is not None and len(value) > MAX_JSON_VALUE
        out.update(
            variable=self.variable,
            value=excerpt(value, MAX_JSON_VALUE) if long and value is not None else value,
            line=self.line,
            column=self.column,
            end_line=self.end_line,
            end_column=self.end_column,
            suggestions=list(self.suggestions),
        )
        if long:
            out["value_truncated"] = True
        return out


def utf16_units(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (a character past U+FFFF counts 2; a
    lone surrogate, as Python holds undecodable bytes, counts 1): the encoder's count, at C
    speed (a long line's findings each measure the line up to their column)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def escape_data(text: str) -> str:
    """A workflow command's message escaped as ``@actions/core`` does (``escapeData``
    in ``packages/core/src/command.ts`` of github.com/actions/toolkit): ``%``, CR, LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value escaped as ``@actions/core`` does
    (``escapeProperty``, same file): ``%``, CR, LF, ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def relative_path(path: str, cwd: str | None = None) -> str | None:
    """``path`` relative to ``cwd`` (default: the current directory) with ``/``
    separators; ``None`` when it is not under ``cwd``."""
    cwd = os.getcwd() if cwd is None else cwd
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, cwd)
    except ValueError:  # another drive (Windows)
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return Path(rel).as_posix()


def github_line(row: Row, cwd: str | None = None) -> str:
    """The workflow command of one row: ``::error file=F,line=L,col=C,endLine=L2,
    endColumn=C2,title=TL201::message``. ``col``/``endColumn`` only when the finding is on
    one line (``@actions/core``'s ``AnnotationProperties`` allow them only then);
    ``endColumn`` is the finding's last character (GitHub's default for it is ``col``,
    a one-character annotation), never less than ``col``: the runner drops a command
    with ``col``/``endColumn`` on different lines or ``endColumn`` < ``col`` ("Invalid
    error command value", quoted in github.com/astral-sh/ruff issue 22074). Columns are
    code points: GitHub does not document the unit (its code scanning and the VS Code
    SARIF viewer disagree on an emoji's width: microsoft/sarif-vscode-extension#582).
    A notebook's finding is annotated where its characters are in the ``.ipynb`` file
    (inside the cell's JSON source string; without a line if the file can no longer be
    read), its message starting ``cell N, line L, column C:`` (the place in the cell)."""
    name = relative_path(row.path, cwd) or Path(os.path.abspath(row.path)).as_posix()
    props = [("file", name)]
    message = row.message
    line, column, end_line, end_column = row.line, row.column, row.end_line, row.end_column
    if row.cell is not None:
        message = f"cell {row.cell}, line {row.line}, column {row.column}: {message}"
        place = row.file_place
        if place is not None:
            line, column, end_line, end_column = (
                place.line, place.column, place.end_line, place.end_column,
            )  # fmt: skip
    if row.cell is None or row.file_place is not None:
        props.append(("line", str(line)))
        if end_line == line:
            props.append(("col", str(column)))
        props.append(("endLine", str(end_line)))
        if end_line == line:
            props.append(("endColumn", str(max(column, end_column - 1))))
    props.append(("title", row.code))
    joined = ",".join(f"{k}={escape_property(_terminal_safe(v))}" for k, v in props)
    return f"::{GITHUB_COMMANDS[row.severity]} {joined}::{escape_data(_terminal_safe(message))}"


def _terminal_safe(text: str) -> str:
    """``text`` with what :func:`.text.printable` escapes written so (``\\x1b``,
    ``\\u202e``: a log would run or reorder it), but CR and LF, which the workflow
    command's own escaping keeps exact."""
    lines = text.split("\r")
    return "\r".join("\n".join(printable(p) for p in line.split("\n")) for line in lines)


_DEFAULT_LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def _plain(markdown: str) -> str:
    """Markdown of a code's documentation as SARIF's plain ``text``: bold markers dropped
    (backticks kept: they read well as quotes)."""
    return markdown.replace("**", "")


def _rule(info: CodeInfo) -> dict[str, Any]:
    doc = code_doc(info.code) or info.title
    first = doc.split("\n\n", 1)[0].replace("\n", " ")
    rule: dict[str, Any] = {
        "id": info.code,
        "shortDescription": {"text": _plain(info.title), "markdown": info.title},
        "fullDescription": {"text": _plain(first), "markdown": first},
        "help": {"text": _plain(doc), "markdown": doc},
        "defaultConfiguration": {
            "level": _DEFAULT_LEVELS.get(info.severity.split(" ", 1)[0], "warning")
        },
    }
    help_uri = codes_doc_url(info.code)
    if help_uri:
        rule["helpUri"] = help_uri
    return rule


def _artifact(path: str, cwd: str) -> dict[str, Any]:
    rel = relative_path(path, cwd)
    if rel is not None:
        return {"uri": quote(os.fsencode(rel)), "uriBaseId": SRCROOT}
    return {"uri": Path(os.path.abspath(path)).as_uri()}


def sarif_log(rows: list[Row], cwd: str | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of a check: one run, one rule per code of the table (help text:
    the code's section, :mod:`torch_logs_lsp.codes.doc`), ``columnKind``
    ``utf16CodeUnits`` with the columns in UTF-16 code units, paths relative to ``cwd``
    (``uriBaseId`` ``%SRCROOT%``, given in ``originalUriBaseIds``) or absolute ``file:``
    URIs outside it. A notebook's result has the region of its characters in the
    ``.ipynb`` file (none if the file can no longer be read); its message starts ``cell N,
    line L, column C:`` and its ``properties`` hold ``cell``, ``cellLine``,
    ``cellColumn``, ``cellEndLine`` and ``cellEndColumn`` (code points, 1-based)."""
    cwd = os.getcwd() if cwd is None else cwd
    table = code_table()
    index = {code: i for i, code in enumerate(table)}
    rules = [_rule(info) for info in table.values()]
    driver: dict[str, Any] = {"name": "torch-logs", "version": version(), "rules": rules}
    repo = repository_url()
    if repo:
        driver["informationUri"] = repo
    results: list[dict[str, Any]] = []
    for row in rows:
        physical: dict[str, Any] = {"artifactLocation": _artifact(row.path, cwd)}
        result: dict[str, Any] = {"ruleId": row.code, "level": SARIF_LEVELS[row.severity]}
        if row.code in index:
            result["ruleIndex"] = index[row.code]
        message = row.message
        if row.cell is None:
            physical["region"] = {
                "startLine": row.line,
                "startColumn": row.utf16_column or row.column,
                "endLine": row.end_line,
                "endColumn": row.utf16_end_column or row.end_column,
            }
        else:
            message = f"cell {row.cell}, line {row.line}, column {row.column}: {message}"
            place = row.file_place
            if place is not None:
                physical["region"] = {
                    "startLine": place.line,
                    "startColumn": place.utf16_column,
                    "endLine": place.end_line,
                    "endColumn": place.utf16_end_column,
                }
            result["properties"] = {
                "cell": row.cell,
                "cellLine": row.line,
                "cellColumn": row.column,
                "cellEndLine": row.end_line,
                "cellEndColumn": row.end_column,
            }
        result["message"] = {"text": message}
        result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    base = Path(cwd).as_uri().rstrip("/") + "/"
    run = {
        "tool": {"driver": driver},
        "columnKind": "utf16CodeUnits",
        "originalUriBaseIds": {SRCROOT: {"uri": base}},
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


class Output:
    """The findings of one ``check`` in the chosen format: ``add`` each row (counted by
    severity; a text row printed at once), then :meth:`finish`."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.rows: list[Row] = []
        self.counts: dict[Severity, int] = {}

    def add(self, row: Row) -> None:
        """Count a row and print it (``text``) or keep it for :meth:`finish`."""
        self.counts[row.severity] = self.counts.get(row.severity, 0) + 1
        if self.fmt == "text":
            where = f"cell {row.cell}:" if row.cell is not None else ""
            message = printable(row.message)
            print(f"{shown(row.path)}:{where}{row.line}:{row.column}: {row.code} {message}")
        else:
            self.rows.append(row)

    def finish(self, checked: int) -> None:
        """Print the kept rows (``json``, ``sarif``, ``github``) and, for ``text`` and
        ``github``, the summary line on stderr."""

        if self.fmt == "json":
            print(json_text([row.json() for row in self.rows]))
        elif self.fmt == "sarif":
            print(json_text(sarif_log(self.rows)))
        elif self.fmt == "github":
            for row in self.rows:
                print(github_line(row))
        if self.fmt in ("text", "github"):
            summary = ", ".join(
                f"{self.counts.get(sev, 0)} {SEVERITY_WORDS[sev]}(s)" for sev in sorted(self.counts)
            )
            print(f"{checked} file(s) checked: {summary or 'no findings'}", file=sys.stderr)

    @property
    def errors(self) -> int:
        """Number of error findings."""
        return self.counts.get(Severity.ERROR, 0)


__all__ = [
    "FILE_PLACES",
    "FORMATS",
    "GITHUB_COMMANDS",
    "SARIF_LEVELS",
    "SEVERITY_WORDS",
    "Output",
    "Row",
    "escape_data",
    "escape_property",
    "github_line",
    "relative_path",
    "sarif_log",
    "utf16_units",
]
