"""Project configuration: the ``[tool.torch-logs]`` table of ``pyproject.toml``, or a
``torch-logs.toml`` / ``.torch-logs.toml`` file (the same keys at the top level).

Found as ruff finds its configuration (https://docs.astral.sh/ruff/configuration/,
"Config file discovery"): for each checked file, the closest such file in the file's
directory or a parent directory; a ``pyproject.toml`` without a ``[tool.torch-logs]``
table is passed over, a ``torch-logs.toml`` / ``.torch-logs.toml`` always counts. In one
directory ``.torch-logs.toml`` comes before ``torch-logs.toml``, which comes before
``pyproject.toml`` (ruff's order for ``.ruff.toml``, ``ruff.toml``, ``pyproject.toml``).
Only the closest file is read (no merging with files further up).

Keys (lists of codes or prefixes, :mod:`.selection`): ``select``, ``extend-select``,
``ignore``, ``extend-ignore``. Other keys are kept in :attr:`Config.table` for other
features and named in :attr:`Config.unknown`. Read with ``tomllib`` (``tomli`` on Python
3.10).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from torch_logs_lsp.files import SkippedFile, read_regular
from torch_logs_lsp.lint.selection import Selection, UnknownSelector

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Files looked for in each directory, first found wins.
CONFIG_NAMES = (".torch-logs.toml", "torch-logs.toml", "pyproject.toml")
#: Keys this module reads.
SELECTION_KEYS = ("select", "extend-select", "ignore", "extend-ignore")
#: Largest configuration file read, bytes.
MAX_CONFIG_BYTES = 4 * 1024 * 1024


class ConfigError(Exception):
    """A configuration file that cannot be used: ``path`` and a ``reason`` for the user."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Config:
    """A configuration file read: its ``path``, the :class:`.selection.Selection` it
    makes, the whole ``table`` (``[tool.torch-logs]`` or the file's top level) and the
    ``unknown`` keys in it (sorted)."""

    path: str
    selection: Selection
    table: dict[str, Any] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()


def _table(path: str, name: str) -> dict[str, Any] | None:
    """The configuration table of the file ``path`` (``name`` its base name); ``None`` for
    a ``pyproject.toml`` without ``[tool.torch-logs]``. Raises :class:`ConfigError`."""
    try:  # (the one safe reader: a FIFO is never opened)
        data = read_regular(path, MAX_CONFIG_BYTES)
    except SkippedFile as exc:
        if exc.error is not None:
            raise ConfigError(path, f"cannot read ({exc.error.strerror or exc.error})") from None
        if exc.reason.startswith("larger"):
            raise ConfigError(path, f"larger than {MAX_CONFIG_BYTES // 2**20} MiB") from None
        raise ConfigError(path, exc.reason) from None
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(path, "not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"not valid TOML ({exc})") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(path, "nested too deeply to read") from None
    if name != "pyproject.toml":
        return doc
    tool = doc.get("tool")
    table = tool.get("torch-logs") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(path, "[tool.torch-logs] is not a table")
    return table


def _strings(path: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, f'{key} must be a list of strings, like ["TL2", "TL301"]')
    return value


def read_config(path: str) -> Config | None:
    """The configuration in the file ``path``; ``None`` for a ``pyproject.toml`` without
    a ``[tool.torch-logs]`` table. Raises :class:`ConfigError` for a file that cannot be
    read or parsed, a key of the wrong type, or an unknown code or prefix."""
    name = os.path.basename(path)
    table = _table(path, name)
    if table is None:
        return None
    lists = {k: _strings(path, k, table[k]) for k in SELECTION_KEYS if k in table}
    try:
        selection = Selection.of(
            "",
            select=lists.get("select"),
            extend_select=lists.get("extend-select", []),
            ignore=lists.get("ignore", []),
            extend_ignore=lists.get("extend-ignore", []),
        )
    except UnknownSelector as exc:
        table_name = "[tool.torch-logs] " if name == "pyproject.toml" else ""
        raise ConfigError(path, f"{table_name}{exc}") from None
    unknown = tuple(sorted(k for k in table if k not in SELECTION_KEYS))
    return Config(path, selection, table, unknown)


_READ: dict[str, tuple[tuple[int, int], Config | ConfigError | None]] = {}


def read_config_cached(path: str) -> Config | None:
    """:func:`read_config`, the result kept while the file's size and modification time
    stay the same (an editor asks again on every publish). Raises :class:`ConfigError`."""
    try:
        st = os.stat(path)
        key = (st.st_mtime_ns, st.st_size)
    except OSError:
        key = (-1, -1)
    kept = _READ.get(path)
    if kept is None or kept[0] != key:
        try:
            result: Config | ConfigError | None = read_config(path)
        except ConfigError as exc:
            result = exc
        if len(_READ) > 1000:
            _READ.clear()
        kept = _READ[path] = (key, result)
    if isinstance(kept[1], ConfigError):
        raise kept[1]
    return kept[1]


class ConfigFinder:
    """Finds and reads the configuration of checked files, each directory looked at and
    each file read once. :meth:`for_file` returns the closest configuration or ``None``;
    it raises :class:`ConfigError` (each time it is asked) for a closest file that
    cannot be used."""

    def __init__(self) -> None:
        self._by_dir: dict[str, Config | ConfigError | None] = {}

    def for_file(self, path: str | os.PathLike[str]) -> Config | None:
        """The configuration of the file ``path`` (absolute or relative to the current
        directory); ``None`` when there is none up to the file system's root."""
        start = os.path.dirname(os.path.abspath(os.fspath(path)))
        found = self._for_dir(start)
        if isinstance(found, ConfigError):
            raise found
        return found

    def _for_dir(self, directory: str) -> Config | ConfigError | None:
        seen: list[str] = []
        here = directory
        result: Config | ConfigError | None = None
        while True:
            if here in self._by_dir:
                result = self._by_dir[here]
                break
            seen.append(here)
            found = self._in_dir(here)
            if found is not None:
                result = found
                break
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        for d in seen:
            self._by_dir[d] = result
        return result

    @staticmethod
    def _in_dir(directory: str) -> Config | ConfigError | None:
        for name in CONFIG_NAMES:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            try:
                config = read_config_cached(path)
            except ConfigError as exc:
                return exc
            if config is not None:
                return config
        return None


__all__ = [
    "CONFIG_NAMES",
    "SELECTION_KEYS",
    "Config",
    "ConfigError",
    "ConfigFinder",
    "read_config",
    "read_config_cached",
]
