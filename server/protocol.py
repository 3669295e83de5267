"""The server's JSON-RPC protocol: pygls' protocol (with :class:`~.wire.JsonProtocol`'s
self-encoding results) plus what pygls 2 leaves out.

- Every handler's future is forgotten once it is done. pygls keeps the future of each
  notification handled by a generator (its built-in ``didOpen``/``didChange``/...
  handlers) in ``_request_futures`` under a fresh uuid and never removes it: ~2 KB per
  ``didChange``, for the life of the process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from .wire import JsonProtocol

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
