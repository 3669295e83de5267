"""Where the TOML host's values live, and their spans.

Read by pytest and pytest-env (pytest 9.2 ``_pytest/config/findpaths.py``, pytest-env
1.8.7 ``pytest_env/plugin.py``):

- ``[tool.pytest.ini_options] env = [...]`` (pyproject.toml, INI mode: a list of
  strings, or one string split into stripped non-empty lines by pytest's ``linelist``),
  ``[tool.pytest] env = [...]`` (TOML mode) and ``[pytest] env = [...]``
  (pytest.toml/.pytest.toml): each item an entry ``[FLAG:]...NAME=VALUE``
  (:mod:`.pytest_env`). pytest-env reads no ``env`` list at all when the document has a
  ``pytest_env`` table (``[tool.pytest_env]``, even an empty one: ``_load_values``;
  pytest-env 1.7 read the lists when the table had no entry; a ``pytest_env`` key that
  is no table is not one: :func:`env_table`);
- a pyproject.toml with both ``[tool.pytest.ini_options]`` and native ``[tool.pytest]``
  keys makes pytest stop with a UsageError: nothing of pytest's or pytest-env's is read
  (:mod:`.usage_errors` reports it);
- ``[tool.pytest_env]`` / ``[pytest_env]``: ``NAME = "value"`` (raw: no ``{VAR}``
  expansion) or ``NAME = {value = "...", transform = true, skip_if_set = true, unset =
  true}`` (``unset`` removes: no span). pytest-env 1.8.7 stops pytest on a flag that is
  not a boolean, an unknown key or an entry without ``value`` (:mod:`.usage_errors`); the
  value is still read here, with a flag's Python truth (as 1.8.5 took it).

Read by tox 4 (4.67, ``tox/config/set_env.py``, ``tox/config/loader/toml/``): ``set_env``
(or ``setenv``) tables of ``[env_run_base]``, ``[env_pkg_base]`` and ``[env.NAME]``
(tox.toml; under ``[tool.tox]`` in pyproject.toml): ``NAME = "value"`` or
``NAME = {value = "..."}``; a ``marker`` (a condition), a ``replace`` table or a string
with ``{``, ``}`` or ``\\`` (tox substitutions and their escapes) is not static.

A document with a top-level ``tool`` table is a pyproject.toml: only its ``tool.``
tables are read; any other document (pytest.toml, tox.toml, an untitled one) is read
at the top level. All offsets are code points into the document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts import pytest_env
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.hosts.toml.tree import ARRAY, Leaf, Tree
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

HOST: HostKind = "toml"
#: The inner layer of a pytest-env entry's quote (after the TOML quote and
#: :data:`~.embedded.LAYER`): braces are doubled (``transform``) or not (``R:``).
TRANSFORMED = "pytest-env"
RAW = "pytest-env-raw"
_INTEGER = re.compile(r"0|[1-9][0-9]*")
_TOX_BASES = ("env_run_base", "env_pkg_base")
_SET_ENV = ("set_env", "setenv")


def prefix(tree: Tree) -> tuple[str, ...]:
    """``("tool",)`` for a pyproject.toml (a document with a top-level ``tool`` table),
    else ``()``: where the tools' tables are."""
    pyproject = any(leaf.keys[0].name == "tool" for leaf in tree.leaves)
    return ("tool",) if pyproject or any(h[:1] == ("tool",) for h in tree.headers) else ()


def env_table(tree: Tree, pre: tuple[str, ...]) -> bool:
    """Whether the document has a ``pytest_env`` table (under ``pre``): a header, a
    dotted key or an inline table make one; a key of another type does not (pytest-env
    1.8.7 ``_has_env_section``: ``isinstance(..., dict)``), nor an array of tables."""
    table = (*pre, "pytest_env")
    n = len(table)
    if any(h[:n] == table and (len(h) == n or h[n] != ARRAY) for h in tree.headers):
        return True
    for leaf in tree.leaves:
        path = leaf.path
        if path[:n] == table and (len(path) > n or leaf.value.type == "inline_table"):
            return True
    return False


def env_lists(tree: Tree, pre: tuple[str, ...]) -> list[Leaf]:
    """The ``env`` options of pytest's tables (``[tool.pytest.ini_options]``,
    ``[tool.pytest]``; ``[pytest]`` in a pytest.toml), in document order."""
    lists = [(*pre, "pytest", "ini_options", "env"), (*pre, "pytest", "env")]
    return [leaf for leaf in tree.leaves if leaf.path in lists]


