"""Where pytest-env or pytest stops before any test runs, in a TOML document
(:meth:`.interface.Host.stops` of the TOML host).

pytest-env 1.8.7 (``pytest_env/plugin.py``) reads its table (``[tool.pytest_env]`` in a
pyproject.toml, ``[pytest_env]`` in pytest.toml/.pytest.toml) when the document has one,
even an empty one (:func:`.toml_places.env_table`), else the ``env`` list of pytest's
table. Before it applies anything it checks the table (``_load_toml_config``,
``_parse_toml_table``) and raises ``UsageError`` for

- an ``env_files_skip_if_set`` that is not a boolean;
- an entry table (``NAME = {...}``, ``[tool.pytest_env.NAME]``) with a key other than
  ``value``, ``transform``, ``skip_if_set`` and ``unset``, with one of those three flags
  not a boolean, or with neither ``value`` nor ``unset = true``;

then applies the entries in order (``_apply_entries``), raising for a ``transform`` value
whose template ``format_map`` rejects (:func:`.pytest_env.template_error`) and for a
variable the environment cannot hold (an empty name, ``=`` or NUL in the name, NUL in the
value); an entry with ``skip_if_set`` (skipped when its variable is set: not known here)
or ``unset`` raises for neither. pytest-env 1.8.5 and earlier ignored unknown keys, took a
flag's Python truth, set an entry without ``value`` to ``""`` and an
``env_files_skip_if_set`` that is no boolean as a variable of that name; they stopped too
on those templates and names (the error of ``str.format`` or ``os.environ``).

An entry of an ``env`` list is read as an INI line (:func:`.pytest_env.parse_entry`); an
item that is not a string stops pytest with every release (pytest-env calls
``str.partition`` on it; pytest 9 rejects such a list in ``[tool.pytest]``). A
pyproject.toml with both ``[tool.pytest.ini_options]`` and other ``[tool.pytest]`` keys
makes pytest 9 stop before any plugin runs.

For each reading only the first certain stop is reported (where pytest-env stops, unless
an earlier entry raises for a reason that depends on the environment: pytest stops either
way), and only when that reading names a family variable. A document tree-sitter cannot
read, or with a string tomllib rejects, has none (pytest stops on it anyway: TL108).
All offsets are code points into the document.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.interface import Stopped
from torch_logs_lsp.hosts.pytest_env import (
    STOPS,
    VERSION,
    Stop,
    formatted,
    parse_entry,
    stop_message,
    template_error,
)
from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.hosts.toml.places import (
    both_modes,
    env_lists,
    env_table,
    line_ranges,
    prefix,
)
from torch_logs_lsp.hosts.toml.tree import ARRAY, Key, Leaf, Tree
from torch_logs_lsp.model.spans import FAMILY, names_family

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

log = logging.getLogger(__name__)

#: The keys of an entry table (``_parse_toml_table``).
TABLE_KEYS = ("value", "transform", "skip_if_set", "unset")
#: Its flags, in the order pytest-env 1.8.7 checks them.
FLAG_KEYS = ("unset", "transform", "skip_if_set")
_SKIP = "env_files_skip_if_set"


def stops(text: str) -> list[Stopped]:
    """The stops of a TOML document (see the module docstring). Never raises."""
    if not names_family(text):
        return []
    try:
        return _stops(text)
    except RecursionError:  # nested thousands deep: said once by the extraction
        return []
    except Exception:  # bad input never crashes the checker
        log.exception("toml: reading where pytest-env stops failed")
        return []


def _stops(text: str) -> list[Stopped]:
    from torch_logs_lsp.hosts.toml.tree import parsed

    src, root, tree = parsed(text)
    if root.has_error:
        return []
    pre = prefix(tree)
    table = (*pre, "pytest_env")
    entries = _table(tree, table) if env_table(tree, pre) else None
    lists = env_lists(tree, pre)
    if pre and both_modes(tree):
        names = _names(entries) if entries is not None else []
        for leaf in lists:
            names += [n for n in _list_names(src, leaf) if n not in names]
        key = _first_key(tree, ("tool", "pytest", "ini_options"))
        if not names or key is None:
            return []
        seen = STOPS.format(names=_join(names))
        reason = "pytest 9 rejects a pyproject.toml with both [tool.pytest] and"
        return [Stopped(key.start, key.end, f"{reason} [tool.pytest.ini_options]: {seen}")]
    if entries is not None:
        got = _table_stop(src, tree, table, entries)
        return [got] if got is not None else []
    out: list[Stopped] = []
    for leaf in lists:
        got = _list_stop(src, leaf)
        if got is not None:
            out.append(got)
    return out


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _first_key(tree: Tree, path: tuple[str, ...]) -> Key | None:
    """The first key in the document (a header's or a pair's) whose path starts with
    ``path``, at its last segment."""
    n = len(path)
    found = [t[n - 1] for t in tree.tables if tuple(k.name for k in t[:n]) == path]
    found += [leaf.keys[n - 1] for leaf in tree.leaves if leaf.path[:n] == path]
    return min(found, key=lambda k: k.start, default=None)


# --- env lists ---------------------------------------------------------------------------


def _items(src: Source, leaf: Leaf) -> list[tuple[toml_strings.TomlString | None, int, int]]:
    """The entries of an ``env`` list: ``(string, a, b)`` for the entry ``value[a:b]`` of a
    string (an item, or a line of a single string), ``(None, start, end)`` for an item
    that is not a string (its document range). ``[]`` when a string is invalid."""
    out: list[tuple[toml_strings.TomlString | None, int, int]] = []
    nodes: list[tree_sitter.Node]
    if leaf.value.type == "array":
        nodes = [c for c in leaf.value.named_children if c.type != "comment"]
    elif leaf.value.type == "string":
        nodes = [leaf.value]
    else:
        return []
    for node in nodes:
        start = src.cp(node.start_byte)
        if node.type != "string":
            out.append((None, start, src.cp(node.end_byte)))
            continue
        s = toml_strings.decode(src.text, start)
        if s is None or not s.valid or not s.terminated:
            return []
        ranges = line_ranges(s.value) if leaf.value.type == "string" else [(0, len(s.value))]
        out += [(s, a, b) for a, b in ranges]
    return out


def _list_names(src: Source, leaf: Leaf) -> list[str]:
    names: list[str] = []
    for s, a, b in _items(src, leaf):
        name = parse_entry(s.value[a:b]).name if s is not None else ""
        if name in FAMILY and name not in names:
            names.append(name)
    return names


def _list_stop(src: Source, leaf: Leaf) -> Stopped | None:
    names = _list_names(src, leaf)
    if not names:
        return None
    for s, a, b in _items(src, leaf):
        if s is None:
            reason = "an item of `env` is not a string (pytest or pytest-env fails on it)"
            stop = Stop(a, b, reason, "")
            return Stopped(a, b, stop_message(stop, names))
        got = parse_entry(s.value[a:b]).stop
        if got is not None:
            start, end = _place(s, a, got.start), _place(s, a, got.end)
            return Stopped(start, max(start, end), stop_message(got, names))
    return None


def _place(s: toml_strings.TomlString, a: int, k: int) -> int:
    """The document offset of the boundary before code point ``a + k`` of ``s.value``."""
    k += a
    if k < len(s.value):
        return s.starts[k]
    return s.ends[k - 1] if k > 0 else s.content_start


# --- the pytest_env table -----------------------------------------------------------------


@dataclass
class _Entry:
    """One key of the table: its ``key``; ``leaf`` its pair when it is one (a plain value
    or an inline table); ``table``: it is a table; ``fields``: the table's keys, each with
    its pair (``None`` for a key that is itself a table)."""

    key: Key
    leaf: Leaf | None = None
    table: bool = False
    fields: dict[str, tuple[Key, Leaf | None]] = field(default_factory=dict)
    odd: bool = False  # an array of tables somewhere under it: not judged


def _table(tree: Tree, table: tuple[str, ...]) -> dict[str, _Entry]:
    """The table's keys in document order (tomllib's dict order: first definition)."""
    depth = len(table)
    found: list[tuple[tuple[Key, ...], Leaf | None]] = []
    for leaf in tree.leaves:
        if leaf.path[:depth] == table and len(leaf.path) > depth:
            found.append((leaf.keys, leaf))
    for keys in tree.tables:
        if tuple(k.name for k in keys[:depth]) == table and len(keys) > depth:
            found.append((keys, None))
    found.sort(key=lambda f: f[0][depth].start)
    out: dict[str, _Entry] = {}
    for keys, pair_leaf in found:
        key = keys[depth]
        entry = out.setdefault(key.name, _Entry(key))
        rest = keys[depth + 1 :]
        if key.name == ARRAY or any(k.name == ARRAY for k in rest):
            entry.odd = True
        elif not rest:
            if pair_leaf is None:
                entry.table = True
            else:
                entry.leaf = pair_leaf
                entry.table = pair_leaf.value.type == "inline_table"
        else:
            entry.table = True
            sub = rest[0]
            pair = pair_leaf if pair_leaf is not None and len(rest) == 1 else None
            if sub.name not in entry.fields or pair is not None:
                entry.fields[sub.name] = (sub, pair)
    return out


def _names(entries: dict[str, _Entry]) -> list[str]:
    return [n for n, e in entries.items() if n in FAMILY and n != _SKIP]


def _boolean(src: Source, pair: tuple[Key, Leaf | None] | None) -> bool | None:
    """A flag's TOML boolean, ``None`` when it is something else."""
    if pair is None or pair[1] is None or pair[1].value.type != "boolean":
        return None
    node = pair[1].value
    return src.text[src.cp(node.start_byte) : src.cp(node.end_byte)] == "true"


