"""LSP notebook document sync: the open notebooks, their cells in order, and what changes
when a cell changes, moves, appears or goes.

The server asks for every cell of ``jupyter-notebook`` notebooks
(:data:`SYNC_OPTIONS`): pygls keeps the notebook (its cells in order) and each cell's text
document (``vscode-notebook-cell:`` URIs), so a cell gets every per-document feature
(diagnostics, completion, hover, code actions) as an ordinary document, and its
publication adds the notes that need the other cells
(:mod:`torch_logs_lsp.notebook.cells`). Markdown and raw cells are synced only to know
every cell's number; they are not analysed.

A client without notebook sync may open cells as plain text documents: each is then
checked on its own (no cell order is known).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from torch_logs_lsp import hosts
from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.server.documents import NOT_ANALYSED

if TYPE_CHECKING:
    from torch_logs_lsp.notebook.cells import CellText
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

#: The notebook type of Jupyter notebooks in VS Code.
NOTEBOOK_TYPE = "jupyter-notebook"
#: Every cell of a Jupyter notebook (markdown too: the cell numbers count them).
SYNC_OPTIONS = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithNotebook(
            notebook=types.NotebookDocumentFilterNotebookType(notebook_type=NOTEBOOK_TYPE)
        )
    ],
    save=True,  # a saved cell's open quote is TL108 (see did_save)
)
#: The URI scheme of VS Code's notebook cells.
CELL_SCHEME = "vscode-notebook-cell"

#: Per notebook (pygls' key): the cells' (uri, version, kind, language) it was computed
#: for, and the extra diagnostics per cell URI.
CrossCache = dict[str, tuple[tuple[object, ...], dict[str, list[Diagnostic]]]]


def analysed_cell(language_id: str | None, kind: types.NotebookCellKind | None) -> bool:
    """Whether a cell is read as code: a code cell (``kind``, when known from notebook
    sync) whose ``language_id`` (when known) is one a host reads (``python``,
    ``shellscript``, ...): not markdown, not a raw cell."""
    if kind == types.NotebookCellKind.Markup:
        return False
    return not language_id or hosts.host_for_language(language_id) is not None


def is_cell(uri: str) -> bool:
    """Whether ``uri`` names a notebook cell (VS Code's ``vscode-notebook-cell:``)."""
    return uri.startswith(CELL_SCHEME + ":")


def notebook_of(ls: TorchLogsServer, cell_uri: str) -> types.NotebookDocument | None:
    """The open notebook holding the cell ``cell_uri`` (``None`` for a document that is no
    cell of a synced notebook)."""
    try:
        return ls.workspace.get_notebook_document(cell_uri=cell_uri)
    except Exception:  # pygls' workspace before initialize, or a bad URI
        return None


def skip_cell(ls: TorchLogsServer, uri: str) -> bool:
    """Whether ``uri`` is a cell that is not analysed (markdown, raw; see
    :func:`analysed_cell`), from notebook sync or the language id it was opened with."""
    notebook = notebook_of(ls, uri)
    kind = None
    if notebook is not None:
        kind = _kinds(notebook).get(uri)
    elif not is_cell(uri):
        return False
    return not analysed_cell(ls.language_ids.get(uri), kind)


#: Each open notebook's cell kinds by cell URI, with the notebook version they are of: a
#: notebook of thousands of cells publishes each cell without a scan of all the others.
_KINDS: dict[str, tuple[tuple[int, int], dict[str, types.NotebookCellKind]]] = {}


def _stamp(notebook: types.NotebookDocument) -> tuple[int, int]:
    """What changes with any change of a synced notebook: its version (every
    ``notebookDocument/didChange`` carries a new one, cell text edits too) and its size."""
    return (notebook.version, len(notebook.cells))


def _kinds(notebook: types.NotebookDocument) -> dict[str, types.NotebookCellKind]:
    cached = _KINDS.get(notebook.uri)
    if cached is not None and cached[0] == _stamp(notebook):
        return cached[1]
    kinds = {c.document: c.kind for c in notebook.cells}
    if len(_KINDS) > 64:
        _KINDS.clear()
    _KINDS[notebook.uri] = (_stamp(notebook), kinds)
    return kinds


def _cells(ls: TorchLogsServer, notebook: types.NotebookDocument) -> list[tuple[str, CellText]]:
    from torch_logs_lsp.notebook.cells import CellText

    out: list[tuple[str, CellText]] = []
    for number, cell in enumerate(notebook.cells, 1):
        uri = cell.document
        try:
            text = ls.workspace.get_text_document(uri).source
        except Exception:  # a cell that is not open: nothing to read
            log.warning("cell %s of %s is not open", uri, notebook.uri)
            text = ""
        code = analysed_cell(ls.language_ids.get(uri), cell.kind)
        out.append((uri, CellText(number, text, code)))
    return out


def _key(ls: TorchLogsServer, notebook: types.NotebookDocument) -> tuple[object, ...]:
    key: list[object] = []
    for cell in notebook.cells:
        doc = ls.workspace.text_documents.get(_decoded(cell.document))
        version = None if doc is None else doc.version
        key.append((cell.document, version, cell.kind, ls.language_ids.get(cell.document)))
    return tuple(key)


def _decoded(uri: str) -> str:
    return unquote(uri)


def cross_cell(ls: TorchLogsServer, cell_uri: str) -> list[Diagnostic]:
    """The extra diagnostics of the cell ``cell_uri`` in its notebook's current order
    (offsets: code points into the cell's text); ``[]`` for a document that is no cell
    of a synced notebook. Computed once per notebook state (every cell's version, kind and
    language) for all its cells. Never raises."""
    notebook = notebook_of(ls, cell_uri)
    if notebook is None:
        return []
    return _per_cell(ls, notebook).get(cell_uri, [])


def _per_cell(ls: TorchLogsServer, notebook: types.NotebookDocument) -> dict[str, list[Diagnostic]]:
    cache: CrossCache = ls.cross_cells
    cached = cache.get(_decoded(notebook.uri))
    if cached is not None and cached[0][0] == _stamp(notebook):
        return cached[1]  # the same version: no walk over every cell (once per publish)
    key = (_stamp(notebook), *_key(ls, notebook))
    if cached is not None and cached[0][1:] == key[1:]:
        cache[_decoded(notebook.uri)] = (key, cached[1])
        return cached[1]
    from torch_logs_lsp.notebook.cells import (
        cross_cell_diagnostics,  # (not at start-up: ~5 ms)
    )

    cells = _cells(ls, notebook)
    try:
        found = cross_cell_diagnostics([cell for _, cell in cells])
    except Exception:  # a bug must not take the server down
        log.exception("the cell order of %s failed", notebook.uri)
        found = {}
    result = {cells[i][0]: diags for i, diags in found.items()}
    cache[_decoded(notebook.uri)] = (key, result)
    return result


# -- handlers ------------------------------------------------------------------------
def did_open(ls: TorchLogsServer, params: types.DidOpenNotebookDocumentParams) -> None:
    """Publish every cell of the opened notebook (pygls has stored it and its cells)."""
    notebook = params.notebook_document
    for doc in params.cell_text_documents:
        ls.language_ids[doc.uri] = doc.language_id
    ls.notebook_cells[notebook.uri] = [c.document for c in notebook.cells]
    for cell in notebook.cells:
        ls.publish(cell.document)


def did_change(ls: TorchLogsServer, params: types.DidChangeNotebookDocumentParams) -> None:
    """Republish what a change can affect: the changed and the new cells, and every cell
    whose notes across cells differ now (a cell moved, an import added or removed); clear
    the diagnostics of the cells that went."""
    uri = params.notebook_document.uri
    notebook = notebook_of_uri(ls, uri)
    cells = params.change.cells
    touched: set[str] = set()
    if cells is not None:
        structure = cells.structure
        if structure is not None:
            for item in structure.did_open or []:
                ls.language_ids[item.uri] = item.language_id
                touched.add(item.uri)
            for gone in structure.did_close or []:
                forget_cell(ls, gone.uri)
        edited = [t.document.uri for t in cells.text_content or []]
        touched.update(edited)
        ls.unsaved.update(edited)
        touched.update(d.document for d in cells.data or [])  # a cell's kind may change
    if notebook is None:
        return
    before = ls.cross_cells.get(_decoded(notebook.uri))
    old = before[1] if before is not None else {}
    new = _per_cell(ls, notebook)
    ls.notebook_cells[uri] = [c.document for c in notebook.cells]
    moved = cells is not None and cells.structure is not None  # cells added, gone, moved
    for cell in notebook.cells:
        doc = cell.document
        # a cell moved in two steps (removed, then inserted) has no notes in the state
        # between: after any change of the structure, every cell is published again (each
        # from its kept state, at little cost)
        if moved or doc in touched or _shape(old.get(doc)) != _shape(new.get(doc)):
            ls.schedule_publish(doc)


def did_close(ls: TorchLogsServer, params: types.DidCloseNotebookDocumentParams) -> None:
    """Clear the diagnostics of every cell of the closed notebook."""
    uri = params.notebook_document.uri
    cells = set(ls.notebook_cells.pop(uri, []))
    cells.update(doc.uri for doc in params.cell_text_documents)
    ls.cross_cells.pop(_decoded(uri), None)
    for cell in sorted(cells):
        forget_cell(ls, cell)


def did_save(ls: TorchLogsServer, params: types.DidSaveNotebookDocumentParams) -> None:
    """The cells' texts are the file's now: republish the cells edited since the notebook
    was opened or saved (what only a saved file has, TL108, shows)."""
    cells = ls.notebook_cells.get(params.notebook_document.uri, [])
    for cell in [c for c in cells if c in ls.unsaved]:
        ls.unsaved.discard(cell)
        ls.states.pop(cell, None)  # checked as unsaved text
        ls.publish(cell)


def forget_cell(ls: TorchLogsServer, uri: str) -> None:
    """Drop what was kept for a cell that went, and clear its diagnostics."""
    ls.forget(uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def notebook_of_uri(ls: TorchLogsServer, uri: str) -> types.NotebookDocument | None:
    """The open notebook ``uri`` (``None`` when it is not open)."""
    try:
        return ls.workspace.get_notebook_document(notebook_uri=uri)
    except Exception:
        return None


def _shape(diags: list[Diagnostic] | None) -> tuple[tuple[str, str, int, int], ...]:
    return tuple((d.code, d.message, d.start, d.end) for d in diags or [])


__all__ = [
    "NOTEBOOK_TYPE",
    "NOT_ANALYSED",
    "SYNC_OPTIONS",
    "analysed_cell",
    "cross_cell",
    "did_change",
    "did_close",
    "did_open",
    "did_save",
    "forget_cell",
    "is_cell",
    "notebook_of",
    "skip_cell",
]
