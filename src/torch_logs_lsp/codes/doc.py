"""The long documentation of each code: the ``## TLnnn`` sections of the packaged
``codes/sections.md`` (markdown). Read by ``torch-logs codes TL201`` and by
``--format sarif`` (each rule's help text); ``docs/codes.md`` is generated from it and
the table (:mod:`.markdown`).

``sections.md`` is an introduction (the text before the first ``## `` heading, after an
HTML comment) and then ``## `` sections: one per code (``## TL201``), in the table's
order, and a few shared ones (``## Fixes``, ``## The other variables (TL4xx)``) before
the codes they introduce.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

# Re-exported: the table's names were imported from here before it had its own module.
from torch_logs_lsp.codes.table import CodeInfo, all_codes, code_table

#: A code's own section heading: ``## TL201``.
CODE_HEADING = re.compile(r"^## (TL\d{3})\s*$")
#: The comment at the top of ``sections.md`` (for its editors, not for readers).
_COMMENT = re.compile(r"\A<!--.*?-->\n*", re.S)


@cache
def sections_markdown() -> str:
    """The text of the packaged ``sections.md`` (UTF-8)."""
    return (resources.files("torch_logs_lsp.codes") / "sections.md").read_text(encoding="utf-8")


def split_sections() -> tuple[str, list[tuple[str, str]]]:
    """``sections.md`` as ``(introduction, [(heading, body), ...])``: the introduction
    without the leading comment, each heading without ``## ``, each body without its
    heading; all stripped of surrounding blank lines, in file order."""
    text = _COMMENT.sub("", sections_markdown())
    intro: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            intro.append(line)
    return "\n".join(intro).strip(), [(h, "\n".join(b).strip()) for h, b in sections]


@cache
def _code_sections() -> dict[str, str]:
    return {h: body for h, body in split_sections()[1] if CODE_HEADING.match(f"## {h}")}


def code_doc(code: str) -> str | None:
    """The documentation of ``code`` (the body of its ``## TLnnn`` section, markdown,
    without the heading); ``None`` for a code that has no section."""
    return _code_sections().get(code.upper())


def anchor(code: str) -> str:
    """The code's heading anchor in ``docs/codes.md`` as GitHub makes it: ``tl201``."""
    return code.lower()


__all__ = [
    "CODE_HEADING",
    "CodeInfo",
    "all_codes",
    "anchor",
    "code_doc",
    "code_table",
    "sections_markdown",
    "split_sections",
]
