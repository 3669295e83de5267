"""Per-registry caches: what a feature derives only from a registry, the locale and the
text format (Markdown or plain) is built once and shared by every request.

Registries are not hashable (their fields are dicts) and are replaced when the user's
torch changes, so entries are keyed by identity and dropped with their registry.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from torch_logs_lsp.knowledge.registry import Registry

T = TypeVar("T")


class PerRegistry(Generic[T]):
    """``build(registry, locale, markdown)``, computed once per distinct arguments."""

    def __init__(self, build: Callable[[Registry, str, bool], T]) -> None:
        self._build = build
        self._entries: dict[tuple[int, str, bool], tuple[weakref.ref[Registry], T]] = {}

    def get(self, registry: Registry, locale: str, markdown: bool) -> T:
        """The cached value for these arguments, built on first use."""
        key = (id(registry), locale, markdown)
        hit = self._entries.get(key)
        if hit is not None and hit[0]() is registry:
            return hit[1]
        value = self._build(registry, locale, markdown)
        entries = self._entries

        def drop(_: weakref.ref[Registry]) -> None:
            entries.pop(key, None)

        self._entries[key] = (weakref.ref(registry, drop), value)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()
