"""Pull diagnostics (LSP 3.17): ``textDocument/diagnostic`` and ``workspace/diagnostic``.

A client that offers ``textDocument.diagnostic`` asks for a document's diagnostics
itself (VS Code on open and change, Neovim 0.11): the server answers once the document's
current version is checked (without holding the message loop: ``TorchLogsServer.checked``)
and publishes nothing for open documents but a notebook's cells (VS Code's client does
not pull those: they are pushed, and pulled empty). Each report carries a ``resultId`` (a digest
of the diagnostics: :func:`..workspace_scan.result_of`); a request whose
``previousResultId`` is still right is answered ``unchanged``. When a document's
diagnostics change for a reason other than its own edit (a launch configuration, a
setting, a save), the client is asked to pull again (``workspace/diagnostic/refresh``,
when it offers ``workspace.diagnostics.refreshSupport``).

``workspace/diagnostic`` reports the files of the workspace scan
(:mod:`..workspace_scan`) that are not open: a ``full`` report for each file whose
``resultId`` is not the one the client sent (``previousResultIds``), ``unchanged`` for
the others. With a ``partialResultToken`` the reports are streamed as ``$/progress``
notifications while the first scan runs (the final answer is then empty, as the
specification asks). A request with nothing new waits until something changes (a long
poll: a file saved, changed on disk, closed, a setting) or the client cancels it;
meanwhile it holds nothing (it does not count as a request being answered). From the
first ``workspace/diagnostic`` on, the scan's results are no longer pushed.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import attrs
import cattrs
from lsprotocol import converters, types

from torch_logs_lsp.server.documents import uri_path
from torch_logs_lsp.server.pygls_fixes.wire import Encoded
from torch_logs_lsp.server.workspace_scan import CLOSED, EMPTY, Result, result_of

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer


def _items_json(pieces: tuple[str, ...] | list[str]) -> str:
    return f"[{', '.join(pieces)}]"


@attrs.define
class DocumentReport(Encoded):
    """A ``DocumentDiagnosticReport``: ``full`` with ``pieces`` (JSON of LSP
    ``Diagnostic`` objects) or ``unchanged``."""

    result: Result
    unchanged: bool = False

    def to_json(self, converter: cattrs.Converter) -> str:
        """The report's JSON text."""
        rid = json.dumps(self.result.result_id)
        if self.unchanged:
            return f'{{"kind": "unchanged", "resultId": {rid}}}'
        return f'{{"kind": "full", "resultId": {rid}, "items": {_items_json(self.result.pieces)}}}'

    def to_lsp(self) -> types.DocumentDiagnosticReport:
        """The same report as lsprotocol objects."""
        if self.unchanged:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=self.result.result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=_structured(self.result.pieces), result_id=self.result.result_id
        )


def _structured(pieces: tuple[str, ...] | list[str]) -> list[types.Diagnostic]:
    converter = converters.get_converter()
    return [converter.structure(json.loads(p), types.Diagnostic) for p in pieces]


def item_json(uri: str, result: Result, unchanged: bool = False) -> str:
    """A ``WorkspaceDocumentDiagnosticReport`` as JSON text (``version`` null: from disk)."""
    head = f'"uri": {json.dumps(uri)}, "version": null, "resultId": {json.dumps(result.result_id)}'
    if unchanged:
        return f'{{"kind": "unchanged", {head}}}'
    return f'{{"kind": "full", {head}, "items": {_items_json(result.pieces)}}}'


@attrs.define
class WorkspaceReport(Encoded):
    """A ``WorkspaceDiagnosticReport`` whose items are JSON text (:func:`item_json`)."""

    items: list[str] = attrs.field(factory=list)

    def to_json(self, converter: cattrs.Converter) -> str:
        """The report's JSON text."""
        return f'{{"items": {_items_json(self.items)}}}'

    def to_lsp(self) -> types.WorkspaceDiagnosticReport:
        """The same report as lsprotocol objects."""
        converter = converters.get_converter()
        out: list[Any] = []
        for text in self.items:
            raw = json.loads(text)
            cls = (
                types.WorkspaceFullDocumentDiagnosticReport
                if raw["kind"] == "full"
                else types.WorkspaceUnchangedDocumentDiagnosticReport
            )
            out.append(converter.structure(raw, cls))
        return types.WorkspaceDiagnosticReport(items=out)


