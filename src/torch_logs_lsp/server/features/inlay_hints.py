"""textDocument/inlayHint: after each item of a TORCH_LOGS value, what torch makes of it.

``+dynamo`` ⟨DEBUG⟩, ``recompiles`` ⟨artifact⟩, ``-guards`` ⟨prefix ignored⟩ (an artifact),
``output_code`` ⟨off by default, named⟩ (an artifact), ``torch.nn`` ⟨module · INFO⟩, and
``dynamo`` ⟨INFO → ERROR⟩ when a later item sets its loggers again. The words come from
:func:`torch_logs_lsp.value.effects.item_effects`, the per-item view of the configuration
``torch-logs explain --json`` prints; a value torch rejects gets no hints (its
diagnostics say why). Answered from the quick state (``server/app.py``): never waits for
a check.
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.value.analysis import LEVEL_NAMES, Analysis
from torch_logs_lsp.value.effects import ItemEffect, item_effects

#: Most hints one answer holds (the first ones in the range): a 1 MB value of 120,000 items
#: on one line is all in the range of its line.
MAX_HINTS = 2000

#: The hints' words, English and Russian.
WORDS: dict[str, dict[str, str]] = {
    "artifact": {"en": "artifact", "ru": "артефакт"},
    "module": {"en": "module", "ru": "модуль"},
    "prefix_ignored": {"en": "prefix ignored", "ru": "префикс игнорируется"},
    "off_named": {"en": "off by default, named", "ru": "выключен по умолчанию, назван"},
}


def _word(key: str, locale: str) -> str:
    words = WORDS[key]
    return words.get(locale) or words["en"]


def _levels(effect: ItemEffect) -> str:
    own = LEVEL_NAMES[effect.level]
    if not effect.overridden:
        return own
    return own + " → " + "/".join(LEVEL_NAMES.get(f, str(f)) for f in effect.final)


def hint_label(effect: ItemEffect, locale: str = "en") -> str:
    """The label shown after an item: its level (``DEBUG``; ``INFO → ERROR`` when a later
    item sets its loggers again); for an artifact ``prefix ignored`` (``-guards``) and ``off
    by default, named`` (``output_code``) when they apply, else ``artifact`` (short: VS Code
    cuts labels at ``editor.inlayHints.maximumLength``; the tooltip describes the name); or
    ``module · LEVEL``."""
    if effect.kind == "artifact":
        parts = []
        if effect.prefix_ignored:
            parts.append(_word("prefix_ignored", locale))
        if effect.off_by_default:
            parts.append(_word("off_named", locale))
        return " · ".join(parts) or _word("artifact", locale)
    if effect.kind == "module":
        return f"{_word('module', locale)} · {_levels(effect)}"
    return _levels(effect)


def _tooltip(effect: ItemEffect, registry: Registry, locale: str) -> str:
    lines = [registry.description(effect.name, locale)] if effect.kind != "module" else []
    if effect.loggers:
        shown = effect.loggers[:5]
        more = f" (+{len(effect.loggers) - 5})" if len(effect.loggers) > 5 else ""
        lines.append(", ".join(shown) + more)
    return "\n".join(line for line in lines if line)


def inlay_hints(
    state: DocumentState,
    registry: Registry,
    start: int,
    end: int,
    analyse: Callable[[ValueSpan], Analysis | None],
    locale: str = "en",
) -> list[types.InlayHint]:
    """Hints for the items of every TORCH_LOGS value of ``state`` whose end lies in the
    document range ``[start, end]`` (code points), each placed right after its item
    (positions from the state's mapper: UTF-16 unless negotiated); at most
    :data:`MAX_HINTS`, in document order. ``analyse`` gives a
    span's own analysis (``lint.checker.analyse_span``: the value as torch reads it, as
    ``explain`` does; an overwritten value keeps its hints, TL502 says it is
    overwritten)."""
    out: list[types.InlayHint] = []
    for span, _ in state.entries:
        if span.variable != "TORCH_LOGS" or span.value is None or not span.terminated:
            continue
        if span.content_end < start or span.content_start > end:
            continue
        analysis = analyse(span)
        if analysis is None:
            continue
        for effect in item_effects(analysis, registry):
            at = span.document_offset(effect.end)
            if at < start or at > end:
                continue
            if len(out) >= MAX_HINTS:
                return out
            tooltip = _tooltip(effect, registry, locale)
            out.append(
                types.InlayHint(
                    position=state.mapper.position(at),
                    label=hint_label(effect, locale),
                    padding_left=True,
                    tooltip=tooltip or None,
                )
            )
    return out
