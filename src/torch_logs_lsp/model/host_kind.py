"""The host kinds: the kinds of file a value is read from (one host sub-package each,
:mod:`torch_logs_lsp.hosts`), as a type."""

from __future__ import annotations

from typing import Literal, get_args

#: A host kind: the name of its package under ``torch_logs_lsp/hosts/``. The order is the
#: order the hosts' detection rules are tried (a file name two hosts claim goes to the
#: first).
HostKind = Literal[
    "shell",
    "dotenv",
    "jsonc",
    "python",
    "dockerfile",
    "yaml",
    "ipython",
    "toml",
    "ini",
    "makefile",
    "powershell",
    "batch",
]

#: Every host kind, in :data:`HostKind`'s order.
HOST_KINDS: tuple[HostKind, ...] = get_args(HostKind)


def host_kind(name: str) -> HostKind | None:
    """``name`` as a host kind, or ``None`` when it names none."""
    for kind in HOST_KINDS:
        if kind == name:
            return kind
    return None


__all__ = ["HOST_KINDS", "HostKind", "host_kind"]
