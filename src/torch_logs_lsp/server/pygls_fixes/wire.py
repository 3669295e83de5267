"""Results that write their own JSON: large answers assembled from pre-encoded pieces.

pygls turns a handler's result into JSON with cattrs (``unstructure``) and then
``json.dumps``; for a completion list of ~70 items with documentation that costs more
than computing the list. A handler may return an :class:`Encoded` result instead: the
protocol (:class:`JsonProtocol`) asks it for its JSON text and splices that into the
response. The text must be exactly what pygls writes for the equivalent lsprotocol object
(:meth:`Encoded.to_lsp`, which is also sent if encoding fails); a test holds them equal.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from abc import ABC, abstractmethod
from typing import Any

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class Encoded(ABC):
    """A request result, or a notification's params, that can encode itself as JSON."""

    @abstractmethod
    def to_lsp(self) -> Any:
        """The equivalent lsprotocol result."""

    @abstractmethod
    def to_json(self, converter: cattrs.Converter) -> str:
        """The JSON text pygls would write for :meth:`to_lsp` (ASCII, ``json.dumps``
        separators). ``converter`` is the protocol's lsprotocol converter, for pieces that
        are encoded once and cached."""


def range_json(rng: types.Range) -> str:
    """An LSP range as the JSON text the lsprotocol converter and ``json.dumps`` write."""
    s, e = rng.start, rng.end
    return (
        f'{{"start": {{"line": {s.line}, "character": {s.character}}}, '
        f'"end": {{"line": {e.line}, "character": {e.character}}}}}'
    )


class JsonProtocol(LanguageServerProtocol):
    """pygls' protocol, except that a response whose result (or a notification whose
    params) is :class:`Encoded` is written from its own JSON (header and write as pygls'
    ``JsonRPCProtocol._send_data``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Writes of an asynchronous writer (websockets) still in flight.
        self._writes: set[asyncio.Future[Any]] = set()

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        params = getattr(data, "params", None)
        field = "result" if isinstance(result, Encoded) else "params"
        encoded = result if isinstance(result, Encoded) else params
        if not isinstance(encoded, Encoded) or self.writer is None:
            super()._send_data(data)
            return
        try:
            text = encoded.to_json(self._converter)
        except Exception:
            log.exception("encoding a %s failed; sending it the slow way", type(encoded).__name__)
            super()._send_data(attrs.evolve(data, **{field: encoded.to_lsp()}))
            return
        if field == "result":
            body = (
                f'{{"id": {json.dumps(data.id)}, "jsonrpc": {json.dumps(data.jsonrpc)}, '
                f'"result": {text}}}'
            )
        else:  # a notification (publishDiagnostics), in pygls' field order
            body = (
                f'{{"params": {text}, "method": {json.dumps(data.method)}, '
                f'"jsonrpc": {json.dumps(data.jsonrpc)}}}'
            )
        self.send_body(body)

    def send_body(self, body: str) -> None:
        """Write one message's JSON text (``body``), with the headers when the writer
        wants them (nothing without a writer)."""
        if self.writer is None:
            return
        log.debug("Sending data: %s", body)
        payload = body.encode(self.CHARSET)
        if self._include_headers:
            header = (
                f"Content-Length: {len(payload)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            payload = header.encode(self.CHARSET) + payload
        try:
            res = self.writer.write(payload)
            if inspect.isawaitable(res):
                write = asyncio.ensure_future(res)
                self._writes.add(write)
                write.add_done_callback(self._writes.discard)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)
