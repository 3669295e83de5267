"""textDocument/completion: names inside a TORCH_LOGS value, the family's variable names,
and fields / named formats in a TORCH_LOGS_FORMAT value."""

from __future__ import annotations

import json
import re
from typing import NamedTuple

import cattrs
from lsprotocol import types

from torch_logs_lsp.hosts import host_module
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.knowledge.usage import popularity
from torch_logs_lsp.model.spans import FAMILY_ORDER, ValueSpan
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features import knob_ide, set_logs_ide
from torch_logs_lsp.server.features.memo import PerRegistry
from torch_logs_lsp.server.pygls_fixes.wire import Encoded, range_json
from torch_logs_lsp.server.texts import label
from torch_logs_lsp.torch_env.context import fallback_finder
from torch_logs_lsp.value.family import LOG_RECORD_FIELDS, NAMED_FORMATS, since

TRIGGER_CHARACTERS = ["=", ",", "+", "-", '"', "'", "("]
_WORD = re.compile(r"[\w.]")


def _word_bounds(value: str, index: int) -> tuple[int, int]:
    start = index
    while start > 0 and _WORD.match(value[start - 1]):
        start -= 1
    end = index
    while end < len(value) and _WORD.match(value[end]):
        end += 1
    return start, end


def _used_names(value: str) -> set[str]:
    return {part.strip().lstrip("+-") for part in value.split(",")}


def module_completions(
    state: DocumentState, word: str, edit_range: types.Range, locale: str
) -> types.CompletionList:
    """Submodules of the package before the last dot (``torch._dynamo.`` -> ``guards``,
    ...), from the user's environment, else the packaged torch module list."""
    finder = state.context.finder if state.context else fallback_finder()
    parent = word.rpartition(".")[0]
    lookup = finder.find_spec(parent) if parent else None
    items: list[types.CompletionItem] = []
    if lookup is not None and lookup.spec is not None and lookup.spec.is_package:
        for child, is_package in finder.children(lookup.spec):
            if child.startswith("_") and not word.rpartition(".")[2].startswith("_"):
                rank = "1"
            else:
                rank = "0"
            full = f"{parent}.{child}"
            items.append(
                types.CompletionItem(
                    label=child,
                    kind=types.CompletionItemKind.Module
                    if is_package
                    else types.CompletionItemKind.File,
                    detail=label("module", locale),
                    sort_text=f"{rank}_{child}",
                    filter_text=full,
                    text_edit=types.TextEdit(range=edit_range, new_text=full),
                )
            )
    return types.CompletionList(is_incomplete=False, items=items)


def _after_trailing_blanks(state: DocumentState, offset: int) -> ValueSpan | None:
    """An unquoted .env value whose trailing blanks python-dotenv strips: a cursor after
    ``TORCH_LOGS=+dynamo, `` is still typing that value (whitespace after a comma is
    allowed), so it belongs to the span."""
    module = host_module(state.host) if state.host is not None else None
    if module is None or not module.STRIPS_TRAILING_BLANKS:
        return None
    for span, _ in state.entries:
        if (
            span.quote == ""
            and span.value is not None
            and span.value.endswith(",")
            and span.content_end < offset
            and state.text[span.content_end : offset].strip(" \t") == ""
        ):
            return span
    return None


def _empty_value_at(state: DocumentState, offset: int) -> str | None:
    """The variable whose empty value the cursor is in, where the host has such values
    without a span (YAML's ``TORCH_LOGS: ``, a null: ``empty_value_at``), else ``None``."""
    module = host_module(state.host) if state.host is not None else None
    find = getattr(module, "empty_value_at", None)
    found = find(state.text, offset) if find is not None else None
    return found if isinstance(found, str) else None


def variable_completions(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.CompletionList | None:
    """The six TORCH_LOGS family names and the release's compile knobs
    (:mod:`.knob_ide`) while typing a variable name where the host says
    one may go (``typed_name``: at the start of a line in a .env or shell file, after
    ``export``, or as a key of a launch.json / tasks.json ``env`` object). ``None``
    elsewhere."""
    module = host_module(state.host) if state.host is not None else None
    word = module.typed_name(state.text, offset) if module is not None else None
    if word is None:
        return None
    end = offset
    while end < len(state.text) and (state.text[end].isalnum() or state.text[end] == "_"):
        end += 1
    edit_range = state.mapper.range(offset - len(word), end)
    # torch's compile knobs of the release (TORCHINDUCTOR_..., TORCHDYNAMO_...), after the family
    knob_items = knob_ide.completion_items(word, edit_range, registry.release, locale, markdown)
    family = FAMILY_ORDER if "TORCH_".startswith(word.upper()[:6]) else ()
    if not family and not knob_items:
        return None
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    items = []
    for n, name in enumerate(family):
        text = registry.description(name, locale)
        text += " " + label("since", locale, first=since(name)) + "."
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Variable,
                detail=label("since", locale, first=since(name)),
                documentation=types.MarkupContent(kind=kind, value=text),
                sort_text=f"{n}_{name}",
                filter_text=name,
                text_edit=types.TextEdit(range=edit_range, new_text=name),
            )
        )
    return types.CompletionList(is_incomplete=False, items=items + knob_items)


