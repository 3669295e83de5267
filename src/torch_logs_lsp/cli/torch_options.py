"""The command line's view of the user's torch: ``--python`` / ``--torch-version`` options
and ``torch-logs registry`` (every name of a release with kind, flags, releases and
description: a ``TORCH_LOGS=help`` that crashes nothing).

Each checked file's project stands in for the workspace (:func:`project_dir`: the nearest
directory above it with a ``.venv``/``venv``): that interpreter's torch is used, and the
directory is one of the candidates for ``sys.path[0]`` when module names are resolved
(the pipeline adds the file's own: :mod:`torch_logs_lsp.lint.script_dirs`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from torch_logs_lsp.cli.text import printable
from torch_logs_lsp.hosts.comments import pin_comment
from torch_logs_lsp.knowledge.versions import lifespan_text, parse_release
from torch_logs_lsp.torch_env.context import TorchContext, TorchResolver
from torch_logs_lsp.torch_env.environment import interpreter_path, workspace_interpreters

_RESOLVER = TorchResolver()


def add_torch_options(parser: argparse.ArgumentParser) -> None:
    """``--python PATH`` and ``--torch-version X.Y`` (alias ``--torch``)."""
    parser.add_argument(
        "--python",
        metavar="PATH",
        type=_python_arg,
        help="interpreter whose torch and modules to check against",
    )
    parser.add_argument(
        "--torch-version",
        "--torch",
        dest="torch_version",
        metavar="X.Y",
        type=_release_arg,
        help="check against this torch release (wins over pins)",
    )


def _python_arg(text: str) -> str:
    """An interpreter path (or a command on PATH); a typo is a usage error (exit 2)."""
    found = interpreter_path(text, None)
    if not os.path.exists(found):
        raise argparse.ArgumentTypeError(f"no such interpreter: {text!r}")
    return found


def _release_arg(text: str) -> str:
    release = parse_release(text)
    if release is None:
        raise argparse.ArgumentTypeError(f"not a release like 2.13: {text!r}")
    return release


def project_dir(path: str | os.PathLike[str] | None) -> str:
    """The directory whose ``.venv``/``venv`` is the checked file's project interpreter:
    the nearest one at or above the file's directory that has one; else the current
    directory for a file under it (and for no file), else the file's own directory (a
    file of another project never gets the current directory's interpreter). Never
    raises."""
    cwd = os.getcwd()
    if path is None:
        return cwd
    start = os.path.dirname(os.path.abspath(path))
    found = _with_interpreter(start)
    if found is not None:
        return found
    inside = os.path.commonpath([cwd, start]) == cwd if os.path.isabs(start) else False
    return cwd if inside else start


#: ``project_dir``'s answers per directory during one ``check`` run (cleared by
#: :func:`forget_projects` at the start of each).
_PROJECTS: dict[str, str | None] = {}


def forget_projects() -> None:
    """Forget the interpreters :func:`project_dir` found (a new run may see new ones)."""
    _PROJECTS.clear()


def _with_interpreter(start: str) -> str | None:
    """The nearest directory at or above ``start`` (absolute) with a ``.venv``/``venv``
    interpreter; remembered per directory (``check`` over a tree asks once per
    directory, not once per file and level)."""
    misses: list[str] = []
    here = start
    found: str | None = None
    while True:
        if here in _PROJECTS:
            found = _PROJECTS[here]
            break
        if workspace_interpreters(here):
            found = here
            break
        misses.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for directory in misses:
        _PROJECTS[directory] = found
    return found


def context_for(
    args: argparse.Namespace, text: str = "", path: str | os.PathLike[str] | None = None
) -> TorchContext:
    """The torch context for a file's ``text`` (pin comment) under the command's options:
    ``--torch-version``, a pin comment, ``--python``, else the interpreter of the file's
    project (:func:`project_dir` of ``path``), else ``python3`` on PATH."""
    return _RESOLVER.context(
        torch_version=getattr(args, "torch_version", None),
        pin=pin_comment(text),
        python=getattr(args, "python", None),
        workspace=project_dir(path),
    )


def print_notes(context: TorchContext, noted: set[str]) -> None:
    """Each of ``context.notes`` not in ``noted`` on stderr (``torch-logs: note: ...``),
    added to ``noted``."""
    for note in context.notes:
        if note not in noted:
            noted.add(note)
            print(f"torch-logs: note: {printable(note)}", file=sys.stderr)


def registry_rows(context: TorchContext, locale: str = "en") -> list[dict[str, Any]]:
    """One row per name: kind, flags, loggers, releases and description."""
    reg = context.registry
    rows: list[dict[str, Any]] = []
    for name in reg.known_names():
        kind = reg.kind(name)
        row: dict[str, Any] = {"name": name, "kind": kind, "releases": lifespan_text(name)}
        if kind == "artifact":
            art = reg.artifacts[name]
            row.update(off_by_default=art.off_by_default, visible=art.visible)
        else:
            row["loggers"] = list(reg.qnames_for(name))
        row["description"] = reg.description(name, locale)
        rows.append(row)
    return rows


def cmd_registry(args: argparse.Namespace) -> int:
    """``torch-logs registry``: list the names of the chosen torch."""
    context = context_for(args)
    print_notes(context, set())
    rows = registry_rows(context, args.locale)
    if args.json:
        doc = {"torch_release": context.registry.release, "source": context.how, "names": rows}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return 0
    print(f"TORCH_LOGS names of {context.how}:")
    for row in rows:
        flags = []
        if row.get("off_by_default"):
            flags.append("off by default")
        if row["kind"] == "artifact" and not row.get("visible"):
            flags.append("hidden")
        extra = f" ({', '.join(flags)})" if flags else ""
        print(f"  {row['name']:<28} {row['kind']}{extra}; {row['releases']}")
        if row["description"]:
            print(f"      {row['description']}")
    return 0


def add_registry_command(sub: Any) -> None:
    """Register ``torch-logs registry [--torch-version X.Y] [--python PATH] [--json]``."""
    reg = sub.add_parser("registry", help="list every TORCH_LOGS name of your torch")
    add_torch_options(reg)
    reg.add_argument("--json", action="store_true")
    reg.add_argument("--locale", choices=("en", "ru"), default="en")
    reg.set_defaults(func=cmd_registry)


__all__ = [
    "add_registry_command",
    "add_torch_options",
    "cmd_registry",
    "context_for",
    "print_notes",
    "project_dir",
]
