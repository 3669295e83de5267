"""textDocument/definition: from a name to torch's own source.

- A component or artifact (in a TORCH_LOGS value of any host, a keyword of a torch
  ``set_logs(...)`` call, a key of its ``modules={...}``): the ``register_log(...)`` /
  ``register_artifact(...)`` call naming it in the user's installed torch
  (``torch/_logging/_registrations.py``, read with ``ast``), when that torch is the
  release the names are checked against; otherwise the same call in a read-only
  document of the packaged registry of that release, ``torch-logs:/registry/<release>/
  _registrations.py``, whose text the ``torchLogs/registry`` request gives.
- A module name (``+torch._dynamo.guards``, ``json.decoder``): the file ``find_spec``
  would give it in the user's environment (a package's ``__init__.py``); none for
  built-in, extension and namespace modules.

Offsets are code points; ranges go through :class:`~.positions.PositionMapper` (UTF-16
unless utf-8 was negotiated).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urlparse

from lsprotocol import types

from torch_logs_lsp.hosts import set_logs_host
from torch_logs_lsp.knowledge.registry import Registry, releases
from torch_logs_lsp.server import requests
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.positions import PositionMapper
from torch_logs_lsp.set_logs.call import DictValue
from torch_logs_lsp.torch_env.context import TorchContext
from torch_logs_lsp.torch_env.locations import (
    Registration,
    Site,
    installed_registrations,
    packaged_registrations,
    packaged_text,
    source_torch_dir,
)

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

#: The scheme of the packaged registry's read-only documents.
SCHEME = "torch-logs"
#: The custom request giving such a document's text: params ``{"uri": ...}``, answer
#: ``{"text": ...}`` or ``null`` (the shape of LSP 3.18's ``workspace/textDocumentContent``).
REGISTRY_REQUEST = "torchLogs/registry"

TargetKind = Literal["component", "artifact", "special", "module"]


@dataclass(frozen=True)
class Target:
    """The name under the cursor: ``name``, its ``kind`` and ``[start, end)`` in the
    document (code points)."""

    name: str
    kind: TargetKind
    start: int
    end: int


def _kind(name: str, registry: Registry, context: TorchContext | None) -> TargetKind | None:
    kind = registry.kind(name)
    if kind is not None:
        return kind
    if context is not None and context.finder.find_spec(name).spec is not None:
        return "module"
    return None


def target_at(state: DocumentState, offset: int, registry: Registry) -> Target | None:
    """The name at document ``offset``: an item of a TORCH_LOGS value (as hover finds it)
    or a keyword / ``modules`` key of a torch ``set_logs(...)`` call; ``None`` elsewhere and
    for a name that is neither registered nor a module that can be found."""
    span = state.span_at(offset)
    if span is not None:
        if span.variable != "TORCH_LOGS":
            return None
        index = span.value_index(offset)
        analysis = state.analysis_of(span) if index is not None else None
        if index is None or analysis is None:
            return None
        for item in analysis.parsed.items:
            if item.name and item.start <= index <= item.end:
                kind = _kind(item.name, registry, state.context)
                if kind is None:
                    return None
                start, end = span.document_range(item.name_start, item.end)
                return Target(item.name, kind, start, end)
        return None
    module = set_logs_host(state.host) if state.host is not None else None
    if module is None or "set_logs" not in state.text:
        return None
    for call in module.set_logs_calls(state.text):
        if not call.start <= offset <= call.end:
            continue
        for kw in call.keywords:
            if kw.name_start <= offset <= kw.name_end:
                kind = registry.kind(kw.name)
                return Target(kw.name, kind, kw.name_start, kw.name_end) if kind else None
            if kw.name == "modules" and isinstance(kw.value, DictValue):
                for entry in kw.value.entries:
                    if entry.key and entry.key_start <= offset <= entry.key_end:
                        kind = _kind(entry.key, registry, state.context)
                        if kind is None:
                            return None
                        return Target(entry.key, kind, entry.key_start, entry.key_end)
    return None


def registry_uri(release: str) -> str:
    """The URI of the packaged registry document of ``release``."""
    return f"{SCHEME}:/registry/{release}/_registrations.py"


def _release_of(uri: str) -> str | None:
    """The release a :func:`registry_uri` names, if it is packaged."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        return None
    parts = unquote(parsed.path).strip("/").split("/")
    if parsed.scheme != SCHEME or len(parts) != 3 or parts[0] != "registry":
        return None
    if parts[2] != "_registrations.py" or parts[1] not in releases():
        return None
    return parts[1]


