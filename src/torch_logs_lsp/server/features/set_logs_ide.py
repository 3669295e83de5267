"""Completion and hover in torch's ``set_logs(...)`` calls (Python documents): keyword
names and their values, hover on a keyword and on the called name.

The host finds where the cursor is (:meth:`~torch_logs_lsp.hosts.interface.Host.
set_logs_site`, half-typed code too) and the complete calls
(:meth:`~torch_logs_lsp.hosts.interface.Host.set_logs_calls`); the keywords are
those of the document's torch release (:func:`~torch_logs_lsp.set_logs.keywords.
set_logs_signature`). Offsets are code points; ranges go through the document's
position mapper (UTF-16 unless utf-8 was negotiated).
"""

from __future__ import annotations

import re

from lsprotocol import types

from torch_logs_lsp.hosts import set_logs_host
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.texts import Doc
from torch_logs_lsp.set_logs.call import LOGGING_LEVELS, Keyword, SetLogsCall
from torch_logs_lsp.set_logs.checks import torch_logs_spelling
from torch_logs_lsp.set_logs.equivalent import call_equivalent, keyword_equivalent
from torch_logs_lsp.set_logs.keywords import KeywordInfo, keyword_infos, set_logs_signature
from torch_logs_lsp.set_logs.site import LEVEL_ORDER, SetLogsSite

#: LSP has no "parameter" item kind. A keyword of ``set_logs`` names one setting of
#: torch's log state (a log's level, an artifact's switch): a named property of a
#: configuration, which is what ``Property`` stands for. (``Variable`` is taken by the
#: TORCH_LOGS family names and ``Field``/``Module`` by artifacts/components in values.)
KEYWORD_KIND = types.CompletionItemKind.Property
#: Values (``logging.DEBUG``, ``True``, ``None``) are constants.
VALUE_KIND = types.CompletionItemKind.Constant

_WHAT = {
    "component": "component (takes a logging level)",
    "artifact": "artifact (takes True/False)",
    "all": "the `torch` log (takes a logging level)",
    "modules": "module names (a dict of names to levels)",
    "unregistered": "no registered log in this torch",
}


def _releases(info: KeywordInfo) -> str:
    if not info.since:
        return "not in a packaged release"
    if info.until:
        return f"torch {info.since}-{info.until} (removed after {info.until})"
    return f"since torch {info.since}"


def _infos(registry: Registry, locale: str) -> dict[str, KeywordInfo]:
    """The keywords of ``registry``'s torch by name, in definition order."""
    infos = keyword_infos(set_logs_signature(registry), registry, locale)
    return {i.name: i for i in infos}


def _markup(text: str, markdown: bool) -> types.MarkupContent:
    if markdown:
        return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    plain = text.replace("**", "").replace("`", "")
    return types.MarkupContent(kind=types.MarkupKind.PlainText, value=plain)


def site_at(state: DocumentState, offset: int) -> SetLogsSite | None:
    """The host's :class:`SetLogsSite` at ``offset``, or ``None`` (no host, not in a
    torch ``set_logs`` call)."""
    module = set_logs_host(state.host) if state.host is not None else None
    return module.set_logs_site(state.text, offset) if module is not None else None


