"""Values whose quote is still open (being typed) in the YAML host: tree-sitter-yaml
gives no scalar for ``TORCH_LOGS: "+dyn`` (an ERROR node, sometimes over the whole
document), so these lines are found in the text: a ``KEY: "...`` line, or a Compose
``- "KEY=...`` item, under an ``env:``/``environment:``/``variables:`` line with less
indentation, whose quote is not closed on the line. The span runs to the end of the line
with ``terminated=False`` (as the JSONC host does), for completion while typing; the
checker never reports such a value as saved. Offsets are code points into the document.
"""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.interface import lines_back
from torch_logs_lsp.hosts.yaml.scalars import decode_scalar
from torch_logs_lsp.hosts.yaml.values import expand
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan

HOST: HostKind = "yaml"
_FAMILY = r"TORCH_LOGS(?:_OUT|_FORMAT|_TRACE_ID_FILTER)?|TORCH_TRACE|TORCH_COMPILE_DEBUG"
_OPEN = re.compile(
    rf"^(?P<lead>[ \t]*)(?:(?P<key>{_FAMILY})[ \t]*:[ \t]+(?P<q>[\"'])"
    rf"|-[ \t]+(?P<iq>[\"'])(?P<item>{_FAMILY})=)",
    re.M,
)
_PARENT = re.compile(r"^[ \t]*(?:-[ \t]+)?(env|environment|variables)[ \t]*:[ \t]*(?:#.*)?$")


def _parent(text: str, line_start: int, indent: int) -> str | None:
    """The key of the nearest line before ``line_start`` with less indentation (blank
    and comment lines skipped), when it is a bare ``key:`` line; else ``None``."""
    for line in lines_back(text, line_start):
        if len(line) - len(line.lstrip(" \t")) >= indent:
            continue
        m = _PARENT.match(line)
        return m.group(1) if m else None
    return None


def open_spans(text: str, flavour: str, taken: set[int]) -> list[ValueSpan]:
    """The spans of family values whose quote is never closed on their line (see the
    module docstring); ``taken``: name offsets that already have a span (skipped)."""
    out: list[ValueSpan] = []
    for m in _OPEN.finditer(text):
        item = m.group("item") is not None
        variable = m.group("item") or m.group("key")
        name_start = m.start("item") if item else m.start("key")
        if name_start in taken:
            continue
        quote_at = m.start("iq") if item else m.start("q")
        line_end = len(text)
        for stop in ("\n", "\r"):
            found = text.find(stop, quote_at)
            if found >= 0:
                line_end = min(line_end, found)
        if decode_scalar(text, quote_at, line_end).terminated:
            continue
        # The line read as if its quote were closed at its end (the decoder's own answer
        # for an open quote may have no value): the same offsets, one quote added.
        quote = text[quote_at]
        sc = decode_scalar(text[:line_end] + quote, quote_at, line_end + 1)
        if not sc.terminated or sc.content_end != line_end:
            continue  # a `\` at the end escapes the added quote: not read
        indent = len(m.group("lead")) + (0 if not item else 1)
        parent = _parent(text, m.start(), indent)
        if parent is None or (item and parent != "environment"):
            continue
        value, starts, ends = sc.value, sc.starts, sc.ends
        content_start = sc.content_start
        if item:
            skip = len(variable) + 1  # `KEY=` inside the quotes
            content_start = ends[skip - 1] if value is not None and len(ends) >= skip else 0
            if value is None or len(value) < skip:
                continue
            value, starts, ends = value[skip:], starts[skip:], ends[skip:]
        if value is not None:
            value, starts, ends = expand(flavour, value, starts, ends)
        out.append(
            ValueSpan(
                variable,
                HOST,
                name_start,
                name_start + len(variable),
                value,
                starts if value else (),
                ends if value else (),
                content_start,
                line_end,
                quote_at if not item else content_start,
                line_end,
                quote,
                False,
            )
        )
    return out


_EMPTY = re.compile(rf"^(?P<lead>[ \t]*)(?P<key>{_FAMILY})[ \t]*:[ \t]+$", re.M)


def empty_value_at(text: str, offset: int) -> str | None:
    """The variable whose empty plain value the cursor at ``offset`` (code points) is
    in: a ``KEY: `` line under ``env:``/``environment:``/``variables:`` (less indented),
    with the cursor after the blank that follows the colon and only blanks or a comment
    after it on the line. Such a value is null (no span: Compose takes the variable from
    the shell), but while typing it is where a value goes (completion). ``None``
    elsewhere."""
    line_start = text.rfind("\n", 0, offset) + 1
    m = _EMPTY.match(text, line_start, offset)
    if m is None:
        return None
    line_end = len(text)
    for stop in ("\n", "\r"):
        found = text.find(stop, offset)
        if found >= 0:
            line_end = min(line_end, found)
    rest = text[offset:line_end].strip(" \t")
    if rest and not rest.startswith("#"):
        return None
    if _parent(text, line_start, len(m.group("lead"))) is None:
        return None
    return m.group("key")
