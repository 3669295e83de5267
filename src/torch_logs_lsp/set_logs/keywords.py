"""The keyword parameters of ``torch._logging.set_logs`` per torch release.

``set_logs`` is keyword-only and its parameters are *not* the registry: in torch 2.13 16
registered names (``loop_ordering``, ``fake_tensor``, ...) are no keyword, and ``all`` and
``modules`` are keywords but no registered name. Where the keywords come from:

- packaged: ``data/set-logs-keywords-by-version.json``, keyword -> annotation for each
  release 2.1-2.15, read with :mod:`ast` from ``torch/_logging/_internal.py`` of each
  release wheel (x.y.0; 2.14.1) -- a copy of the project's registry facts;
- the user's torch: its ``torch/_logging/_internal.py`` read statically (never imported):
  the ``kwonlyargs`` of the module-level ``def set_logs``. Anything unexpected (not a
  regular file, not UTF-8, a syntax error, no such function, positional parameters, any
  exception while reading) falls back to the packaged keywords of the nearest release,
  with the reason in :attr:`SetLogsSignature.notes`.
"""

from __future__ import annotations

import ast
import json
import logging
import os
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal

from torch_logs_lsp.files import MAX_INTERNAL_BYTES, SkippedFile, read_regular
from torch_logs_lsp.knowledge.registry import Registry, release_tuple
from torch_logs_lsp.knowledge.versions import nearest_release
from torch_logs_lsp.torch_env.reader import REGISTRATIONS

log = logging.getLogger(__name__)

INTERNAL = os.path.join("_logging", "_internal.py")

#: What a keyword sets: a registered ``component`` (takes a level), a registered
#: ``artifact`` (takes a bool), ``all`` (the ``torch`` log, a level), ``modules`` (a dict
#: of names to values) or ``unregistered`` (a keyword naming no registered log: torch 2.4's
#: ``dist_c10d``/``dist_ddp``/``dist_fsdp``).
KeywordKind = Literal["component", "artifact", "all", "modules", "unregistered"]


def _short(release: str) -> str:
    return ".".join(release.split(".")[:2])


@cache
def _packaged() -> dict[str, dict[str, str]]:
    path = (
        resources.files("torch_logs_lsp.knowledge") / "data" / "set-logs-keywords-by-version.json"
    )
    data = json.loads(path.read_text(encoding="utf-8"))
    return {_short(r): dict(kws) for r, kws in data.items()}


def keyword_releases() -> list[str]:
    """Releases with packaged keywords, oldest first (``"2.1"`` ... ``"2.15"``)."""
    return sorted(_packaged(), key=release_tuple)


def packaged_keywords(release: str) -> dict[str, str]:
    """Keyword -> annotation text (``"Optional[int]"``, ``"bool"``) of ``set_logs`` in the
    packaged release nearest ``release`` (see :func:`.versions.nearest_release`)."""
    return dict(_packaged()[nearest_release(_short(release))])


@cache
def keyword_history(name: str) -> tuple[str, str] | None:
    """``(first, last)`` packaged release with ``name`` as a ``set_logs`` keyword, or
    ``None`` (no packaged release has it). Keywords never come back once removed
    (``dist_ddp``: 2.3-2.4)."""
    seen = [r for r in keyword_releases() if name in _packaged()[r]]
    return (seen[0], seen[-1]) if seen else None


@dataclass
class KeywordRead:
    """What :func:`read_set_logs_source` found: keyword -> annotation text (``""`` when
    the parameter has none), and problems (human-readable; any problem means "do not
    trust ``keywords``")."""

    keywords: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_set_logs_source(source: str) -> KeywordRead:
    """The keyword-only parameters of the module-level ``def set_logs`` in the text of
    ``torch/_logging/_internal.py``; parsed with :mod:`ast`, never executed, never raises.

    Problems: the text does not parse (any exception, e.g. ``RecursionError``), no
    ``set_logs`` function, or one with positional or ``*args``/``**kwargs`` parameters (a
    shape torch never had; we would not know what it accepts)."""
    out = KeywordRead()
    try:
        tree = ast.parse(source)
        found = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "set_logs"]
        if not found:
            out.problems.append("no module-level `def set_logs`")
            return out
        args = found[-1].args  # the last definition wins, as at import
        if args.posonlyargs or args.args or args.vararg or args.kwarg:
            out.problems.append("set_logs has positional, *args or **kwargs parameters")
            return out
        for a in args.kwonlyargs:
            out.keywords[a.arg] = ast.unparse(a.annotation) if a.annotation else ""
    except Exception as exc:  # SyntaxError, ValueError (null bytes), RecursionError, ...
        out.keywords.clear()
        out.problems.append(f"cannot parse: {type(exc).__name__}")
    return out


