"""textDocument/hover on a code in a suppression comment (``# torch-logs: ignore[TL201]``):
the code's title from the codes table and the address of its section of the docs (the
diagnostics' ``codeDescription.href``); a code prefix (``TL2``) lists the codes it
silences; anything else says it is not a torch-logs code.

The comment is found as the suppressions are (:func:`.lint.suppressions.find_suppressions`,
with the document's host: only real comments), in every host that has comments. Offsets
are code points into the document.
"""

from __future__ import annotations

import re

from lsprotocol import types

from torch_logs_lsp.codes.table import code_table
from torch_logs_lsp.lint.suppressions import find_suppressions
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features.diagnostics import code_href
from torch_logs_lsp.server.texts import Doc, label

_NEEDLE = "torch-logs:"
#: An entry of ``ignore[...]``: anything between commas, blanks around it not included.
_ENTRY = re.compile(r"[^,\s\]]+")
_LINE_ENDS = "\r\n"
#: Most codes a prefix's hover lists.
MAX_LISTED = 12


def code_at(text: str, start: int, end: int, offset: int) -> tuple[str, int, int] | None:
    """The entry of the ``ignore[...]`` list in ``text[start:end]`` (a suppression's body,
    :attr:`.lint.suppressions.Suppression.start`/``end``) that contains document offset
    ``offset`` (its end included): ``(entry as written, start, end)``; ``None`` outside
    the brackets or between entries."""
    body = text[start:end]
    open_at = body.find("[")
    if open_at < 0:
        return None
    inner = start + open_at + 1
    for m in _ENTRY.finditer(text, inner, end - 1 if body.endswith("]") else end):
        if m.start() <= offset <= m.end():
            return m.group(), m.start(), m.end()
    return None


def _line_has_needle(text: str, offset: int) -> bool:
    """Whether the line holding ``offset`` contains ``torch-logs:`` (the cheap test before
    the comments of the document are looked for)."""
    begin = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    ends = [i for i in (text.find(c, offset) for c in _LINE_ENDS) if i >= 0]
    return _NEEDLE in text[begin : min(ends) if ends else len(text)]


def code_doc(entry: str, locale: str, markdown: bool = True) -> Doc:
    """What a suppression entry names: ``**TL201** · title`` and the docs' address; a
    prefix's codes (at most :data:`MAX_LISTED`, with titles); or that it is no code."""
    code = entry.upper()
    table = code_table()
    info = table.get(code)
    if info is not None:
        doc = Doc(f"**{code}** · {info.title}")
        href = code_href(code)
        if href:
            words = label("code_docs", locale, code=code)
            doc.para(f"[{words}]({href})" if markdown else f"{words}: {href}")
        return doc
    covered = [c for c in table if c.startswith(code)] if re.fullmatch(r"TL\d{0,2}", code) else []
    if covered:
        doc = Doc(f"**{code}** · {label('code_prefix', locale, count=str(len(covered)))}")
        doc.table(
            [(label("code", locale), label("title", locale))]
            + [(c, table[c].title) for c in covered[:MAX_LISTED]]
        )
        if len(covered) > MAX_LISTED:
            doc.para(label("and_more", locale, count=str(len(covered) - MAX_LISTED)))
        return doc
    return Doc(f"**{entry}** · {label('not_a_code', locale)}")


def hover(state: DocumentState, offset: int, locale: str, markdown: bool) -> types.Hover | None:
    """Hover on a code of a suppression comment at document ``offset``; ``None`` elsewhere."""
    text = state.text
    if state.host is None or not _line_has_needle(text, offset):
        return None
    for s in find_suppressions(text, state.host):
        if s.start <= offset <= s.end and s.codes is not None:
            found = code_at(text, s.start, s.end, offset)
            if found is None:
                return None
            entry, start, end = found
            doc = code_doc(entry, locale, markdown)
            kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
            value = doc.markdown() if markdown else doc.plaintext()
            rng = state.mapper.range(start, end)
            return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=rng)
    return None
