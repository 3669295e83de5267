"""``torch-logs check``'s side of :mod:`.launch_links` (``TL632``): which folders are
workspace folders, and the findings for one Python file.

The CLI's workspace folders are the directories named on the command line and the
current directory (where the CLI already looks for ``.venv`` and resolves relative
paths). ``torch-logs check folder/`` links ``folder/.vscode/launch.json`` to the Python
files under it; ``torch-logs check folder/train.py`` run from ``folder`` does too, run
from elsewhere it does not (``folder`` is then no workspace folder we know of). Nested
``.vscode`` directories are not workspace folders: VS Code reads only the launch.json of
a folder it has open.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from torch_logs_lsp.launch.links import call_hints
from torch_logs_lsp.lint.checker import Finding, LineIndex


def cli_roots(paths: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The workspace folders of a ``check`` run (absolute, normalised; the directories of
    ``paths`` in order, then the current directory) and their names for
    ``${workspaceFolder:NAME}``: each folder's base name, as VS Code names a folder
    opened alone (a name two folders share is left out: ambiguous)."""
    roots: list[str] = []
    for raw in paths:
        if os.path.isdir(raw):
            roots.append(os.path.normpath(os.path.abspath(raw)))
    roots.append(os.path.normpath(os.getcwd()))
    roots = list(dict.fromkeys(roots))
    names: dict[str, str] = {}
    seen: set[str] = set()
    for root in roots:
        name = os.path.basename(root)
        if name in seen:
            names.pop(name, None)
        else:
            names[name] = root
        seen.add(name)
    return roots, names


def link_findings(
    path: Path, host: str, text: str, roots: Sequence[str], names: dict[str, str]
) -> list[Finding]:
    """The ``TL632`` findings of the file ``path`` of host kind ``host`` (its text
    ``text``; only Python files have ``set_logs`` calls), placed in document coordinates
    (0-based lines, columns in code points). Never raises."""
    diags, _ = call_hints(os.path.abspath(path), text, roots, folders=names, host=host)
    if not diags:
        return []
    index = LineIndex(text)
    out: list[Finding] = []
    for d in diags:
        line, column = index.position(d.start)
        end_line, end_column = index.position(d.end)
        out.append(Finding(None, d, d.start, d.end, line, column, end_line, end_column))
    return out


__all__ = ["cli_roots", "link_findings"]
