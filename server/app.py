"""The glue: one server class, and one place that registers every LSP feature.

Handlers are module-level functions taking the server (``ls``) and the params; each
converts positions with the document's :class:`~.positions.PositionMapper` and calls a
feature module. Any exception inside a handler is logged and answered with an empty
result: bad input never takes the server down.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from torch_logs_lsp.core.registry import DEFAULT_RELEASE, Registry, load_registry, releases

from .documents import DocumentState, build_state
from .features import completion as completion_feature
from .features import diagnostics as diagnostics_feature
from .features import hover as hover_feature
from .settings import Settings, parse_settings

log = logging.getLogger(__name__)

try:
    VERSION = metadata.version("torch-logs-lsp")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    VERSION = "0"


class TorchLogsServer(LanguageServer):
    """pygls server holding the settings, the client's preferences and document states."""

    def __init__(self) -> None:
        super().__init__("torch-logs-lsp", VERSION)
        self.settings = Settings()
        self.client_locale = ""
        self.states: dict[str, DocumentState] = {}
        self.language_ids: dict[str, str] = {}

    # -- preferences ---------------------------------------------------------------
    @property
    def registry(self) -> Registry:
        """Registry of the release chosen by ``torchLogs.torchVersion`` (else the newest)."""
        wanted = self.settings.torch_version
        if wanted != "auto" and wanted in releases():
            return load_registry(wanted)
        return load_registry(DEFAULT_RELEASE)

    @property
    def locale(self) -> str:
        """``"ru"`` or ``"en"``: the setting, else the client's ``locale``."""
        if self.settings.locale in ("en", "ru"):
            return self.settings.locale
        return "ru" if self.client_locale.lower().startswith("ru") else "en"

    @property
    def encoding(self) -> str:
        """The position encoding negotiated at initialize (``utf-16`` by default)."""
        enc = self.workspace.position_encoding
        return str(enc) if enc else types.PositionEncodingKind.Utf16

    def markdown(self, formats: Sequence[types.MarkupKind] | None) -> bool:
        """Whether the client accepts Markdown for a feature (its ``contentFormat``)."""
        return formats is None or types.MarkupKind.Markdown in formats

    # -- documents -----------------------------------------------------------------
    def state(self, uri: str) -> DocumentState | None:
        """The analysed current version of an open document (cached per version)."""
        try:
            doc = self.workspace.get_text_document(uri)
            text = doc.source
        except Exception:
            log.exception("cannot read %s", uri)
            return None
        cached = self.states.get(uri)
        if cached is not None and cached.version == doc.version and cached.text == text:
            return cached
        state = build_state(
            uri, doc.version, text, self.language_ids.get(uri), self.registry, self.encoding
        )
        self.states[uri] = state
        return state

    def publish(self, uri: str) -> None:
        """Publish the diagnostics of the current version of ``uri``."""
        state = self.state(uri)
        if state is None:
            return
        try:
            diags = diagnostics_feature.document_diagnostics(state, self.settings)
        except Exception:
            log.exception("diagnostics failed for %s", uri)
            diags = []
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=state.version)
        )

    def apply_settings(self, raw: Any) -> None:
        settings, problems = parse_settings(raw)
        if settings.torch_version not in ("auto", *releases()):
            problems.append(
                f"torchLogs.torchVersion: {settings.torch_version!r} is not a packaged "
                f"release ({', '.join(releases())}); using {DEFAULT_RELEASE}"
            )
        for problem in problems:
            log.warning(problem)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=problem)
            )
        self.settings = settings
        self.states.clear()


# -- handlers ----------------------------------------------------------------------
def initialize(ls: TorchLogsServer, params: types.InitializeParams) -> None:
    ls.client_locale = params.locale or ""
    if params.initialization_options is not None:
        ls.apply_settings(params.initialization_options)


def did_open(ls: TorchLogsServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.language_ids[params.text_document.uri] = params.text_document.language_id
    ls.publish(params.text_document.uri)


def did_change(ls: TorchLogsServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


def did_close(ls: TorchLogsServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.states.pop(uri, None)
    ls.language_ids.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def did_change_configuration(
    ls: TorchLogsServer, params: types.DidChangeConfigurationParams
) -> None:
    ls.apply_settings(params.settings)
    for uri in list(ls.workspace.text_documents):
        ls.publish(uri)


def completion(ls: TorchLogsServer, params: types.CompletionParams) -> types.CompletionList | None:
    state = ls.state(params.text_document.uri)
    if state is None:
        return None
    try:
        caps = ls.client_capabilities.text_document
        item_caps = caps.completion.completion_item if caps and caps.completion else None
        markdown = ls.markdown(item_caps.documentation_format if item_caps else None)
        offset = state.mapper.offset(params.position)
        return completion_feature.completions(state, offset, ls.registry, ls.locale, markdown)
    except Exception:
        log.exception("completion failed at %s", params.position)
        return None


def hover(ls: TorchLogsServer, params: types.HoverParams) -> types.Hover | None:
    state = ls.state(params.text_document.uri)
    if state is None:
        return None
    try:
        caps = ls.client_capabilities.text_document
        formats = caps.hover.content_format if caps and caps.hover else None
        offset = state.mapper.offset(params.position)
        return hover_feature.hover(state, offset, ls.registry, ls.locale, ls.markdown(formats))
    except Exception:
        log.exception("hover failed at %s", params.position)
        return None


def create_server() -> TorchLogsServer:
    """A server with every feature registered (the one place features are wired)."""
    server = TorchLogsServer()
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=completion_feature.TRIGGER_CHARACTERS),
    )(completion)
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    return server
