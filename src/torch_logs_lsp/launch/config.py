"""VS Code ``launch.json`` / ``settings.json`` read as data, for :mod:`.launch_links`.

The JSONC host (:mod:`.hosts.jsonc`) finds the ``env`` values of a launch.json; linking a
configuration to the Python file it runs needs the rest of each configuration (``type``,
``request``, ``program``, ``module``, ``cwd``, ``envFile``). Both read the document with
the same parser, tree-sitter-json (``//`` and ``/* */`` comments, trailing commas), and
decode strings with the same RFC 8259 decoder (:func:`.hosts.json_strings.scan_string`).

Only what is certain is returned: a configuration whose object holds a syntax error
(anything but a trailing comma, which VS Code accepts) is left out, and so is one that is
not an object. Offsets are code points into the document text.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.jsonc.strings import scan_string

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

#: A line of an env file as the Python debugger reads it (``parseEnvLine`` of
#: microsoft/vscode-python-debugger ``src/extension/common/variables/environment.ts``).
_ENV_LINE = re.compile(r"^\s*(_*[a-zA-Z]\w*)\s*=\s*(.*?)?\s*$")

#: Deepest nesting converted (deeper values are :data:`BROKEN`): launch configurations
#: are shallow, and the conversion is recursive.
MAX_DEPTH = 32


class _Broken:
    """A value that is not certain: a syntax error inside, an invalid escape, too deep."""

    def __repr__(self) -> str:
        return "BROKEN"


BROKEN = _Broken()


@dataclass(frozen=True)
class Member:
    """One ``"key": value`` of an object: ``value`` is a ``str``, ``int``/``float``,
    ``bool``, ``None``, a ``dict[str, Member]``, a ``list`` of values or :data:`BROKEN`;
    ``key_start``/``key_end`` the key's quotes included, ``value_start``/``value_end`` the
    value's extent (code points into the document)."""

    value: object
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _only_commas(node: tree_sitter.Node) -> bool:
    return node.type == "ERROR" and all(kid.type == "," for kid in node.children)


def _trailing_missing(node: tree_sitter.Node) -> bool:
    """A value MISSING after the last comma of an array (how tree-sitter-json reads a
    trailing comma there)."""
    before = node.prev_sibling
    parent = node.parent
    return (
        node.is_missing
        and parent is not None
        and parent.type == "array"
        and before is not None
        and before.type == ","
    )


def _convert(src: Source, node: tree_sitter.Node, depth: int) -> object:
    """A JSON value node as Python data (see :class:`Member`); :data:`BROKEN` for what is
    not certain. Duplicate keys: the last one wins, as in VS Code's parser."""
    if depth > MAX_DEPTH or node.is_missing:
        return BROKEN
    kind = node.type
    if kind == "string":
        start = src.cp(node.start_byte)
        end = src.cp(node.end_byte)
        inner = src.text[start + 1 : end - 1]
        if (
            end - start >= 2
            and src.text[start] == src.text[end - 1] == '"'
            and '"' not in inner
            and "\\" not in inner
            and inner.isprintable()
        ):
            return inner  # nothing to decode (the common case)
        s = scan_string(src.text, start)
        if not s.terminated or not s.valid or s.raw_end != src.cp(node.end_byte):
            return BROKEN
        return s.value
    if kind == "number":
        raw = src.text[src.cp(node.start_byte) : src.cp(node.end_byte)]
        try:
            return int(raw)
        except ValueError:
            try:
                return float(raw)
            except ValueError:
                return BROKEN
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "null":
        return None
    if kind == "object":
        out: dict[str, Member] = {}
        for kid in node.named_children:
            if kid.type == "comment" or _only_commas(kid):
                continue
            if kid.type != "pair":
                return BROKEN
            key = kid.child_by_field_name("key")
            value = kid.child_by_field_name("value")
            if key is None or value is None:
                return BROKEN
            name = _convert(src, key, depth + 1)
            if not isinstance(name, str):
                return BROKEN
            out[name] = Member(
                _convert(src, value, depth + 1),
                src.cp(key.start_byte),
                src.cp(key.end_byte),
                src.cp(value.start_byte),
                src.cp(value.end_byte),
            )
        return out
    if kind == "array":
        items: list[object] = []
        for kid in node.named_children:
            if kid.type == "comment" or _only_commas(kid) or _trailing_missing(kid):
                continue
            items.append(_convert(src, kid, depth + 1))
        return items
    return BROKEN


