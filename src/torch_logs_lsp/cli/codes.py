"""``torch-logs codes [CODE ...]`` (the codes' table, :mod:`torch_logs_lsp.codes.table`, and
their documentation, :mod:`torch_logs_lsp.codes.doc`) and ``--version``.

``codes`` lists every code with its default severity and one-line title; ``codes TL201``
prints that code's section; a prefix (``codes TL2``) lists the codes it covers. Exit 0,
or 2 for a code or prefix that is not documented.

``explain`` explains TORCH_LOGS values only. A value that looks like a code (``explain
TL201``) is still explained as a value (torch would look ``TL201`` up as a module name),
with a note on stderr pointing at ``torch-logs codes TL201``.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from torch_logs_lsp.codes.doc import code_doc
from torch_logs_lsp.codes.table import code_table
from torch_logs_lsp.package_info import version

CODE_LIKE = re.compile(r"^TL\d{3}$", re.IGNORECASE)


def cmd_codes(args: argparse.Namespace) -> int:
    """``torch-logs codes``: the table, or the named codes' sections."""
    table = code_table()
    if not args.codes:
        _print_table(list(table))
        return 0
    status = 0
    first = True
    for raw in args.codes:
        wanted = raw.strip().upper()
        doc = code_doc(wanted) if wanted in table else None
        if doc is not None:
            info = table[wanted]
            if not first:
                print()
            print(f"{info.code}: {info.title} ({info.severity})")
            print()
            print(doc)
            first = False
            continue
        covered = [c for c in table if c.startswith(wanted)] if wanted.startswith("TL") else []
        if covered:
            _print_table(covered)
            first = False
            continue
        print(f"torch-logs: {raw!r} is not a documented code or prefix", file=sys.stderr)
        status = 2
    return status


def _print_table(codes: list[str]) -> None:
    table = code_table()
    width = max(len(table[c].severity) for c in codes)
    for code in codes:
        info = table[code]
        print(f"{code}  {info.severity:<{width}}  {info.title}")


def note_code_like(value: str) -> None:
    """For ``explain``: a value that looks like a diagnostic code gets a note on stderr."""
    if CODE_LIKE.match(value.strip()) and value.strip().upper() in code_table():
        code = value.strip().upper()
        print(
            f"torch-logs: note: {code} is also a diagnostic code: "
            f"`torch-logs codes {code}` prints its documentation; below, it is explained "
            "as a TORCH_LOGS value",
            file=sys.stderr,
        )


def add_codes_command(sub: Any) -> None:
    """Register ``torch-logs codes [CODE ...]``."""
    codes = sub.add_parser(
        "codes",
        help="list the diagnostic codes, or print a code's documentation",
        description="Without CODE: every diagnostic code with its default severity and "
        "title. With CODE (TL201) its documentation; with a prefix (TL2) the codes under it.",
    )
    codes.add_argument("codes", nargs="*", metavar="CODE", help="a code (TL201) or prefix (TL2)")
    codes.set_defaults(func=cmd_codes)


class _Version(argparse.Action):
    """``--version``: the version read from the package metadata only when asked
    (``importlib.metadata`` costs tens of milliseconds of every start otherwise)."""

    def __init__(self, option_strings: list[str], dest: str, prog: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)
        self.prog = prog

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{self.prog} {version()}")
        parser.exit()


def add_version_option(parser: argparse.ArgumentParser, prog: str) -> None:
    """``--version``: print ``PROG VERSION`` and exit 0."""
    parser.add_argument("--version", action=_Version, prog=prog, help="print the version and exit")


__all__ = ["add_codes_command", "add_version_option", "cmd_codes", "note_code_like"]
