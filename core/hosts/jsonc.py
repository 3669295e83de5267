"""The JSONC host: VS Code ``launch.json``, ``tasks.json`` and ``*.code-workspace``.

The document is parsed with tree-sitter-json, which accepts ``//`` and ``/* */`` comments
and recovers from trailing commas and unfinished input with ERROR nodes. Tree-sitter finds
the structure (which object a ``"TORCH_LOGS": ...`` pair lives in); each string is then
decoded from the document text by :func:`scan_string` following RFC 8259 section 7, so that
every decoded code point maps to its escape (``\\u00e9`` is six code points, a surrogate
pair written as two ``\\uXXXX`` escapes is one code point from twelve).

Reported pairs are ``env`` entries where VS Code reads them:

- ``configurations[*].env`` (launch.json, and ``launch.configurations`` in a workspace);
- ``tasks[*].options.env`` and the top-level ``options.env`` (tasks.json, and ``tasks`` in
  a workspace);
- the same inside a platform block: ``configurations[*].linux.env``,
  ``tasks[*].windows.options.env``, ``osx.options.env``, ...
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from ._ts import Parsed, Source, edit_tree, query, query_cursor
from .base import FAMILY, ValueSpan, names_family
from .incremental import DocumentCache, diff, near_escape
from .interface import (
    TextEdit,
    line_bounds,
    no_notes,
    no_path_facts,
    no_set_logs_calls,
    no_set_logs_site,
    no_set_logs_source,
)
from .json_strings import scan_string
from .jsonc_overwrites import overwritten as overwritten
from .typographic import outside_findings

if TYPE_CHECKING:
    import tree_sitter

HOST = "jsonc"
COMMENT = "//"
NEVER_SET: str | None = None  # VS Code's lenient parser may still read such a string
STRIPS_TRAILING_BLANKS = False


def detect_name(name: str) -> bool:
    """``launch.json``, ``tasks.json``, ``*.code-workspace``."""
    lower = name.lower()
    return lower in ("launch.json", "tasks.json") or lower.endswith(".code-workspace")


def detect_content(name: str, head: str) -> bool:
    """Never: known by its name."""
    return False


notes = no_notes
set_logs_calls = no_set_logs_calls
set_logs_source = no_set_logs_source
quote_findings = outside_findings("outside a string they make the file invalid JSON")
path_facts = no_path_facts
set_logs_site = no_set_logs_site


def may_hold_values(text: str) -> bool:
    """A family name, or a ``\\u`` escape (a key may spell one: ``"TORCH\\u005fLOGS"``)."""
    return "\\u" in text or names_family(text)


_PLATFORMS = frozenset({"linux", "windows", "osx"})
_ANY = "*"  # an array element in a path


def _decode_key(src: Source, node: tree_sitter.Node) -> str | None:
    start = src.cp(node.start_byte)
    if src.text[start : start + 1] != '"':
        return None
    end = src.cp(node.end_byte)
    inner = src.text[start + 1 : end - 1]
    plain = '"' not in inner and "\\" not in inner and inner.isprintable()
    if end - start >= 2 and src.text[end - 1] == '"' and plain:
        return inner  # nothing to decode (the common case)
    s = scan_string(src.text, start)
    return s.value if s.terminated and s.valid else None


# A path from the root as a linked list, innermost segment first: (segment, outer) or None.
_Path = tuple[str, "_Path"] | None
_CONTAINERS = frozenset({"document", "object", "array", "pair", "ERROR"})


def _push(path: _Path, *segments: str) -> _Path:
    for segment in segments:
        path = (segment, path)
    return path


def _is_env(path: _Path) -> bool:
    """Whether an object at ``path`` is an ``env`` object that VS Code reads."""
    tail: list[str] = []  # the last (at most 6) segments, innermost first
    while path is not None and len(tail) < 6:
        tail.append(path[0])
        path = path[1]
    at_root = path is None

    def rest_is(i: int, *want: str) -> bool:  # tail[i:] (outward) matches ``want``
        return tail[i : i + len(want)] == list(want)

    if not rest_is(0, "env"):
        return False
    i = 2 if len(tail) > 1 and tail[1] in _PLATFORMS else 1
    if rest_is(i, _ANY, "configurations"):
        return True
    if not rest_is(i, "options"):
        return False
    i += 2 if len(tail) > i + 1 and tail[i + 1] in _PLATFORMS else 1
    if rest_is(i, _ANY, "tasks"):
        return True
    n_rest = len(tail) - i
    # Top-level options of tasks.json, or of a workspace's "tasks" object.
    return (n_rest == 0 or (n_rest == 1 and tail[i] == "tasks")) and at_root


class _Frame:
    """Traversal state for the children of one container node."""

    __slots__ = ("colon", "index", "key", "kids", "node", "opened", "path", "pending")

    def __init__(self, node: tree_sitter.Node, path: _Path) -> None:
        self.node = node
        self.kids = node.children
        self.index = 0
        self.path = path
        self.key: str | None = None  # a pair's decoded key
        # ERROR nodes only: containers opened by loose tokens, and a loose "key" :
        self.opened: list[_Path] = []
        self.pending: tree_sitter.Node | None = None  # a loose key string
        self.colon = False


Candidate = tuple[str, "tree_sitter.Node", "tree_sitter.Node"]  # variable, key, value


def _error_kid(src: Source, f: _Frame, kid: tree_sitter.Node, out: list[Candidate]) -> _Path:
    """Follow loose tokens in an ERROR node (``"key" : {`` left open by the user typing);
    return the path for ``kid``'s own children."""
    here = f.opened[-1] if f.opened else f.path
    kind = kid.type
    if kind == "comment":
        return here
    if f.colon and f.pending is not None:  # kid is the value of a loose "key" :
        key_node, f.pending, f.colon = f.pending, None, False
        key = _decode_key(src, key_node)
        if key is not None:
            if kind in ("{", "["):
                f.opened.append(_push(here, key, *([_ANY] if kind == "[" else [])))
                return here
            if key in FAMILY and not kid.is_missing and _is_env(here):
                out.append((key, key_node, kid))
            return _push(here, key)
    if kind == ":":
        f.colon = f.pending is not None
        return here
    f.pending = kid if kind == "string" else None
    if kind in ("{", "["):
        f.opened.append(_push(here, *([_ANY] if kind == "[" else [])))
    elif kind in ("}", "]") and f.opened:
        f.opened.pop()
    return here


def _trailing_comma(error: tree_sitter.Node) -> bool:
    """Whether an ERROR node holds only commas (a trailing comma, which VS Code accepts)."""
    return all(kid.type == "," for kid in error.children)


def _loose(root: tree_sitter.Node) -> set[int]:
    """Ids of the ERROR nodes holding loose tokens, and of their ancestors: the nodes the
    walk must visit. An ERROR that holds only commas (a trailing comma, which VS Code
    accepts and every launch.json has) changes no path and holds no pair, so the subtree
    around it is left to the query like an error-free one."""
    found: set[int] = set()
    if not root.has_error:
        return found
    for _, captures in query_cursor(query("json", "(ERROR) @e")).matches(root):
        node: tree_sitter.Node | None = captures["e"][0]
        if node is None or _trailing_comma(node):
            continue
        while node is not None and node.id not in found:
            found.add(node.id)
            node = node.parent
    return found


def _candidates(src: Source, root: tree_sitter.Node) -> list[Candidate]:
    """Walk the tree top-down, tracking each container's path from the root. Subtrees
    without loose tokens (:func:`_loose`) are not walked in Python: a tree-sitter query
    finds their family pairs (see :func:`_query_candidates`); the walk covers ERROR
    regions only."""
    out: list[Candidate] = []
    clean: dict[int, _Path] = {}  # node id -> its frame path, for subtrees not walked
    loose = _loose(root)
    if root.id not in loose:
        clean[root.id] = None
        return _query_candidates(src, root, clean, out)
    stack = [_Frame(root, None)]
    while stack:
        f = stack[-1]
        if f.index >= len(f.kids):
            stack.pop()
            continue
        kid = f.kids[f.index]
        f.index += 1
        kind = f.node.type
        if kind == "ERROR":
            path = _error_kid(src, f, kid, out)
        elif kind == "array":
            path = _push(f.path, _ANY)
        elif kind == "pair":
            path = _push(f.path, f.key if f.key is not None else "")
        else:
            path = f.path
        if kid.type == "pair":
            key = kid.child_by_field_name("key")
            value = kid.child_by_field_name("value")
            child = _Frame(kid, path)
            child.key = _decode_key(src, key) if key is not None else None
            if (
                child.key in FAMILY
                and key is not None
                and value is not None
                and not value.is_missing
                and _is_env(path)
            ):
                out.append((child.key or "", key, value))
            if kid.id not in loose:
                clean[kid.id] = path
            else:
                child.kids = [k for k in kid.children if k != key]
                stack.append(child)
        elif kid.type in _CONTAINERS and kid.child_count:
            if kid.id not in loose:
                clean[kid.id] = path
            else:
                stack.append(_Frame(kid, path))
    return _query_candidates(src, root, clean, out)


_KEYS_QUERY = (
    "((pair key: (string (string_content) @content) (#any-of? @content {names})) @pair)\n"
    "((pair key: (string (escape_sequence))) @pair)"
).format(names=" ".join(f'"{name}"' for name in sorted(FAMILY)))


def _query_candidates(
    src: Source, root: tree_sitter.Node, clean: dict[int, _Path], out: list[Candidate]
) -> list[Candidate]:
    """Add the family pairs strictly inside the error-free subtrees ``clean`` (node id ->
    the path the walk gives that node) to ``out``. A tree-sitter query finds pairs whose
    key is a family name (or has escapes); each one's path is rebuilt by going up to its
    subtree root: an array adds ``*``, a pair its key, as the walk does."""
    if not clean:
        return out
    cursor = query_cursor(query("json", _KEYS_QUERY))
    for _, captures in cursor.matches(root):
        pair = captures["pair"][0]
        key = pair.child_by_field_name("key")
        value = pair.child_by_field_name("value")
        if key is None or value is None or value.is_missing:
            continue
        variable = _decode_key(src, key)
        if variable not in FAMILY:
            continue
        segments: list[str] = []
        node = pair.parent
        while node is not None:
            if node.type == "array":
                segments.append(_ANY)
            elif node.type == "pair":
                outer = node.child_by_field_name("key")
                segment = _decode_key(src, outer) if outer is not None else None
                segments.append(segment if segment is not None else "")
            if node.id in clean:
                break
            node = node.parent
        if node is None:
            continue  # inside an ERROR region: found by the walk
        path = _push(clean[node.id], *reversed(segments))
        if _is_env(path):
            out.append((variable or "", key, value))
    return out


_VSCODE_VARIABLE = re.compile(r"\$\{[^}]*\}")


def _span(src: Source, variable: str, key: tree_sitter.Node, value: tree_sitter.Node) -> ValueSpan:
    text = src.text
    name_start, name_end = src.cp(key.start_byte) + 1, src.cp(key.end_byte) - 1
    start = src.cp(value.start_byte)
    if value.type in ("string", '"') and text[start : start + 1] == '"':
        s = scan_string(text, start)
        # VS Code substitutes ${env:X}, ${input:x}, ${workspaceFolder}, ... in launch and
        # task env values before the process starts: not knowable here, never diagnosed.
        ok = s.valid and _VSCODE_VARIABLE.search(s.value) is None
        return ValueSpan(
            variable=variable,
            host=HOST,
            name_start=name_start,
            name_end=max(name_start, name_end),
            value=s.value if ok else None,
            char_starts=tuple(s.starts) if ok else (),
            char_ends=tuple(s.ends) if ok else (),
            content_start=start + 1,
            content_end=s.content_end,
            raw_start=start,
            raw_end=s.raw_end,
            quote='"',
            terminated=s.terminated,
        )
    end = max(start, src.cp(value.end_byte))
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=name_start,
        name_end=max(name_start, name_end),
        value=None,
        char_starts=(),
        char_ends=(),
        content_start=start,
        content_end=end,
        raw_start=start,
        raw_end=end,
        quote="",
    )


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """Find the TORCH_LOGS-family entries of VS Code ``env`` objects in a JSONC document.

    Returns one :class:`ValueSpan` per ``"VAR": value`` pair in an ``env`` object listed in
    the module docstring, in document order; offsets are code point indexes into ``text``.
    ``name_start``/``name_end`` cover the key between its quotes. A string value is decoded
    as RFC 8259 says (what VS Code passes to the process); a string with an invalid escape
    and any non-string value (number, ``null``, object) has ``value=None``. A string cut
    off by the end of its line gives ``terminated=False``. Broken documents (missing
    braces, trailing commas, text being typed) are tolerated. With ``cache`` (one per
    open document) the previous version's tree and spans are reused: an edit inside a
    string value is not parsed at all (:func:`_extract_in_string`), any other edit
    re-parses incrementally (see :mod:`.incremental`); the result is the same. Never raises.
    """
    src = Source(text)
    edit = cache.edit_for(HOST, text) if cache is not None else None
    state = cache.state if cache is not None and edit is not None else None
    if cache is not None and isinstance(state, Parsed):
        moved = _extract_in_string(src, cache, state)
        if moved is not None:
            return moved
    if isinstance(state, Parsed):
        tree = src.parse("json", (state.data, state.tree), stale=state.stale)
        if tree.root_node.has_error:
            # tree-sitter-json's error recovery can differ between an incremental and a
            # fresh parse (found by tests/hosts/test_incremental.py): a document with an
            # error (a trailing comma counts) is parsed afresh, to read the same however
            # it was reached. Typing inside a string value never gets here.
            tree = src.parse("json")
    else:
        tree = src.parse("json")
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for variable, key, value in _candidates(src, tree.root_node):
        name_start = src.cp(key.start_byte) + 1
        if name_start in contexts:
            continue  # an ERROR region can offer one pair twice (loose tokens and a pair)
        span = None
        if cache is not None and value.type == "string":
            # Only a string's extent is fixed by its own text; that of another value (a
            # number, an ERROR) can grow with what is typed after it.
            span = cache.reusable(edit, variable, name_start, src.cp(value.start_byte), value.type)
        spans.append(span or _span(src, variable, key, value))
        contexts[name_start] = value.type
    spans.sort(key=lambda s: s.name_start)
    if cache is not None:
        cache.computed = len(spans) - cache.reused
        cache.store(text, spans, Parsed(src.data, tree, settled=_settled(tree.root_node)), contexts)
    return spans


