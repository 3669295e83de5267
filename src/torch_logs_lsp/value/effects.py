"""What torch makes of each item of a TORCH_LOGS value, read from its analysis.

The per-item view of :class:`~.analysis.EffectiveConfiguration` (what ``torch-logs explain
--json`` prints as ``logs``, ``artifacts`` and ``modules``): a component sets its loggers
to a level, unless a later item sets them again; an artifact is enabled whatever its
prefix; a module name sets its logger. Inlay hints show these; nothing here decides
anything the analysis has not decided (one source of truth). Offsets are code points into
the decoded value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.value.analysis import Analysis, level_of

EffectKind = Literal["component", "special", "artifact", "module"]


@dataclass(frozen=True)
class ItemEffect:
    """What one item does, in the final configuration torch builds.

    ``index``: the item's index in the parsed value; ``start``/``end``: its offsets in
    the value (end exclusive). ``kind``: ``"component"``, ``"special"`` (``all``),
    ``"artifact"`` or ``"module"``. ``level``: the item's own level (its prefix: 10
    DEBUG, 20 INFO, 40 ERROR); ``final``: the distinct levels its loggers end at, in
    logger order (empty for an artifact); ``loggers``: the qualified loggers it sets.
    ``prefix_ignored``: an artifact written with ``+``/``-``; ``off_by_default``: an
    artifact its component's level does not turn on (enabled here because it is named).
    """

    index: int
    start: int
    end: int
    name: str
    kind: EffectKind
    level: int
    final: tuple[int, ...] = ()
    loggers: tuple[str, ...] = ()
    prefix_ignored: bool = False
    off_by_default: bool = False

    @property
    def overridden(self) -> bool:
        """Whether a later item set some of this item's loggers to another level."""
        return any(f != self.level for f in self.final)


def item_effects(analysis: Analysis, registry: Registry) -> tuple[ItemEffect, ...]:
    """The effect of each valid item of ``analysis`` (made against ``registry``), in
    value order; empty when torch does not accept the value (no configuration: the
    diagnostics say why). Items torch reads as module names are those in the
    configuration's ``modules``."""
    config = analysis.config
    if config is None:
        return ()
    modules = set(config.modules)
    artifacts = set(config.artifacts)
    out: list[ItemEffect] = []
    for item in analysis.parsed.items:
        if not item.valid:
            continue
        name = item.name
        level = level_of(item.prefix)
        kind = registry.kind(name)
        if kind in ("component", "special"):
            loggers = tuple(q for q in registry.qnames_for(name) if q in config.logs)
            final = tuple(dict.fromkeys(config.logs[q] for q in loggers))
            out.append(
                ItemEffect(item.index, item.start, item.end, name, kind, level, final, loggers)
            )
        elif kind == "artifact" and name in artifacts:
            art = registry.artifacts.get(name)
            out.append(
                ItemEffect(
                    item.index,
                    item.start,
                    item.end,
                    name,
                    "artifact",
                    level,
                    prefix_ignored=bool(item.prefix),
                    off_by_default=bool(art and art.off_by_default),
                )
            )
        elif name in modules and name in config.logs:
            out.append(
                ItemEffect(
                    item.index,
                    item.start,
                    item.end,
                    name,
                    "module",
                    level,
                    (config.logs[name],),
                    (name,),
                )
            )
    return tuple(out)
