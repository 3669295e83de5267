"""Value expressions of the Python host decoded into value spans (see :mod:`.python`).

Offsets are code points into the document; nodes come from tree-sitter-python.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.python.strings import Literal, decode_literal
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

if TYPE_CHECKING:
    import tree_sitter

HOST: HostKind = "python"


def unwrap(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """``node`` without the parentheses around it (``(("a" "b"))`` -> the concatenation)."""
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            return node
        node = inner[0]
    return node


def literal(src: Source, node: tree_sitter.Node) -> Literal | None:
    """A ``string`` node decoded (``None`` when it is not a complete literal)."""
    if node.type != "string":
        return None
    kids = node.children
    if not kids or kids[-1].type != "string_end" or kids[-1].is_missing:
        return None
    return decode_literal(src.text, src.cp(node.start_byte), src.cp(node.end_byte))


def key_of(src: Source, node: tree_sitter.Node) -> tuple[str, int, int] | None:
    """A family name written as a ``str`` literal: (name, content start, content end)."""
    lit = literal(src, node)
    if lit is None or lit.value not in FAMILY:
        return None
    return lit.value, lit.content_start, lit.content_end


def value_span(
    src: Source, variable: str, name: tuple[int, int], value: tree_sitter.Node | None
) -> ValueSpan:
    """The span of ``variable`` (its name at the document range ``name``) whose value is
    the expression ``value``: decoded when it is a ``str`` literal or an implicit
    concatenation of them (parentheses allowed), else ``value=None`` over the expression."""
    value = unwrap(value)
    if value is None:  # cannot happen for a parsed pair or assignment; keep it safe
        return ValueSpan(variable, HOST, *name, None, (), (), name[1], name[1], name[1], name[1])
    start, end = src.cp(value.start_byte), src.cp(value.end_byte)
    parts = [value] if value.type == "string" else None
    if value.type == "concatenated_string":
        parts = [c for c in value.named_children if c.type == "string"]
        if len(parts) != len([c for c in value.named_children if c.type != "comment"]):
            parts = None
    lits = [literal(src, p) for p in parts or ()]
    if not parts or any(lit is None or lit.value is None for lit in lits):
        return ValueSpan(variable, HOST, *name, None, (), (), start, end, start, end, None)
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for lit in lits:
        assert lit is not None and lit.value is not None  # checked above
        chars.append(lit.value)
        starts.extend(lit.starts)
        ends.extend(lit.ends)
    first, last = lits[0], lits[-1]
    assert first is not None and last is not None
    quote = first.quote if len(lits) == 1 else None
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=name[0],
        name_end=name[1],
        value="".join(chars),
        char_starts=tuple(starts),
        char_ends=tuple(ends),
        content_start=first.content_start,
        content_end=last.content_end,
        raw_start=start,
        raw_end=end,
        quote=quote,
    )


#: After a key string: ``] =`` (an assignment) or ``:`` (a dict entry), then the opening
#: quote of a one-line literal (its prefix may be ``r``/``u``).
_OPEN = re.compile(r"""[ \t]*(?:\][ \t]*=(?!=)|:)[ \t]*([rRuU]?)("|')(?!\2)""")


def unterminated(
    src: Source, found: tuple[str, int, int], key: tree_sitter.Node
) -> ValueSpan | None:
    """The value being typed after ``K] =`` or ``K:`` when its quote is not closed on
    its line (tree-sitter then has no string node for it): a span to the line end with
    ``terminated=False`` (never diagnosed; completion and hover work in it). ``None``
    when the quote is closed, or the line ends with a continuation backslash."""
    text = src.text
    m = _OPEN.match(text, src.cp(key.end_byte))
    if m is None:
        return None
    quote, i = m.group(2), m.end()
    end = len(text)
    for brk in ("\n", "\r"):
        at = text.find(brk, i)
        if at >= 0:
            end = min(end, at)
    while i < end:
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return None
        else:
            i += 1
    if i > end:
        return None  # a backslash before the line break continues the literal
    lit = decode_literal(text, m.start(1), end, terminated=False)
    if lit.value is None:
        return None
    return ValueSpan(
        variable=found[0],
        host=HOST,
        name_start=found[1],
        name_end=found[2],
        value=lit.value,
        char_starts=tuple(lit.starts),
        char_ends=tuple(lit.ends),
        content_start=lit.content_start,
        content_end=end,
        raw_start=m.start(1),
        raw_end=end,
        quote=quote,
        terminated=False,
    )
