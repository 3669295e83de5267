"""textDocument/hover: docs for an item, or the effective configuration on the variable."""

from __future__ import annotations

from lsprotocol import types

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.knowledge.versions import RENAMED, history, holds
from torch_logs_lsp.lint.dead_values import OVERWRITTEN
from torch_logs_lsp.model.limits import excerpt
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.features import code_hover, knob_ide, set_logs_ide
from torch_logs_lsp.server.features.memo import PerRegistry
from torch_logs_lsp.server.texts import Doc, label
from torch_logs_lsp.torch_env.context import TorchContext
from torch_logs_lsp.value.analysis import LEVEL_NAMES, Analysis, level_of
from torch_logs_lsp.value.family import FIELD_DOCS, format_fields, since
from torch_logs_lsp.value.parser import Item


def _item_at(analysis: Analysis, index: int) -> Item | None:
    for item in analysis.parsed.items:
        if item.start <= index <= item.end:
            return item
    return None


def lifespan(name: str, registry: Registry, locale: str) -> str:
    """ "In torch since 2.5", "..., until 2.3; renamed `ddp` in 2.4", or, for a name only
    the user's torch has, where it was read."""
    span = history(name)
    if span is None:
        version = registry.version or registry.release
        return label("not_packaged", locale, version=version) if registry.version else ""
    text = label("since", locale, first=span[0])
    if span[1] != "2.15":
        text += label("until", locale, last=span[1])
    if name in RENAMED:
        new, when = RENAMED[name]
        text += label("renamed", locale, new=new, when=when)
    return text + "."


def module_paras(doc: Doc, name: str, context: TorchContext | None, locale: str) -> None:
    """Where a module name was found and, on 2.11+, how many submodules it also sets."""
    if context is None:
        return
    lookup = context.finder.find_spec(name)
    if lookup.spec is None:
        return
    spec = lookup.spec
    where = spec.origin or ", ".join(spec.locations)
    if where:
        doc.para(label("module_found", locale, kind=spec.kind, origin=where))
    if spec.is_package and holds("module_submodules", context.registry.release):
        count = len(context.finder.walk(spec)) - 1
        doc.para(
            label("module_submodules", locale, release=context.registry.release, count=str(count))
        )


def item_doc(
    item: Item,
    analysis: Analysis,
    registry: Registry,
    locale: str,
    context: TorchContext | None = None,
) -> Doc:
    """Documentation of one item: kind, description, releases, level, loggers, artifact
    flags; for module names where the module is and what it sets. Never the messages of
    the item's diagnostics (the editor shows those over the squiggle already)."""
    name = item.name
    kind = registry.kind(name)
    level = LEVEL_NAMES[level_of(item.prefix)]
    if kind == "component" or kind == "special":
        doc = Doc(f"**{name}** · {label(kind, locale)}")
        doc.para(registry.description(name, locale))
        doc.para(lifespan(name, registry, locale))
        doc.para(f"{label('level', locale)}: **{level}** ({label('levels_hint', locale)})")
        rows = [(label("logger", locale), label("level", locale))]
        rows += [(q, level) for q in registry.qnames_for(name)]
        doc.table(rows)
        return doc
    if kind == "artifact":
        art = registry.artifacts[name]
        flags = [label("off_by_default", locale)] if art.off_by_default else []
        flags.append(label("visible" if art.visible else "hidden", locale))
        doc = Doc(f"**{name}** · {label('artifact', locale)} ({', '.join(flags)})")
        doc.para(registry.description(name, locale))
        doc.para(lifespan(name, registry, locale))
        doc.para(label("prefix_ignored", locale))
        if art.off_by_default:
            doc.para(label("off_note", locale))
        return doc
    title_kind = "module" if "." in name else "unknown"
    # The findings on the item are not repeated: an editor shows them with the hover
    # over their squiggle (VS Code above it), the docs of the name once.
    doc = Doc(f"**{excerpt(name)}** · {label(title_kind, locale)}")
    if title_kind == "module" or any(d.code == "TL202" for d in analysis.diagnostics):
        module_paras(doc, name, context, locale)
        doc.para(f"{label('level', locale)}: **{level}**. {label('module_note', locale)}")
    elif history(name) is not None:
        doc.para(lifespan(name, registry, locale))
    return doc


