"""Overwritten values in a Python file (:meth:`.interface.Host.overwritten`).

Two cases, both certain by Python's semantics (checked with ``ast`` and ``exec`` in the
tests):

- a dict display with the same key twice (``env={"TORCH_LOGS": "a", "TORCH_LOGS": "b"}``,
  ``os.environ.update({...})``): the dict keeps the last value (language reference,
  "Dictionary displays"); a key inside a nested dict or after ``**`` is another dict;
- two module-level statements ``os.environ["TORCH_LOGS"] = "..."`` (or ``environ[...]``
  after ``from os import environ``) with nothing between them but comments and other such
  writes of string literals to ``os.environ``: no call, import or other statement runs in
  between, so no code can read the first value. The later value must be a string literal
  too (no f-string, no name: ``os.environ["TORCH_LOGS"] + ",x"`` reads the first one).

Offsets are code points into the document; the tree is tree-sitter-python's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.hosts.python.order import _environ_names, _key_node, _text
from torch_logs_lsp.model.spans import ValueSpan

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

_IN_DICT = "this dict gives {name} again, and a dict keeps the last value"
_WRITTEN = "os.environ[{name!r}] is set again before any other code runs"


def _literal(node: tree_sitter.Node | None) -> bool:
    """A string literal or an implicit concatenation of them, without interpolation."""
    if node is None:
        return False
    if node.type == "concatenated_string":
        return all(_literal(c) for c in node.named_children)
    return node.type == "string" and not any(c.type == "interpolation" for c in node.children)


def _environ_write(data: bytes, stmt: tree_sitter.Node, environ: frozenset[str]) -> bool:
    """Whether ``stmt`` is ``<os.environ>["LITERAL"] = "literal"`` (nothing that runs code)."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return False
    assign = stmt.named_children[0]
    if assign.type != "assignment" or assign.child_by_field_name("type") is not None:
        return False
    left = assign.child_by_field_name("left")
    if left is None or left.type != "subscript":
        return False
    keys = left.children_by_field_name("subscript")
    return (
        _text(data, left.child_by_field_name("value")) in environ
        and len(keys) == 1
        and _literal(keys[0])
        and _literal(assign.child_by_field_name("right"))
    )


def dead_writes(
    text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None = None
) -> list[Overwrite]:
    """The overwritten spans of a Python document (see the module docstring); ``tree``:
    its tree when the caller has it. Never raises (a failure gives ``[]``, logged)."""
    if len(spans) < 2 or len({s.variable for s in spans}) == len(spans):
        return []
    try:
        return _dead_writes(text, spans, tree)
    except Exception:  # bad input never crashes the checker
        log.exception("finding overwritten Python values failed")
        return []


def _dead_writes(
    text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None
) -> list[Overwrite]:
    src = Source(text, lone_cr_is_lf=True)
    root = (tree or src.parse("python")).root_node
    environ = _environ_names(text)
    in_dict: dict[tuple[int, str], int] = {}
    written: dict[str, tuple[int, tree_sitter.Node]] = {}  # variable -> last write
    out: list[Overwrite] = []
    for i, span in enumerate(spans):
        key = _key_node(src, root, span)
        parent = key.parent if key is not None else None
        if key is None or parent is None:
            continue
        if parent.type == "pair" and parent.child_by_field_name("key") == key:
            display = parent.parent
            if display is not None and display.type == "dictionary":
                group = (display.start_byte, span.variable)
                if group in in_dict:
                    why = _IN_DICT.format(name=span.variable)
                    out.append(Overwrite(in_dict[group], i, why))
                in_dict[group] = i
            continue
        stmt = parent.parent.parent if parent.parent is not None else None
        if (
            parent.type != "subscript"
            or stmt is None
            or stmt.parent is None
            or stmt.parent.type != "module"
            or not _environ_write(src.data, stmt, environ)
        ):
            written.pop(span.variable, None)  # another kind of write: not followed
            continue
        before = written.get(span.variable)
        written[span.variable] = (i, stmt)
        if before is not None and _quiet_between(src.data, before[1], stmt, environ):
            out.append(Overwrite(before[0], i, _WRITTEN.format(name=span.variable)))
    return out


def _quiet_between(
    data: bytes, first: tree_sitter.Node, second: tree_sitter.Node, environ: frozenset[str]
) -> bool:
    """Whether only comments and literal ``os.environ`` writes stand between two
    statements of the module."""
    node = first.next_named_sibling
    while node is not None and node != second:
        if node.type != "comment" and not _environ_write(data, node, environ):
            return False
        node = node.next_named_sibling
    return node == second


__all__ = ["dead_writes"]
