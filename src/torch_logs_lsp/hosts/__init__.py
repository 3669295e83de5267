"""Host extractors: find TORCH_LOGS-family assignments in documents of each file kind.

Each host is one sub-package of this package whose ``host`` module has the members of
one narrow interface (:class:`.interface.Host`: detection, extraction, re-encoding,
removal) and, only where the host has them, optional capabilities (:class:`.interface.
NotesHost`, ``OverwritesHost``, ``StopsHost``, ``PathFactsHost``, ``SetLogsHost``,
``SharedValuesHost``: asked
for with :func:`notes_host` ...), with one declaration (:class:`.spec.HostSpec`:
file-name globs, languageIds, comment syntax); :data:`HOST_KINDS` is the table of them and
:func:`host_specs` their declarations. ``detect_host(path, text)`` names the host kind of
a document (from its path and content, never from an editor's languageId alone);
``extract(host, text)`` returns its value spans; :func:`host_module` gives the module of a
kind.
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, cast

from torch_logs_lsp.hosts.declared import SPECS
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import (
    Host,
    NotesHost,
    OutputHost,
    OverwritesHost,
    PathFactsHost,
    SetLogsHost,
    SharedValuesHost,
    StopsHost,
)
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.model.host_kind import HOST_KINDS, HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

__all__ = [
    "FAMILY",
    "HOST_KINDS",
    "HostKind",
    "ValueSpan",
    "describe_kinds",
    "detect_host",
    "extract",
    "host_by_name",
    "host_for_language",
    "host_module",
    "host_specs",
    "import_hosts",
    "notes_host",
    "output_host",
    "overwrites_host",
    "path_facts_host",
    "runs_on",
    "set_logs_host",
    "shared_host",
    "stops_host",
]


if TYPE_CHECKING:  # mypy checks that every module in the table is a Host
    from torch_logs_lsp.hosts.batch import host as batch
    from torch_logs_lsp.hosts.dockerfile import host as dockerfile
    from torch_logs_lsp.hosts.dotenv import host as dotenv
    from torch_logs_lsp.hosts.ini import host as ini
    from torch_logs_lsp.hosts.ipython import host as ipython
    from torch_logs_lsp.hosts.jsonc import host as jsonc
    from torch_logs_lsp.hosts.makefile import host as makefile
    from torch_logs_lsp.hosts.powershell import host as powershell
    from torch_logs_lsp.hosts.python import host as python
    from torch_logs_lsp.hosts.shell import host as shell
    from torch_logs_lsp.hosts.toml import host as toml
    from torch_logs_lsp.hosts.yaml import host as yaml

    _SHELL: Host = shell
    _DOTENV: Host = dotenv
    _JSONC: Host = jsonc
    _PYTHON: Host = python
    _DOCKERFILE: Host = dockerfile
    _YAML: Host = yaml
    _IPYTHON: Host = ipython
    _TOML: Host = toml
    _INI: Host = ini
    _MAKEFILE: Host = makefile
    _POWERSHELL: Host = powershell
    _BATCH: Host = batch
    # and each optional capability of the hosts that have it (tests/hosts/test_specs.py
    # checks these tuples name exactly the hosts that have it)
    _NOTES: tuple[NotesHost, ...] = (batch, ipython, powershell, python, yaml)
    _OVERWRITES: tuple[OverwritesHost, ...] = (
        batch,
        dockerfile,
        dotenv,
        ini,
        ipython,
        jsonc,
        makefile,
        powershell,
        python,
        shell,
        toml,
    )
    _STOPS: tuple[StopsHost, ...] = (ini, toml)
    _PATH_FACTS: tuple[PathFactsHost, ...] = (batch, dockerfile, ini, jsonc, shell, yaml)
    _OUTPUT: tuple[OutputHost, ...] = (
        batch,
        dockerfile,
        ipython,
        makefile,
        powershell,
        python,
        shell,
        yaml,
    )
    _SET_LOGS: tuple[SetLogsHost, ...] = (ipython, python)
    _SHARED: tuple[SharedValuesHost, ...] = (yaml,)

_modules: dict[HostKind, Host] = {}


def host_module(kind: HostKind) -> Host | None:
    """The module of host kind ``kind`` (imported on first use; cheap: parsers load on
    first parse), or ``None`` for a kind not in :data:`HOST_KINDS`."""
    module = _modules.get(kind)
    if module is None and kind in HOST_KINDS:
        module = _modules[kind] = cast(Host, importlib.import_module(f"{__name__}.{kind}.host"))
    return module


def _capable(kind: HostKind, protocol: type) -> object | None:
    """The module of host kind ``kind`` when it has the members of ``protocol`` (a
    runtime-checkable protocol of :mod:`.interface`), else ``None``."""
    module = host_module(kind)
    return module if isinstance(module, protocol) else None


def notes_host(kind: HostKind) -> NotesHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.NotesHost`."""
    return cast("NotesHost | None", _capable(kind, NotesHost))


