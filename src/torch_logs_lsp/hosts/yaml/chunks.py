"""Long YAML files (for :mod:`.yaml`): tree-sitter-yaml gives one ERROR node for a document
longer than 32,767 rows (measured with the bundled grammar: 32,760 rows of ``k: v`` parse,
32,770 do not), so such a file is parsed in chunks of at most :data:`CHUNK_ROWS` lines,
cut before a line that starts at column 0 (a top-level key, a ``---`` marker, a top-level
``-`` item). Each chunk is read like a whole file and its spans moved to their place.

What a chunk cannot see: a document's flavour comes from the top-level keys of its own
chunk (the chunks of one document that name a flavour must agree, else it is generic
YAML: the most careful reading), and an alias to an anchor in an earlier chunk is unknown
to it (:mod:`.anchors` reads the chunks together: fixes leave such a value alone). A
chunk that still does not parse (a top-level value longer than a chunk, a cut inside a
multi-line flow scalar) gives no spans (logged). Offsets are code points into the
document.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.yaml.tree import GENERIC, flavour

if TYPE_CHECKING:
    from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: Rows tree-sitter-yaml reads (beyond them the whole parse is one ERROR node).
MAX_ROWS = 32767
#: Lines per chunk (below :data:`MAX_ROWS`, with room for a chunk cut late).
CHUNK_ROWS = 30000
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_SEEN: dict[int, None] = {}  # documents already logged about (by the hash of their head)


def too_long(text: str) -> bool:
    """Whether ``text`` has more lines than tree-sitter-yaml reads."""
    return text.count("\n") >= MAX_ROWS


def chunk_texts(text: str) -> list[tuple[int, str, bool]]:
    """``(start, chunk text, starts a document)`` for each chunk of ``text`` (``start``:
    code points into ``text``)."""
    out: list[tuple[int, str, bool]] = []
    start = rows = 0
    cut: int | None = None  # the last column-0 line start seen in this chunk
    for m in _LINE.finditer(text):
        if m.start() > start and m.group()[:1] not in (" ", "\t", "#", "\r", "\n"):
            cut = m.start()
            if rows >= CHUNK_ROWS:  # no cut before: the first one after the limit
                out.append((start, text[start:cut], text.startswith("---", start)))
                start, rows, cut = cut, 0, None
        rows += 1
        if rows >= CHUNK_ROWS and cut is not None:
            out.append((start, text[start:cut], text.startswith("---", start)))
            rows = text.count("\n", cut, m.end())
            start, cut = cut, None
    out.append((start, text[start:], text.startswith("---", start)))
    # a chunk after one that ends with a `---` line starts a document too
    return [
        (a, chunk, new or (k > 0 and _ends_with_marker(out[k - 1][1])))
        for k, (a, chunk, new) in enumerate(out)
    ]


def _ends_with_marker(chunk: str) -> bool:
    lines = chunk.rstrip("\r\n \t").rsplit("\n", 1)
    return lines[-1].startswith("---")


def chunked_spans(text: str) -> list[ValueSpan]:
    """The spans of a document too long for one parse (:func:`too_long`), chunk by chunk
    (see the module docstring); unsorted. Logs once per document (by its first 1,000
    code points) that it does so."""
    from torch_logs_lsp.hosts.yaml.ci import code_spans
    from torch_logs_lsp.hosts.yaml.places import env_spans

    key = hash(text[:1000])
    if key not in _SEEN:
        if len(_SEEN) > 256:
            _SEEN.clear()
        _SEEN[key] = None
        log.info("yaml: %d lines: read in chunks of %d lines", text.count("\n"), CHUNK_ROWS)
    parsed = []
    for start, chunk, new_document in chunk_texts(text):
        src = Source(chunk)
        root = src.parse("yaml").root_node
        if root.has_error:
            log.info("yaml: the chunk at offset %d does not parse alone: not read", start)
            continue
        parsed.append((start, src, root, new_document))
    # the chunks' documents, grouped into the file's documents (keys: chunk, document)
    groups: list[list[tuple[tuple[int, int], str]]] = []
    for k, (_, src, root, new_document) in enumerate(parsed):
        for i, doc in enumerate(root.named_children):
            if not groups or i > 0 or new_document:
                groups.append([])
            groups[-1].append(((k, i), flavour(src, doc)))
    agreed: dict[tuple[int, int], str] = {}
    for group in groups:
        named = {f for _, f in group if f != GENERIC}
        one = named.pop() if len(named) == 1 else GENERIC
        agreed.update((where, one) for where, _ in group)
    out: list[ValueSpan] = []
    for k, (start, src, root, _) in enumerate(parsed):
        mine = {doc.id: agreed[k, i] for i, doc in enumerate(root.named_children)}
        spans = env_spans(src, root, mine) + code_spans(src, root, mine)
        out += [s.moved(start) for s in spans]
    return out
