"""The ``torch-logs`` command: ``check`` files, ``explain`` a value, ``registry``, ``codes``.

Exit codes: ``check`` 0 when no error was found, 1 when any error was found, 2 on usage
errors (argparse's convention; also a path that does not exist, an unknown code in
``--select``/``--ignore``, a configuration file that cannot be used: :mod:`.cli_select`)
and when any path could not be read (a directory that cannot be listed, a file that
cannot be opened: each is named on stderr, ``torch-logs: PATH: cannot read (Permission
denied); skipped``, the others are still checked; 2 wins over 1). A file skipped for
what it is (a FIFO or device, a file over 8 MiB) is named on stderr too (``torch-logs:
PATH: skipped (REASON)``) without changing the exit code. ``explain`` 0 when torch
accepts the value, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from torch_logs_lsp import hosts
from torch_logs_lsp.cli.codes import add_codes_command, add_version_option, note_code_like
from torch_logs_lsp.cli.formats import (
    FILE_PLACES,
    FORMATS,
    SEVERITY_WORDS,
    Output,
    Row,
    utf16_units,
)
from torch_logs_lsp.cli.launch import cli_roots, launch_links
from torch_logs_lsp.cli.notebook import check_notebook
from torch_logs_lsp.cli.paths import writable_here
from torch_logs_lsp.cli.select import add_select_options, make_chooser
from torch_logs_lsp.cli.text import json_text, shown, value_text
from torch_logs_lsp.cli.torch_options import (
    add_registry_command,
    add_torch_options,
    context_for,
    forget_projects,
    print_notes,
    project_dir,
)
from torch_logs_lsp.files import SkippedFile
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.checker import Finding, may_find, read_bytes
from torch_logs_lsp.lint.fixer import fix_file
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.notebook.cells import CellFinding
from torch_logs_lsp.notebook.places import FilePlace, notebook_places
from torch_logs_lsp.notebook.reader import CELL_HOST, NOTEBOOK
from torch_logs_lsp.project.walk import iter_files
from torch_logs_lsp.value.analysis import LEVEL_NAMES, Analysis, Severity, analyse
from torch_logs_lsp.value.analysis_cache import AnalysisCache


def _safe_streams() -> None:
    """Never die printing: stdout and stderr replace what their encoding cannot hold
    with backslash escapes (a message quoting text the locale cannot show)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _diagnostic_json(d: Any, **extra: Any) -> dict[str, Any]:
    return {
        "code": d.code,
        "severity": SEVERITY_WORDS[d.severity],
        "message": d.message,
        **extra,
        "suggestions": list(d.suggestions),
    }