def completions(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.CompletionList | None:
    """Keyword names at a keyword position of a torch ``set_logs(`` call (those of the
    document's release not given yet, inserting ``name=``), or the values of the keyword
    before the cursor (levels as the document can write them, ``None``; ``True``/``False``
    for an artifact). ``None`` elsewhere."""
    site = site_at(state, offset)
    if site is None:
        return None
    infos = _infos(registry, locale)
    rng = state.mapper.range(site.start, site.end)
    if site.where == "keyword":
        items = []
        for n, kw in enumerate(infos.values()):
            if kw.name in site.given:
                continue
            text = kw.name if site.has_equals else f"{kw.name}="
            detail = f"{_WHAT[kw.kind]} · {_releases(kw)}"
            items.append(
                types.CompletionItem(
                    label=kw.name,
                    kind=KEYWORD_KIND,
                    detail=detail,
                    label_details=types.CompletionItemLabelDetails(description=kw.kind),
                    documentation=_markup(kw.description, markdown),
                    sort_text=f"{n:03d}_{kw.name}",
                    filter_text=kw.name,
                    text_edit=types.TextEdit(range=rng, new_text=text),
                )
            )
        return types.CompletionList(is_incomplete=False, items=items)
    info = infos.get(site.keyword)
    if info is None:
        return None
    kind, name = info.kind, info.name
    if site.entry_key is not None:  # modules={"key": |}: as torch's _set_logs reads it
        name = site.entry_key
        kind = "artifact" if registry.kind(name) == "artifact" else "component"
    items = _values(state, site, kind, name, rng)
    return types.CompletionList(is_incomplete=False, items=items)


def _values(
    state: DocumentState, site: SetLogsSite, kind: str, name: str, rng: types.Range
) -> list[types.CompletionItem]:
    """Values for keyword (or ``modules`` key) ``name`` of ``kind``: levels (DEBUG and
    INFO first) and ``None`` for a log, ``True``/``False`` for an artifact, ``None`` for
    the rest."""
    choices: list[tuple[str, str, types.TextEdit | None]] = []  # (text, detail, extra edit)
    if kind in ("component", "all"):
        for level in LEVEL_ORDER:
            spelling = site.levels.get(level)
            if spelling is None:
                continue
            value = LOGGING_LEVELS[level]
            if value in (10, 20, 40):
                detail = f"{value} · TORCH_LOGS `{torch_logs_spelling(name, value)}`"
            else:
                detail = f"{value} · no TORCH_LOGS spelling"
            edit = None
            if spelling.edit is not None:
                e = spelling.edit
                edit = types.TextEdit(range=state.mapper.range(e.start, e.end), new_text=e.new_text)
                detail += " · adds `import logging`"
            choices.append((spelling.text, detail, edit))
    elif kind == "artifact":
        choices.append(("True", f"enables it (TORCH_LOGS `{name}`)", None))
        choices.append(("False", "leaves it off (the same as not passing it)", None))
    if kind != "artifact":
        choices.append(("None", "leaves it as it is (the default)", None))
    return [
        types.CompletionItem(
            label=text,
            kind=VALUE_KIND,
            detail=detail,
            sort_text=f"{n:02d}_{text}",
            filter_text=text,
            text_edit=types.TextEdit(range=rng, new_text=text),
            additional_text_edits=[edit] if edit is not None else None,
        )
        for n, (text, detail, edit) in enumerate(choices)
    ]


_NAME_BEFORE = re.compile(r"([^\W\d]\w*)[ \t]*\Z")


def _callee_name(text: str, call: SetLogsCall) -> tuple[int, int] | None:
    """``[start, end)`` of the called expression (``torch._logging.set_logs``)."""
    paren = text.find("(", call.start, call.end)
    m = _NAME_BEFORE.search(text, call.start, paren) if paren > 0 else None
    return (call.start, m.end(1)) if m else None


def hover(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.Hover | None:
    """Hover on a keyword name of a torch ``set_logs(...)`` call (what it sets, torch's
    annotation, description, releases, its ``TORCH_LOGS`` spelling with this value) or on
    the called name (the equivalent ``TORCH_LOGS`` value, or why there is none)."""
    module = set_logs_host(state.host) if state.host is not None else None
    if module is None or "set_logs" not in state.text:
        return None
    for call in module.set_logs_calls(state.text):
        if not call.start <= offset <= call.end:
            continue
        for kw in call.keywords:
            if kw.name_start <= offset <= kw.name_end:
                text = _keyword_doc(kw, registry, locale)
                return types.Hover(
                    contents=_markup(text, markdown),
                    range=state.mapper.range(kw.name_start, kw.name_end),
                )
        callee = _callee_name(state.text, call)
        if callee is not None and callee[0] <= offset <= callee[1]:
            signature = set_logs_signature(registry)
            value, note = call_equivalent(call, registry, signature)
            doc = Doc(f"**set_logs** · torch {signature.release}")
            if value is not None:
                doc.para(f"Equivalent TORCH_LOGS value: `{value}`")
            else:
                doc.para(f"No exact TORCH_LOGS equivalent: {note}.")
            if call.torch_logs_set:
                doc.para(
                    f"TORCH_LOGS is set ({call.torch_logs_set}): this call only logs a warning."
                )
            return types.Hover(
                contents=_markup(doc.markdown(), markdown), range=state.mapper.range(*callee)
            )
    return None


def _keyword_doc(kw: Keyword, registry: Registry, locale: str) -> str:
    signature = set_logs_signature(registry)
    info = _infos(registry, locale).get(kw.name)
    if info is None:
        doc = Doc(f"**{kw.name}** · not a keyword of set_logs in torch {signature.release}")
        doc.para("Python raises TypeError at this call.")
        if registry.kind(kw.name) is not None:
            doc.para(f'TORCH_LOGS spelling: `{kw.name}` (or `modules={{"{kw.name}": ...}}`).')
        return doc.markdown()
    doc = Doc(f"**{info.name}** · set_logs keyword · {_WHAT[info.kind]}")
    if info.annotation:
        doc.para(f"`{info.name}: {info.annotation}`")
    doc.para(info.description)
    doc.para(f"{_releases(info)[:1].upper()}{_releases(info)[1:]}.")
    value, note = keyword_equivalent(kw, registry, signature)
    if value is not None:
        doc.para(f"TORCH_LOGS spelling of this value: `{value}`")
    else:
        doc.para(f"No TORCH_LOGS spelling of this value: {note}.")
    return doc.markdown()


__all__ = ["KEYWORD_KIND", "VALUE_KIND", "completions", "hover", "site_at"]
