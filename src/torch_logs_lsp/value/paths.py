"""Judging the paths of TORCH_LOGS_OUT / TORCH_TRACE values on this machine (TL402, TL403,
TL406 of :mod:`.family`): where a value's path is judged (:class:`Where`), what its host
knows there (:class:`PathFacts`), and whether a directory the document itself creates
stands in for one that is missing. Which values are judged, and the host's facts for each,
come from :func:`torch_logs_lsp.lint.paths.places`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PathFacts:
    """What a host knows, at one value's place, about the paths the value may name (for
    TL402/TL403/TL406, judged by :mod:`~..paths`). The defaults say nothing.

    ``runs_elsewhere``: why the document runs on another machine (``"a SLURM batch script
    (#SBATCH)"``), so no path in it can be judged here; ``None`` when it runs here.
    ``created``: directories an earlier command creates (each normalised, absolute or
    relative to the directory the document starts in; their parents count as created
    too). ``created_unknown``: an earlier command creates a directory that cannot be
    named (``mkdir "$DIR"``), so no missing directory can be claimed. ``cwd``: the working
    directory at the value: ``""`` the one the document starts in, an absolute path, or
    ``None`` when unknown (a relative path is then not judged)."""

    runs_elsewhere: str | None = None
    created: tuple[str, ...] = ()
    created_unknown: bool = False
    cwd: str | None = ""


@dataclass(frozen=True)
class Where:
    """Where a value's path is judged: ``base_dir`` (an absolute directory, or ``None``:
    relative paths are not judged), ``roots`` (the workspace's directories, absolute;
    ``None``: every path counts as inside, for callers that judge a bare value), and the
    host's ``facts`` at the value."""

    base_dir: str | None = None
    roots: tuple[str, ...] | None = None
    facts: PathFacts = field(default_factory=PathFacts)


def as_where(where: Where | str | None) -> Where:
    """``where`` as a :class:`Where` (a string is a base directory, with no workspace
    limit)."""
    return where if isinstance(where, Where) else Where(where)


def inside(path: str, root: str) -> bool:
    """Whether absolute ``path`` is ``root`` or under it (normalised, no symlinks
    followed)."""
    path, root = os.path.normpath(path), os.path.normpath(root)
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


def judged_path(value: str, where: Where) -> tuple[str, str] | None:
    """The absolute path ``value`` (non-empty) names, to be judged on this machine, and a
    note for the message saying what a relative path was resolved against (``""`` for an
    absolute one); ``None`` when it cannot be judged here (see the module docstring)."""
    facts = where.facts
    if facts.runs_elsewhere is not None:
        return None
    note = ""
    if os.path.isabs(value):
        path = os.path.normpath(value)
    elif facts.cwd is None:
        return None
    elif facts.cwd:
        if not os.path.isdir(facts.cwd):
            return None  # the cd fails here: where the script goes on is not certain
        path = os.path.normpath(os.path.join(facts.cwd, value))
        note = f" (relative to {facts.cwd}, where the script changes directory)"
    elif where.base_dir is None:
        return None
    else:
        path = os.path.abspath(os.path.join(where.base_dir, value))
        note = f" (relative paths are resolved against {where.base_dir}; torch uses the "
        note += "working directory of the process)"
    if where.roots is not None and not any(inside(path, root) for root in where.roots):
        return None
    return path, note


def created(directory: str, where: Where) -> bool:
    """Whether an earlier command of the document may create absolute ``directory``
    (itself, or a directory under it)."""
    facts = where.facts
    if facts.created_unknown:
        return True
    for made in facts.created:
        if not os.path.isabs(made):
            if where.base_dir is None:
                return True  # made somewhere we cannot place
            made = os.path.join(where.base_dir, made)
        if inside(made, directory):
            return True
    return False


__all__ = ["PathFacts", "Where", "as_where", "created", "inside", "judged_path"]