def spans(src: Source, tree: Tree) -> list[ValueSpan]:
    """The spans of every place above, unsorted."""
    pre = prefix(tree)
    pyproject = bool(pre)
    out: list[ValueSpan] = []
    env_path = (*pre, "pytest_env")
    tox = (*pre, "tox") if pyproject else ()
    if pyproject and both_modes(tree):
        pass  # pytest stops with a UsageError before pytest-env sets anything
    else:
        if not env_table(tree, pre):
            for leaf in env_lists(tree, pre):
                out += _env_list(src, leaf, ini_mode=leaf.path[-2] == "ini_options")
        table = len(env_path) + 1
        out += _table_entries(src, tree.leaves, table, lambda p: p[:-1] == env_path, True)
    for depth in (len(tox) + 3, len(tox) + 4):
        out += _table_entries(src, tree.leaves, depth, lambda p: _tox_table(p, tox), False)
    return out


def both_modes(tree: Tree) -> bool:
    """Whether a pyproject.toml has both ``[tool.pytest.ini_options]`` and other keys of
    ``[tool.pytest]``: pytest 9.2 raises ``UsageError`` (``_config_from_tool_pytest``)."""
    paths = [leaf.path for leaf in tree.leaves] + list(tree.headers)
    ini = any(p[:3] == ("tool", "pytest", "ini_options") for p in paths)
    native = any(
        len(p) > 2 and p[:2] == ("tool", "pytest") and p[2] != "ini_options" for p in paths
    )
    return ini and native


def _tox_table(path: tuple[str, ...], tox: tuple[str, ...]) -> bool:
    """Whether ``path`` (a ``NAME`` key's) is in a tox ``set_env`` table."""
    rest = path[len(tox) : -1]
    if path[: len(tox)] != tox:
        return False
    return (len(rest) == 2 and rest[0] in _TOX_BASES and rest[1] in _SET_ENV) or (
        len(rest) == 3 and rest[0] == "env" and rest[2] in _SET_ENV
    )


def _text(src: Source, node: tree_sitter.Node) -> tuple[int, int]:
    return src.cp(node.start_byte), src.cp(node.end_byte)


def _string(src: Source, node: tree_sitter.Node) -> toml_strings.TomlString | None:
    if node.type != "string":
        return None
    return toml_strings.decode(src.text, src.cp(node.start_byte))


def _env_list(src: Source, leaf: Leaf, ini_mode: bool) -> list[ValueSpan]:
    """The spans of an ``env`` list's entries (a single string in INI mode: its lines)."""
    items: list[tree_sitter.Node]
    if leaf.value.type == "array":
        items = [c for c in leaf.value.named_children if c.type == "string"]
    elif ini_mode and leaf.value.type == "string":
        items = [leaf.value]
    else:
        return []
    out: list[ValueSpan] = []
    for node in items:
        s = _string(src, node)
        if s is None:
            continue
        split = leaf.value.type == "string"
        for a, b in line_ranges(s.value) if split else [(0, len(s.value))]:
            span = entry_span(s, a, b)
            if span is not None:
                out.append(span)
    return out


def line_ranges(value: str) -> Iterable[tuple[int, int]]:
    """pytest's ``linelist`` of a string: each line (split at ``\\n``) stripped, the
    empty ones dropped, as ``[start, end)`` ranges of ``value``."""
    pos = 0
    for line in value.split("\n"):
        a, b = pos, pos + len(line)
        pos = b + 1
        while a < b and value[a].isspace():
            a += 1
        while b > a and value[b - 1].isspace():
            b -= 1
        if a < b:
            yield a, b


def entry_span(s: toml_strings.TomlString, a: int, b: int) -> ValueSpan | None:
    """The span of the pytest-env entry ``s.value[a:b]``, or ``None`` when it sets no
    family variable."""
    e = pytest_env.parse_entry(s.value[a:b])
    if e.unset or e.name not in FAMILY:
        return None

    def pos(k: int) -> int:
        k += a
        return s.starts[k] if k < len(s.value) else s.content_end

    def after(k: int) -> int:
        k += a
        return s.ends[k - 1] if k > 0 else pos(-a)

    start = pos(e.raw_start)
    end = max(start, after(e.raw_end)) if e.raw_end > e.raw_start else start
    value = e.value if s.valid or not s.terminated else None
    ok = value is not None
    layer = TRANSFORMED if e.transform else RAW
    return ValueSpan(
        variable=e.name,
        host=HOST,
        name_start=pos(e.name_start),
        name_end=after(e.name_end),
        value=value,
        char_starts=tuple(s.starts[a + k] for k in e.starts) if ok else (),
        char_ends=tuple(s.ends[a + k - 1] for k in e.ends) if ok else (),
        content_start=start,
        content_end=end,
        raw_start=start,
        raw_end=end,
        quote=s.quote + LAYER + layer,
        terminated=s.terminated,
    )


