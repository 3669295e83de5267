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

import re

import tree_sitter

from ._ts import Source, query
from .base import FAMILY, ValueSpan
from .incremental import DocumentCache

HOST = "jsonc"
_PLATFORMS = frozenset({"linux", "windows", "osx"})
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n"}
_SIMPLE_ESCAPES.update({"r": "\r", "t": "\t"})
_HEX = frozenset("0123456789abcdefABCDEF")
_ANY = "*"  # an array element in a path


class ScannedString:
    """A JSON string decoded from the document, with offsets (see :func:`scan_string`)."""

    __slots__ = ("content_end", "ends", "raw_end", "starts", "terminated", "valid", "value")

    def __init__(self) -> None:
        self.value = ""
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.content_end = 0
        self.raw_end = 0
        self.terminated = True
        self.valid = True


def _hex4(text: str, pos: int) -> int | None:
    digits = text[pos : pos + 4]
    if len(digits) == 4 and all(c in _HEX for c in digits):
        return int(digits, 16)
    return None


def scan_string(text: str, quote: int) -> ScannedString:
    """Decode the JSON string whose opening ``"`` is at code point offset ``quote``.

    The string ends at the next unescaped ``"``; a line break (CR or LF) or the end of the
    text first makes it unterminated (``terminated=False``, ends at the line end), as in VS
    Code's JSONC scanner. An invalid escape sets ``valid=False``. Never raises.
    """
    out: list[str] = []
    res = ScannedString()
    i = quote + 1
    n = len(text)
    while True:
        if i >= n or text[i] in "\r\n":
            res.terminated = False
            res.content_end = res.raw_end = i
            break
        c = text[i]
        if c == '"':
            res.content_end, res.raw_end = i, i + 1
            break
        if c != "\\":
            out.append(c)
            res.starts.append(i)
            res.ends.append(i + 1)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        simple = _SIMPLE_ESCAPES.get(nxt)
        if simple is not None:
            out.append(simple)
            width = 2
        elif nxt == "u" and (cp := _hex4(text, i + 2)) is not None:
            width = 6
            if 0xD800 <= cp < 0xDC00 and text[i + 6 : i + 8] == "\\u":
                low = _hex4(text, i + 8)
                if low is not None and 0xDC00 <= low < 0xE000:
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    width = 12
            out.append(chr(cp))
        else:
            res.valid = False
            i += 1 if nxt in ("", "\r", "\n") else 2
            continue
        res.starts.append(i)
        res.ends.append(i + width)
        i += width
    res.value = "".join(out)
    return res


def _decode_key(src: Source, node: tree_sitter.Node) -> str | None:
    start = src.cp(node.start_byte)
    if src.text[start : start + 1] != '"':
        return None
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


Candidate = tuple[str, tree_sitter.Node, tree_sitter.Node]  # variable, key, value


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


def _candidates(src: Source, root: tree_sitter.Node) -> list[Candidate]:
    """Walk the tree top-down, tracking each container's path from the root. Subtrees
    without syntax errors are not walked in Python: a tree-sitter query finds their
    family pairs (see :func:`_query_candidates`); the walk covers ERROR regions only."""
    out: list[Candidate] = []
    clean: dict[int, _Path] = {}  # node id -> its frame path, for error-free subtrees
    if not root.has_error:
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
            if not kid.has_error:
                clean[kid.id] = path
            else:
                child.kids = [k for k in kid.children if k != key]
                stack.append(child)
        elif kid.type in _CONTAINERS and kid.child_count:
            if not kid.has_error:
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
    cursor = tree_sitter.QueryCursor(query("json", _KEYS_QUERY))
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
    open document) the previous version's tree and spans are reused (see
    :mod:`.incremental`); the result is the same. Never raises.
    """
    src = Source(text)
    edit = cache.edit_for(HOST, text) if cache is not None else None
    tree = src.parse("json", cache.state if cache is not None and edit is not None else None)
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for variable, key, value in _candidates(src, tree.root_node):
        name_start = src.cp(key.start_byte) + 1
        if name_start in contexts:
            continue  # an ERROR region can offer one pair twice (loose tokens and a pair)
        span = None
        if cache is not None:
            span = cache.reusable(edit, variable, name_start, src.cp(value.start_byte), value.type)
        spans.append(span or _span(src, variable, key, value))
        contexts[name_start] = value.type
    spans.sort(key=lambda s: s.name_start)
    if cache is not None:
        cache.computed = len(spans) - cache.reused
        cache.store(text, spans, (src.data, tree), contexts)
    return spans