def variable_doc(
    span: ValueSpan,
    analysis: Analysis | None,
    registry: Registry,
    locale: str,
    context: TorchContext | None = None,
) -> Doc:
    """Documentation of the variable name; for TORCH_LOGS the effective configuration."""
    doc = Doc(f"**{span.variable}**")
    doc.para(registry.description(span.variable, locale))
    doc.para(label("since", locale, first=since(span.variable)) + ".")
    if span.variable != "TORCH_LOGS":
        return doc
    if analysis is None:
        if span.value is None:
            doc.para(label("not_static", locale))
        return doc
    dead = next((d for d in analysis.diagnostics if d.code == OVERWRITTEN), None)
    if dead is not None:  # TL502: what torch would do with it never happens
        doc.para(dead.message + ".")
        return doc
    doc.para(
        label(f"outcome_{analysis.outcome}", locale)
        + " "
        + label("release", locale, release=analysis.release)
    )
    if context is not None:
        doc.para(label("torch_from", locale, how=context.how))
    config = analysis.config
    if config is None:
        return doc
    doc.para(f"**{label('effective', locale)}**")
    if not (config.logs or config.artifacts):
        doc.para(label("no_effect", locale))
    rows = [(label("logger", locale), label("level", locale))]
    rows += [(q, LEVEL_NAMES[lvl]) for q, lvl in config.logs.items()]
    if len(rows) > 1:
        doc.table(rows)
    if config.artifacts:
        doc.para(f"{label('artifacts', locale)}: " + ", ".join(f"`{a}`" for a in config.artifacts))
    return doc


def _field_hover(
    state: DocumentState, span: ValueSpan, index: int, markdown: bool
) -> types.Hover | None:
    """Hover on a ``%(name)`` field of a TORCH_LOGS_FORMAT value: what the LogRecord
    attribute holds (for a name that is none, the attributes: its TL407 says the rest)."""
    value = span.value or ""
    for name, start, end in format_fields(value):
        if start <= index <= end:
            if name in FIELD_DOCS:
                doc = Doc(f"**%({name})** · logging.LogRecord")
                doc.para(FIELD_DOCS[name])
            else:  # TL407 says what is wrong (shown above the hover); the names that fit
                doc = Doc(f"**%({name})**")
                doc.para("logging.LogRecord: " + ", ".join(f"`{f}`" for f in FIELD_DOCS))
            kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
            text = doc.markdown() if markdown else doc.plaintext()
            rng = state.mapper.range(*span.document_range(start, end))
            return types.Hover(contents=types.MarkupContent(kind=kind, value=text), range=rng)
    return None


def hover(
    state: DocumentState, offset: int, registry: Registry, locale: str, markdown: bool
) -> types.Hover | None:
    """Hover at a document offset (code points), or ``None`` outside any value span."""
    span = state.span_at(offset)
    if span is None:  # a code in a suppression comment, a set_logs(...) call (Python), a knob
        found = code_hover.hover(state, offset, locale, markdown)
        if found is not None:
            return found
        found = set_logs_ide.hover(state, offset, registry, locale, markdown)
        return found or knob_ide.hover(state, offset, registry.release, locale, markdown)
    analysis = state.analysis_of(span)
    if span.name_start <= offset <= span.name_end:
        doc = variable_doc(span, analysis, registry, locale, state.context)
        start, end = span.name_start, span.name_end
    else:
        index = span.value_index(offset)
        if index is None or analysis is None:
            return None
        if span.variable == "TORCH_LOGS_FORMAT":
            return _field_hover(state, span, index, markdown)
        item = _item_at(analysis, index)
        if item is None or not item.name:
            return None
        start, end = span.document_range(item.start, item.end)
        if registry.kind(item.name) is not None:
            text = _known_doc(item, analysis, registry, locale, markdown)
            return _hover(text, markdown, state.mapper.range(start, end))
        doc = item_doc(item, analysis, registry, locale, state.context)
    text = doc.markdown() if markdown else doc.plaintext()
    return _hover(text, markdown, state.mapper.range(start, end))


def _hover(text: str, markdown: bool, rng: types.Range) -> types.Hover:
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=text), range=rng)


#: Rendered docs of registered names, per (registry, locale, format), by (name, level):
#: they depend on nothing else (see :func:`item_doc`).
_KNOWN_DOCS: PerRegistry[dict[tuple[str, int], str]] = PerRegistry(lambda *_: {})


def _known_doc(
    item: Item, analysis: Analysis, registry: Registry, locale: str, markdown: bool
) -> str:
    """The rendered :func:`item_doc` of a name the registry knows, cached."""
    docs = _KNOWN_DOCS.get(registry, locale, markdown)
    key = (item.name, level_of(item.prefix))
    text = docs.get(key)
    if text is None:
        doc = item_doc(item, analysis, registry, locale)
        text = docs[key] = doc.markdown() if markdown else doc.plaintext()
    return text
