"""The project configuration of an open document (``[tool.torch-logs]`` of the closest
``pyproject.toml``, or ``torch-logs.toml`` / ``.torch-logs.toml``:
:mod:`torch_logs_lsp.project.config`), read as ``torch-logs check`` reads it, for the code
choices the editor applies before its own ``torchLogs.select``/``ignore`` settings.

Looked up on every publish (a few ``stat`` calls up the tree; a file is parsed again only
when its size or modification time changed), so an edit of the configuration counts from
the next publish of each document. A file that cannot be used is logged once (warning)
and the document is shown without it.
"""

from __future__ import annotations

import logging
import os

from torch_logs_lsp.lint.selection import Selection
from torch_logs_lsp.project.config import ConfigError, ConfigFinder
from torch_logs_lsp.server.documents import uri_path

log = logging.getLogger(__name__)

_WARNED: set[tuple[str, str]] = set()


def project_selection(uri: str) -> Selection | None:
    """The code choices of the configuration that applies to the document ``uri`` (a
    ``file:`` URI or a notebook cell's); ``None`` for none or another scheme."""
    if not uri.startswith(("file:", "vscode-notebook-cell:")):
        return None
    path = uri_path(uri)
    if not os.path.isabs(path):
        return None
    try:
        config = ConfigFinder().for_file(path)
    except ConfigError as exc:
        if (exc.path, exc.reason) not in _WARNED:
            _WARNED.add((exc.path, exc.reason))
            log.warning("%s: %s; ignored", exc.path, exc.reason)
        return None
    return config.selection if config is not None else None


__all__ = ["project_selection"]
