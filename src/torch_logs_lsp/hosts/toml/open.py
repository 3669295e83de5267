"""Strings left open while typing, in a TOML document tree-sitter cannot read there.

tree-sitter-toml puts ``TORCH_LOGS = "+dyn`` (no closing quote) in an ERROR node, so
:mod:`.toml_tree` finds no pair. Each line of such an ERROR node is read here: a quote
that opens a string left unterminated at the end of its line (:func:`.toml_strings.decode`),
after ``NAME =`` in a pytest-env or tox ``set_env`` table, or as an item of an ``env = [``
list of a pytest table (the table is the last ``[header]`` line above). The span runs to
the end of the line (``terminated=False``), as in the other hosts. All offsets are code
points into the document.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

_HEADER = re.compile(r"^[ \t]*\[\[?([^\[\]\r\n]*)\]", re.M)
_KEY = re.compile(r"^[ \t]*([\"']?)([A-Z_]+)\1[ \t]*=[ \t]*$")
_ITEM = re.compile(r"(?:^|env[ \t]*=[ \t]*\[|,)[ \t]*$")


class _Headers:
    """The ``[header]`` lines of a text, found in one pass: :meth:`before` gives the last
    one ending at or before an offset by binary search, so reading many open strings scans
    the text once."""

    def __init__(self, text: str) -> None:
        found = [(m.start(), m.end(), m.group(1)) for m in _HEADER.finditer(text)]
        self.starts = [s for s, _, _ in found]
        self.ends = [e for _, e, _ in found]
        self.names = [n for _, _, n in found]

    def before(self, offset: int) -> tuple[str, ...] | None:
        """The dotted name of the last header ending at or before ``offset`` (as
        ``finditer(text, 0, offset)`` would find it last), ``None`` when there is none."""
        i = bisect.bisect_right(self.ends, offset) - 1
        if i < 0:
            return None
        return tuple(re.sub(r"[ \t\"']", "", self.names[i]).split("."))


def _open_string(text: str, start: int, end: int) -> toml_strings.TomlString | None:
    """The string on the line ``[start, end)`` left open at its end, if any (strings
    closed on the line are skipped: a quoted key, an earlier item)."""
    i = start
    while i < end:
        j = min(
            (k for k in (text.find('"', i, end), text.find("'", i, end)) if k != -1), default=-1
        )
        if j == -1:
            return None
        s = toml_strings.decode(text, j)
        if s is None:
            return None
        if not s.terminated:
            return s
        i = s.end
    return None


def open_spans(
    src: Source, root: tree_sitter.Node, pre: tuple[str, ...], known: set[int]
) -> list[ValueSpan]:
    """Spans of unterminated strings on the lines of ``root``'s ERROR nodes; ``pre`` is
    ``("tool",)`` in a pyproject.toml; names at offsets in ``known`` are skipped."""
    from torch_logs_lsp.hosts.toml.places import entry_span, string_span

    text = src.text
    lines: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            lines.update(range(node.start_point[0], node.end_point[0] + 1))
        elif node.has_error:
            stack.extend(node.children)
    out: list[ValueSpan] = []
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\n|\r", text)]
    headers = _Headers(text)
    for row in sorted(lines):
        if row >= len(starts):
            continue
        ls = starts[row]
        le = starts[row + 1] if row + 1 < len(starts) else len(text)
        line = text[ls:le]
        s = _open_string(text, ls, le)
        if s is None:
            continue
        q = s.start - ls
        header = headers.before(ls)
        if header is None or header[: len(pre)] != pre:
            continue
        table = header[len(pre) :]
        key = _KEY.match(line[:q])
        if key is not None and key.group(2) in FAMILY:
            mode = _table_mode(table, bool(pre))
            if mode is not None:
                name = ls + key.start(2)
                span = string_span(key.group(2), name, name + len(key.group(2)), s, mode, True)
                if span.name_start not in known:
                    out.append(span)
        elif _ITEM.search(line[:q]) and table in (("pytest", "ini_options"), ("pytest",)):
            got = entry_span(s, 0, len(s.value))
            if got is not None and got.name_start not in known:
                out.append(got)
    return out


def _table_mode(table: tuple[str, ...], pyproject: bool) -> str | None:
    """How a value in ``table`` (its path after ``tool.`` in a pyproject.toml) is read:
    ``"raw"`` (pytest-env), ``"tox"``, or ``None`` for a table read by neither."""
    if table == ("pytest_env",):
        return "raw"
    if pyproject and table[:1] != ("tox",):
        return None
    tox = table[1:] if pyproject else table
    if (
        len(tox) == 2
        and tox[0] in ("env_run_base", "env_pkg_base")
        and tox[1] in ("set_env", "setenv")
    ):
        return "tox"
    if len(tox) == 3 and tox[0] == "env" and tox[2] in ("set_env", "setenv"):
        return "tox"
    return None
