"""Code actions of ``set_logs(...)`` calls and of ``TORCH_LOGS`` writes that have no
effect: the quick fixes of TL601-TL613 and TL501 and the "Rewrite as TORCH_LOGS" refactor
(:mod:`torch_logs_lsp.lint.set_logs_fixes`), placed through the document's
:class:`~..positions.PositionMapper` (UTF-16 unless UTF-8 was negotiated).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.actions import (
    client_diagnostic,
    overlaps,
    wanted,
    workspace_edit,
)

log = logging.getLogger(__name__)

#: The calls (and late writes) one code-action request fixes at most, the first in its
#: range: each fix re-checks the document (~1-70 ms), and a whole-document range (select
#: all, then the quick-fix key) over 200 calls blocked the server for 15 s.
MAX_CALLS = 10


def _lsp_diagnostic(
    state: DocumentState, d: Diagnostic, sent: Sequence[types.Diagnostic]
) -> types.Diagnostic:
    """The client's own diagnostic for ``d`` (document offsets) when it sent it."""
    return client_diagnostic(state.mapper.range(d.start, d.end), d, sent)


def set_logs_actions(
    state: DocumentState,
    params: types.CodeActionParams,
    registry: Registry,
    off: frozenset[str],
    versioned: bool,
) -> list[types.CodeAction]:
    """The actions whose diagnostic (or, for the refactor, whose call) overlaps the
    requested range, filtered by ``context.only``; codes in ``off`` get no fix. Only the
    calls and writes the range touches are fixed (each fix re-checks the document)."""
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes, late_write_fixes

    host, text = state.host, state.text
    if host is None or ("set_logs" not in text and "TORCH_LOGS" not in text):
        return []
    finder = state.context.finder if state.context is not None else None
    first = state.mapper.offset(params.range.start)
    last = state.mapper.offset(params.range.end)
    fixes = []
    try:
        if "set_logs" in text:
            fixes += call_fixes(host, text, registry, finder, first, last, limit=MAX_CALLS)
        fixes += late_write_fixes(
            host, text, state.entries, registry, finder, first, last, limit=MAX_CALLS
        )
    except Exception:  # a bug here must not cost the value fixes
        log.exception("the set_logs fixes of %s failed", state.uri)
        return []
    out: list[types.CodeAction] = []
    sent = params.context.diagnostics
    for fix in fixes:
        if not wanted(fix.kind, params.context.only):
            continue
        if fix.diagnostics and {d.code for d in fix.diagnostics} <= off:
            continue
        spots = [(d.start, d.end) for d in fix.diagnostics]
        if fix.target is not None:
            spots.append(fix.target)
        if not any(overlaps(state.mapper.range(*s), params.range) for s in spots):
            continue
        diags = [_lsp_diagnostic(state, d, sent) for d in fix.diagnostics]
        out.append(
            types.CodeAction(
                title=fix.title,
                kind=fix.kind,
                diagnostics=diags or None,
                is_preferred=fix.preferred or None,
                edit=workspace_edit(state, fix.edits, versioned),
            )
        )
    return out


def set_logs_fix_all(
    state: DocumentState, registry: Registry, off: frozenset[str]
) -> list[TextEdit]:
    """The edits of the safe ``set_logs`` fixes of the whole document, for
    ``source.fixAll.torch-logs`` (``torch=`` -> ``all=``; none when TL602 is ``off``)."""
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes

    if state.host is None or "set_logs" not in state.text or "TL602" in off:
        return []
    finder = state.context.finder if state.context is not None else None
    try:
        fixes = call_fixes(state.host, state.text, registry, finder, safe_only=True)
    except Exception:  # a bug here must not cost the value fixes
        log.exception("the set_logs fix-all of %s failed", state.uri)
        return []
    return [e for f in fixes if f.safe for e in f.edits]


__all__ = ["set_logs_actions", "set_logs_fix_all"]
