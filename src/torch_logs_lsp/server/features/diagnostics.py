"""textDocument/publishDiagnostics: core diagnostics in the LSP wire form.

A large document can carry thousands of diagnostics and every edit republishes all of
them. Building an ``lsprotocol`` ``Diagnostic`` (with its ``Range`` and two ``Position``
objects) and letting cattrs and ``json`` encode it again costs about 40 µs each, so each
diagnostic is written once as the JSON text the specification defines and kept (keyed by
the core diagnostic and its position; the same value on the same line gives the same
text in the next version), and :class:`PreparedDiagnostics` joins the pieces into the
notification (sent by :class:`~..wire.JsonProtocol`). `scripts/bench.py` measures it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import attrs
import cattrs
from lsprotocol import converters, types

from torch_logs_lsp.codes.table import code_table
from torch_logs_lsp.lint.dead_values import OVERWRITTEN
from torch_logs_lsp.lint.selection import Selection
from torch_logs_lsp.lint.suppressions import UNUSED_SUPPRESSION, Silencer
from torch_logs_lsp.package_info import codes_doc_url
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.pygls_fixes.wire import Encoded
from torch_logs_lsp.server.settings import Settings, off_codes
from torch_logs_lsp.value.analysis import Diagnostic

SOURCE = "torch-logs"
#: Codes shown faded (``DiagnosticTag.Unnecessary``): a dead value, an unused suppression.
_FADED = frozenset({OVERWRITTEN, UNUSED_SUPPRESSION})

_OVERRIDES = {
    "error": int(types.DiagnosticSeverity.Error),
    "warning": int(types.DiagnosticSeverity.Warning),
    "information": int(types.DiagnosticSeverity.Information),
    "hint": int(types.DiagnosticSeverity.Hint),
}

#: A diagnostic's JSON text by (core diagnostic, start line, start character, end line,
#: end character, severity). Keyed by the diagnostic's value, not its identity: a check
#: that makes new but equal diagnostics on every version (TL502's hint, a host's note)
#: finds its text again instead of filling the memo (the soak grew by 40 MB that way).
Memo = dict[tuple[Diagnostic, int, int, int, int, int], str]
#: Most pieces a memo keeps (it is emptied when full; about 300 bytes each).
MAX_MEMO = 50_000


@functools.cache
def code_href(code: str) -> str | None:
    """The address of ``code``'s section of ``docs/codes.md`` (the SARIF rules' ``helpUri``,
    :func:`~torch_logs_lsp.package_info.codes_doc_url`); ``None`` for a code not in the
    table or without a repository address in the package metadata."""
    return codes_doc_url(code) if code in code_table() else None


def _encode(d: Diagnostic, key: tuple[Diagnostic, int, int, int, int, int]) -> str:
    _, start_line, start_character, end_line, end_character, severity = key
    text = (
        f'{{"range": {{"start": {{"line": {start_line}, "character": {start_character}}}, '
        f'"end": {{"line": {end_line}, "character": {end_character}}}}}, '
        f'"message": {json.dumps(d.message)}, "severity": {severity}, '
        f'"code": {json.dumps(d.code)}, "source": "{SOURCE}"'
    )
    href = code_href(d.code)
    if href:  # codeDescription: VS Code links the code in the Problems panel and hover
        text += f', "codeDescription": {{"href": {json.dumps(href)}}}'
    if d.suggestions:
        text += f', "data": {json.dumps({"suggestions": list(d.suggestions)})}'
    related = getattr(d, "related_json", "")  # TL632 (server/launch_links.py)
    if related:
        text += f', "relatedInformation": {related}'
    if d.code in _FADED:  # DiagnosticTag.Unnecessary: editors fade the dead value
        text += ', "tags": [1]'
    return text + "}"


def document_silencer(state: DocumentState, extra: Sequence[Diagnostic] = ()) -> Silencer:
    """The document's suppression comments, each marked with the codes that silence one
    of its diagnostics (``extra``: the notes across a notebook's cells)."""
    return state.checked.silencer(extra)


def diagnostic_json(
    state: DocumentState,
    settings: Settings,
    memo: Memo | None = None,
    project: Selection | None = None,
    extra: Sequence[Diagnostic] = (),
) -> list[str]:
    """Every diagnostic of a document version as the JSON text of an LSP ``Diagnostic``:
    ``range`` with ``line``/``character`` in the negotiated encoding, ``message``,
    ``severity`` 1-4, ``code``, ``codeDescription`` ``{"href": ...}`` (the code's section of
    the docs, :func:`code_href`), ``source`` ``"torch-logs"`` and, for quick fixes, ``data``
    ``{"suggestions": [...]}`` (replacement names). ``settings.severity`` overrides a
    code's severity or drops it (``"off"``); codes not chosen by the document's project
    configuration (``project``) and the settings' ``select``/``ignore`` are dropped.
    ``memo`` (kept by the caller across versions) returns the text already written for
    the same diagnostic and position. ``extra``: diagnostics found across documents
    (document offsets; a notebook cell's notes from the cells before it)."""
    out: list[str] = []
    at = state.mapper.line_character
    memo = {} if memo is None else memo
    if len(memo) > MAX_MEMO:
        memo.clear()
    overrides = settings.severity
    hidden = off_codes(settings, project)
    for p in state.checked.diagnostics(extra):  # suppression comments applied
        d, start, end = p.diagnostic, p.start, p.end
        if d.code in hidden:
            continue
        override = overrides.get(d.code) if overrides else None
        severity = _OVERRIDES.get(override or "", int(d.severity))
        key = (d, *at(start), *at(end), severity)
        text = memo.get(key)
        if text is None:
            text = memo[key] = _encode(d, key)
        out.append(text)
    return out


def document_diagnostics(
    state: DocumentState,
    settings: Settings,
    project: Selection | None = None,
    extra: Sequence[Diagnostic] = (),
) -> list[dict[str, Any]]:
    """:func:`diagnostic_json` decoded: the LSP ``Diagnostic`` objects as dicts."""
    pieces = diagnostic_json(state, settings, None, project, extra)
    return [json.loads(text) for text in pieces]


@attrs.define
class PreparedDiagnostics(types.PublishDiagnosticsParams, Encoded):
    """``PublishDiagnosticsParams`` whose diagnostics are already JSON text (``pieces``,
    from :func:`diagnostic_json`); :class:`~..wire.JsonProtocol` writes them as they are."""

    pieces: list[str] = attrs.field(factory=list)

    @classmethod
    def of(cls, uri: str, version: int | None, pieces: list[str]) -> PreparedDiagnostics:
        """Params for ``uri`` at ``version`` (omitted when ``None``)."""
        return cls(uri=uri, diagnostics=[], version=version, pieces=pieces)

    def to_json(self, converter: cattrs.Converter) -> str:
        """The params' JSON text (``uri``, ``diagnostics``, ``version``)."""
        version = "" if self.version is None else f', "version": {self.version}'
        return (
            f'{{"uri": {json.dumps(self.uri)}, "diagnostics": [{", ".join(self.pieces)}]{version}}}'
        )

    def to_lsp(self) -> types.PublishDiagnosticsParams:
        """The same params as lsprotocol objects (the slow path, if encoding fails)."""
        converter = converters.get_converter()
        diagnostics = [
            converter.structure(json.loads(piece), types.Diagnostic) for piece in self.pieces
        ]
        return types.PublishDiagnosticsParams(
            uri=self.uri, diagnostics=diagnostics, version=self.version
        )