def _where(src: Source, key: Key, leaf: Leaf | None) -> tuple[int, int]:
    """The value of ``leaf``, or ``key`` when it names a table."""
    if leaf is None:
        return key.start, key.end
    return src.cp(leaf.value.start_byte), src.cp(leaf.value.end_byte)


def _table_stop(
    src: Source, tree: Tree, table: tuple[str, ...], entries: dict[str, _Entry]
) -> Stopped | None:
    names = _names(entries)
    if not names:
        return None
    found = _checks(src, entries) or _applied(src, entries)
    if found is None:
        return None
    start, end, stop = found
    return Stopped(start, end, stop_message(stop, names))


def _checks(src: Source, entries: dict[str, _Entry]) -> tuple[int, int, Stop] | None:
    """The first ``UsageError`` of pytest-env 1.8.7's reading of the table (before it
    sets anything)."""
    skip = entries.get(_SKIP)
    if skip is not None and not skip.odd:
        pair = (skip.key, skip.leaf) if not skip.table else None
        if _boolean(src, pair) is None:
            where = _where(src, skip.key, skip.leaf)
            reason = f"pytest-env {VERSION} rejects an {_SKIP} that is not true or false"
            before = "pytest-env 1.8.5 and earlier set a variable of that name instead"
            return (*where, Stop(0, 0, reason, before))
    for name, entry in entries.items():
        if name == _SKIP or entry.odd or not entry.table:
            continue
        unknown = [(k, f) for k, f in entry.fields.items() if k not in TABLE_KEYS]
        if unknown:
            key = min((f[0] for _, f in unknown), key=lambda k: k.start)
            reason = (
                f"pytest-env {VERSION} rejects the key `{key.name}` in the entry of {name} "
                "(its keys are value, transform, skip_if_set and unset)"
            )
            before = "pytest-env 1.8.5 and earlier ignored unknown keys"
            return key.start, key.end, Stop(0, 0, reason, before)
        for flag in FLAG_KEYS:
            pair = entry.fields.get(flag)
            if pair is not None and _boolean(src, pair) is None:
                where = _where(src, *pair)
                reason = f"pytest-env {VERSION} rejects a `{flag}` that is not true or false"
                before = "pytest-env 1.8.5 and earlier took its Python truth"
                return (*where, Stop(0, 0, reason, before))
        if not _boolean(src, entry.fields.get("unset")) and "value" not in entry.fields:
            reason = (
                f"pytest-env {VERSION} rejects an entry of {name} with neither `value` "
                "nor `unset = true`"
            )
            before = f"pytest-env 1.8.5 and earlier set {name} to the empty string"
            return entry.key.start, entry.key.end, Stop(0, 0, reason, before)
    return None