def overwrites_host(kind: HostKind) -> OverwritesHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.OverwritesHost`."""
    return cast("OverwritesHost | None", _capable(kind, OverwritesHost))


def stops_host(kind: HostKind) -> StopsHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.StopsHost`."""
    return cast("StopsHost | None", _capable(kind, StopsHost))


def path_facts_host(kind: HostKind) -> PathFactsHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.PathFactsHost`."""
    return cast("PathFactsHost | None", _capable(kind, PathFactsHost))


def output_host(kind: HostKind) -> OutputHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.OutputHost`."""
    return cast("OutputHost | None", _capable(kind, OutputHost))


def set_logs_host(kind: HostKind) -> SetLogsHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.SetLogsHost`."""
    return cast("SetLogsHost | None", _capable(kind, SetLogsHost))


def shared_host(kind: HostKind) -> SharedValuesHost | None:
    """The module of host kind ``kind`` when it has :class:`.interface.SharedValuesHost`."""
    return cast("SharedValuesHost | None", _capable(kind, SharedValuesHost))


def runs_on(kind: HostKind) -> str:
    """Where the process reading a value of host kind ``kind`` runs: its
    :attr:`~.interface.Host.RUNS_ON` (``"windows"``, ``"any"``, ``"posix"``); ``"posix"``
    for a kind not in :data:`HOST_KINDS`."""
    module = host_module(kind)
    return module.RUNS_ON if module is not None else "posix"


def describe_kinds(conjunction: str) -> str:
    """Every host's :attr:`~.interface.Host.DESCRIPTION` in :data:`HOST_KINDS` order, as
    an English list joined by ``conjunction`` (``"and"``, ``"or"``): ``"shell scripts,
    .env files, ... or Python files"``."""
    names = [m.DESCRIPTION for m in map(host_module, HOST_KINDS) if m is not None]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def host_specs() -> tuple[HostSpec, ...]:
    """Every host's declaration (its module's ``SPEC``), in :data:`HOST_KINDS` order: the
    copy :mod:`.declared` (``./dev gen``), which imports no host module."""
    return SPECS


def host_for_language(language_id: str) -> HostKind | None:
    """The host kind whose declared :attr:`~.spec.HostSpec.language_ids` has the editor
    languageId ``language_id`` (the first in :data:`HOST_KINDS` order), or ``None``."""
    for spec in SPECS:
        if language_id in spec.language_ids:
            return spec.kind
    return None


def _basename(path: str) -> str:
    path = path.split("?", 1)[0].split("#", 1)[0]  # a URI's query or fragment
    return re.split(r"[/\\]", path.rstrip("/\\"))[-1]


_NOT_PLAIN = re.compile(r"[/\\?#]")
_ALL: list[Host] = []


def import_hosts() -> list[Host]:
    """The modules of :data:`HOST_KINDS` in order (imported once; the server imports them
    in the background after the handshake)."""
    if not _ALL:
        _ALL.extend(m for m in map(host_module, HOST_KINDS) if m is not None)
    return _ALL


def host_by_name(name: str) -> HostKind | None:
    """The host kind whose name rule claims the base name ``name`` (the first in
    :data:`HOST_KINDS` order), ``None`` when none does: the content rules are not tried
    (:func:`detect_host` does). Never raises.

    Only the hosts whose declared globs claim ``name`` are asked (their modules imported):
    a host's ``detect_name`` claims no name its globs do not (a host with exceptions
    declares the globs it starts from; tests/hosts/test_detect.py holds them to it).
    """
    for spec in SPECS:
        if spec.claims(name):
            module = host_module(spec.kind)
            if module is not None and module.detect_name(name):
                return spec.kind
    return None


def detect_host(path: str, text: str) -> HostKind | None:
    """The host kind of a document, or ``None`` when it is not one we read.

    ``path`` is a filesystem path or the path part of a ``file://`` URI (either separator);
    ``text`` is the document (its first line is enough). Every host's name rule is tried
    first (``detect_name``, in :data:`HOST_KINDS` order; see :func:`host_by_name`), then,
    when none claims the name, the content rules (``detect_content``: a shell's shebang),
    which import every host module. Never raises.
    """
    name = _basename(path) if _NOT_PLAIN.search(path) else path
    kind = host_by_name(name)
    if kind is not None:
        return kind
    for module in import_hosts():
        if module.detect_content(name, text):
            return module.HOST
    return None


def extract(host: HostKind, text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of ``text`` read as host kind ``host`` (one of :data:`HOST_KINDS`).

    Offsets are code points into ``text``. An unknown host kind or a document that names
    no family variable gives ``[]`` without parsing; parsers (tree-sitter grammars) are
    imported on first use. ``cache`` (one per open document, kept across its versions)
    makes the extraction incremental with the same result (see :mod:`.incremental`).
    Never raises.
    """
    module = host_module(host)
    if module is None:
        return []
    if cache is not None and cache.holds(host, text):  # the same version again
        return list(cache.spans or ())
    if not module.may_hold_values(text):
        if cache is not None:
            cache.reset()
        return []
    try:
        return module.extract(text, cache)
    except BaseException:
        if cache is not None:
            cache.reset()  # a half-updated cache must not feed the next version
        raise
