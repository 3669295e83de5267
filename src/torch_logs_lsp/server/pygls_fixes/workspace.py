"""The server's documents as the LSP specification defines them (pygls' workspace, fixed).

- Lines end only at ``\\n``, ``\\r\\n`` and ``\\r``. pygls splits lines with
  ``str.splitlines``, which also ends them at U+2028, U+2029, ``\\x0b``, ``\\x0c``,
  ``\\x1c``-``\\x1e`` and ``\\x85``: after an incremental change below such a character its
  text differed from the client's, and every position sent back was off by a line.
  :class:`SpecTextDocument` applies a change by offsets computed per the specification.
- A document that is not open is read from disk only through
  :func:`~torch_logs_lsp.files.read_regular` (a regular file, at most
  :data:`~torch_logs_lsp.files.MAX_FILE_BYTES`, never blocking on a FIFO), and only
  for a ``file:`` URI; otherwise :class:`~torch_logs_lsp.files.SkippedFile` is raised.
- A ``didChange`` of a document that is not open is logged and ignored (pygls raised
  ``KeyError``, shown to the user as "Error in server").
- pygls keys open documents by their *decoded* URI (``unquote``): ``file:///a%20b/.env``
  is stored under ``file:///a b/.env``. :func:`is_open` and :func:`open_uris` take and
  give the URI exactly as the client sent it (what it must be answered with).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from torch_logs_lsp.files import MAX_FILE_BYTES, SkippedFile, read_regular
from torch_logs_lsp.server.positions import column_offset, encoding_name

log = logging.getLogger(__name__)

#: The line ends of the LSP specification (``\r\n`` first: it is one line end).
LINE_END = re.compile(r"\r\n|\r|\n")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def spec_lines(text: str) -> list[str]:
    """``text`` split into lines that keep their ends, at ``\\n``, ``\\r\\n`` and ``\\r``
    only (``str.splitlines(True)`` with the specification's line ends)."""
    return _LINES.findall(text)


#: Characters counted at a time when looking for a line (see :func:`line_start`).
BLOCK = 1 << 16


def _breaks(text: str, start: int, end: int, cr: bool) -> int:
    found = text.count("\n", start, end)
    if cr:
        found += text.count("\r", start, end) - text.count("\r\n", start, end)
    return found


def line_start(text: str, line: int, known: tuple[int, int] = (0, 0)) -> int | None:
    """Offset (code points) where ``line`` (0-based) of ``text`` starts; ``None`` when the
    text has fewer than ``line`` line ends. Line ends are counted a :data:`BLOCK` at a
    time with ``str.count`` (a block never ends between ``\r`` and ``\n``), so finding
    a line near the end of a 50 MB text costs one pass in C, not a list of its lines.
    ``known``: a line and the offset where it starts, counted from when ``line`` is not
    before it."""
    if line <= 0:
        return 0
    if line < known[0]:
        known = (0, 0)
    cr = "\r" in text
    seen, pos = known
    size = len(text)
    step = min(256, BLOCK)  # doubled up to BLOCK: a line near ``known`` costs a short count
    while pos < size:
        end = min(size, pos + step)
        step = min(BLOCK, step * 2)
        if cr and text[end - 1 : end + 1] == "\r\n":
            end += 1
        here = _breaks(text, pos, end, cr)
        if seen + here >= line:
            block = text[pos:end]
            rest = (LINE_END.split(block, line - seen) if cr else block.split("\n", line - seen))[
                -1
            ]
            return end - len(rest)
        seen += here
        pos = end
    return None


def spec_offset(
    text: str, position: types.Position, encoding: str, known: tuple[int, int] = (0, 0)
) -> int:
    """Offset (code points) in ``text`` of an LSP ``position`` whose ``character`` counts
    ``encoding`` code units (``"utf-16"``, ``"utf-8"``, ``"utf-32"``). Clamped: a line past
    the last is the end of the text, a character past its line's end is that end (before
    the line break); a character inside a character's code units is that character's
    start."""
    start = line_start(text, position.line, known)
    if start is None:
        return len(text)
    found = LINE_END.search(text, start)
    end = found.start() if found else len(text)
    return start + column_offset(text[start:end], position.character, encoding)


class SpecTextDocument(TextDocument):
    """pygls' text document with the specification's line ends (see the module). It
    remembers where the line of the last change starts (a change there or after it leaves
    that offset as it is), so typing far down a big document does not count its lines
    again for every character."""

    _known: tuple[int, int] = (0, 0)

    @property
    def lines(self) -> Sequence[str]:
        return tuple(spec_lines(self.source))

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self.source
        encoding = encoding_name(self.position_codec.encoding)
        known = self._known
        start = spec_offset(text, change.range.start, encoding, known)
        end = spec_offset(text, change.range.end, encoding, known)
        if end < start:  # a reversed range: replace what it covers
            start, end = end, start
        line = min(change.range.start.line, change.range.end.line)
        at = line_start(text, line, known)
        self._known = (line, at) if at is not None and at <= start else (0, 0)
        self._source = text[:start] + change.text + text[end:]

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        self._known = (0, 0)
        super()._apply_full_change(change)

    @property
    def source(self) -> str:
        if self._source is None:  # not open: see SpecWorkspace.get_text_document
            return ""
        return self._source


def read_unopened(uri: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of a document that is not open, read from its ``file:`` URI through
    :func:`read_regular` and decoded as UTF-8 (``errors="replace"``). Raises
    :class:`SkippedFile` for another scheme, a file that is not regular (FIFO, device,
    directory), one larger than ``max_bytes`` or one that cannot be read."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        raise SkippedFile(uri, "not a URI") from None
    if parsed.scheme != "file":
        raise SkippedFile(uri, f"not open, and not a file: URI ({parsed.scheme or 'no'} scheme)")
    return read_regular(unquote(parsed.path), max_bytes).decode("utf-8", "replace")


def is_open(workspace: Workspace, uri: str) -> bool:
    """Whether a document is open under exactly ``uri`` (as the client spelt it in
    ``didOpen``, percent-escapes and all; another spelling of the same path is not)."""
    doc = workspace.text_documents.get(unquote(uri))
    return doc is not None and doc.uri == uri


def open_uris(workspace: Workspace) -> list[str]:
    """The URIs of the open documents, each as the client sent it in ``didOpen`` (not the
    decoded key pygls stores it under)."""
    return [doc.uri for doc in workspace.text_documents.values()]


class SpecWorkspace(Workspace):
    """pygls' workspace holding :class:`SpecTextDocument` documents (see the module)."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return SpecTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )

    def get_text_document(self, doc_uri: str) -> TextDocument:
        """The open document ``doc_uri``; else one holding the file's text as
        :func:`read_unopened` reads it (raises :class:`SkippedFile` when it does not)."""
        doc = self._text_documents.get(unquote(doc_uri))
        if doc is not None:
            return doc
        return self._create_text_document(doc_uri, source=read_unopened(doc_uri))

    def update_text_document(
        self,
        text_doc: types.VersionedTextDocumentIdentifier,
        change: types.TextDocumentContentChangeEvent,
    ) -> None:
        """Apply a change to an open document; a change to a document that is not open is
        logged (WARNING) and ignored."""
        doc = self._text_documents.get(unquote(text_doc.uri))
        if doc is None:
            log.warning("didChange for %s, which is not open: ignored", text_doc.uri)
            return
        doc.apply_change(change)
        doc.version = text_doc.version

    def update_notebook_document(self, params: types.DidChangeNotebookDocumentParams) -> None:
        """Apply a change to an open notebook (pygls'); a change to a notebook that is not
        open is logged (WARNING) and ignored (pygls raised ``KeyError``)."""
        if unquote(params.notebook_document.uri) not in self.notebook_documents:
            log.warning(
                "notebookDocument/didChange for %s, which is not open: ignored",
                params.notebook_document.uri,
            )
            return
        super().update_notebook_document(params)
