"""Request adapters: each converts an LSP position with the document's
:class:`~.positions.PositionMapper`, reads the client's capabilities and calls a feature
module (the handlers in :mod:`.app` wrap them with :func:`answer`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types

from torch_logs_lsp.lint.checker import analyse_span
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server import notebooks
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features import code_actions as code_actions_feature
from torch_logs_lsp.server.features import completion as completion_feature
from torch_logs_lsp.server.features import hover as hover_feature
from torch_logs_lsp.server.features import inlay_hints as inlay_hints_feature
from torch_logs_lsp.server.project_config import project_selection
from torch_logs_lsp.server.pygls_fixes.wire import Encoded
from torch_logs_lsp.value.analysis import Analysis

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

P = TypeVar("P")
R = TypeVar("R")


def answer(
    ls: TorchLogsServer,
    uri: str,
    params: P,
    compute: Callable[[TorchLogsServer, DocumentState, P], R],
    quick: bool = False,
) -> R | None:
    """Answer a request about an open document: ``None`` when it cannot be read; an
    exception inside a feature is logged and answered with ``None`` (never a crash).
    ``quick``: answer from the newest version's spans when its check has not run yet
    (:meth:`~.app.TorchLogsServer.quick_state`: completion and hover never wait for it)."""
    state = ls.quick_state(uri) if quick else ls.state(uri)
    if state is None:
        return None
    try:
        return compute(ls, state, params)
    except Exception:
        log.exception("%s failed for %s", compute.__name__.strip("_"), uri)
        return None


def completion(
    ls: TorchLogsServer, state: DocumentState, params: types.CompletionParams
) -> types.CompletionList | Encoded | None:
    caps = ls.client_capabilities.text_document
    item_caps = caps.completion.completion_item if caps and caps.completion else None
    markdown = ls.markdown(item_caps.documentation_format if item_caps else None)
    offset = state.mapper.offset(params.position)
    registry = ls.registry_of(state)
    return completion_feature.answer(state, offset, registry, ls.locale, markdown)


def hover(
    ls: TorchLogsServer, state: DocumentState, params: types.HoverParams
) -> types.Hover | None:
    caps = ls.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    offset = state.mapper.offset(params.position)
    registry = ls.registry_of(state)
    return hover_feature.hover(state, offset, registry, ls.locale, ls.markdown(formats))


def code_action(
    ls: TorchLogsServer, state: DocumentState, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    caps = ls.client_capabilities.workspace
    edit_caps = caps.workspace_edit if caps else None
    versioned = bool(edit_caps and edit_caps.document_changes)
    registry = ls.registry_of(state)
    project = project_selection(params.text_document.uri)
    extra = notebooks.cross_cell(ls, params.text_document.uri)  # a notebook cell's notes
    return code_actions_feature.code_actions(
        state, params, registry, ls.settings, versioned, project, extra
    )


def inlay_hint(
    ls: TorchLogsServer, state: DocumentState, params: types.InlayHintParams
) -> list[types.InlayHint] | None:
    """Hints in the request's range; none when ``torchLogs.inlayHints.enabled`` is off."""
    if not ls.settings.inlay_hints.enabled:
        return []
    start = state.mapper.offset(params.range.start)
    end = state.mapper.offset(params.range.end)
    registry = ls.registry_of(state)
    finder = state.context.finder if state.context else None

    def analyse(span: ValueSpan) -> Analysis | None:
        return analyse_span(span, registry, finder, ls.analyses)

    return inlay_hints_feature.inlay_hints(state, registry, start, end, analyse, ls.locale)
