"""Which files ``check --fix`` may write: only those inside the paths named on the command
line (a symlink found in the tree may point anywhere)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from torch_logs_lsp.cli.text import shown
from torch_logs_lsp.value.paths import inside


def writable_here(path: Path, named: Sequence[str]) -> bool:
    """Whether ``check --fix`` may write ``path`` (found under, or named among, the
    command line's paths ``named``): a file named on the command line, or one whose real
    path (symlinks resolved) is inside a directory named there; never a file elsewhere
    that a symlink in the tree points to. Says why on stderr when not."""
    real = os.path.realpath(path)
    for raw in named:
        if os.path.normpath(raw) == os.path.normpath(path):
            return True  # named itself: the file it is (or points to) is the one meant
        top = os.path.realpath(raw)
        if os.path.isdir(top) and inside(real, top):
            return True
    print(
        f"{shown(path)}: a symbolic link to a file outside the checked paths; not fixed",
        file=sys.stderr,
    )
    return False


__all__ = ["writable_here"]
