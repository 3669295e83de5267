"""Quick fixes for suppression comments (:mod:`~torch_logs_lsp.lint.suppressions`):
"Ignore TL201 on this line" for a diagnostic the client sent, and "Remove unused
suppression" for a TL903 hint.

An edit is offered only when the edited document reads the same values as before (the
host extracts it again), so a comment line can never change what a process sees.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.interface import line_bounds
from torch_logs_lsp.lint.suppressions import (
    UNUSED_SUPPRESSION,
    find_suppressions,
    suppression_edit,
)
from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.actions import overlaps, wanted, workspace_edit
from torch_logs_lsp.server.features.diagnostics import SOURCE, document_silencer

log = logging.getLogger(__name__)

#: Most client diagnostics of one request that get an "Ignore" fix (each is verified by
#: extracting the edited document again).
MAX_SUPPRESSIONS = 20


def _reads_the_same(state: DocumentState, edit: TextEdit, line: int | None = None) -> bool:
    """Whether the document with ``edit`` applied has the same values, in order, and,
    for a suppression of the 0-based ``line``, a real comment of the host now applies to
    that line (not text inside a string that the edit would have changed)."""
    assert state.host is not None
    new = apply_text_edits(state.text, [edit])
    before = [(s.variable, s.value) for s, _ in state.entries]
    after = [(s.variable, s.value) for s in hosts.extract(state.host, new)]
    if before != after:
        return False
    if line is None:
        return True
    inserted = edit.start == edit.end  # a new comment line moves the finding down one
    target = line + 1 if inserted else line
    return any(target in s.lines for s in find_suppressions(new, state.host))


def _removal(
    state: DocumentState, offset: int, extra: Sequence[Diagnostic] = ()
) -> TextEdit | None:
    """The edit for the unused suppression whose body starts at document offset
    ``offset``: the codes that silence nothing removed from its list when others do;
    else the whole comment (its line when it is alone there, else it and the blanks
    before it)."""
    text = state.text
    for s in document_silencer(state, extra).suppressions:
        if s.start != offset:
            continue
        if s.codes is not None and s.used:
            kept = ", ".join(c for c in s.codes if c in s.used)
            return TextEdit(s.start, s.end, f"torch-logs: ignore[{kept}]")
        if s.alone:
            line_start, _, after = line_bounds(text, s.marker, s.end)
            return TextEdit(line_start, after, "")
        start = s.marker
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        return TextEdit(start, s.end, "")
    return None


def suppress_actions(
    state: DocumentState,
    params: types.CodeActionParams,
    versioned: bool,
    extra: Sequence[Diagnostic] = (),
) -> list[types.CodeAction]:
    """An "Ignore CODE on this line" quick fix for each torch-logs diagnostic the client
    sent in ``context.diagnostics`` that overlaps the range (at most
    :data:`MAX_SUPPRESSIONS`), and "Remove
    unused suppression" for a TL903; none when ``context.only`` excludes quick fixes.
    Positions are the client's (UTF-16 code units unless utf-8 was negotiated);
    ``extra``: the document's diagnostics found across documents (a notebook cell's)."""
    host = state.host
    module = hosts.host_module(host) if host is not None else None
    if (
        host is None
        or module is None
        or not wanted(types.CodeActionKind.QuickFix, params.context.only)
    ):
        return []
    out: list[types.CodeAction] = []
    seen: set[tuple[int, str]] = set()
    spans = [s for s, _ in state.entries]
    for diag in params.context.diagnostics[:MAX_SUPPRESSIONS]:
        if diag.source != SOURCE or not isinstance(diag.code, str):
            continue
        if not overlaps(diag.range, params.range):
            continue
        offset = state.mapper.offset(diag.range.start)
        line = diag.range.start.line
        if diag.code == UNUSED_SUPPRESSION:
            edit = _removal(state, offset, extra)
            title = "Remove unused suppression"
        else:
            if (line, diag.code) in seen:
                continue
            seen.add((line, diag.code))
            edit = suppression_edit(state.text, module.COMMENT, offset, diag.code, spans, host)
            title = f"Ignore {diag.code} on this line"
        try:
            target = None if diag.code == UNUSED_SUPPRESSION else line
            if edit is None or not _reads_the_same(state, edit, target):
                continue
        except Exception:  # a host failing on the edited text: no fix, never a crash
            log.exception("verifying a suppression edit of %s failed", state.uri)
            continue
        out.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=workspace_edit(state, [edit], versioned),
            )
        )
    return out


__all__ = ["suppress_actions"]
