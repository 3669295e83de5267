"""Tree-sitter plumbing shared by the tree-sitter hosts (imported lazily by them).

Tree-sitter works on UTF-8 bytes; value spans use code points. :class:`Source` encodes a
document once and converts byte offsets back to code-point offsets. ``tree_sitter`` itself
and the grammars are imported on first parse, so that importing a host module (to detect
its files) costs nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.incremental import Edit, diff
from torch_logs_lsp.hosts.nesting import too_deep

if TYPE_CHECKING:
    import tree_sitter

_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ASCII = re.compile("[^\x00-\x7f]")
_languages: dict[str, tree_sitter.Language] = {}


#: The grammar module of each language name (imported on first parse).
GRAMMARS: dict[str, str] = {
    "bash": "tree_sitter_bash",
    "json": "tree_sitter_json",
    "python": "tree_sitter_python",
    "yaml": "tree_sitter_yaml",
    "powershell": "tree_sitter_powershell",
    "make": "tree_sitter_make",
    "toml": "tree_sitter_toml",
}


def _language(name: str) -> tree_sitter.Language:
    """The tree-sitter language ``name`` (a key of :data:`GRAMMARS`; any other name is
    bash, as before this table). Raises ``ImportError`` when its grammar is missing."""
    lang = _languages.get(name)
    if lang is None:
        import importlib

        import tree_sitter

        grammar = importlib.import_module(GRAMMARS.get(name, "tree_sitter_bash"))
        lang = tree_sitter.Language(grammar.language())
        _languages[name] = lang
    return lang


#: Per grammar, the queries the hosts' modules run (declared when they are imported,
#: :func:`declare_query`): compiled by :func:`load_grammar`.
_declared: dict[str, list[str]] = {}


def declare_query(language: str, source: str) -> str:
    """Declare, where a module is imported, a query it runs with grammar ``language``
    (:func:`load_grammar` then compiles it ahead of its first use); returns ``source``."""
    _declared.setdefault(language, []).append(source)
    return source


def load_grammar(name: str) -> None:
    """Load the tree-sitter language ``name`` (a key of :data:`GRAMMARS`) and compile the
    queries declared for it now, not on the first parse (the server's warm-up). Raises
    ``ImportError`` when its grammar is missing."""
    _language(name)
    for source in tuple(_declared.get(name, ())):
        query(name, source)


def _utf8_len(cp: int) -> int:
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


_LONE_CR = re.compile(rb"\r(?!\n)")


class Source:
    """A document as tree-sitter sees it, with byte -> code point conversion.

    Lone surrogates (possible in a Python ``str``) are encoded as U+FFFD, which has the same
    UTF-8 length (3 bytes) as a surrogate would, so every code point keeps its byte width
    and the bytes are valid UTF-8.
    """

    def __init__(self, text: str, lone_cr_is_lf: bool = False) -> None:
        self.text = text
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            self.data = _SURROGATE.sub("\ufffd", text).encode("utf-8")
        if lone_cr_is_lf and b"\r" in self.data:
            # Python's tokenizer ends a line at a lone CR as at LF (and reads it as LF in a
            # string); tree-sitter-python does not (a comment ran on to the next LF). Same
            # length: every offset stays.
            self.data = _LONE_CR.sub(b"\n", self.data)
        # Sparse map for a mostly-ASCII text: each non-ASCII code point's offset, the byte
        # offset where it starts, and the extra bytes (beyond one per code point) up to
        # and including it. Built by a C-speed scan plus one step per non-ASCII character.
        self._cps: list[int] = []
        self._bytes: list[int] = []
        self._extra: list[int] = []
        if len(self.data) != len(text):
            extra = 0
            for m in _NON_ASCII.finditer(text):
                cp = m.start()
                self._cps.append(cp)
                self._bytes.append(cp + extra)
                extra += _utf8_len(ord(m.group())) - 1
                self._extra.append(extra)

    def cp(self, byte_offset: int) -> int:
        """The code point offset of ``byte_offset`` (rounded down inside a sequence)."""
        if not self._cps:
            return byte_offset
        j = bisect_right(self._bytes, byte_offset) - 1
        if j < 0:
            return byte_offset
        if byte_offset < self._bytes[j] + 1 + self._extra[j] - (self._extra[j - 1] if j else 0):
            return self._cps[j]  # inside (or at the start of) that code point
        return byte_offset - self._extra[j]

    def byte(self, cp: int) -> int:
        """The byte offset of code point offset ``cp`` (the inverse of :meth:`cp`)."""
        if not self._cps:
            return cp
        j = bisect_right(self._cps, cp) - 1
        if j < 0:
            return cp
        if self._cps[j] == cp:
            return self._bytes[j]
        return cp + self._extra[j]

    def parse(
        self, language: str, old: ParsedState | None = None, stale: bool = False
    ) -> tree_sitter.Tree:
        """Parse with the named grammar (``"json"`` or ``"bash"``). With ``old`` (the
        previous version's bytes and tree) the old tree is edited and reused: tree-sitter
        re-parses only around the changed bytes (tree-sitter-bash still needs 50-80 ms for a
        10,000-line script, hence :mod:`.toplevel`). ``old``'s tree is consumed (edited in
        place). ``stale``: ``old``'s tree has been edited to match its bytes but not
        re-parsed, so it is re-parsed even when the bytes are unchanged. A document nested
        past the grammar's bounds (:func:`.nesting.too_deep`) is not given to it: the tree
        is an empty document's (no values, no findings)."""
        parser = _parser(language)
        if too_deep(language, self.data):
            return parser.parse(b"")
        if old is None:
            return parser.parse(self.data)
        old_data, tree = old
        if old_data and tree.root_node.end_byte == 0:  # (the empty stand-in above)
            return parser.parse(self.data)
        edit = diff(old_data, self.data)
        if edit is None:
            return parser.parse(self.data, tree) if stale else tree
        tree.edit(
            start_byte=edit.start,
            old_end_byte=edit.old_end,
            new_end_byte=edit.new_end,
            start_point=point(old_data, edit.start),
            old_end_point=point(old_data, edit.old_end),
            new_end_point=point(self.data, edit.new_end),
        )
        return parser.parse(self.data, tree)


def _parser(language: str) -> tree_sitter.Parser:
    parser = _parsers.get(language)
    if parser is None:
        import tree_sitter

        parser = _parsers[language] = tree_sitter.Parser(_language(language))
    return parser


def parse_bytes(language: str, data: bytes) -> tree_sitter.Tree:
    """A fresh parse of UTF-8 ``data`` with the named grammar (``"json"``/``"bash"``); an
    empty document's tree when ``data`` nests past the grammar's bounds (see
    :meth:`Source.parse`)."""
    return _parser(language).parse(b"" if too_deep(language, data) else data)


#: What a tree-sitter host keeps between versions: the bytes parsed and their tree.
ParsedState = tuple[bytes, "tree_sitter.Tree"]


@dataclass
class Parsed:
    """A document's bytes and its tree; ``stale`` when the tree has been edited to match
    ``data`` (:func:`edit_tree`) without being re-parsed; ``settled`` see below."""

    data: bytes
    tree: tree_sitter.Tree
    stale: bool = False
    #: The host found the tree's errors (if any) to be of a kind an edit elsewhere cannot
    #: change (for JSONC: trailing commas), which its edit shortcuts require.
    settled: bool = False


def edit_tree(parsed: Parsed, new: bytes, edit: Edit) -> None:
    """Tell ``parsed.tree`` that ``parsed.data`` became ``new`` by ``edit`` (bytes), without
    re-parsing: node offsets move; the tree is then ``stale``."""
    parsed.tree.edit(
        start_byte=edit.start,
        old_end_byte=edit.old_end,
        new_end_byte=edit.new_end,
        start_point=point(parsed.data, edit.start),
        old_end_point=point(parsed.data, edit.old_end),
        new_end_point=point(new, edit.new_end),
    )
    parsed.data = new
    parsed.stale = True


_parsers: dict[str, tree_sitter.Parser] = {}


def point(data: bytes, offset: int) -> tuple[int, int]:
    """Tree-sitter point (row, column in bytes) of a byte offset."""
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


_queries: dict[tuple[str, str], tree_sitter.Query] = {}


def query(language: str, source: str) -> tree_sitter.Query:
    """A compiled (and cached) tree-sitter query for the named grammar."""
    q = _queries.get((language, source))
    if q is None:
        import tree_sitter

        q = _queries[(language, source)] = tree_sitter.Query(_language(language), source)
    return q


def walk(
    root: tree_sitter.Node, wanted: Callable[[tree_sitter.Node], bool]
) -> list[tree_sitter.Node]:
    """All nodes under ``root`` (pre-order, iterative) for which ``wanted`` is true."""
    found: list[tree_sitter.Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None and wanted(node):
            found.append(node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


def query_cursor(q: tree_sitter.Query) -> tree_sitter.QueryCursor:
    """A cursor that runs ``q`` (see :func:`query`)."""
    import tree_sitter

    return tree_sitter.QueryCursor(q)