def read_set_logs(torch_dir: str) -> KeywordRead:
    """:func:`read_set_logs_source` of ``torch_dir/_logging/_internal.py``. A file that is
    not a regular UTF-8 file of at most :data:`.files.MAX_INTERNAL_BYTES` (256 KiB; missing,
    a FIFO, a link to ``/dev/zero``) is a problem ("cannot read PATH: larger than 262144
    bytes (300000)"), never opened for reading or read past the cap."""
    path = os.path.join(torch_dir, INTERNAL)
    try:
        source = read_regular(path, MAX_INTERNAL_BYTES).decode("utf-8")
    except SkippedFile as exc:
        return KeywordRead(problems=[f"cannot read {path}: {exc.reason}"])
    except UnicodeDecodeError:
        return KeywordRead(problems=[f"cannot read {path}: not UTF-8"])
    return read_set_logs_source(source)


@dataclass(frozen=True)
class SetLogsSignature:
    """The keywords ``set_logs`` accepts in one torch: ``release`` (``"2.13"``),
    ``keywords`` (name -> annotation text, in definition order), ``source``
    (``"packaged"`` or the path of the ``_internal.py`` read) and ``notes`` (why the
    user's file was not used, when it was not)."""

    release: str
    keywords: dict[str, str]
    source: str = "packaged"
    notes: tuple[str, ...] = ()


_READ: dict[str, tuple[tuple[int, int], SetLogsSignature]] = {}


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


def set_logs_signature(registry: Registry) -> SetLogsSignature:
    """The ``set_logs`` keywords of the torch ``registry`` was read from.

    A registry read from an installation (``registry.source`` is the path of its
    ``torch/_logging/_registrations.py``) has the ``_internal.py`` next to it read
    statically (cached per path, re-read when its modification time or size changes);
    any problem or exception falls back to the packaged keywords of the nearest release,
    the reason logged (WARNING) and kept in ``notes``. A packaged registry gets the
    packaged keywords of its release. Never raises (but ``KeyboardInterrupt``)."""
    release = _short(registry.release)
    if registry.source == "packaged" or not registry.source.endswith(REGISTRATIONS):
        return SetLogsSignature(release, packaged_keywords(release))
    torch_dir = registry.source[: -len(REGISTRATIONS)].rstrip(os.sep)
    path = os.path.join(torch_dir, INTERNAL)
    stamp = _stamp(path)
    cached = _READ.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        read = read_set_logs(torch_dir)
    except Exception as exc:  # whatever the file does to the reader: fall back
        read = KeywordRead(problems=[f"reader failed: {type(exc).__name__}"])
    if read.problems or not read.keywords:
        nearest = nearest_release(release)
        why = "; ".join(read.problems[:3]) or "no keywords"
        note = f"{path}: set_logs not read ({why}); using the packaged keywords of torch {nearest}"
        log.warning(note)
        signature = SetLogsSignature(release, packaged_keywords(nearest), notes=(note,))
    else:
        signature = SetLogsSignature(release, read.keywords, path)
    _READ[path] = (stamp, signature)
    return signature


def keyword_kind(name: str, registry: Registry) -> KeywordKind:
    """What keyword ``name`` sets in ``registry``'s torch (see :data:`KeywordKind`)."""
    if name == "all":
        return "all"
    if name == "modules":
        return "modules"
    kind = registry.kind(name)
    if kind == "component" or kind == "artifact":
        return kind
    return "unregistered"


@dataclass(frozen=True)
class KeywordInfo:
    """One keyword for completion and hover: ``kind`` (:data:`KeywordKind`),
    ``annotation`` as torch writes it, ``description`` (the registry's description of the
    name, our own text for ``all``/``modules``), ``since`` (first packaged release with the
    keyword, ``""`` if none) and ``until`` (last one when it was removed, else ``""``)."""

    name: str
    kind: KeywordKind
    annotation: str
    description: str
    since: str
    until: str


_OWN = {
    "all": "Level of the `torch` log, the parent of every torch logger (`TORCH_LOGS=all`).",
    "modules": "A dict of module names (or registered names) to levels: "
    '`modules={"torch._dynamo.guards": logging.DEBUG}`.',
    "unregistered": "Names no registered log in this torch: any value but None raises ValueError.",
}


def keyword_infos(
    signature: SetLogsSignature, registry: Registry, locale: str = "en"
) -> list[KeywordInfo]:
    """Every keyword of ``signature`` in definition order, described for ``registry``
    (its :meth:`.Registry.description` in ``locale``; releases from the packaged data)."""
    newest = keyword_releases()[-1]
    out: list[KeywordInfo] = []
    for name, annotation in signature.keywords.items():
        kind = keyword_kind(name, registry)
        text = _OWN[kind] if kind in _OWN else registry.description(name, locale)
        span = keyword_history(name)
        since, until = span if span else ("", "")
        out.append(
            KeywordInfo(name, kind, annotation, text, since, "" if until == newest else until)
        )
    return out


__all__ = [
    "INTERNAL",
    "KeywordInfo",
    "KeywordKind",
    "KeywordRead",
    "SetLogsSignature",
    "keyword_history",
    "keyword_infos",
    "keyword_kind",
    "keyword_releases",
    "packaged_keywords",
    "read_set_logs",
    "read_set_logs_source",
    "set_logs_signature",
]