def site_range(site: Site, encoding: str) -> types.Range:
    """The LSP range of a :class:`Site` of another file, in ``encoding``."""

    def character(text: str, column: int) -> int:
        return PositionMapper(text, encoding).line_character(column)[1] if text else column

    return types.Range(
        start=types.Position(line=site.line, character=character(site.line_text, site.column)),
        end=types.Position(line=site.end_line, character=character(site.end_text, site.end_column)),
    )


def site_location(site: Site, encoding: str, uri: str | None = None) -> types.Location:
    """``site`` as a Location (``uri``: of its file, else that of ``site.path``)."""
    target = uri or Path(site.path).as_uri()
    return types.Location(uri=target, range=site_range(site, encoding))


def registration_site(
    context: TorchContext | None, registry: Registry, name: str
) -> tuple[Registration, str | None] | None:
    """``name``'s registration and the URI of its document (``None``: the file of its
    site): in the installed torch matching ``registry`` (:func:`.source_torch_dir`), else in
    the packaged registry document of ``registry``'s release; ``None`` when neither has it."""
    torch_dir = source_torch_dir(context) if context is not None else None
    if torch_dir is not None:
        found = installed_registrations(torch_dir).get(name)
        if found is not None:
            return found, None
    try:
        packaged = packaged_registrations(registry.release).get(name)
    except KeyError:
        return None
    return (packaged, registry_uri(registry.release)) if packaged is not None else None


def registration_location(
    context: TorchContext | None, registry: Registry, name: str, encoding: str
) -> types.Location | None:
    """The Location of ``name``'s registered name literal (:func:`registration_site`)."""
    found = registration_site(context, registry, name)
    if found is None:
        return None
    reg, uri = found
    return site_location(reg.name, encoding, uri)


def module_location(context: TorchContext | None, name: str) -> types.Location | None:
    """The file of module ``name`` as ``find_spec`` would find it (a ``.py`` file or a
    package's ``__init__.py``), at its start; ``None`` for others."""
    if context is None:
        return None
    spec = context.finder.find_spec(name).spec
    if spec is None or spec.kind not in ("module", "package") or not spec.origin:
        return None
    if not spec.origin.endswith(".py"):
        return None  # a .pyc without its source: nothing to read
    start = types.Position(line=0, character=0)
    return types.Location(uri=Path(spec.origin).as_uri(), range=types.Range(start=start, end=start))


def _definition(
    ls: TorchLogsServer, state: DocumentState, params: types.DefinitionParams
) -> list[types.Location] | None:
    registry = ls.registry_of(state)
    target = target_at(state, state.mapper.offset(params.position), registry)
    if target is None:
        return None
    if target.kind == "module":
        found = module_location(state.context, target.name)
    elif target.kind == "special":
        found = None  # `all`: the `torch` log, registered by nobody
    else:
        found = registration_location(state.context, registry, target.name, ls.encoding)
    return [found] if found is not None else None


async def definition(
    ls: TorchLogsServer, params: types.DefinitionParams
) -> list[types.Location] | None:
    """The ``textDocument/definition`` handler."""
    return requests.answer(ls, params.text_document.uri, params, _definition, quick=True)


def registry_document(ls: TorchLogsServer, params: Any) -> dict[str, str] | None:
    """The ``torchLogs/registry`` handler (params ``{"uri": ...}``, read leniently):
    ``{"text": ...}`` of a :func:`registry_uri` document, ``None`` for any other URI."""
    uri = getattr(params, "uri", None)
    if not isinstance(uri, str):
        return None
    release = _release_of(uri)
    return {"text": packaged_text(release)} if release is not None else None


__all__ = [
    "REGISTRY_REQUEST",
    "SCHEME",
    "Target",
    "definition",
    "module_location",
    "registration_location",
    "registration_site",
    "registry_document",
    "registry_uri",
    "site_location",
    "site_range",
    "target_at",
]
