"""The key paths of a TOML document, from tree-sitter-toml's tree (for the TOML host).

:func:`leaves` lists every key/value pair with its full key path (the table header's
keys, then the pair's dotted key; an inline table's pairs are listed too, under the
key of the table) and :func:`headers` every table header's path, so the host can find
``tool.pytest.ini_options.env`` however it is spelled (``[tool.pytest.ini_options]``
``env = ...``, ``[tool]`` ``pytest.ini_options.env = ...``, quoted keys). Keys are
decoded (``"pytest_env"`` is ``pytest_env``); an array of tables (``[[x]]``) adds the
segment :data:`ARRAY` to its path. A pair tree-sitter put in an ERROR node (a document
being typed) is read under the table before it. All offsets are code points into the
document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from torch_logs_lsp.hosts.toml import strings as toml_strings

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

#: The path segment of an array of tables (``[[x]]``): no key path the host reads has it.
ARRAY = "[]"


class Key(NamedTuple):
    """One key segment: its decoded ``name`` and the document range of its text
    (inside the quotes of a quoted key)."""

    name: str
    start: int
    end: int


class Leaf(NamedTuple):
    """A key/value pair: ``keys`` its full path, ``value`` its value node, ``pair`` the
    ``pair`` node."""

    keys: tuple[Key, ...]
    value: tree_sitter.Node
    pair: tree_sitter.Node

    @property
    def path(self) -> tuple[str, ...]:
        """The decoded key names."""
        return tuple(k.name for k in self.keys)


def _keys(src: Source, node: tree_sitter.Node) -> list[Key] | None:
    """The segments of a key node (bare, quoted or dotted); ``None`` when a quoted key
    is invalid (no such key can be matched)."""
    if node.type == "dotted_key":
        out: list[Key] = []
        for child in node.named_children:
            got = _keys(src, child)
            if got is None:
                return None
            out += got
        return out
    start, end = src.cp(node.start_byte), src.cp(node.end_byte)
    if node.type == "bare_key":
        return [Key(src.text[start:end], start, end)]
    if node.type == "quoted_key":
        s = toml_strings.decode(src.text, start)
        if s is None or not s.valid or not s.terminated:
            return None
        return [Key(s.value, s.content_start, s.content_end)]
    return None


def _key_child(node: tree_sitter.Node) -> tree_sitter.Node | None:
    for child in node.named_children:
        if child.type in ("bare_key", "quoted_key", "dotted_key"):
            return child
    return None


def _value_child(node: tree_sitter.Node) -> tree_sitter.Node | None:
    seen_eq = False
    for child in node.children:
        if seen_eq and child.is_named and child.type != "comment":
            return child
        seen_eq = seen_eq or child.type == "="
    return None


class Tree(NamedTuple):
    """What :func:`read` finds: the pairs, the table headers' paths, and the headers'
    keys in document order (with their places)."""

    leaves: list[Leaf]
    headers: set[tuple[str, ...]]
    tables: list[tuple[Key, ...]]


def read(src: Source, root: tree_sitter.Node) -> Tree:
    """Every pair of the document (in document order) and every table header."""
    leaves: list[Leaf] = []
    headers: set[tuple[str, ...]] = set()
    tables: list[tuple[Key, ...]] = []
    table: tuple[Key, ...] = ()
    stack = list(reversed(root.children))
    while stack:
        node = stack.pop()
        if node.type in ("table", "table_array_element"):
            key = _key_child(node)
            got = _keys(src, key) if key is not None else None
            table = tuple(got) if got is not None else (Key(ARRAY, 0, 0),)
            if node.type == "table_array_element":
                table += (Key(ARRAY, 0, 0),)
            headers.add(tuple(k.name for k in table))
            tables.append(table)
            stack.extend(reversed([c for c in node.children if c.type in ("pair", "ERROR")]))
        elif node.type == "pair":
            _pair(src, node, table, leaves)
        elif node.type == "ERROR":
            stack.extend(reversed([c for c in node.children if c.type in ("pair", "ERROR")]))
    return Tree(leaves, headers, tables)


def _pair(src: Source, node: tree_sitter.Node, table: tuple[Key, ...], out: list[Leaf]) -> None:
    key = _key_child(node)
    value = _value_child(node)
    got = _keys(src, key) if key is not None else None
    if got is None or value is None or any(c.type == "ERROR" for c in node.children):
        return  # a value being typed: read from its line (.toml_open)
    keys = table + tuple(got)
    out.append(Leaf(keys, value, node))
    if value.type == "inline_table":
        for child in value.named_children:
            if child.type == "pair":
                _pair(src, child, keys, out)


#: The last document :func:`parsed` read: ``(text, result)``.
_last: tuple[str, tuple[Source, tree_sitter.Node, Tree]] | None = None


def parsed(text: str) -> tuple[Source, tree_sitter.Node, Tree]:
    """``text``'s source, tree-sitter root and :func:`read` tree; the last document's are
    remembered (the extraction and the pytest-env stops read the same version)."""
    global _last
    if _last is not None and (_last[0] is text or _last[0] == text):
        return _last[1]
    from torch_logs_lsp.hosts._ts import Source

    src = Source(text)
    root = src.parse("toml").root_node
    result = (src, root, read(src, root))
    _last = (text, result)
    return result
