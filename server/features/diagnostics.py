"""textDocument/publishDiagnostics: core diagnostics as LSP ``Diagnostic`` objects."""

from __future__ import annotations

from lsprotocol import types

from ..documents import DocumentState
from ..settings import Settings

SOURCE = "torch-logs"

_OVERRIDES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def document_diagnostics(state: DocumentState, settings: Settings) -> list[types.Diagnostic]:
    """Every diagnostic of a document version, with code, source ``torch-logs`` and the
    exact range (positions in the negotiated encoding). ``data`` carries the suggested
    replacement names (``{"suggestions": [...]}``) for quick fixes."""
    out: list[types.Diagnostic] = []
    for span, analysis in state.entries:
        if analysis is None:
            continue
        for d in analysis.diagnostics:
            override = settings.severity.get(d.code)
            if override == "off":
                continue
            severity = _OVERRIDES.get(override or "", types.DiagnosticSeverity(int(d.severity)))
            start, end = span.document_range(d.start, d.end)
            out.append(
                types.Diagnostic(
                    range=state.mapper.range(start, end),
                    message=d.message,
                    severity=severity,
                    code=d.code,
                    source=SOURCE,
                    data={"suggestions": list(d.suggestions)} if d.suggestions else None,
                )
            )
    return out
