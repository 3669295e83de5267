"""The server's JSON-RPC protocol: pygls' protocol (with :class:`~.wire.JsonProtocol`'s
self-encoding results) plus what pygls 2 leaves out.

- Every handler's future is forgotten once it is done. pygls keeps the future of each
  notification handled by a generator (its built-in ``didOpen``/``didChange``/...
  handlers) in ``_request_futures`` under a fresh uuid and never removes it: ~2 KB per
  ``didChange``, for the life of the process.
- The workspace is a :class:`~.workspace.SpecWorkspace` (lines split per the
  specification, unopened documents read safely).
- The lifecycle of the specification: a request before ``initialize`` is answered with
  error -32002 (ServerNotInitialized), one after ``shutdown`` with -32600
  (InvalidRequest), as does a second ``initialize`` (pygls made a new workspace, losing
  the open documents); other notifications then are logged and dropped (pygls answered
  nothing after ``shutdown``: the client waited forever). ``exit`` records the exit code
  (:attr:`ServerProtocol.exit_code`: 0 after ``shutdown``, else 1; pygls' ``sys.exit``
  was swallowed and the process always ended with 0).
- A request whose params do not fit its method gets error -32602 (InvalidParams); pygls
  raised from the JSON reader, so nothing answered it and the user was shown an error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import lsp_method

from torch_logs_lsp.server.pygls_fixes.wire import JsonProtocol
from torch_logs_lsp.server.pygls_fixes.workspace import SpecWorkspace

log = logging.getLogger(__name__)


@attrs.define
class Unreadable:
    """A message whose params could not be read as its method's (see
    :meth:`ServerProtocol.structure_message`). ``id`` is ``None`` for a notification."""

    method: str
    id: int | str | None
    request: bool
    reason: str
    jsonrpc: str = "2.0"
    params: Any = None


def _error(code: int, message: str) -> types.ResponseError:
    return types.ResponseError(code=code, message=message)


class ServerProtocol(JsonProtocol):
    """pygls' language server protocol with the fixes listed in the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The process's exit code: set by ``exit`` (0 after ``shutdown``, else 1); 0 when
        #: the client closes the stream without ``exit``.
        self.exit_code = 0
        self._initialize_seen = False
        #: Handlers running, or done but their response not written yet.
        self.handling = 0
        #: Called (on the thread that ran the handler) whenever a handler is done and its
        #: answer written (:attr:`handling` has dropped).
        self.settled: Callable[[], None] | None = None

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls' reader of a message; a message with a method whose params do not fit
        becomes an :class:`Unreadable` (answered with -32602 when it is a request)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method") if isinstance(data, dict) else None
            if not isinstance(method, str):
                raise
            msg_id = data.get("id")
            valid_id = isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)
            return Unreadable(
                method=method,
                id=msg_id if valid_id else None,
                request="id" in data,
                reason=str(exc.__cause__ or exc),
            )

    def handle_message(self, message: Any) -> None:
        """Apply the lifecycle rules (module docstring), then pygls' handling."""
        method = getattr(message, "method", None)
        is_request = method is not None and (
            message.request if isinstance(message, Unreadable) else hasattr(message, "id")
        )
        refusal: types.ResponseError | None = None
        if method == types.EXIT:
            self.exit_code = 0 if self._shutdown else 1
        elif method is not None and not self._initialize_seen and method != types.INITIALIZE:
            refusal = _error(types.ErrorCodes.ServerNotInitialized, f"{method} before initialize")
        elif method == types.INITIALIZE and self._initialize_seen:  # would drop the documents
            refusal = _error(types.ErrorCodes.InvalidRequest, "initialize sent twice")
        elif method is not None and self._shutdown:
            refusal = _error(types.ErrorCodes.InvalidRequest, f"{method} after shutdown")
        elif isinstance(message, Unreadable):
            refusal = _error(
                types.ErrorCodes.InvalidParams, f"invalid params for {method}: {message.reason}"
            )
        if refusal is not None:
            if is_request:
                self._send_response(message.id, error=refusal)
            else:
                log.warning("notification %s ignored: %s", method, refusal.message)
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        super().handle_message(message)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Callable[[Future[Any]], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls' ``_execute_handler``, except that the future stored for ``msg_id`` is
        dropped from ``_request_futures`` when it is done (before ``callback`` runs;
        a response callback pops it too, which is then a no-op), and :attr:`handling`
        counts the handlers whose ``callback`` (a request's response) has not run yet."""
        futures = self._request_futures

        def done(future: Future[Any]) -> None:
            if futures.get(msg_id) is future:
                del futures[msg_id]
            try:
                callback(future)
            finally:
                self.handling -= 1
                if self.settled is not None:
                    self.settled()

        self.handling += 1
        super()._execute_handler(msg_id, handler, done, args, kwargs)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, Any]:
        """pygls' ``initialize``, with its workspace replaced by a :class:`SpecWorkspace`
        (before the server's own ``initialize`` handler runs)."""
        steps = super().lsp_initialize(params)
        sent: Any = None
        while True:
            try:
                step = steps.send(sent)
            except StopIteration as done:
                self._use_spec_workspace()
                return done.value
            self._use_spec_workspace()
            sent = yield step

    def _use_spec_workspace(self) -> None:
        plain = self._workspace
        if plain is None or isinstance(plain, SpecWorkspace):
            return
        self._workspace = SpecWorkspace(
            plain.root_uri,
            self._server._text_document_sync_kind,
            list(plain.folders.values()),
            plain.position_encoding,
        )
