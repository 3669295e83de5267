"""``torchLogs/status``: which torch a document is checked against (the VS Code
extension's status bar item)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch_logs_lsp.torch_env.context import TorchContext

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

STATUS_REQUEST = "torchLogs/status"


def status_of(context: TorchContext) -> dict[str, str | None]:
    """``{"release": "2.13", "version": "2.13.0+cpu" | None, "how": ..., "python":
    interpreter path | None}`` for the torch context a document was analysed with."""
    registry = context.registry
    return {
        "release": registry.release,
        "version": registry.version or None,
        "how": context.how,
        "python": context.env.python if context.env else None,
    }


def status(ls: TorchLogsServer, params: Any) -> dict[str, str | None] | None:
    """The ``torchLogs/status`` handler (params ``{"textDocument": {"uri": ...}}``, read
    leniently): :func:`status_of` the document's context; ``None`` for a document that is
    not analysed."""
    doc = getattr(params, "text_document", None) or getattr(params, "textDocument", None)
    uri = getattr(doc, "uri", None)
    state = ls.state(uri) if isinstance(uri, str) else None
    if state is None:
        return None
    return status_of(state.context or ls.context_for(""))
