"""Reuse analyses of TORCH_LOGS values across spans and document versions.

A document names the same few values many times (a 10,000-line script may hold 1,600
assignments of five distinct values), and an edit changes one value at a time, so the
language server analyses each distinct value once and reuses the result. A result is
reused only while it is certain to be the same:

- the key is the value plus the identity of the registry and of the module finder (a new
  interpreter, torch or setting gives new objects, hence new keys);
- the finder's search directories are fingerprinted by their modification times (one
  ``stat`` each, once per document version): a module added to or removed from any of
  them drops every cached analysis;
- an analysis that found a module (whose submodules torch would walk) or that looked up a
  dotted name (which reads package directories below the search path) is never stored;
  such values are analysed afresh every time, exactly as without the cache.
"""

from __future__ import annotations

import os
from collections import OrderedDict

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.torch_env.context import fallback_finder
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, analyse, with_diagnostic
from torch_logs_lsp.value.family import output_code_hint

#: Most analyses kept (least recently used dropped first), counted in units of about
#: 2 KB (:func:`_weight`): a short value is one unit, a 24 KB value with 8,000 problems
#: ~2,000, so a few long values being edited cannot hold hundreds of MB.
MAX_ENTRIES = 4096


#: The heaviest analysis (units) the per-analysis side tables below keep alive.
_LIGHT = 2


def _weight(result: Analysis) -> int:
    """Units of ~2 KB an analysis holds: its value, items, problems and diagnostics
    (~256 bytes each with their messages)."""
    parsed = result.parsed
    count = len(parsed.items) + len(parsed.problems) + len(result.every_diagnostic)
    return 1 + (len(result.value) + 256 * count) // 2048


def _fingerprint(finder: ModuleFinder) -> tuple[int, ...]:
    """Modification times (ns) of the finder's search directories (its candidates for
    ``sys.path[0]`` too); -1 for a missing one."""
    out: list[int] = []
    for path in finder.searched:
        try:
            out.append(os.stat(path).st_mtime_ns)
        except OSError:
            out.append(-1)
    return tuple(out)


def _cacheable(result: Analysis) -> bool:
    if result.config is not None and result.config.modules:
        return False
    return not any("." in item.name for item in result.parsed.items)


#: An analysis' key: the value, ids of the registry and finder, where it runs.
_Key = tuple[str, int, int, str]


class AnalysisCache:
    """An LRU map ``(value, registry, finder) -> Analysis`` (see the module docstring),
    bounded by the total weight of its analyses (``max_entries`` units of ~2 KB; an
    analysis heavier than a quarter of that is not kept).

    Call :meth:`refresh` once per document version (it checks the finder's directories,
    ~10 ``stat`` calls), then :meth:`analyse` per value (a dict lookup when cached).
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[_Key, tuple[Registry, ModuleFinder, Analysis]]
        self._entries = OrderedDict()
        self._weights: dict[_Key, int] = {}
        #: Units (:func:`_weight`) held now; at most ``max_entries``.
        self.weight = 0
        self._prints: dict[int, tuple[ModuleFinder, tuple[int, ...]]] = {}
        self._hinted: dict[tuple[int, int], tuple[Analysis, Diagnostic, Analysis]] = {}
        self._output_code: dict[int, tuple[Analysis, Diagnostic | None]] = {}
        self.hits = 0
        self.misses = 0

    def clear(self) -> None:
        """Forget every analysis."""
        self._entries.clear()
        self._weights.clear()
        self.weight = 0
        self._prints.clear()
        self._hinted.clear()
        self._output_code.clear()

    def refresh(self, finder: ModuleFinder | None) -> None:
        """Drop every analysis if ``finder``'s search directories changed since last seen."""
        finder = finder or fallback_finder()
        now = _fingerprint(finder)
        seen = self._prints.get(id(finder))
        if seen is not None and seen[0] is finder and seen[1] != now:
            self._entries.clear()
            self._weights.clear()
            self.weight = 0
        self._prints[id(finder)] = (finder, now)

    def analyse(
        self, value: str, registry: Registry, finder: ModuleFinder | None, runs_on: str = "posix"
    ) -> Analysis:
        """``analyse(value, registry, finder, runs_on)``, from the cache when possible."""
        finder = finder or fallback_finder()
        key = (value, id(registry), id(finder), runs_on)
        entry = self._entries.get(key)
        if entry is not None and entry[0] is registry and entry[1] is finder:
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[2]
        self.misses += 1
        result = analyse(value, registry, finder, runs_on)
        weight = _weight(result)
        if _cacheable(result) and weight <= self.max_entries // 4:
            self._entries[key] = (registry, finder, result)
            self._weights[key] = weight
            self.weight += weight
            while self.weight > self.max_entries:
                old, _ = self._entries.popitem(last=False)
                self.weight -= self._weights.pop(old)
        return result

    def with_diagnostic(self, analysis: Analysis, diagnostic: Diagnostic) -> Analysis:
        """``with_diagnostic(analysis, diagnostic)``, the same object for the same pair of
        objects (a hint across variables repeats on every version of a document)."""
        key = (id(analysis), id(diagnostic))
        entry = self._hinted.get(key)
        if entry is not None and entry[0] is analysis and entry[1] is diagnostic:
            return entry[2]
        result = with_diagnostic(analysis, diagnostic)
        if _weight(analysis) > _LIGHT:
            return result  # kept alive by this table, a long value's analyses would pile up
        if len(self._hinted) >= self.max_entries:
            self._hinted.clear()
        self._hinted[key] = (analysis, diagnostic, result)
        return result

    def output_code_hint(self, analysis: Analysis | None) -> Diagnostic | None:
        """:func:`.family.output_code_hint`, one object per analysis."""
        if analysis is None:
            return None
        entry = self._output_code.get(id(analysis))
        if entry is not None and entry[0] is analysis:
            return entry[1]
        hint = output_code_hint(analysis)
        if _weight(analysis) > _LIGHT:
            return hint
        if len(self._output_code) >= self.max_entries:
            self._output_code.clear()
        self._output_code[id(analysis)] = (analysis, hint)
        return hint
