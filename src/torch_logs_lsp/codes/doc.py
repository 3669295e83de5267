"""The diagnostic codes' documentation, shipped with the package: ``knowledge/data/codes.md`` is
a copy of ``docs/codes.md`` (``tests/test_cli_codes.py`` asserts they are equal; after an
edit of ``docs/codes.md`` run ``cp docs/codes.md src/torch_logs_lsp/knowledge/data/codes.md``).

Read by ``torch-logs codes`` (the table and each code's section), by the code selection
(every known code, :mod:`.selection`) and by ``--format sarif`` (one rule per code with
its help text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: A row of the table at the top: ``| [TL201](#tl201) | error / warning | unknown name |``.
_ROW = re.compile(r"^\|\s*\[(TL\d{3})\]\(#tl\d{3}\)\s*\|([^|]*)\|(.*)\|\s*$")
#: A code's own section heading: ``## TL201``.
_HEADING = re.compile(r"^## (TL\d{3})\s*$")


@dataclass(frozen=True)
class CodeInfo:
    """One code of the table: ``code`` (``"TL201"``), its default ``severity`` as the
    table words it (``"error / warning"``, ``"as the worst hidden one"``) and its one-line
    ``title`` (markdown: backticks kept)."""

    code: str
    severity: str
    title: str


@cache
def codes_markdown() -> str:
    """The text of the packaged ``codes.md`` (UTF-8)."""
    path = resources.files("torch_logs_lsp.knowledge") / "data" / "codes.md"
    return path.read_text(encoding="utf-8")


@cache
def code_table() -> dict[str, CodeInfo]:
    """Every documented code, in the table's order: code -> :class:`CodeInfo`."""
    out: dict[str, CodeInfo] = {}
    for line in codes_markdown().splitlines():
        m = _ROW.match(line)
        if m:
            code = m.group(1)
            out[code] = CodeInfo(code, m.group(2).strip(), m.group(3).strip())
    return out


def all_codes() -> tuple[str, ...]:
    """Every documented code (``"TL001"`` ...), in the table's order."""
    return tuple(code_table())


@cache
def _sections() -> dict[str, str]:
    sections: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in [*codes_markdown().splitlines(), "## end"]:
        if line.startswith("## "):
            if current is not None:
                sections[current] = "\n".join(lines).strip()
            m = _HEADING.match(line)
            current = m.group(1) if m else None
            lines = []
        elif current is not None:
            lines.append(line)
    return sections


def code_doc(code: str) -> str | None:
    """The documentation of ``code`` (the body of its ``## TLnnn`` section, markdown,
    without the heading); ``None`` for a code that has no section."""
    return _sections().get(code.upper())


def anchor(code: str) -> str:
    """The code's heading anchor in ``docs/codes.md`` as GitHub makes it: ``tl201``."""
    return code.lower()


__all__ = ["CodeInfo", "all_codes", "anchor", "code_doc", "code_table", "codes_markdown"]