async def document_diagnostic(
    ls: TorchLogsServer, params: types.DocumentDiagnosticParams
) -> DocumentReport:
    """``textDocument/diagnostic``: the diagnostics of the document's current version
    (an open document's text, else the file on disk: as :meth:`TorchLogsServer.state`)."""
    uri = params.text_document.uri
    if ls.is_cell(uri):  # a notebook's cells are pushed (see TorchLogsServer.is_cell)
        return DocumentReport(result_of([]))
    ls.pulling[uri] = ls.pulling.get(uri, 0) + 1
    try:
        await ls.checked(uri)  # the current version's check, without holding the loop
    finally:
        ls.pulling[uri] -= 1
        if not ls.pulling[uri]:
            del ls.pulling[uri]
    result = result_of(ls.document_pieces(uri))
    ls.pulled[uri] = result.result_id
    return DocumentReport(result, unchanged=params.previous_result_id == result.result_id)


def _report_items(ls: TorchLogsServer, previous: dict[str, str], sent: dict[str, str]) -> list[str]:
    """Full reports of the scanned files (not open) whose result the client does not have
    (neither sent before the request nor in this request), and empty ones for files the
    client knows of that have none now."""
    scan = ls.scan
    opened = scan.open_paths()
    out: list[str] = []
    for uri, result in list(scan.results.items()):
        if result.result_id == CLOSED or os.path.normpath(uri_path(uri)) in opened:
            continue  # (a closed document's file is being checked again)
        have = sent.get(uri, previous.get(uri))
        if have == result.result_id or (have is None and not result.pieces):
            continue
        sent[uri] = result.result_id
        out.append(item_json(uri, result))
    for uri, value in previous.items():
        if uri in scan.results or uri in sent or value == EMPTY:
            continue
        if os.path.normpath(uri_path(uri)) in opened or not uri.startswith("file:"):
            continue
        sent[uri] = EMPTY  # no file the scan knows: its findings (if any) are gone
        out.append(item_json(uri, result_of([])))
    return out


def _send_partial(ls: TorchLogsServer, token: int | str, items: list[str]) -> None:
    value = f'{{"items": {_items_json(items)}}}'
    body = (
        f'{{"jsonrpc": "2.0", "method": "$/progress", '
        f'"params": {{"token": {json.dumps(token)}, "value": {value}}}}}'
    )
    protocol = ls.protocol
    send = getattr(protocol, "send_body", None)
    if send is not None:
        send(body)


async def workspace_diagnostic(
    ls: TorchLogsServer, params: types.WorkspaceDiagnosticParams
) -> WorkspaceReport:
    """``workspace/diagnostic``: see the module docstring."""
    scan = ls.scan
    if not scan.pulled:
        scan.pulled = True
        for uri in sorted(scan.pushed):  # pulled from now on: what was pushed is cleared
            scan.push(uri, [])
    previous = {p.uri: p.value for p in params.previous_result_ids}
    token = params.partial_result_token
    sent: dict[str, str] = {}
    collected: list[str] = []
    changed = scan.changed()
    with ls.awaiting():
        while True:
            changed.clear()
            items = _report_items(ls, previous, sent)
            if items:
                if token is not None:
                    _send_partial(ls, token, items)
                else:
                    collected += items
            if sent and not scan.running:
                break
            await changed.wait()
    unchanged = [
        item_json(uri, scan.results[uri], unchanged=True)
        for uri, value in previous.items()
        if uri not in sent and uri in scan.results and scan.results[uri].result_id == value
    ]
    if token is not None:
        if unchanged:
            _send_partial(ls, token, unchanged)
        return WorkspaceReport([])
    return WorkspaceReport(collected + unchanged)


__all__ = [
    "DocumentReport",
    "WorkspaceReport",
    "document_diagnostic",
    "item_json",
    "workspace_diagnostic",
]