def cmd_check(args: argparse.Namespace) -> int:
    chooser = make_chooser(args)  # --select/--ignore and each file's configuration
    if chooser is None:
        return 2
    minimum = Severity.HINT if args.show_hints else Severity.INFORMATION
    output = Output(args.format)
    unreadable = 0
    reported: set[str] = set()

    def skipped(exc: SkippedFile) -> None:
        nonlocal unreadable
        reported.add(exc.path)
        if exc.error is not None:
            unreadable += 1
            why = exc.error.strerror or str(exc.error)
            print(f"torch-logs: {shown(exc.path)}: cannot read ({why}); skipped", file=sys.stderr)
        else:
            print(f"torch-logs: {shown(exc.path)}: skipped ({exc.reason})", file=sys.stderr)

    forget_projects()
    ignored_env: list[Path] = []  # .env files the ignore rules leave out
    try:
        files = list(
            iter_files(
                args.paths, skipped, ignore=not args.no_ignore, ignored_env=ignored_env.append
            )
        )
    except FileNotFoundError as exc:
        print(f"torch-logs: no such file or directory: {shown(exc.args[0])}", file=sys.stderr)
        return 2
    found = {os.path.normpath(os.path.abspath(p)) for p, _ in files}
    for raw in args.paths:  # a file named explicitly but of no kind we check: say so
        if args.ignore_unknown or raw in reported or str(Path(raw)) in reported:
            continue
        if not os.path.isfile(raw):
            continue
        if os.path.normpath(os.path.abspath(raw)) not in found:
            print(
                f"torch-logs: {shown(raw)}: not one of {hosts.describe_kinds('or')}; skipped",
                file=sys.stderr,
            )
    fixed = 0
    checked = 0
    noted: set[str] = set()
    analyses = AnalysisCache()  # a value named many times is analysed once, as in the server
    roots, names = cli_roots(args.paths)  # workspace folders: directories named, and "."
    for path, host in files:
        if host == NOTEBOOK:  # each code cell a document (cli/notebook.py)
            off = chooser.ignored(path) if args.fix else frozenset()
            checked_notebook = check_notebook(path, args, skipped, noted, off)
            if checked_notebook is None:
                continue
            in_cells, n = checked_notebook
            fixed += n
            checked += 1
            shown_cells = [
                c
                for c in chooser.chosen(path, in_cells, lambda c: c.diagnostic.code)
                if c.diagnostic.severity <= minimum
            ]
            places = notebook_places(path, shown_cells) if args.format in FILE_PLACES else None
            for i, found_in_cell in enumerate(shown_cells):
                output.add(cell_row(path, found_in_cell, places[i] if places else None))
            continue
        try:
            data = read_bytes(path)
            if host in UTF8_ONLY:
                utf8_only(path, data)
        except SkippedFile as exc:
            skipped(exc)
            continue
        checked += 1
        if not may_find(data):  # no family name, near miss, pin or set_logs: nothing to say
            continue
        text = data.decode("utf-8", "replace")  # as read_document
        context = context_for(args, text, path)  # --torch-version, pin, --python, .venv, PATH
        print_notes(context, noted)  # e.g. a release that is not packaged: named once
        registry = context.registry
        if args.fix and writable_here(path, args.paths):
            text, n = _fix(path, host, registry, text, args.format, chooser.ignored(path))
            fixed += n
        document = check_document(
            text,
            host,
            context=context,
            # the workspace for paths: the current directory and the file's project (TL402)
            base_dir=os.getcwd(),
            roots=(os.getcwd(), project_dir(path)),
            path=os.path.abspath(path),  # module names: the script's directory first
            links=launch_links(path, roots, names),  # TL632: a launch config runs it
            analyses=analyses,
        )
        for f in chooser.chosen(path, document.findings(), lambda f: f.diagnostic.code):
            if f.diagnostic.severity <= minimum:
                output.add(file_row(path, host, text, f))
    output.finish(checked)
    note_ignored_env(ignored_env)
    if args.fix:
        print(f"{fixed} value(s) fixed", file=sys.stderr)
    if unreadable or chooser.failed:
        return 2
    return 1 if output.errors else 0


#: Most ignored ``.env`` files named in the note of :func:`note_ignored_env`.
_NAMED_IGNORED = 5


def note_ignored_env(paths: list[Path]) -> None:
    """A note on stderr naming the ``.env`` files that the ignore files left out and that
    set a family variable (most projects ignore ``.env``, where the values live): they
    were not checked, and ``--no-ignore`` checks them. Nothing when there are none."""
    setting: list[Path] = []
    for path in paths:
        try:
            data = read_bytes(path)
        except SkippedFile:
            continue
        if may_find(data) and hosts.extract("dotenv", data.decode("utf-8", "replace")):
            setting.append(path)
    if not setting:
        return
    names = ", ".join(shown(p) for p in setting[:_NAMED_IGNORED])
    more = f" and {len(setting) - _NAMED_IGNORED} more" if len(setting) > _NAMED_IGNORED else ""
    print(
        f"torch-logs: note: not checked, left out by the ignore files (.gitignore) but "
        f"setting TORCH_LOGS-family variables: {names}{more}; --no-ignore checks them",
        file=sys.stderr,
    )


