"""``torchLogs/status``: which torch a document is checked against (the VS Code
extension's status bar item)."""

from __future__ import annotations

from torch_logs_lsp.core.torch_context import TorchContext

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
