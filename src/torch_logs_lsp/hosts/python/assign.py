"""Where the Python host finds a family value: the expression assigned to a family name
(a subscript assignment, a pair call such as ``setenv``/``setdefault``, keyword arguments
of ``update``/``dict``, a pair of a dict display that is an environment), found from the
name's node in tree-sitter-python's tree (see :mod:`.python`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source

if TYPE_CHECKING:
    import tree_sitter


#: Calls whose arguments hold a family value: the last name of the called expression ->
#: how the value is passed (``"pair"``: ``f(K, v)``; ``"keywords"``: ``f(K=v)``).
_CALLS = {"setdefault": "pair", "putenv": "pair", "setenv": "pair"}
_CALLS.update({"update": "keywords", "dict": "keywords"})


def _call_name(call: tree_sitter.Node) -> str | None:
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "attribute":
        fn = fn.child_by_field_name("attribute")
    if fn is None or fn.type != "identifier" or fn.text is None:
        return None
    return fn.text.decode("utf-8", "replace")


def _value_of(src: Source, key: tree_sitter.Node) -> tree_sitter.Node | None:
    """The value expression assigned to the family name ``key`` (a string or a keyword
    identifier), or ``None`` when the name is not assigned there (a read, a comment)."""
    parent = key.parent
    if parent is None:
        return None
    kind = parent.type
    if kind == "pair" and parent.child_by_field_name("key") == key:
        if not _environment_display(src, parent):
            return None  # a mapping that is no environment (help texts, rename tables)
        return parent.child_by_field_name("value")
    if kind == "subscript" and parent.child_by_field_name("subscript") == key:
        outer = parent.parent
        if outer is None or outer.type != "assignment":
            return None
        if outer.child_by_field_name("left") != parent:
            return None  # a read
        right = outer.child_by_field_name("right")
        while right is not None and right.type == "assignment":  # a[K] = b = v
            right = right.child_by_field_name("right")
        return right
    if kind == "keyword_argument" and parent.child_by_field_name("value") == key:
        return _pair_value(parent.parent, parent)
    if kind == "keyword_argument" and parent.child_by_field_name("name") == key:
        args = parent.parent
        call = args.parent if args is not None else None
        if (
            call is not None
            and call.type == "call"
            and _CALLS.get(_call_name(call) or "") == ("keywords")
        ):
            return parent.child_by_field_name("value")
        return None
    if kind == "argument_list":
        return _pair_value(parent, key)
    return None


#: The parameter names of the ``"pair"`` calls that take keywords: pytest's
#: ``MonkeyPatch.setenv(name, value, prepend=None)`` and ``MutableMapping.setdefault(key,
#: default=None)``; ``os.putenv`` takes positional arguments only.
_PAIR_KEYWORDS = {"setenv": ("name", "value"), "setdefault": ("key", "default")}


def _pair_value(args: tree_sitter.Node | None, key: tree_sitter.Node) -> tree_sitter.Node | None:
    """The value of a ``"pair"`` call (:data:`_CALLS`) whose name argument is ``key``
    (the first positional argument, or the ``keyword_argument`` naming it): the second
    positional argument or the value keyword (``setenv("K", value=v)``, ``setenv(name="K",
    value=v)``), else ``None``."""
    call = args.parent if args is not None else None
    if args is None or call is None or call.type != "call" or args.type != "argument_list":
        return None
    name = _call_name(call) or ""
    if _CALLS.get(name) != "pair":
        return None
    children = [c for c in args.named_children if c.type != "comment"]
    positional = [c for c in children if c.type not in _NOT_POSITIONAL]
    keywords = {
        _text_of(c.child_by_field_name("name")): c.child_by_field_name("value")
        for c in children
        if c.type == "keyword_argument"
    }
    if any(c.type in ("list_splat", "dictionary_splat") for c in children):
        return None  # arguments we cannot see
    names = _PAIR_KEYWORDS.get(name)
    if key.type == "keyword_argument":
        if names is None or _text_of(key.child_by_field_name("name")) != names[0] or positional:
            return None
        value = keywords.get(names[1])
        # a span's name comes before its value (setenv(value=v, name=K) is not taken)
        return value if value is not None and value.start_byte > key.end_byte else None
    if not positional or positional[0] != key:
        return None
    if len(positional) >= 2:
        return positional[1]
    return keywords.get(names[1]) if names is not None else None


_NOT_POSITIONAL = frozenset({"keyword_argument", "list_splat", "dictionary_splat"})


def _text_of(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


#: Calls whose positional arguments are environments (``os.environ.update({...})``,
#: ``mock.patch.dict(os.environ, {...})``, ``dict({...})``, ``os.execve(p, a, {...})``).
_ENV_ARGUMENT_CALLS = frozenset(
    {"update", "dict", "execve", "execle", "execlpe", "execvpe", "spawnve", "spawnvpe"}
)


def _environment_display(src: Source, pair: tree_sitter.Node) -> bool:
    """Whether a dict display certainly builds an environment: it spreads one
    (``{**os.environ, ...}``), is merged into one (``os.environ |= {...}``), is the
    argument of a call that takes one (keyword ``env=``
    / ``environ=`` / ``values=``, or a positional argument of :data:`_ENV_ARGUMENT_CALLS`),
    or is assigned to a name that the text passes as ``env=NAME`` or spreads (``**NAME``,
    ``.update(NAME)``). Any other mapping keyed by a family name is not an environment:
    no finding and no fix (a help text ``{"TORCH_LOGS": "comma-separated names"}``).
    ``pair``: the ``K: v`` pair of the family name. While it is typed (``run(c,
    env={"TORCH_LOGS": "a",``, no dictionary node yet) the text before it decides."""
    display = pair.parent
    if display is not None and display.type == "ERROR":
        before = src.data[max(0, pair.start_byte - 256) : pair.start_byte]
        return re.search(rb"\benv\s*=\s*\{[^{}]*$", before) is not None
    if display is None or display.type != "dictionary":
        return False
    if any(c.type == "dictionary_splat" for c in display.named_children):
        return True
    parent = display.parent
    if parent is None:
        return False
    if parent.type == "ERROR":  # being typed: `run(c, env={"TORCH_LOGS": "a"},`
        before = src.data[max(0, display.start_byte - 64) : display.start_byte]
        return re.search(rb"\benv\s*=\s*$", before) is not None
    if parent.type == "keyword_argument":
        keyword = parent.child_by_field_name("name")
        return keyword is not None and keyword.text in (b"env", b"environ", b"values")
    if parent.type == "argument_list":
        call = parent.parent
        return call is not None and (_call_name(call) or "") in _ENV_ARGUMENT_CALLS
    if parent.type == "augmented_assignment":  # os.environ |= {...} (Python 3.9+)
        left = parent.child_by_field_name("left")
        operator = parent.child_by_field_name("operator")
        return _text_of(operator) == "|=" and _text_of(left).endswith("environ")
    if parent.type == "assignment" and parent.child_by_field_name("right") == display:
        left = parent.child_by_field_name("left")
        if left is None or left.type != "identifier" or left.text is None:
            return False
        var = re.escape(left.text.decode("utf-8", "replace"))
        uses = rf"\benv\s*=\s*{var}\b|\*\*{var}\b|\.update\(\s*{var}\s*\)"
        return re.search(uses, src.text) is not None
    return False


def _string_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The ``string`` node holding a found name (its content), or the keyword name."""
    if node.type == "identifier":
        return node
    while node is not None and node.type != "string":
        if node.type not in ("string_content", "string_start", "string_end"):
            return None
        parent = node.parent
        if parent is None:
            return None
        node = parent
    return node