def _truthy(src: Source, node: tree_sitter.Node) -> bool | None:
    """Python's truth (``bool(...)``, as pytest-env takes a flag) of the TOML value
    ``node``, ``None`` when it cannot be read (a broken string or number)."""
    a, b = _text(src, node)
    text = src.text[a:b].replace("_", "")
    kind = node.type
    try:
        if kind == "boolean":
            return text == "true"
        if kind == "integer":
            return int(text, 0) != 0 if text[:2] in ("0x", "0o", "0b") else int(text) != 0
        if kind == "float":
            return float(text) != 0.0
    except ValueError:
        return None
    if kind == "string":
        s = toml_strings.decode(src.text, a)
        return bool(s.value) if s is not None and s.valid and s.terminated else None
    if kind in ("array", "inline_table"):
        return any(c.type not in ("comment",) for c in node.named_children)
    if kind in ("offset_date_time", "local_date_time", "local_date", "local_time"):
        return True
    return None


def _table_entries(
    src: Source,
    leaves: list[Leaf],
    depth: int,
    where: Callable[[tuple[str, ...]], bool],
    pytest_env_table: bool,
) -> list[ValueSpan]:
    """The spans of a table of variables (``[tool.pytest_env]`` when
    ``pytest_env_table``, else a tox ``set_env``): each key at ``depth`` (a family name)
    whose path ``where`` accepts, in its plain or its table form."""
    groups: dict[tuple[str, ...], dict[str, Leaf]] = {}
    plain: dict[tuple[str, ...], Leaf] = {}
    for leaf in leaves:
        path = leaf.path
        if len(path) < depth or path[depth - 1] not in FAMILY or not where(path[:depth]):
            continue
        if len(path) == depth:
            plain[path] = leaf
        elif len(path) == depth + 1:
            groups.setdefault(path[:depth], {})[path[-1]] = leaf
    out: list[ValueSpan] = []
    for leaf in plain.values():
        if leaf.value.type != "inline_table":
            mode = "raw" if pytest_env_table else "tox"
            out.append(_plain_span(src, leaf, depth, mode, static=True))
    for fields in groups.values():
        value = fields.get("value")
        if value is None:
            continue
        if pytest_env_table:
            flags = {k: _truthy(src, fields[k].value) for k in fields if k != "value"}
            if flags.get("unset"):
                continue
            static = all(v is not None for v in flags.values())
            mode = "transform" if flags.get("transform") else "raw"
            out.append(_plain_span(src, value, depth, mode, static=static))
        else:
            static = set(fields) == {"value"}
            out.append(_plain_span(src, value, depth, "tox", static=static))
    return out


def _plain_span(src: Source, leaf: Leaf, depth: int, mode: str, static: bool) -> ValueSpan:
    """The span of a table entry's value (a string, a decimal integer for pytest-env,
    else not static; ``static`` false: never static): ``mode`` as :func:`string_span`."""
    key = leaf.keys[depth - 1]
    start, end = _text(src, leaf.value)
    s = _string(src, leaf.value)
    if s is not None:
        return string_span(key.name, key.start, key.end, s, mode, static)
    value: str | None = None
    if static and mode != "tox" and leaf.value.type == "integer":
        value = src.text[start:end] if _INTEGER.fullmatch(src.text[start:end]) else None
    n = len(value) if value is not None else 0
    return ValueSpan(
        variable=key.name,
        host=HOST,
        name_start=key.start,
        name_end=key.end,
        value=value,
        char_starts=tuple(range(start, start + n)),
        char_ends=tuple(range(start + 1, start + n + 1)),
        content_start=start,
        content_end=end,
        raw_start=start,
        raw_end=end,
        quote="",
    )


def string_span(
    variable: str,
    name_start: int,
    name_end: int,
    s: toml_strings.TomlString,
    mode: str,
    static: bool,
) -> ValueSpan:
    """The span of a table entry's string value ``s`` (``static`` false: never static):
    ``mode`` ``"raw"`` a pytest-env value without ``{VAR}`` expansion, ``"transform"``
    one with it (``str.format``), ``"tox"`` a tox value (any brace or backslash makes it
    not static). An unterminated string's value runs to the end of its line."""
    value: str | None = s.value if static and (s.valid or not s.terminated) else None
    starts, ends = s.starts, s.ends
    quote = s.quote
    if value is not None and mode == "transform":
        quote = s.quote + LAYER + TRANSFORMED
        got = pytest_env.formatted(value, 0, len(value))
        if got is None:
            value = None
        else:
            value = got[0]
            starts = tuple(s.starts[k] for k in got[1])
            ends = tuple(s.ends[k - 1] for k in got[2])
    elif value is not None and mode == "tox" and re.search(r"[{}\\]", value):
        value = None
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=name_start,
        name_end=name_end,
        value=value,
        char_starts=starts if value is not None else (),
        char_ends=ends if value is not None else (),
        content_start=s.content_start,
        content_end=s.content_end,
        raw_start=s.start,
        raw_end=s.end,
        quote=quote,
        terminated=s.terminated,
    )