_FIELD_START = re.compile(r"%\((\w*)$")


def format_completions(
    state: DocumentState, span: ValueSpan, offset: int, locale: str
) -> types.CompletionList | None:
    """In a TORCH_LOGS_FORMAT value: LogRecord attribute names after ``%(`` (inserting
    ``name)s`` unless a ``)`` follows), else ``short`` / ``basic`` while the value has no
    ``%``."""
    value = span.value
    index = span.value_index(offset)
    if value is None or index is None:
        return None
    m = _FIELD_START.search(value[:index])
    if m is not None:
        start = m.start(1)
        end = index
        while end < len(value) and (value[end].isalnum() or value[end] == "_"):
            end += 1
        closed = value[end : end + 1] == ")"
        edit_range = state.mapper.range(*span.document_range(start, end))
        items = [
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Field,
                detail="logging.LogRecord",
                sort_text=f"{n:02d}_{name}",
                filter_text=name,
                text_edit=types.TextEdit(
                    range=edit_range, new_text=name if closed else f"{name})s"
                ),
            )
            for n, name in enumerate(LOG_RECORD_FIELDS)
        ]
        return types.CompletionList(is_incomplete=False, items=items)
    if "%" in value:
        return None
    edit_range = state.mapper.range(*span.document_range(0, len(value)))
    items = [
        types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.EnumMember,
            detail=f"logging.BASIC_FORMAT ({label('since', locale, first='2.3')})",
            sort_text=f"{n}_{name}",
            text_edit=types.TextEdit(range=edit_range, new_text=name),
        )
        for n, name in enumerate(NAMED_FORMATS)
    ]
    return types.CompletionList(is_incomplete=False, items=items)