def file_row(path: Path, host: HostKind, text: str, f: Finding) -> Row:
    """A finding of a file as an output row: 1-based positions, columns in code points
    not counting a BOM (editors hide it), and in UTF-16 code units for SARIF."""
    d = f.diagnostic
    bom = 1 if text.startswith("\ufeff") else 0
    column = f.column + 1 - (bom if f.line == 0 else 0)
    end_column = f.end_column + 1 - (bom if f.end_line == 0 else 0)
    u_start = utf16_units(text[f.start - f.column : f.start]) + 1 - (bom if f.line == 0 else 0)
    u_end = utf16_units(text[f.end - f.end_column : f.end]) + 1 - (bom if f.end_line == 0 else 0)
    return Row(
        path=str(path),
        host=host,
        code=d.code,
        severity=d.severity,
        message=d.message,
        suggestions=tuple(d.suggestions),
        variable=f.span.variable if f.span else None,
        value=f.span.value if f.span else None,
        line=f.line + 1,
        column=column,
        end_line=f.end_line + 1,
        end_column=end_column,
        utf16_column=u_start,
        utf16_end_column=u_end,
    )


def cell_row(path: Path, found: CellFinding, place: FilePlace | None = None) -> Row:
    """A notebook's finding as an output row: ``cell`` and positions inside the cell
    (see :mod:`.notebook_cli`), and its ``place`` in the file (:mod:`.notebook_places`)."""
    f, d = found.finding, found.diagnostic
    return Row(
        path=str(path),
        host=CELL_HOST,
        code=d.code,
        severity=d.severity,
        message=d.message,
        suggestions=tuple(d.suggestions),
        variable=f.span.variable if f.span else None,
        value=f.span.value if f.span else None,
        line=f.line + 1,
        column=f.column + 1,
        end_line=f.end_line + 1,
        end_column=f.end_column + 1,
        cell=found.cell,
        file_place=place,
    )


#: Kinds of file whose every reader refuses bytes that are not UTF-8: TOML is UTF-8
#: only (toml.io, "Spec"), and tomllib, which pip, pytest and tox read it with, raises.
UTF8_ONLY: frozenset[HostKind] = frozenset({"toml"})


