"""Where the jsonc host finds candidate values: ``"NAME": value`` pairs of an ``env``
object of a launch/task configuration (also under ``linux``/``windows``/``osx``), or of
the top-level ``containerEnv``/``remoteEnv`` object of a ``devcontainer.json``, found in
tree-sitter-json's tree, including trees with errors (half-typed JSON, trailing commas);
see :mod:`.jsonc`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor
from torch_logs_lsp.hosts.jsonc.strings import scan_string
from torch_logs_lsp.model.spans import FAMILY

if TYPE_CHECKING:
    import tree_sitter


_PLATFORMS = frozenset({"linux", "windows", "osx"})
#: The top-level objects of a ``devcontainer.json`` that set environment variables in the
#: container (the dev container spec, containers.dev/implementors/json_reference/).
CONTAINER_ENVS = frozenset({"containerEnv", "remoteEnv"})
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
_ERRORS = declare_query("json", "(ERROR) @e")


def _push(path: _Path, *segments: str) -> _Path:
    for segment in segments:
        path = (segment, path)
    return path


def _is_env(path: _Path) -> bool:
    """Whether an object at ``path`` is an ``env`` object that VS Code reads, or the
    top-level ``containerEnv``/``remoteEnv`` of a dev container configuration."""
    tail: list[str] = []  # the last (at most 6) segments, innermost first
    while path is not None and len(tail) < 6:
        tail.append(path[0])
        path = path[1]
    at_root = path is None

    def rest_is(i: int, *want: str) -> bool:  # tail[i:] (outward) matches ``want``
        return tail[i : i + len(want)] == list(want)

    if len(tail) == 1 and at_root and tail[0] in CONTAINER_ENVS:
        return True  # devcontainer.json
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


def _unsets(path: _Path, value: tree_sitter.Node) -> bool:
    """Whether ``value`` is a ``null`` in a devcontainer's ``remoteEnv``, which unsets the
    variable (the spec's schema, ``schemas/devContainer.base.schema.json``, allows string
    or null there): no value is set, so no span."""
    return value.type == "null" and path is not None and path[0] == "remoteEnv" and path[1] is None


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
            if key in FAMILY and not kid.is_missing and _is_env(here) and not _unsets(here, kid):
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
    for _, captures in query_cursor(query("json", _ERRORS)).matches(root):
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
                and not _unsets(path, value)
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


_KEYS_QUERY = declare_query(
    "json",
    (
        "((pair key: (string (string_content) @content) (#any-of? @content {names})) @pair)\n"
        "((pair key: (string (escape_sequence))) @pair)"
    ).format(names=" ".join(f'"{name}"' for name in sorted(FAMILY))),
)


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
        if _is_env(path) and not _unsets(path, value):
            out.append((variable or "", key, value))
    return out
