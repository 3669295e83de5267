"""End-to-end LSP fixtures: a real server subprocess over stdio, driven by pytest-lsp."""

from __future__ import annotations

import sys
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.support.raw import Client

#: Every publishDiagnostics a test client received, in order, and how many of them the
#: waits have passed (see :func:`wait_diagnostics`).
_PUBLISHED: weakref.WeakKeyDictionary[LanguageClient, list[types.PublishDiagnosticsParams]]
_PUBLISHED = weakref.WeakKeyDictionary()
_SEEN: weakref.WeakKeyDictionary[LanguageClient, int] = weakref.WeakKeyDictionary()


def _recording_client() -> LanguageClient:
    """pytest-lsp's test client, whose publishDiagnostics handler also records every
    notification: pytest-lsp wakes only a waiter already waiting, so a second notification
    read in the same turn of the event loop was lost and the wait for it hung."""
    original = DEFAULT_CLIENT_FEATURES[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        _PUBLISHED.setdefault(client, []).append(params)
        original(client, params)

    client = LanguageClient(converter_factory=default_converter)
    features = {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish}
    register_lsp_features(client, features)
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "torch_logs_lsp.server"],
    client_factory=_recording_client,
)


async def _session(
    client: LanguageClient, capabilities: types.ClientCapabilities, **init: Any
) -> AsyncIterator[LanguageClient]:
    await client.initialize_session(types.InitializeParams(capabilities=capabilities, **init))
    yield client
    await client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A VS Code-like client: UTF-16 positions, Markdown."""
    async for c in _session(lsp_client, client_capabilities("visual-studio-code")):
        yield c


@pytest_lsp.fixture(config=SERVER)
async def utf8_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A Neovim 0.11-like client: offers utf-8 first; without its pull diagnostics
    (``textDocument.diagnostic``), so diagnostics are pushed as the tests wait for them (the
    pull model: tests/server/test_workspace_diagnostics.py)."""
    caps = client_capabilities("neovim@v0.11.0")
    if caps.text_document is not None:
        caps.text_document.diagnostic = None
    async for c in _session(lsp_client, caps):
        yield c


@pytest_lsp.fixture(config=SERVER)
async def plaintext_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """An eglot-like client that wants plain-text hover, with a Russian locale."""
    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText]),
        )
    )
    async for c in _session(lsp_client, caps, locale="ru-RU"):
        yield c


async def open_and_wait(
    client: LanguageClient, uri: str, text: str, language_id: str = "", version: int = 1
) -> list[types.Diagnostic]:
    """Open a document and return the diagnostics published for this version."""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language_id, version=version, text=text
            )
        )
    )
    return await wait_diagnostics(client, uri, version)


async def wait_diagnostics(
    client: LanguageClient, uri: str, version: int
) -> list[types.Diagnostic]:
    """Wait for the publishDiagnostics of ``uri`` at ``version`` (no sleeping): the first
    one received after the last one a wait returned, even if it came before this call."""
    published = _PUBLISHED.setdefault(client, [])
    while True:
        for i in range(_SEEN.get(client, 0), len(published)):
            params = published[i]
            if params.uri == uri and params.version == version:
                _SEEN[client] = i + 1
                return list(params.diagnostics)
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


@pytest.fixture
async def raw_client(tmp_path: Path) -> AsyncIterator[Client]:
    """A ``torch-logs-lsp`` process driven by the raw client, not yet initialized; its
    stderr is ``tmp_path / "stderr.txt"``."""
    client = await Client.spawn(tmp_path / "stderr.txt")
    try:
        yield client
    finally:
        await client.close()


def utf16_column(line: str, index: int) -> int:
    """The LSP character (UTF-16 code units) of code point ``index`` of ``line``."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in line[:index])


def diagnostic_ranges(diags: list[types.Diagnostic]) -> list[tuple[str, int, int, int, int]]:
    """``(code, start line, start character, end line, end character)`` of each
    diagnostic, sorted."""
    return sorted(
        (
            str(d.code),
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
        )
        for d in diags
    )
