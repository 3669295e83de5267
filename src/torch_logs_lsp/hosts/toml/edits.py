"""The TOML host's edits: a value re-encoded for its string style (and for pytest-env's
brace doubling inside an ``env`` entry), the removal of an entry, and where a variable
name is being typed (host interface functions of :mod:`.toml`). Offsets are code
points into the document."""

from __future__ import annotations

import re

from torch_logs_lsp.hosts import pytest_env
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.interface import line_bounds
from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.spans import ValueSpan


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a TOML string of style ``quote`` (``"``, ``'``,
    ``\"\"\"``, ``'''``: :func:`.toml_strings.encode_part`). A pytest-env value's quote
    is the TOML style, :data:`~.embedded.LAYER` and ``pytest-env`` (braces doubled, as
    ``str.format`` reads them) or ``pytest-env-raw``: encoded for pytest-env first
    (:func:`.pytest_env.encode_value`). ``None`` when it cannot be written so (also for
    an unquoted value: a TOML integer)."""
    if LAYER in quote:
        outer, inner = quote.split(LAYER, 1)
        if inner not in ("pytest-env", "pytest-env-raw"):
            return None
        body = pytest_env.encode_value(value, transform=inner == "pytest-env")
        return toml_strings.encode_part(outer, body) if body is not None else None
    return toml_strings.encode_part(quote, value)


def _string_around(text: str, span: ValueSpan) -> tuple[int, int] | None:
    """The string token holding a pytest-env entry's span: (start, end)."""
    line_start = text.rfind("\n", 0, span.name_start) + 1
    for m in re.finditer(r"\"\"\"|'''|\"|'", text[line_start : span.name_start]):
        s = toml_strings.decode(text, line_start + m.start())
        if s is not None and s.content_start <= span.name_start and s.end >= span.raw_end:
            return s.start, s.end
    return None


def _whole_line(text: str, start: int, end: int) -> TextEdit | None:
    """The line(s) of ``[start, end)`` when nothing else but blanks, a comma and a
    comment is on them."""
    ls, le, after = line_bounds(text, start, end)
    rest = text[end:le].strip(" \t")
    rest = rest[1:].strip(" \t") if rest.startswith(",") else rest
    if text[ls:start].strip(" \t") or (rest and not rest.startswith("#")):
        return None
    return TextEdit(ls, after, "")


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """A pytest-env ``env`` list item (the whole string, with its comma: its line when it
    is alone on it) or a table entry ``NAME = "value"`` on its own line. ``None`` for
    anything else (a line of a multi-line string, an entry in an inline table)."""
    quote = span.quote or ""
    if LAYER in quote:
        around = _string_around(text, span)
        if around is None or text[around[0] : around[0] + 3] in ('"""', "'''"):
            return None
        start, end = around
        edit = _whole_line(text, start, end)
        if edit is None:
            j = end
            while j < len(text) and text[j] in " \t":
                j += 1
            if j < len(text) and text[j] == ",":
                k = j + 1
                while k < len(text) and text[k] in " \t":
                    k += 1
                edit = TextEdit(start, k, "")
            else:
                k = start
                while k > 0 and text[k - 1] in " \t":
                    k -= 1
                if k > 0 and text[k - 1] == ",":
                    edit = TextEdit(k - 1, end, "")
                else:
                    edit = TextEdit(start, end, "")
        return f"Remove the {span.variable} entry", edit
    ls, _, _ = line_bounds(text, span.name_start, span.raw_end)
    head = text[ls : span.name_start].strip(" \t")
    if head not in ("", '"', "'"):
        return None  # a dotted key or an inline table: not a line of its own
    edit = _whole_line(text, ls, span.raw_end)
    return None if edit is None else (f"Remove the {span.variable} entry", edit)


_HEADER = re.compile(r"^[ \t]*\[([^\[\]]*)\][ \t]*(?:#.*)?$", re.M)
_TABLE_KEY = re.compile(r"^[ \t]*([A-Za-z0-9_]*)$")
_ENV_ITEM = re.compile(
    r"(?:env[ \t]*=[ \t]*\[|,)[ \t]*[\"']((?:[ \t]*[A-Za-z]*[ \t]*:)*)[ \t]*([A-Za-z0-9_]*)$"
)


def _header(text: str, offset: int) -> str | None:
    last = None
    for m in _HEADER.finditer(text, 0, offset):
        last = m.group(1)
    return None if last is None else re.sub(r"[ \t\"']", "", last)


def typed_name(text: str, offset: int) -> str | None:
    """A key being typed in a ``[tool.pytest_env]``/``[pytest_env]`` or tox ``set_env``
    table, or the name in a string of an ``env = [`` list (after pytest-env flags
    ``D:``/``R:``) on the line of ``env = [`` or after a comma."""
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    header = _header(text, line_start)
    m = _TABLE_KEY.match(before)
    if m is not None and header is not None:
        parts = header.split(".")
        if parts[-1] == "pytest_env" or parts[-1] in ("set_env", "setenv"):
            return m.group(1)
    m2 = _ENV_ITEM.search(before)
    if m2 is not None and header is not None and header.split(".")[-1] in ("ini_options", "pytest"):
        return m2.group(2)
    return None
