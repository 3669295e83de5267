"""Quick fixes of misspelled variable names (TL408, :mod:`torch_logs_lsp.lint.misspelled`;
TL421, :mod:`torch_logs_lsp.lint.knobs`): rename the variable to the name torch reads.

The diagnostics live in :attr:`~..documents.DocumentState.calls` with document offsets and
the suggested name in ``suggestions``; the rename was verified when the diagnostic was made
(the host reads the suggested variable at that place).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from torch_logs_lsp.lint.knobs import UNREAD_NAME
from torch_logs_lsp.lint.misspelled import MISSPELLED_NAME
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.actions import (
    client_diagnostic,
    overlaps,
    wanted,
    workspace_edit,
)


def name_actions(
    state: DocumentState,
    params: types.CodeActionParams,
    versioned: bool,
    off: frozenset[str],
) -> list[types.CodeAction]:
    """A preferred ``quickfix`` "Rename to `TORCH_LOGS`" for each TL408 or TL421
    diagnostic with a suggestion whose range overlaps ``params.range``, tied to the
    client's own diagnostic when it sent it; none when ``context.only`` excludes quick
    fixes, or for a code that is ``off`` (codes in ``off``). ``versioned``: the edit as
    ``documentChanges``."""
    codes = {MISSPELLED_NAME, UNREAD_NAME} - off
    if not codes or not wanted(types.CodeActionKind.QuickFix, params.context.only):
        return []
    sent: Sequence[types.Diagnostic] = params.context.diagnostics
    out: list[types.CodeAction] = []
    for d in state.calls:
        if d.code not in codes or not d.suggestions:
            continue
        rng = state.mapper.range(d.start, d.end)
        if not overlaps(rng, params.range):
            continue
        diag = client_diagnostic(rng, d, sent)
        new = d.suggestions[0]
        out.append(
            types.CodeAction(
                title=f"Rename to `{new}`",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True,
                edit=workspace_edit(state, [TextEdit(d.start, d.end, new)], versioned),
            )
        )
    return out


__all__ = ["name_actions"]