def _settled(root: tree_sitter.Node) -> bool:
    """Whether the tree's only syntax errors are trailing commas: an ERROR holding only
    commas, or a value MISSING after a comma in an array. Elsewhere tree-sitter's error
    recovery weighs the lengths of the tokens it skips, so typing in a string can change
    the recovery chosen, and with it the tree (found by the incremental property test)."""
    if not root.has_error:
        return True
    cursor = query_cursor(query("json", "(ERROR) @e\n(MISSING) @m"))
    for _, captures in cursor.matches(root):
        if not all(_trailing_comma(node) for node in captures.get("e", [])):
            return False
        for node in captures.get("m", []):
            before = node.prev_sibling
            parent = node.parent
            if parent is None or parent.type != "array" or before is None or before.type != ",":
                return False
    return True


#: Bytes whose insertion or removal can change where a JSON string ends or what it is.
_STRING_BREAKERS = re.compile(rb'["\\\x00-\x1f]')


def _string_at(root: tree_sitter.Node, start: int, end: int) -> tree_sitter.Node | None:
    """The string node holding the bytes ``[start, end]``, if any."""
    node = root.descendant_for_byte_range(start, end)
    while node is not None and node.type != "string":
        node = node.parent
    return node


def _extract_in_string(src: Source, cache: DocumentCache, parsed: Parsed) -> list[ValueSpan] | None:
    """:func:`extract` for an edit strictly inside one string that is not a key, changing
    no quote, backslash or control character: the tokens, hence the tree's shape and every
    pair, stay as they were, so the tree is only told about the edit (not re-parsed), the
    spans after it move and the span holding the edit (if any) is decoded again. ``None``
    for any other edit (nothing is changed then)."""
    old_text, old_spans = cache.text, cache.spans
    if old_text is None or old_spans is None or not parsed.settled:
        return None
    edit = diff(parsed.data, src.data)
    if edit is None:
        return None
    old_bytes = parsed.data[edit.start : edit.old_end]
    new_bytes = src.data[edit.start : edit.new_end]
    if _STRING_BREAKERS.search(old_bytes) or _STRING_BREAKERS.search(new_bytes):
        return None
    if near_escape(src.data, edit.start):
        return None
    node = _string_at(parsed.tree.root_node, edit.start, edit.old_end)
    if node is None or node.has_error or parsed.data[node.end_byte - 1 : node.end_byte] != b'"':
        return None
    if not node.start_byte < edit.start <= edit.old_end < node.end_byte:
        return None
    parent = node.parent
    if parent is None or parent.type == "ERROR" or parent.child_by_field_name("key") == node:
        return None
    start = src.cp(edit.start)
    string = (src.cp(node.start_byte), src.cp(node.end_byte))  # old = new: before the edit
    for span in old_spans:
        if span.raw_start < start < span.raw_end and (span.raw_start, span.raw_end) != string:
            return None  # a value that is not this string (an ERROR region) holds the edit
    delta = len(src.text) - len(old_text)
    edit_tree(parsed, src.data, edit)
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for span in old_spans:
        context = cache.context_of(span.name_start)
        if span.raw_start < start < span.raw_end:  # the edited value: decode it again
            value = _string_at(parsed.tree.root_node, edit.start, edit.new_end)
            key = value.parent.child_by_field_name("key") if value and value.parent else None
            if value is None or key is None:
                return None  # cannot happen: the tree's shape did not change
            span = _span(src, span.variable, key, value)
        elif span.name_start >= start:
            span = span.moved(delta)
        contexts[span.name_start] = context
        spans.append(span)
    cache.reused = len(spans)
    cache.computed = 0
    cache.store(src.text, spans, parsed, contexts)
    return spans


