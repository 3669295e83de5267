"""Completion and hover of torch's compile knobs (``TORCHINDUCTOR_*``, ``TORCHDYNAMO_*``,
``TORCH_COMPILE_*`` ...): the names of the release in use where a variable name is typed,
and each name's documentation as torch states it (:mod:`~..knowledge.knobs`).

Offsets are code points into the document text."""

from __future__ import annotations

import re

from lsprotocol import types

from torch_logs_lsp.knowledge.knobs import KnobInfo, knobs, packaged_releases
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.texts import Doc, label

_NAME = re.compile(r"[A-Z0-9_]")


def _w(key: str, locale: str, **fmt: str) -> str:
    return label("since" if key == "since" else f"knob_{key}", locale, **fmt)


def knob_doc(knob: KnobInfo, locale: str, release: str | None = None) -> Doc:
    """The documentation of ``knob``: torch's comment, default, accepted values, the first
    release that reads it and the file and entry it comes from; ``release``: the release in
    use, when it does not read the knob."""
    doc = Doc(f"**{knob.name}** · {_w('kind', locale)}")
    doc.para(knob.doc or _w("no_doc", locale))
    if knob.default is not None:
        default = f"`{knob.default}` ({_w('unset', locale)})"
    else:
        default = _w("none", locale)
    doc.para(f"{_w('default', locale)}: {default}")
    doc.para(f"{_w('values', locale)}: {knob.accepted()}")
    doc.para(
        _w("since", locale, first=knob.since)
        + ". "
        + _w(
            "read_in" if knob.entry.endswith("()") else "feeds",
            locale,
            entry=f"{knob.module}.{knob.entry}",
            file=knob.file,
        )
        + "."
    )
    if release is not None:
        first, last = _span(knob.name)
        doc.para(_w("not_read", locale, release=release, first=first, last=last))
    return doc


def _span(name: str) -> tuple[str, str]:
    releases = [r for r in packaged_releases() if name in knobs(r)]
    return (releases[0], releases[-1]) if releases else ("?", "?")


def _newest(name: str) -> KnobInfo | None:
    for release in reversed(packaged_releases()):
        found = knobs(release).get(name)
        if found is not None:
            return found
    return None


def completion_items(
    word: str, edit_range: types.Range, release: str | None, locale: str, markdown: bool
) -> list[types.CompletionItem]:
    """The knobs of torch ``release`` whose names start with ``word`` (any case), each
    replacing ``edit_range``: kind Variable, detail its default and first release,
    documentation torch's comment (:func:`knob_doc`)."""
    prefix = word.upper()
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    items = []
    for name, knob in knobs(release).items():
        if not name.startswith(prefix):
            continue
        doc = knob_doc(knob, locale)
        default = knob.default if knob.default is not None else "-"
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Variable,
                detail=f"{_w('default', locale)} {default} · {knob.since}+",
                documentation=types.MarkupContent(
                    kind=kind, value=doc.markdown() if markdown else doc.plaintext()
                ),
                sort_text=f"7_{name}",
                filter_text=name,
                text_edit=types.TextEdit(range=edit_range, new_text=name),
            )
        )
    return items


def hover(
    state: DocumentState, offset: int, release: str | None, locale: str, markdown: bool
) -> types.Hover | None:
    """Hover on a knob's name anywhere in the document (an assignment, a read, a
    comment): :func:`knob_doc` of the release in use, else of the newest packaged release
    that reads it (saying so); ``None`` on any other word."""
    text = state.text
    if not 0 <= offset <= len(text):
        return None
    start = offset
    while start > 0 and _NAME.match(text[start - 1]):
        start -= 1
    end = offset
    while end < len(text) and _NAME.match(text[end]):
        end += 1
    if start == end or end - start > 200:
        return None
    if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
        return None  # part of a longer word (`torchTORCH_X`)
    name = text[start:end]
    knob = knobs(release).get(name)
    doc = knob_doc(knob, locale) if knob is not None else None
    if doc is None:
        newest = _newest(name)
        if newest is None:
            return None
        doc = knob_doc(newest, locale, release=release or packaged_releases()[-1])
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    value = doc.markdown() if markdown else doc.plaintext()
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=value),
        range=state.mapper.range(start, end),
    )


__all__ = ["completion_items", "hover", "knob_doc"]
