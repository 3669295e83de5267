"""The YAML host's edits: a value re-encoded for its scalar's quoting (through the shell
quoting too, for a value in a ``run:`` step), the removal of an environment entry, and
where a variable name is being typed (host interface functions of :mod:`.yaml`).
Offsets are code points into the document."""

from __future__ import annotations

import re

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.embedded import LAYER, encode_layers
from torch_logs_lsp.hosts.interface import line_before, line_bounds, lines_back
from torch_logs_lsp.hosts.yaml import scalars as yaml_scalars
from torch_logs_lsp.hosts.yaml.tree import key_of
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.spans import ValueSpan


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a part of a scalar quoted with ``quote`` (``""``, ``'``,
    ``"``, ``|``, ``>``: :func:`.yaml_scalars.encode_part`); a layered quote (shell code
    in a ``run:`` block, see :mod:`.embedded`) encodes through the shell quoting first."""
    if LAYER in quote:
        return encode_layers(quote, value, yaml_scalars.encode_part)
    return yaml_scalars.encode_part(quote, value)


def _whole_lines(text: str, start: int, end: int) -> TextEdit | None:
    """An edit removing the lines ``[start, end)`` lies on, when nothing but blanks is
    before ``start`` on its line and nothing but blanks or a comment after ``end``."""
    ls, le, after = line_bounds(text, start, end)
    rest = text[end:le].strip(" \t")
    if text[ls:start].strip(" \t") or (rest and not rest.startswith("#")):
        return None
    return TextEdit(ls, after, "")


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The entry's lines: a ``KEY: value`` pair of a block mapping with other entries,
    a list item (``- TORCH_LOGS=...``, a Kubernetes ``- name: ...`` item) of a block
    sequence with other items. ``None`` for anything else (a flow collection, the only
    entry, shell code in a ``run:`` step)."""
    if span.quote is not None and LAYER in span.quote:
        return None
    src = Source(text)
    tree = src.parse("yaml")
    at = src.byte(span.name_start)
    node = tree.root_node.descendant_for_byte_range(at, at)
    entry = None
    while node is not None:
        if node.type == "block_sequence_item":
            entry = node
            break
        if node.type == "block_mapping_pair":
            key = node.child_by_field_name("key")
            at_key = key is not None and src.cp(key.start_byte) <= span.name_start
            if at_key and key_of(src, node) == span.variable:
                entry = node
                break
        node = node.parent
    if entry is None or entry.parent is None:
        return None
    if len([k for k in entry.parent.named_children if k.type == entry.type]) < 2:
        return None
    edit = _whole_lines(text, src.cp(entry.start_byte), src.cp(entry.end_byte))
    return None if edit is None else (f"Remove the {span.variable} entry", edit)


_ENV_LINE = re.compile(r"^([ \t]*)(?:-[ \t]+)?(env|environment|variables)[ \t]*:[ \t]*(?:#.*)?$")
_TYPED = re.compile(r"^([ \t]*)(-[ \t]+)?(name:[ \t]*)?([A-Za-z_][A-Za-z0-9_]*)?$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t-"))


def typed_name(text: str, offset: int) -> str | None:
    """A key being typed in a block mapping under ``env:``, ``environment:`` or
    ``variables:``; an item of an ``environment:`` list (``- TORCH_``); the ``name:`` of
    an item of an ``env:`` list (Kubernetes)."""
    m = _TYPED.match(line_before(text, offset))
    if m is None:
        return None
    indent = len(m.group(1))
    dash, name = m.group(2) is not None, m.group(3) is not None
    line_start = text.rfind("\n", 0, offset) + 1
    # The previous non-blank, non-comment line with less indentation is the parent key.
    for line in lines_back(text, line_start):
        stripped = line.strip()
        if name and not dash and stripped.startswith("- ") and _indent(line) == indent:
            dash = True  # `name:` on the item's second line: its parent is the item's `-`
            indent = len(line) - len(line.lstrip(" \t"))
            continue
        lead = len(line) - len(line.lstrip(" \t"))
        if lead > indent or (lead == indent and not dash):
            continue
        parent = _ENV_LINE.match(line)
        if parent is None:
            return None
        key = parent.group(2)
        if name:
            ok = dash and key == "env"
        elif dash:
            ok = key == "environment"
        else:
            ok = lead < indent
        return m.group(4) or "" if ok else None
    return None
