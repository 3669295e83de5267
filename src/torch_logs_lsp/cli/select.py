"""``check --select/--extend-select/--ignore/--extend-ignore`` and the project
configuration (:mod:`.config`): which codes each checked file shows.

The command line is applied after the file's configuration (:mod:`.selection`: a
``--select`` starts over, ``--ignore`` adds). A configuration file that cannot be used
is named on stderr once (``torch-logs: PATH: REASON``), the files under it are checked
with the command line's choices only, and ``check`` then exits 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from typing import TypeVar

from torch_logs_lsp.cli.formats import relative_path
from torch_logs_lsp.cli.text import printable, shown
from torch_logs_lsp.codes.table import all_codes
from torch_logs_lsp.lint.selection import CodeFilter, Selection, UnknownSelector, keep
from torch_logs_lsp.project.config import Config, ConfigError, ConfigFinder

T = TypeVar("T")


def _codes(text: str) -> list[str]:
    """A comma-separated option value (``TL2,TL301``) as a list; repeated options add."""
    return [part.strip() for part in text.split(",") if part.strip()]


class _Extend(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        codes = _codes(str(values))
        if not codes:  # `--select "$UNSET"` must not turn every check off (exit 2)
            parser.error(f"{option_string}: no code or prefix in {str(values)!r}")
        items = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, items + codes)


def add_select_options(parser: argparse.ArgumentParser) -> None:
    """``--select``, ``--extend-select``, ``--ignore``, ``--extend-ignore`` (each takes
    ``CODES``: comma-separated codes or prefixes, may be repeated) and ``--isolated``."""
    helps = {
        "--select": "show only these codes or prefixes (TL2,TL301, ALL)",
        "--extend-select": "show these codes or prefixes too",
        "--ignore": "hide these codes or prefixes",
        "--extend-ignore": "the same as --ignore (as in ruff)",
    }
    for flag, text in helps.items():
        parser.add_argument(flag, action=_Extend, metavar="CODES", default=None, help=text)
    parser.add_argument(
        "--isolated",
        action="store_true",
        help="read no configuration file (pyproject.toml, ...)",
    )


def command_line_selection(args: argparse.Namespace) -> Selection:
    """The command line's choices; raises :class:`.selection.UnknownSelector`."""
    return Selection.of(
        "--",
        select=getattr(args, "select", None),
        extend_select=getattr(args, "extend_select", None) or [],
        ignore=getattr(args, "ignore", None) or [],
        extend_ignore=getattr(args, "extend_ignore", None) or [],
    )


class Chooser:
    """Per checked file, the :class:`.selection.CodeFilter` of its configuration and the
    command line (one filter per configuration file). ``failed``: configuration files
    that could not be used (each reported once on stderr)."""

    def __init__(self, cli: Selection, isolated: bool = False) -> None:
        self.cli = cli
        self.isolated = isolated
        self.finder = ConfigFinder()
        self.failed: set[str] = set()
        self.noted: set[str] = set()
        self._filters: dict[str | None, CodeFilter] = {}

    def config_for(self, path: str | os.PathLike[str]) -> Config | None:
        """The configuration of ``path`` (``None``: none, isolated, or unusable). Its
        unknown keys (a typo like ``ingore``) are named once on stderr as a note."""
        if self.isolated:
            return None
        try:
            config = self.finder.for_file(path)
            if config is not None and config.unknown and config.path not in self.noted:
                self.noted.add(config.path)

                name = shown(relative_path(config.path) or config.path)
                keys = printable(", ".join(config.unknown))
                print(f"torch-logs: note: {name}: unknown key(s) ignored: {keys}", file=sys.stderr)
            return config
        except ConfigError as exc:
            if exc.path not in self.failed:
                self.failed.add(exc.path)

                name = shown(relative_path(exc.path) or exc.path)
                print(f"torch-logs: {name}: {printable(exc.reason)}", file=sys.stderr)
            return None

    def filter_for(self, path: str | os.PathLike[str]) -> CodeFilter:
        """The code filter of the file ``path``."""
        config = self.config_for(path)
        key = config.path if config is not None else None
        found = self._filters.get(key)
        if found is None:
            sources = [config.selection] if config is not None else []
            found = self._filters[key] = CodeFilter.resolve([*sources, self.cli])
        return found

    def ignored(self, path: str | os.PathLike[str]) -> frozenset[str]:
        """The documented codes the file ``path`` does not show (``--fix`` skips their
        fixes, as ruff fixes only the rules it checks)."""
        return frozenset(all_codes()) - self.filter_for(path).enabled

    def chosen(
        self, path: str | os.PathLike[str], items: Iterable[T], code_of: Callable[[T], str]
    ) -> list[T]:
        """The ``items`` of the file ``path`` whose code is chosen; the place where other
        filters of (path, findings) by code, such as suppression comments, join."""
        return keep(self.filter_for(path), items, code_of)


def make_chooser(args: argparse.Namespace) -> Chooser | None:
    """The chooser of a ``check`` run; ``None`` after printing an unknown code or prefix
    of the command line (``torch-logs: --select: unknown code or prefix 'TL999'``): the
    caller exits 2."""
    try:
        cli = command_line_selection(args)
    except UnknownSelector as exc:
        print(f"torch-logs: {exc}", file=sys.stderr)
        return None
    return Chooser(cli, getattr(args, "isolated", False))


__all__ = ["Chooser", "add_select_options", "command_line_selection", "make_chooser"]
