"""What the code-action features share: whether a kind is asked for, whether two ranges
overlap, the client's own diagnostic for a fix, and a fix's edits as a ``WorkspaceEdit``."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.diagnostics import SOURCE


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether ``kind`` is requested by ``context.only`` (hierarchical: ``refactor``
    includes ``refactor.rewrite``). No ``only`` means every kind."""
    if not only:
        return True
    return any(kind == o or kind.startswith(o + ".") for o in only)


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two LSP ranges share a position (ends included)."""

    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def client_diagnostic(
    rng: types.Range, d: Diagnostic, sent: Sequence[types.Diagnostic]
) -> types.Diagnostic:
    """The client's own diagnostic for ``d`` placed at ``rng`` (same code and range) when
    it sent it in ``context.diagnostics``, else an equal one."""
    for c in sent:
        if str(c.code) == d.code and c.range == rng:
            return c
    return types.Diagnostic(
        range=rng,
        message=d.message,
        severity=types.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        source=SOURCE,
    )


def workspace_edit(
    state: DocumentState, edits: Sequence[TextEdit], versioned: bool
) -> types.WorkspaceEdit:
    """``edits`` (document offsets) of the document ``state`` as a ``WorkspaceEdit``:
    ``documentChanges`` for its version when ``versioned``, else ``changes``."""
    lsp_edits = [
        types.TextEdit(range=state.mapper.range(e.start, e.end), new_text=e.new_text)
        for e in sorted(edits, key=lambda e: e.start)
    ]
    if versioned:
        doc = types.OptionalVersionedTextDocumentIdentifier(uri=state.uri, version=state.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=doc, edits=list(lsp_edits))]
        )
    return types.WorkspaceEdit(changes={state.uri: list(lsp_edits)})


__all__ = ["client_diagnostic", "overlaps", "wanted", "workspace_edit"]
