"""textDocument/codeAction: quick fixes tied to diagnostics, "also enable" refactors and
``source.fixAll.torch-logs``.

The fixes come from :mod:`torch_logs_lsp.lint.fixer` as document edits in code points;
they become LSP ranges here, through the document's :class:`~..positions.PositionMapper`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.selection import Selection
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.actions import (
    client_diagnostic,
    overlaps,
    wanted,
    workspace_edit,
)
from torch_logs_lsp.server.features.diagnostics import SOURCE
from torch_logs_lsp.server.settings import Settings, off_codes
from torch_logs_lsp.value.analysis import Diagnostic

if TYPE_CHECKING:  # the fixer is imported by the first request (not at start-up)
    from torch_logs_lsp.hosts.typographic import QuoteFinding
    from torch_logs_lsp.lint.fixer import DocumentFix
    from torch_logs_lsp.value.fixes import Fix

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.torch-logs"
#: Most values of one request whose quick fixes are computed: each fix is verified by
#: re-reading the whole document, so a range over thousands of values would take
#: minutes (fix-all verifies its edits together: it has no such cap).
MAX_FIXED_VALUES = 50

#: The kinds the server advertises in ``CodeActionOptions.codeActionKinds``.
KINDS: list[types.CodeActionKind | str] = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.SourceFixAll,
    FIX_ALL,
]


def _lsp_diagnostic(
    state: DocumentState,
    span: ValueSpan,
    d: Diagnostic,
    sent: Sequence[types.Diagnostic],
) -> types.Diagnostic:
    """The client's own diagnostic for ``d`` (value offsets) when it sent it, else an
    equal one."""
    return client_diagnostic(state.mapper.range(*span.document_range(d.start, d.end)), d, sent)


def _action(
    state: DocumentState,
    fix: DocumentFix,
    sent: Sequence[types.Diagnostic],
    versioned: bool,
) -> types.CodeAction:
    diags = [_lsp_diagnostic(state, fix.span, d, sent) for d in fix.diagnostics]
    return types.CodeAction(
        title=fix.title,
        kind=fix.kind,
        diagnostics=diags or None,
        is_preferred=fix.preferred or None,
        edit=workspace_edit(state, fix.edits, versioned),
    )


def code_actions(
    state: DocumentState,
    params: types.CodeActionParams,
    registry: Registry,
    settings: Settings,
    versioned: bool = True,
    project: Selection | None = None,
    extra: Sequence[Diagnostic] = (),
) -> list[types.CodeAction]:
    """Code actions for the requested range: quick fixes of the diagnostics that overlap
    it (``set_logs`` calls too: :mod:`.set_logs_actions`), refactors of the items it
    touches, and, when ``context.only`` asks for source actions (``source``,
    ``source.fixAll``, ...), fix-all for the document; filtered by ``context.only``.
    Diagnostics turned ``off`` in the settings, or not chosen by the project
    configuration (``project``) and the settings' ``select``/``ignore``, get no fix.
    ``versioned``: answer with ``documentChanges`` (the client supports them)."""
    from torch_logs_lsp.lint.fixer import fix_all_edits, quote_fixes, span_fixes
    from torch_logs_lsp.server.features.name_actions import name_actions
    from torch_logs_lsp.server.features.suppress_actions import suppress_actions
    from torch_logs_lsp.server.features.warm_actions import warm_actions
    from torch_logs_lsp.value.fixes import REFACTOR

    if state.host is None:
        return []
    only = params.context.only
    sent = params.context.diagnostics
    off = off_codes(settings, project)
    out: list[types.CodeAction] = []
    # Only the values the range touches are fixed (each fix is verified by reading the
    # edited document again: doing it for every value made a request take seconds).
    first = state.mapper.offset(params.range.start)
    last = state.mapper.offset(params.range.end)
    # (fix-all alone, as editors ask on save, needs none of them)
    per_value = wanted(types.CodeActionKind.QuickFix, only) or wanted(REFACTOR, only)
    fixed = 0
    for span, analysis in state.entries if per_value else ():
        if analysis is None:
            continue
        if min(span.name_start, span.raw_start) > last or span.raw_end < first:
            continue
        if fixed == MAX_FIXED_VALUES:  # each value's fixes re-read the whole document
            log.info(
                "code actions: quick fixes of the first %d values in the range only",
                MAX_FIXED_VALUES,
            )
            break
        fixed += 1

        def keep(fix: Fix, span: ValueSpan = span) -> bool:
            """Whether a fix is asked for: its kind, not turned off, in the range."""
            if not wanted(fix.kind, only):
                return False
            if fix.diagnostics and {d.code for d in fix.diagnostics} <= off:
                return False
            spots = [(d.start, d.end) for d in fix.diagnostics]
            if fix.anchor is not None:
                spots.append(fix.anchor)
            ranges = [state.mapper.range(*span.document_range(*spot)) for spot in spots]
            return any(overlaps(r, params.range) for r in ranges)

        # only the fixes asked for get their edits made (each is verified by a re-read)
        for fix in span_fixes(state.host, state.text, span, analysis, registry, keep=keep):
            out.append(_action(state, fix, sent, versioned))
    from torch_logs_lsp.server.features.set_logs_actions import (  # the Python host's
        set_logs_actions,
        set_logs_fix_all,
    )

    out += set_logs_actions(state, params, registry, off, versioned)
    # (extracting again costs a parse: only for a document that has a TL109)
    shown = "TL109" not in off and any(d.code == "TL109" for d in state.calls)
    quotes = quote_fixes(state.host, state.text) if shown else []
    if wanted(types.CodeActionKind.QuickFix, only):
        out += _quote_actions(state, quotes, params.range, sent, versioned)
    out += name_actions(state, params, versioned, off)  # TL408 renames
    out += warm_actions(state, params, versioned, off)  # TL431
    out += suppress_actions(state, params, versioned, extra)  # `torch-logs: ignore[...]`
    if only and wanted(FIX_ALL, only):  # a source action: computed only when asked for
        changes = fix_all_edits(state.host, state.text, state.entries, registry, ignore=off)
        # the quote fixes first; a value they change is fixed by the next fix-all
        quoted = {f.name_start for f, safe in quotes if safe}
        edits = [e for f, safe in quotes if safe for e in f.edits]
        edits += [
            e for c in changes if c.span is None or c.span.name_start not in quoted for e in c.edits
        ]
        taken = [(e.start, e.end) for e in edits]
        edits += [  # the set_logs calls' fixes, where no other edit is
            e
            for e in set_logs_fix_all(state, registry, off)
            if not any(e.start < end and start < e.end for start, end in taken)
        ]
        if edits:
            out.append(
                types.CodeAction(
                    title="Fix all TORCH_LOGS problems",
                    kind=FIX_ALL,
                    edit=workspace_edit(state, edits, versioned),
                )
            )
    return out


def _quote_actions(
    state: DocumentState,
    quotes: Sequence[tuple[QuoteFinding, bool]],
    wanted_range: types.Range,
    sent: Sequence[types.Diagnostic],
    versioned: bool,
) -> list[types.CodeAction]:
    """Quick fixes of the TL109 findings (typographic quotes) that overlap the range."""
    out: list[types.CodeAction] = []
    for finding, safe in quotes:
        rng = state.mapper.range(finding.start, finding.end)
        if not overlaps(rng, wanted_range):
            continue
        d = finding.diagnostic()
        diag = next((c for c in sent if str(c.code) == d.code and c.range == rng), None)
        diag = diag or types.Diagnostic(
            range=rng,
            message=d.message,
            severity=types.DiagnosticSeverity(int(d.severity)),
            code=d.code,
            source=SOURCE,
        )
        out.append(
            types.CodeAction(
                title=finding.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=safe or None,
                edit=workspace_edit(state, finding.edits, versioned),
            )
        )
    return out