def _applied(src: Source, entries: dict[str, _Entry]) -> tuple[int, int, Stop] | None:
    """The first entry that certainly raises when pytest-env applies it (an entry
    neither skipped when set nor removed): a template it cannot expand, a variable the
    environment cannot hold."""
    for name, entry in entries.items():
        if name == _SKIP or entry.odd:
            continue
        if name == "env_files" and entry.leaf is not None and entry.leaf.value.type == "array":
            continue
        value: Leaf | None = entry.leaf
        transform = False
        if entry.table:
            if _boolean(src, entry.fields.get("skip_if_set")) or _boolean(
                src, entry.fields.get("unset")
            ):
                continue
            transform = bool(_boolean(src, entry.fields.get("transform")))
            value = entry.fields.get("value", (entry.key, None))[1]
        s = None
        if value is not None and value.value.type == "string":
            s = toml_strings.decode(src.text, src.cp(value.value.start_byte))
            if s is None or not s.valid or not s.terminated:
                return None
        if s is not None and transform:
            why = template_error(s.value)
            if why is not None:
                reason = f"pytest-env cannot expand this {{VAR}} template: {why}"
                return s.content_start, s.content_end, Stop(0, 0, reason, "")
        if name == "" or "=" in name or "\0" in name:
            reason = (
                f"pytest-env cannot set a variable named {name!r} (a name is not empty and "
                "has no `=` or NUL character)"
            )
            return entry.key.start, entry.key.end, Stop(0, 0, reason, "")
        final = s.value if s is not None else None
        if s is not None and transform:
            got = formatted(s.value, 0, len(s.value))
            final = got[0] if got is not None else None
        if final is not None and "\0" in final:
            assert s is not None
            reason = "pytest-env cannot set a variable whose value holds a NUL character"
            return s.content_start, s.content_end, Stop(0, 0, reason, "")
    return None


__all__ = ["FLAG_KEYS", "TABLE_KEYS", "stops"]