def utf8_only(path: Path, data: bytes) -> None:
    """Raise :class:`.files.SkippedFile` (no error) when ``data`` is not UTF-8: a file of a
    kind in :data:`UTF8_ONLY` that no reader can read sets nothing, so it is not parsed
    (megabytes of such bytes cost seconds and hundreds of MB to parse)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 at byte {exc.start}, which TOML readers refuse"
        raise SkippedFile(str(path), reason) from None


def _fix(
    path: Path, host: HostKind, registry: Registry, text: str, fmt: str, ignore: frozenset[str]
) -> tuple[str, int]:
    """``check --fix`` for one file: apply fix-all but the fixes of the codes in
    ``ignore`` (not chosen), print each change (to stderr unless ``--format text``; the
    old and new values as :func:`.text.value_text` quotes them); return the text to check
    and the number of values changed."""
    result = fix_file(path, host, registry, ignore=ignore)
    if result.skipped:
        print(f"{shown(path)}: {result.skipped}", file=sys.stderr)
    out = sys.stdout if fmt == "text" else sys.stderr
    for c in result.changes:
        old, new = value_text(c.old), value_text(c.new)
        what = c.span.variable if c.span is not None else "set_logs"
        print(f"{shown(path)}:{c.line + 1}: fixed {what}: {old} -> {new}", file=out)
    for h in result.held:
        print(
            f"{shown(path)}:{h.line + 1}: {h.variable} not fixed: {h.reason}; a fix here would"
            " change it there too",
            file=sys.stderr,
        )
    return (result.text if result.text is not None else text), len(result.changes)


def explain_json(result: Analysis) -> dict[str, Any]:
    """The ``explain --json`` document for an analysis (shape in the README)."""
    config = result.config
    return {
        "value": result.value,
        "torch_release": result.release,
        "torch_outcome": result.outcome,
        "diagnostics": [_diagnostic_json(d, start=d.start, end=d.end) for d in result.diagnostics],
        "logs": {q: LEVEL_NAMES[lvl] for q, lvl in config.logs.items()} if config else {},
        "artifacts": list(config.artifacts) if config else [],
        "modules": list(config.modules) if config else [],
    }


_OUTCOME_TEXT = {
    "ok": "import torch accepts this value",
    "invalid": "import torch raises ValueError (invalid TORCH_LOGS)",
    "help": "import torch raises and prints the TORCH_LOGS help",
    "module_not_found": "import torch raises ModuleNotFoundError/ImportError",
    "crash": "import torch crashes with AttributeError (empty TORCH_LOGS)",
}


def cmd_explain(args: argparse.Namespace) -> int:
    note_code_like(args.value)
    context = context_for(args)
    print_notes(context, set())
    result = analyse(args.value, context.registry, context.finder)
    if args.json:
        print(json_text(explain_json(result)))
        return 0 if result.outcome == "ok" else 1
    print(f"TORCH_LOGS={args.value!r} (torch {result.release} rules)")
    print(f"outcome: {_OUTCOME_TEXT[result.outcome]}")
    for d in result.diagnostics:
        where = f"{d.start + 1}-{d.end}" if d.end > d.start else f"{d.start + 1}"
        print(f"  {d.code} [{SEVERITY_WORDS[d.severity]}] at {where}: {d.message}")
    if result.config:
        if result.config.logs:
            width = max(len(q) for q in result.config.logs)
            print("loggers:")
            for q, lvl in result.config.logs.items():
                print(f"  {q:<{width}}  {LEVEL_NAMES[lvl]}")
        if result.config.artifacts:
            print("artifacts: " + ", ".join(result.config.artifacts))
        if result.config.modules:
            print("module names (torch looks them up): " + ", ".join(result.config.modules))
    return 0 if result.outcome == "ok" else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torch-logs", description="Check and explain PyTorch TORCH_LOGS values."
    )
    add_version_option(parser, "torch-logs")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help=f"check {hosts.describe_kinds('and')}")
    check.add_argument("paths", nargs="+", metavar="PATH", help="files and directories to check")
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        metavar="FORMAT",
        help="text (default), json, github or sarif",
    )
    check.add_argument("--show-hints", action="store_true", help="also print hints")
    check.add_argument(
        "--fix", action="store_true", help="apply the safe fixes to the files, then check"
    )
    check.add_argument(
        "--no-ignore",
        action="store_true",
        help="also walk what .gitignore and .ignore files exclude",
    )
    check.add_argument(
        "--ignore-unknown",
        action="store_true",
        help="say nothing of named files no host reads (pre-commit)",
    )
    add_select_options(check)
    add_torch_options(check)
    check.set_defaults(func=cmd_check)
    explain = sub.add_parser("explain", help="explain what torch does with a value")
    explain.add_argument("value", metavar="VALUE", help="a TORCH_LOGS value, like +dynamo,guards")
    explain.add_argument("--json", action="store_true", help="print the result as JSON")
    add_torch_options(explain)
    explain.set_defaults(func=cmd_explain)
    add_registry_command(sub)
    add_codes_command(sub)
    return parser


def _value_after_dash(argv: list[str]) -> list[str]:
    """``explain -dynamo``: a VALUE may start with ``-`` (``-name`` sets ERROR). Move the
    first such token that is not an option of ``explain`` to the end, after ``--``."""
    if not argv or argv[0] != "explain" or "--" in argv:
        return argv
    options = {"-h", "--help", "--json", "--python", "--torch-version", "--torch"}
    takes_value = {"--python", "--torch-version", "--torch"}
    i = 1
    while i < len(argv):
        token = argv[i]
        name = token.split("=", 1)[0]
        if name in options:
            i += 2 if name in takes_value and "=" not in token else 1
            continue
        if token.startswith("-") and not token.startswith("--"):
            return [*argv[:i], *argv[i + 1 :], "--", token]
        i += 1
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``torch-logs``; returns the exit code."""
    _safe_streams()
    args = build_parser().parse_args(
        _value_after_dash(list(sys.argv[1:] if argv is None else argv))
    )
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `torch-logs ... | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
