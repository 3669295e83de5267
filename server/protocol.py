"""The server's JSON-RPC protocol: pygls' protocol (with :class:`~.wire.JsonProtocol`'s
self-encoding results) plus what pygls 2 leaves out.

- Every handler's future is forgotten once it is done. pygls keeps the future of each
  notification handled by a generator (its built-in ``didOpen``/``didChange``/...
  handlers) in ``_request_futures`` under a fresh uuid and never removes it: ~2 KB per
  ``didChange``, for the life of the process.
- The workspace is a :class:`~.workspace.SpecWorkspace` (lines split per the
  specification, unopened documents read safely).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.protocol import lsp_method

from .wire import JsonProtocol
from .workspace import SpecWorkspace

log = logging.getLogger(__name__)


class ServerProtocol(JsonProtocol):
    """pygls' language server protocol with the fixes listed in the module docstring."""

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
        a response callback pops it too, which is then a no-op)."""
        futures = self._request_futures

        def done(future: Future[Any]) -> None:
            if futures.get(msg_id) is future:
                del futures[msg_id]
            callback(future)

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
