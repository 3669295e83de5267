"""Choosing findings by code: ``select`` / ``extend-select`` / ``ignore`` /
``extend-ignore`` lists of codes and code prefixes, with ruff's semantics.

A selector is ``ALL``, a whole code (``TL201``) or a prefix of one or more documented
codes (``TL``, ``TL2``, ``TL20``); case does not matter. Anything else is an
:class:`UnknownSelector` (the CLI prints it and exits 2).

Resolution (ruff's, https://docs.astral.sh/ruff/linter/#rule-selection and its settings
page on ``lint.select``): the sources are applied in order, the configuration file first
and the command line (or the editor's settings) last. A source that has ``select``
starts over from it; one without keeps what the earlier ones left. Within one source, a
code is enabled or disabled by the *most specific* matching selector of its
``select``/``extend-select`` (enable) and ``ignore``/``extend-ignore`` (disable) lists,
where longer is more specific and ``ALL`` is the least; on a tie ``ignore`` wins.
``extend-ignore`` is the same as ``ignore`` (ruff keeps it as an alias too; both lists
count). With no ``select`` anywhere every code is enabled, as before.

Filtering is a plain function of codes (:func:`keep`) so that other filters
(suppression comments) can be applied the same way, one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from torch_logs_lsp.codes.table import all_codes

ALL = "ALL"

T = TypeVar("T")


class UnknownSelector(ValueError):
    """A selector that is neither ``ALL`` nor a documented code or prefix of one;
    ``where`` names the list (``"--select"``, ``"ignore"`` of a file, ``"torchLogs.ignore"``)."""

    def __init__(self, selector: str, where: str) -> None:
        super().__init__(f"{where}: unknown code or prefix {selector!r}")
        self.selector = selector
        self.where = where


def normalise(selector: str, where: str) -> str:
    """``selector`` checked and upper-cased; raises :class:`UnknownSelector`."""
    text = selector.strip().upper()
    if text == ALL:
        return ALL
    if len(text) >= 2 and text.startswith("TL") and any(c.startswith(text) for c in all_codes()):
        return text
    raise UnknownSelector(selector, where)


def _matches(selector: str, code: str) -> bool:
    return selector == ALL or code.startswith(selector)


def _specificity(selector: str) -> int:
    return 0 if selector == ALL else len(selector)


@dataclass(frozen=True)
class Selection:
    """One source of choices (the config file, the command line, the editor's settings):
    each list holds normalised selectors; ``select`` ``None`` when the source has none."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        where: str,
        select: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
        extend_ignore: Sequence[str] = (),
    ) -> Selection:
        """A source from raw lists; raises :class:`UnknownSelector` whose ``where`` is
        the list's name after ``where`` (``"--"`` gives ``--select``, ``"torchLogs."``
        gives ``torchLogs.select``; camelCase after a ``.``: ``torchLogs.extendIgnore``)."""

        def norm(name: str, items: Sequence[str]) -> tuple[str, ...]:
            if where.endswith("."):
                head, *rest = name.split("-")
                name = head + "".join(r.title() for r in rest)
            return tuple(normalise(s, where + name) for s in items)

        return cls(
            None if select is None else norm("select", select),
            norm("extend-select", extend_select),
            norm("ignore", ignore),
            norm("extend-ignore", extend_ignore),
        )

    @property
    def empty(self) -> bool:
        """True when this source chooses nothing."""
        return self.select is None and not (self.extend_select or self.ignore or self.extend_ignore)

    def _verdict(self, code: str, enabled: bool) -> bool:
        """Whether ``code`` is enabled after this source, given ``enabled`` before it."""
        best: tuple[int, int] | None = None  # (specificity, 1 for ignore: wins a tie)
        verdict = enabled if self.select is None else False
        selects = (*(self.select or ()), *self.extend_select)
        for sel in selects:
            if _matches(sel, code):
                key = (_specificity(sel), 0)
                if best is None or key > best:
                    best, verdict = key, True
        for sel in (*self.ignore, *self.extend_ignore):
            if _matches(sel, code):
                key = (_specificity(sel), 1)
                if best is None or key > best:
                    best, verdict = key, False
        return verdict


@dataclass(frozen=True)
class CodeFilter:
    """The enabled codes after a chain of :class:`Selection` sources (earliest first)."""

    sources: tuple[Selection, ...] = ()
    enabled: frozenset[str] = field(default_factory=lambda: frozenset(all_codes()))

    @classmethod
    def resolve(cls, sources: Iterable[Selection]) -> CodeFilter:
        """Apply ``sources`` in order (see the module docstring)."""
        chain = tuple(s for s in sources if not s.empty)
        on = set()
        for code in all_codes():
            enabled = True
            for source in chain:
                enabled = source._verdict(code, enabled)
            if enabled:
                on.add(code)
        return cls(chain, frozenset(on))

    def allows(self, code: str) -> bool:
        """Whether findings of ``code`` are shown (a code that is not documented, which
        none is: the sources' verdicts, from enabled)."""
        if code in self.enabled:
            return True
        if code in _KNOWN:
            return False
        enabled = True
        for source in self.sources:
            enabled = source._verdict(code, enabled)
        return enabled


_KNOWN = frozenset(all_codes())


def keep(allowed: CodeFilter, items: Iterable[T], code_of: Callable[[T], str]) -> list[T]:
    """The ``items`` whose code (``code_of(item)``) ``allowed`` shows, in order."""
    return [item for item in items if allowed.allows(code_of(item))]


__all__ = [
    "ALL",
    "CodeFilter",
    "Selection",
    "UnknownSelector",
    "keep",
    "normalise",
]
