"""textDocument/publishDiagnostics: core diagnostics in the LSP wire form.

A large document can carry thousands of diagnostics and every edit republishes all of
them. Building an ``lsprotocol`` ``Diagnostic`` (with its ``Range`` and two ``Position``
objects) and letting cattrs unstructure it again costs about 30 µs each, so diagnostics
are built directly as the JSON objects the specification defines and sent in a
:class:`PreparedDiagnostics`, which :func:`make_converter`'s converter passes through
unchanged (about 2 µs a diagnostic; `scripts/bench.py` measures the whole path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import cattrs
from lsprotocol import types
from pygls.protocol import default_converter

from ..documents import DocumentState
from ..settings import Settings

SOURCE = "torch-logs"

_OVERRIDES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def document_diagnostics(state: DocumentState, settings: Settings) -> list[dict[str, Any]]:
    """Every diagnostic of a document version as a JSON object shaped like the LSP
    ``Diagnostic`` (``range`` with ``line``/``character`` in the negotiated encoding,
    ``severity`` 1-4, ``code``, ``source`` ``"torch-logs"``, ``message``; ``data`` carries
    the suggested replacement names, ``{"suggestions": [...]}``, for quick fixes).
    ``settings.severity`` overrides a code's severity or drops it (``"off"``)."""
    out: list[dict[str, Any]] = []
    at = state.mapper.line_character
    for span, analysis in state.entries:
        if analysis is None:
            continue
        for d in analysis.diagnostics:
            override = settings.severity.get(d.code)
            if override == "off":
                continue
            severity = _OVERRIDES.get(override or "", int(d.severity))
            start, end = span.document_range(d.start, d.end)
            start_line, start_character = at(start)
            end_line, end_character = at(end)
            diagnostic: dict[str, Any] = {
                "range": {
                    "start": {"line": start_line, "character": start_character},
                    "end": {"line": end_line, "character": end_character},
                },
                "severity": int(severity),
                "code": d.code,
                "source": SOURCE,
                "message": d.message,
            }
            if d.suggestions:
                diagnostic["data"] = {"suggestions": list(d.suggestions)}
            out.append(diagnostic)
    return out


@attrs.define
class PreparedDiagnostics(types.PublishDiagnosticsParams):
    """``PublishDiagnosticsParams`` whose JSON is already built: ``payload`` is sent as the
    notification's params as it is (``uri``, ``version`` and ``diagnostics`` in it).
    Only a converter from :func:`make_converter` knows to do that."""

    payload: dict[str, Any] = attrs.field(factory=dict)

    @classmethod
    def of(
        cls, uri: str, version: int | None, diagnostics: list[dict[str, Any]]
    ) -> PreparedDiagnostics:
        """Params for ``uri``'s ``diagnostics`` (from :func:`document_diagnostics`);
        ``version`` is omitted when ``None``."""
        payload: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            payload["version"] = version
        return cls(uri=uri, diagnostics=[], version=version, payload=payload)


def make_converter() -> cattrs.Converter:
    """pygls' default converter, except that :class:`PreparedDiagnostics` unstructures to
    its ``payload`` (for pygls' ``converter_factory``)."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    default: Callable[[Any], Any] = converter.get_unstructure_hook(types.PublishDiagnosticsParams)

    def unstructure(params: types.PublishDiagnosticsParams) -> Any:
        if isinstance(params, PreparedDiagnostics):
            return params.payload
        return default(params)

    converter.register_unstructure_hook(types.PublishDiagnosticsParams, unstructure)
    return converter
