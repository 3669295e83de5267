"""Which paths of TORCH_LOGS_OUT / TORCH_TRACE values can be judged on this machine
(TL402, TL403, TL406 of :mod:`.family`), and whether a directory the document itself
creates stands in for one that is missing.

A path is judged only when the answer holds where the value is used:

- not in a document that runs on another machine (a batch script: the host says so in
  :attr:`.hosts.interface.PathFacts.runs_elsewhere`);
- only inside the workspace (:attr:`Where.roots`): the editor's workspace folders; on the
  command line the current directory and the checked file's project directory
  (:func:`.cli_torch.project_dir`). An absolute path elsewhere (``/scratch/...``) may be
  another machine's;
- a relative path against the directory the document starts in (:attr:`Where.base_dir`:
  the first workspace folder, the CLI's current directory; not judged without one), or
  against the directory a ``cd`` of the document certainly moved to; not judged when that
  is unknown.

A missing directory is not reported when an earlier command of the document may create it
or a directory under it (:attr:`~.hosts.interface.PathFacts.created`), or creates one it
cannot name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.interface import PathFacts
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan


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


def places(
    host: HostKind,
    text: str,
    spans: list[ValueSpan],
    base_dir: str | None,
    roots: tuple[str, ...] | None,
) -> list[Where]:
    """Where each span's path is judged (:class:`.paths.Where`: ``base_dir``, the
    workspace ``roots``, and the host's :meth:`~.hosts.interface.Host.path_facts` of the
    span: directories the document creates, whether it runs elsewhere). A host that fails
    gives no facts for paths judged here (every path is left unjudged). Never raises."""
    module = hosts.path_facts_host(host)
    facts: list[PathFacts] = []
    if module is not None:
        try:
            facts = module.path_facts(text, spans)
        except Exception:  # a host bug must not take the check down: judge nothing
            facts = [PathFacts(runs_elsewhere="unknown")] * len(spans)
    if len(facts) != len(spans):
        facts = [PathFacts()] * len(spans)
    return [Where(base_dir, roots, f) for f in facts]


__all__ = ["Where", "as_where", "created", "inside", "judged_path", "places"]
