"""Quick fixes of TL431 (:mod:`torch_logs_lsp.lint.warm_cache`): set
``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` for the process that reads the TORCH_LOGS value, in
the host's syntax (:func:`.warm_cache.switch_edit`, which verifies the edit by a re-read).
Not preferred and not safe: it changes what torch does (every compile runs again)."""

from __future__ import annotations

from lsprotocol import types

from torch_logs_lsp.knowledge.warm_cache import FIX_VALUE, FIX_VARIABLE
from torch_logs_lsp.lint.warm_cache import WARM_CACHE, switch_edit
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.actions import (
    client_diagnostic,
    overlaps,
    wanted,
    workspace_edit,
)


def warm_actions(
    state: DocumentState,
    params: types.CodeActionParams,
    versioned: bool,
    off: frozenset[str],
) -> list[types.CodeAction]:
    """A ``quickfix`` "Set TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 ..." for the TL431
    diagnostics whose range overlaps ``params.range`` (one action per value, tied to those
    of its diagnostics in the range); none when ``context.only`` excludes quick fixes, TL431
    is ``off`` (codes in ``off``), or the host has no such edit."""
    if WARM_CACHE in off or not wanted(types.CodeActionKind.QuickFix, params.context.only):
        return []
    if state.host is None:
        return []
    sent = params.context.diagnostics
    out: list[types.CodeAction] = []
    for span, analysis in state.entries:
        if analysis is None:
            continue
        hit = []
        for d in analysis.diagnostics:
            if d.code != WARM_CACHE:
                continue
            rng = state.mapper.range(*span.document_range(d.start, d.end))
            if overlaps(rng, params.range):
                hit.append(client_diagnostic(rng, d, sent))
        if not hit:
            continue
        edit = switch_edit(state.host, state.text, span)
        if edit is None:
            continue
        out.append(
            types.CodeAction(
                title=f"Set {FIX_VARIABLE}={FIX_VALUE} (compile every run: logs print again)",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=hit,
                is_preferred=False,
                edit=workspace_edit(state, [edit], versioned),
            )
        )
    return out


__all__ = ["warm_actions"]