def encode_part(quote: str, value: str) -> str | None:
    """A JSON string body (``"`` -> ``\\"``, ``\\`` -> ``\\\\``, control characters as
    escapes); ``None`` for any quoting but ``"``."""
    return json.dumps(value, ensure_ascii=False)[1:-1] if quote == '"' else None


def _skip_blank(text: str, i: int, step: int) -> int:
    while 0 <= i < len(text) and text[i] in " \t\r\n":
        i += step
    return i


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The property, with the commas around it kept valid (and its line when it is
    alone on it)."""
    key = span.name_start - 1
    if text[key : key + 1] != '"':
        return None
    ls, le, after = line_bounds(text, key, span.raw_end)
    j = _skip_blank(text, span.raw_end, 1)
    own_line = not text[ls:key].strip()
    if j < len(text) and text[j] == ",":  # remove "K": v, (and the line if it is its own)
        rest = _skip_blank(text, j + 1, 1)
        if own_line and not text[j + 1 : le].strip():
            edit = TextEdit(ls, after, "")
        else:
            edit = TextEdit(key, rest if rest <= le else j + 1, "")
    else:
        k = _skip_blank(text, key - 1, -1)
        alone = own_line and not text[span.raw_end : le].strip()
        if k >= 0 and text[k] == ",":  # the last property: remove the comma before it
            edit = TextEdit(k, le if alone else span.raw_end, "")
        else:
            edit = TextEdit(ls, after, "") if alone else TextEdit(key, span.raw_end, "")
    return f'Remove the "{span.variable}" property', edit


_JSON_KEY = re.compile(r'(?:^|[{,])[ \t]*"([A-Za-z0-9_]*)$')
_JSON_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|[{}]', re.S)
_ENV_KEY = re.compile(r'"env"\s*:\s*$')


def _in_env_object(text: str) -> bool:
    """Whether the end of ``text`` (a JSONC prefix) is directly inside an ``"env"``
    object: the innermost open ``{`` follows ``"env":``."""
    stack: list[int] = []
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok == "{":
            stack.append(m.start())
        elif tok == "}" and stack:
            stack.pop()
    return bool(stack) and _ENV_KEY.search(text[: stack[-1]]) is not None


def typed_name(text: str, offset: int) -> str | None:
    """As a key of an ``env`` object."""
    line_start = text.rfind("\n", 0, offset) + 1
    m = _JSON_KEY.search(text[line_start:offset])
    if m is None or not _in_env_object(text[: line_start + m.start(1) - 1]):
        return None
    return m.group(1)
