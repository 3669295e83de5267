"""``torchLogs/composeOptions`` and ``torchLogs/compose``: the server's side of the editor's
"Compose TORCH_LOGS" command.

``torchLogs/composeOptions`` (params ``{"textDocument": {"uri"}}``) lists, for the torch
release the document is checked against, every name completion offers (kind,
description, the prefixes it takes, whether it is off by default) and the goal recipes
(:mod:`torch_logs_lsp.value.recipes`). ``torchLogs/compose`` (params ``{"textDocument":
{"uri"}, "position", "items": ["+dynamo", ...], "recipes": ["recompiles", ...]}``) answers
the assignments to write for that release and one edit writing them at the position's
line in the document's syntax, quoted and escaped by its host
(:func:`torch_logs_lsp.hosts.assign.assignments_edit`, verified by re-reading). Both
answer from the quick state: they never wait for a check. Params are read leniently; a
document that cannot be read gets ``None``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from torch_logs_lsp.hosts.assign import assignments_edit
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.python.order import LATE as LATE_WRITE
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.value.recipes import assignments, offered, recipe

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

OPTIONS_REQUEST = "torchLogs/composeOptions"
COMPOSE_REQUEST = "torchLogs/compose"

#: Most items and recipes one compose request may name (the rest are ignored).
MAX_CHOICES = 1000


def _get(obj: Any, *names: str) -> Any:
    """A field of a params object (pygls' object for unknown requests) or dict."""
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _uri(params: Any) -> str | None:
    uri = _get(_get(params, "textDocument", "text_document"), "uri")
    return uri if isinstance(uri, str) else None


def _strings(value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)):
        return []
    return [v for v in value[:MAX_CHOICES] if isinstance(v, str)]


def options_of(registry: Registry, locale: str) -> dict[str, Any]:
    """``{"release", "names": [{"name", "kind", "description", "prefixes",
    "offByDefault"}], "recipes": [{"id", "title", "detail", "after"}]}`` for ``registry``
    (``prefixes``: ``["+", "", "-"]`` for names that take a level, ``[""]`` for an
    artifact, whose prefix torch ignores)."""
    names = []
    for name in registry.offered_names():
        kind = registry.kind(name)
        artifact = registry.artifacts.get(name)
        names.append(
            {
                "name": name,
                "kind": kind,
                "description": registry.description(name, locale),
                "prefixes": [""] if kind == "artifact" else ["+", "", "-"],
                "offByDefault": bool(artifact and artifact.off_by_default),
            }
        )
    recipes = [
        {"id": r.id, "title": r.title, "detail": r.detail, "after": r.after}
        for r in offered(registry)
    ]
    return {"release": registry.release, "names": names, "recipes": recipes}


def _late(text: str, host: HostKind, registry: Registry, edit: TextEdit) -> bool:
    """Whether the Python document ``text`` with ``edit`` applied gets TL501 (a write
    after ``import torch``: no effect) on what the edit wrote."""
    new = apply_text_edits(text, [edit])
    end = edit.start + len(edit.new_text)
    return any(
        f.diagnostic.code == LATE_WRITE and edit.start <= f.start < end
        for f in findings(new, host, registry)
    )


def compose_edit(
    state: DocumentState, registry: Registry, offset: int, items: list[str], recipe_ids: list[str]
) -> dict[str, Any]:
    """The answer of ``torchLogs/compose`` for a document state at document ``offset``:
    ``{"assignments": [[variable, value]], "edit": WorkspaceEdit | None, "after":
    [what to do next], "message": why there is no edit | None}``."""
    chosen = [r for r in (recipe(i) for i in recipe_ids) if r is not None]
    pairs = assignments(chosen, items, registry)
    after = [r.after for r in chosen if r.after]
    answer: dict[str, Any] = {"assignments": [list(p) for p in pairs], "edit": None}
    answer["after"] = after
    answer["message"] = None
    if not pairs:
        answer["message"] = f"nothing to write for torch {registry.release}"
        return answer
    host = state.host
    edit = assignments_edit(host, state.text, offset, pairs) if host is not None else None
    if edit is None:
        answer["message"] = "cannot write these assignments here; copy them instead"
        return answer
    if host in ("python", "ipython") and _late(state.text, host, registry, edit):
        answer["message"] = (
            "written here they would be set after `import torch`, which has read them "
            "already (TL501): put the cursor above the first `import torch`"
        )
        return answer
    rng = state.mapper.range(edit.start, edit.end)
    text_edit = {
        "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        },
        "newText": edit.new_text,
    }
    answer["edit"] = {"changes": {state.uri: [text_edit]}}
    return answer


def compose_options(ls: TorchLogsServer, params: Any) -> dict[str, Any] | None:
    """The ``torchLogs/composeOptions`` handler."""
    uri = _uri(params)
    state = ls.quick_state(uri) if uri is not None else None
    if state is None:
        return None
    try:
        return options_of(ls.registry_of(state), ls.locale)
    except Exception:
        log.exception("composeOptions failed for %s", uri)
        return None


def compose(ls: TorchLogsServer, params: Any) -> dict[str, Any] | None:
    """The ``torchLogs/compose`` handler."""
    uri = _uri(params)
    state = ls.quick_state(uri) if uri is not None else None
    if state is None:
        return None
    try:
        position = _get(params, "position")
        line, character = _get(position, "line"), _get(position, "character")
        if not isinstance(line, int) or not isinstance(character, int):
            line, character = 0, 0
        offset = state.mapper.offset(types.Position(line=max(line, 0), character=max(character, 0)))
        items = _strings(_get(params, "items"))
        recipes = _strings(_get(params, "recipes"))
        return compose_edit(state, ls.registry_of(state), offset, items, recipes)
    except Exception:
        log.exception("compose failed for %s", uri)
        return None
