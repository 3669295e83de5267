"""Where the YAML host finds environment values (see :mod:`.yaml`): the entries of a
mapping under a key ``env``, ``environment`` or ``variables`` at any depth, in the forms
the tools write them:

- ``env: {TORCH_LOGS: value}`` (Compose ``environment``, GitHub Actions ``env`` at any
  level, GitLab ``variables``, and any other YAML);
- Compose's list form ``environment: ["TORCH_LOGS=+dynamo"]`` (the value is everything
  after the first ``=``; an item without ``=`` takes the variable from the shell: no
  span);
- Kubernetes' ``env: [{name: TORCH_LOGS, value: ...}]`` (``valueFrom``: no span; the
  span's name is the ``name`` scalar's content, which may follow the value:
  ``- value: x`` then ``name: TORCH_LOGS``);
- GitLab's ``variables: {TORCH_LOGS: {value: ..., description: ..., expand: false}}``.

The value's ``$`` rules and non-string scalars follow the document's flavour
(:mod:`.yaml_values`). Aliases and tagged values give a span without a value. All offsets
are code points into the document.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor
from torch_logs_lsp.hosts.yaml.scalars import plain_is_string
from torch_logs_lsp.hosts.yaml.tree import (
    GITLAB,
    MAPPINGS,
    SCALARS,
    SEQUENCES,
    column,
    entry_indent,
    flavour_at,
    get,
    inner,
    items,
    key_of,
    mapping_of,
    pairs,
    scalar,
)
from torch_logs_lsp.hosts.yaml.values import expand, non_string
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan, names_family

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

HOST: HostKind = "yaml"
ENV_KEYS = ("env", "environment", "variables")

_KEY = "(flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @k)"
_IS_ENV = '#match? @k "^[\\"\']?(env|environment|variables)[\\"\']?$"'
_ENV_QUERY = declare_query(
    "yaml",
    f"((block_mapping_pair key: {_KEY} value: (_) @v) @p ({_IS_ENV}))\n"
    f"((flow_pair key: {_KEY} value: (_) @v) @p ({_IS_ENV}))",
)


def _unknown(variable: str, name: tuple[int, int], start: int, end: int) -> ValueSpan:
    """A span without a static value over the document's ``[start, end)``."""
    return ValueSpan(variable, HOST, name[0], name[1], None, (), (), start, end, start, end)


def _key_range(src: Source, pair: tree_sitter.Node) -> tuple[int, int] | None:
    """The document range of a pair's key content (between its quotes)."""
    found = inner(pair.child_by_field_name("key"))
    if found.node is None or found.tagged or found.node.type not in SCALARS:
        return None
    sc = scalar(src, found.node)
    return sc.content_start, sc.content_end


def value_span(
    src: Source,
    flavour: str,
    variable: str,
    name: tuple[int, int],
    value: tree_sitter.Node | None,
    indent: int,
    raw: bool = False,
    value_first: bool = False,
) -> ValueSpan | None:
    """The span of ``variable`` (its name at the document range ``name``) whose value is
    the node ``value`` (``block_node``/``flow_node``) of a ``flavour`` document; ``indent``:
    the column of the entry (block scalars); ``raw``: GitLab ``expand: false``. ``None``
    when nothing is set there (null, a collection, a non-string the reader rejects).
    ``value_first``: the value may stand before its name (a Kubernetes item written
    ``- value: ...`` then ``name: ...``: the span's name then follows its value)."""
    while True:  # a GitLab ``{value: ...}`` mapping: its value (a loop: any depth)
        found = inner(value)
        node = found.node
        if node is None:
            return None
        start, end = src.cp(node.start_byte), src.cp(node.end_byte)
        if start < name[1] and not (value_first and end <= name[0]):
            return None  # a value overlapping its name
        if found.alias or found.tagged:
            return _unknown(variable, name, start, end)
        if not (node.type in MAPPINGS and flavour == GITLAB):
            break
        entry = mapping_of(value)
        literal = get(src, entry, "expand")
        raw = raw or (literal is not None and _plain(src, literal) == "false")
        value = get(src, entry, "value")
    if node.type not in SCALARS:
        return None
    sc = scalar(src, node, indent)
    if sc.value is None:
        return ValueSpan(
            variable,
            HOST,
            name[0],
            name[1],
            None,
            (),
            (),
            sc.content_start,
            max(sc.content_start, sc.content_end),
            start,
            max(start, end, sc.content_end),
            sc.quote,
            sc.terminated,
        )
    text: str | None = sc.value
    starts, ends = sc.starts, sc.ends
    if sc.quote == "" and not plain_is_string(sc.value):
        kept = non_string(flavour, sc.value)
        if kept is False:
            return None
        text = kept if isinstance(kept, str) else None
    if text is not None:
        text, starts, ends = expand(flavour, text, starts, ends, raw)
    return ValueSpan(
        variable,
        HOST,
        name[0],
        name[1],
        text,
        starts if text else (),
        ends if text else (),
        sc.content_start,
        sc.content_end,
        start,
        max(end, sc.content_end),
        sc.quote,
        sc.terminated,
    )