def completions(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.CompletionList | None:
    """Completion items at a document offset (code points) inside a TORCH_LOGS value.

    ``None`` outside a value (and for values that are not static). Each item's textEdit
    replaces exactly the name being typed (the word around the cursor, prefix excluded).
    """
    result = answer(state, offset, registry, locale, markdown)
    return result.to_lsp() if isinstance(result, NameCompletions) else result


def answer(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.CompletionList | NameCompletions | None:
    """What the server sends for :func:`completions`: the same list, except that names
    in a TORCH_LOGS value come as :class:`NameCompletions`, which encode themselves."""
    span = state.span_at(offset) or _after_trailing_blanks(state, offset)
    if span is None and _empty_value_at(state, offset) == "TORCH_LOGS":
        here = state.mapper.position(offset)  # `TORCH_LOGS: |` in YAML: a null until typed
        return NameCompletions(
            _CATALOGS.get(registry, locale, markdown), set(), types.Range(start=here, end=here)
        )
    if span is None:  # a set_logs(...) keyword or value (Python), else a variable name
        found = set_logs_ide.completions(state, offset, registry, locale, markdown)
        return found or variable_completions(state, offset, registry, locale, markdown)
    if span.variable == "TORCH_LOGS_FORMAT" and span.value is not None:
        return format_completions(state, span, offset, locale)
    if span.variable != "TORCH_LOGS" or span.value is None:
        return None
    index = span.value_index(offset)
    if index is None:
        if offset <= span.content_end:
            return None
        index = len(span.value)  # after `TORCH_LOGS=+dynamo, ` in a .env: a new item
    value = span.value
    start, end = _word_bounds(value, index)
    word = value[start:index]
    doc_start, doc_end = span.document_range(start, end)
    if index == len(value) and offset > span.content_end:
        doc_start = doc_end = offset
    edit_range = state.mapper.range(doc_start, doc_end)
    if edit_range.start.line != edit_range.end.line:  # a line continuation inside the word
        here = state.mapper.position(offset)
        edit_range = types.Range(start=here, end=here)
    if "." in word:
        return module_completions(state, word, edit_range, locale)
    used = _used_names(value[:start] + value[end:])
    return NameCompletions(_CATALOGS.get(registry, locale, markdown), used, edit_range)


class _Entry(NamedTuple):
    """The parts of a name's completion item that depend only on the registry."""

    name: str
    rank: str
    kind: types.CompletionItemKind
    detail: str
    label_details: types.CompletionItemLabelDetails
    documentation: types.MarkupContent

    def item(self, sort_text: str, edit_range: types.Range) -> types.CompletionItem:
        """The completion item with this sort text and textEdit range."""
        return types.CompletionItem(
            label=self.name,
            kind=self.kind,
            detail=self.detail,
            label_details=self.label_details,
            documentation=self.documentation,
            sort_text=sort_text,
            filter_text=self.name,
            text_edit=types.TextEdit(range=edit_range, new_text=self.name),
        )


def _entries(registry: Registry, locale: str, markdown: bool) -> list[_Entry]:
    """Every offered name's static item parts, in the order completion lists them."""
    doc_kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    out: list[_Entry] = []
    for name in registry.offered_names():
        kind = registry.kind(name)
        if kind == "artifact":
            art = registry.artifacts[name]
            detail = label("artifact", locale)
            if art.off_by_default:
                detail += ", " + label("off_by_default", locale)
            item_kind = types.CompletionItemKind.Field
            rank = "1" if art.visible else "2"
        else:
            detail = label("component" if kind == "component" else "special", locale)
            item_kind = (
                types.CompletionItemKind.Module
                if kind == "component"
                else types.CompletionItemKind.Keyword
            )
            rank = "0"
        out.append(
            _Entry(
                name=name,
                rank=popularity(name) + rank,  # most used first, then by kind
                kind=item_kind,
                detail=detail,
                label_details=types.CompletionItemLabelDetails(description=detail),
                documentation=types.MarkupContent(
                    kind=doc_kind, value=registry.description(name, locale)
                ),
            )
        )
    return out


#: Markers of the per-request parts in the JSON of a template item (a name never holds
#: a NUL; a JSON string never holds an unescaped quote, so the range text is unique).
_SORT_MARK = "\0sort"
_RANGE_MARK = types.Range(
    start=types.Position(line=0x7FFFFFF0, character=1),
    end=types.Position(line=0x7FFFFFF0, character=2),
)


class _Pieces(NamedTuple):
    """One item's JSON split around its sort text and its textEdit range."""

    name: str
    head: str
    sort: str
    used: str
    middle: str
    tail: str


class _Catalog:
    """The names completion offers for one (registry, locale, format): item parts for
    the lsprotocol form, and JSON pieces (encoded on first use) for the wire."""

    def __init__(self, registry: Registry, locale: str, markdown: bool) -> None:
        self.entries = _entries(registry, locale, markdown)
        self._pieces: list[_Pieces] | None = None
        self._envelope: tuple[str, str] | None = None

    def pieces(self, converter: cattrs.Converter) -> tuple[list[_Pieces], tuple[str, str]]:
        """Each item's JSON pieces and the list's JSON before and after the items, all
        written by ``converter`` and ``json.dumps`` exactly as pygls would."""
        if self._pieces is None or self._envelope is None:
            sort_mark = json.dumps(_SORT_MARK)
            range_mark = json.dumps(converter.unstructure(_RANGE_MARK))
            pieces = []
            for e in self.entries:
                text = json.dumps(converter.unstructure(e.item(_SORT_MARK, _RANGE_MARK)))
                head, rest = _split_once(text, sort_mark)
                middle, tail = _split_once(rest, range_mark)
                sort = json.dumps(f"{e.rank}_{e.name}")
                used = json.dumps(f"9_{e.name}")
                pieces.append(_Pieces(e.name, head, sort, used, middle, tail))
            empty = json.dumps(
                converter.unstructure(types.CompletionList(is_incomplete=False, items=[]))
            )
            before, after = _split_once(empty, "[]")
            self._envelope = (before + "[", "]" + after)
            self._pieces = pieces
        return self._pieces, self._envelope


def _split_once(text: str, mark: str) -> tuple[str, str]:
    before, found, after = text.partition(mark)
    if not found or mark in after:
        raise ValueError(f"{mark!r} is not in the template exactly once")
    return before, after


_CATALOGS = PerRegistry(_Catalog)


class NameCompletions(Encoded):
    """Every offered name, those in ``used`` ranked last, each replacing ``edit_range``."""

    __slots__ = ("catalog", "edit_range", "used")

    def __init__(self, catalog: _Catalog, used: set[str], edit_range: types.Range) -> None:
        self.catalog = catalog
        self.used = used
        self.edit_range = edit_range

    def to_lsp(self) -> types.CompletionList:
        """The completion list as lsprotocol objects."""
        items = [
            e.item(f"{'9' if e.name in self.used else e.rank}_{e.name}", self.edit_range)
            for e in self.catalog.entries
        ]
        return types.CompletionList(is_incomplete=False, items=items)

    def to_json(self, converter: cattrs.Converter) -> str:
        """The JSON of :meth:`to_lsp`, joined from the catalog's pieces."""
        pieces, (before, after) = self.catalog.pieces(converter)
        rng = range_json(self.edit_range)
        used = self.used
        items = ", ".join(
            p.head + (p.used if p.name in used else p.sort) + p.middle + rng + p.tail
            for p in pieces
        )
        return before + items + after