def _has_error(node: tree_sitter.Node) -> bool:
    """Whether ``node`` holds a syntax error other than a trailing comma."""
    if not node.has_error:
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if (n.is_missing and not _trailing_missing(n)) or (
            n.type == "ERROR" and not _only_commas(n)
        ):
            return True
        stack.extend(kid for kid in n.children if kid.has_error or kid.is_missing)
    return False


def _root_object(src: Source) -> tree_sitter.Node | None:
    root = src.parse("json").root_node
    objects = [kid for kid in root.named_children if kid.type == "object"]
    others = [kid for kid in root.named_children if kid.type not in ("object", "comment")]
    if len(objects) != 1 or any(not _only_commas(kid) for kid in others):
        return None
    return objects[0]


def _top_member(src: Source, obj: tree_sitter.Node, key: str) -> tree_sitter.Node | None:
    """The value node of the last top-level ``key`` of ``obj`` (``None``: absent)."""
    found: tree_sitter.Node | None = None
    for kid in obj.named_children:
        if kid.type != "pair":
            continue
        k = kid.child_by_field_name("key")
        if k is not None and _convert(src, k, 0) == key:
            found = kid.child_by_field_name("value")
    return found


#: The last few documents read by :func:`launch_configurations` (text -> result): the
#: server asks again for the same launch.json on every edit of a Python document.
_CACHE: dict[str, list[dict[str, Member]] | None] = {}
_CACHE_SIZE = 4


def launch_configurations(text: str) -> list[dict[str, Member]] | None:
    """:func:`_launch_configurations`, remembered for the last few texts (the result is
    shared: callers must not change it)."""
    if text in _CACHE:
        return _CACHE[text]
    result = _launch_configurations(text)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[text] = result
    return result


def _launch_configurations(text: str) -> list[dict[str, Member]] | None:
    """The objects of a launch.json's top-level ``configurations`` array, in order, each
    a dict of :class:`Member` (see there for the values). A configuration with a syntax
    error inside (not a trailing comma) or that is not an object is left out. ``None``
    when the document's top level cannot be read with certainty (no single root object,
    a syntax error outside the array, no ``configurations`` array). Never raises."""
    try:
        src = Source(text)
        obj = _root_object(src)
        if obj is None:
            return None
        array = _top_member(src, obj, "configurations")
        if array is None or array.type != "array":
            return None
        if _has_error(obj) and any(
            _has_error(kid)
            for kid in obj.named_children
            if kid.type != "pair" or not _within(kid, array)
        ):
            return None
        out: list[dict[str, Member]] = []
        for kid in array.named_children:
            if kid.type != "object" or _has_error(kid):
                continue
            value = _convert(src, kid, 1)
            if isinstance(value, dict):
                out.append(value)
        return out
    except Exception:  # a parser bug must not take the caller down
        log.exception("reading launch configurations failed")
        return None


def _within(node: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    """Whether ``inner`` is ``node``'s value (a syntax error in it is the array's, judged
    per configuration)."""
    return node.child_by_field_name("value") == inner


def top_level(text: str) -> dict[str, Member] | None:
    """The top-level object of a JSONC document (``settings.json``) as data, or ``None``
    when it has a syntax error (other than a trailing comma) or is not one object.
    Never raises."""
    try:
        src = Source(text)
        obj = _root_object(src)
        if obj is None or _has_error(obj):
            return None
        value = _convert(src, obj, 0)
        return value if isinstance(value, dict) else None
    except Exception:
        log.exception("reading a JSONC document failed")
        return None


def env_file_line(text: str) -> tuple[int, int, int] | None:
    """Where an env file certainly sets a non-empty ``TORCH_LOGS`` for the Python
    debugger (its ``parseEnvFile``: the last matching line wins): ``(line, start, end)``
    of the name, code points into ``text``; ``None`` when no line sets it, or the last
    one sets an empty value or one with a ``${...}`` substitution."""
    found: tuple[int, int, int, str] | None = None
    offset = 0
    for number, line in enumerate(text.split("\n")):
        m = _ENV_LINE.match(line)
        if m is not None and m.group(1) == "TORCH_LOGS":
            found = (number, offset + m.start(1), offset + m.end(1), m.group(2) or "")
        offset += len(line) + 1
    if found is None:
        return None
    number, start, end, value = found
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    if not value or "${" in value:
        return None
    return number, start, end


__all__ = [
    "BROKEN",
    "MAX_DEPTH",
    "Member",
    "env_file_line",
    "launch_configurations",
    "top_level",
]