def _plain(src: Source, value: tree_sitter.Node) -> str | None:
    found = inner(value)
    if found.node is None or found.tagged or found.node.type != "plain_scalar":
        return None
    return scalar(src, found.node).value


def _list_item(src: Source, flavour: str, item: tree_sitter.Node) -> ValueSpan | None:
    """A Compose ``- NAME=value`` item."""
    found = inner(item)
    node = found.node
    if node is None or found.tagged or found.alias or node.type not in SCALARS:
        return None
    if not names_family(src.text[src.cp(node.start_byte) : src.cp(node.end_byte)]):
        return None
    sc = scalar(src, node, entry_indent(src, item))
    value = sc.value
    if value is None or "=" not in value:
        return None
    eq = value.index("=")
    variable = value[:eq]
    if variable not in FAMILY or not sc.terminated:
        return None
    name = (sc.starts[0], sc.ends[eq - 1])
    rest, starts, ends = value[eq + 1 :], sc.starts[eq + 1 :], sc.ends[eq + 1 :]
    content_start = starts[0] if rest else sc.ends[eq]
    content_end = ends[-1] if rest else content_start
    text, starts, ends = expand(flavour, rest, starts, ends)
    return ValueSpan(
        variable,
        HOST,
        name[0],
        name[1],
        text,
        starts if text else (),
        ends if text else (),
        content_start,
        content_end,
        content_start,
        content_end,
        sc.quote,
        True,
    )


def _named_item(src: Source, flavour: str, item: tree_sitter.Node) -> ValueSpan | None:
    """A Kubernetes ``- name: NAME`` / ``value: ...`` item."""
    entry = mapping_of(item)
    name_node = get(src, entry, "name")
    if entry is None or name_node is None or get(src, entry, "valueFrom") is not None:
        return None
    found = inner(name_node)
    if found.node is None or found.tagged or found.node.type not in SCALARS:
        return None
    sc = scalar(src, found.node)
    if sc.value not in FAMILY or not sc.value:
        return None
    value = get(src, entry, "value")
    if value is None:
        return None
    name = (sc.content_start, sc.content_end)
    return value_span(src, flavour, sc.value, name, value, column(src, entry), value_first=True)


def env_spans(src: Source, root: tree_sitter.Node, flavours: dict[int, str]) -> list[ValueSpan]:
    """The spans of every environment entry under ``root`` (see the module docstring);
    ``flavours``: the flavour of each document node (by node id). Unordered."""
    out: list[ValueSpan] = []
    for _, captures in query_cursor(query("yaml", _ENV_QUERY)).matches(root):
        try:
            _entries(src, captures["p"][0], captures["v"][0], flavours, out)
        except Exception:  # one odd place (an ERROR region) costs only its own spans
            log.exception("yaml: an environment entry could not be read")
    return out


def _entries(
    src: Source,
    pair: tree_sitter.Node,
    value: tree_sitter.Node,
    flavours: dict[int, str],
    out: list[ValueSpan],
) -> None:
    """Add the spans of the environment mapping or list ``value`` (of ``pair``)."""
    if not names_family(src.text[src.cp(value.start_byte) : src.cp(value.end_byte)]):
        return  # (most environments of a large file set other variables)
    key = key_of(src, pair)
    if key not in ENV_KEYS:
        return
    flavour = flavour_at(flavours, pair)
    found = inner(value)
    node = found.node
    if node is None or found.tagged or found.alias:
        return
    if node.type in MAPPINGS:
        for entry in pairs(node):
            variable = key_of(src, entry)
            name = _key_range(src, entry) if variable in FAMILY else None
            if variable is None or name is None:
                continue
            span = value_span(
                src,
                flavour,
                variable,
                name,
                entry.child_by_field_name("value"),
                column(src, entry),
            )
            if span is not None:
                out.append(span)
    elif node.type in SEQUENCES:
        for item in items(node):
            span = None
            if key == "environment":
                span = _list_item(src, flavour, item)
            else:  # Kubernetes env, Azure Pipelines variables
                span = _named_item(src, flavour, item)
            if span is not None:
                out.append(span)
