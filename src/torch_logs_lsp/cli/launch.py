"""``torch-logs check``'s side of :mod:`.launch_links` (``TL632``): which folders are
workspace folders, and the pipeline's ``links`` for one file.

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
from torch_logs_lsp.lint.pipeline import Links


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


def launch_links(path: Path, roots: Sequence[str], names: dict[str, str]) -> Links:
    """The pipeline's ``links`` for the file ``path``
    (:func:`torch_logs_lsp.lint.pipeline.check_document`): the ``TL632`` diagnostics of
    its ``set_logs`` calls (only Python files have them) when a launch configuration of
    one of the workspace folders ``roots`` (named ``names``) runs it with ``TORCH_LOGS``
    set. Never raises."""
    absolute = os.path.abspath(path)
    return lambda host, text: call_hints(absolute, text, roots, folders=names, host=host)[0]


__all__ = ["cli_roots", "launch_links"]
