"""The floor of the benchmark against other servers (``scripts/bench_peers.py``): a bare
pygls language server over stdio that does no work of its own.

It keeps the documents in sync (pygls' incremental text sync), publishes empty diagnostics
with the document's version on every didOpen and didChange, and answers completion with an
empty list and hover with ``null``. What it costs is what pygls, Python and the pipe cost;
a pygls server cannot be faster.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bench-floor", "0")


def _publish(ls: LanguageServer, uri: str, version: int) -> None:
    params = types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[])
    ls.text_document_publish_diagnostics(params)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_COMPLETION)
def completion(ls: LanguageServer, params: types.CompletionParams) -> list[types.CompletionItem]:
    return []


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
    return None


if __name__ == "__main__":
    server.start_io()
