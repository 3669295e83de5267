"""The registry of TORCH_LOGS names: components, artifacts and special names per torch release.

Facts come from packaged data, ``data/names-by-torch-version.json``: for each torch release
2.1-2.15 the components (log aliases -> qualified logger names) and artifacts (with their
``off_by_default`` and ``visible`` flags) that ``torch/_logging/_registrations.py`` of that
release registers (read from the release wheels with ``ast``). Descriptions (English and
Russian) come from ``data/descriptions.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache, cached_property
from importlib import resources
from typing import Any, Literal

NameKind = Literal["component", "artifact", "special"]

#: Names valid in the value but never offered by completion (torch registers them for its
#: own tests; source: ``torch/_logging/_registrations.py``).
TESTING_ONLY: frozenset[str] = frozenset({"custom_format_test_artifact"})

#: Names with a meaning of their own: ``all`` (the ``torch`` log from 2.2; every registered
#: log in 2.1) and ``help``/``+help`` (the whole value; ``import torch`` raises and prints
#: the names).
SPECIAL: frozenset[str] = frozenset({"all"})

DEFAULT_RELEASE = "2.15"


@dataclass(frozen=True)
class Component:
    """A registered log alias such as ``dynamo``.

    ``qnames`` are the qualified logger names it sets, in registration order
    (``torch/_logging/_registrations.py``: ``register_log(alias, [qnames])``).
    """

    name: str
    qnames: tuple[str, ...]


@dataclass(frozen=True)
class Artifact:
    """A registered artifact such as ``guards``.

    ``off_by_default``: not enabled by its component's level, must be named.
    ``visible``: listed by ``TORCH_LOGS=help`` (others only by ``+help``).
    """

    name: str
    off_by_default: bool
    visible: bool


@dataclass(frozen=True)
class Registry:
    """All names of one torch release.

    ``release`` is ``"major.minor"`` (``"2.15"``). Look names up with :meth:`kind`; names
    are case-sensitive, exactly as torch compares them.
    """

    release: str
    components: dict[str, Component]
    artifacts: dict[str, Artifact]
    descriptions: dict[str, dict[str, str]]
    #: Where the names come from: ``"packaged"`` or the path of the user's
    #: ``torch/_logging/_registrations.py`` (read statically, see ``torch_reader``).
    source: str = "packaged"
    #: The full torch version when read from an installation (``"2.13.0+cpu"``), else ``""``.
    version: str = ""

    def kind(self, name: str) -> NameKind | None:
        """``"component"``, ``"artifact"``, ``"special"`` (``all``) or ``None`` if unknown."""
        if name in SPECIAL:
            return "special"
        if name in self.components:
            return "component"
        if name in self.artifacts:
            return "artifact"
        return None

    def description(self, name: str, locale: str = "en") -> str:
        """Description of a name or variable in ``locale`` (``"en"`` or ``"ru"``).

        Falls back to English, then to the description torch itself registers (key
        ``"torch"``, read from the user's installation), then to ``""``; never raises.
        """
        entry = self.descriptions.get(name, {})
        return entry.get(locale) or entry.get("en") or entry.get("torch") or ""

    def offered_names(self) -> list[str]:
        """Names completion offers: ``all``, components, artifacts (not testing-only)."""
        names = ["all", *sorted(self.components)]
        names += sorted(a for a in self.artifacts if a not in TESTING_ONLY)
        return names

    def with_registered(
        self,
        components: tuple[tuple[str, tuple[str, ...]], ...],
        artifacts: tuple[tuple[str, bool, bool], ...],
    ) -> Registry:
        """This registry with names a program registers itself added (``components``:
        alias and qualified logger names; ``artifacts``: name, ``off_by_default``,
        ``visible``; torch's own names are kept as they are); ``self`` when there are
        none. The same arguments give the same object (analysis caches key on it)."""
        if not components and not artifacts:
            return self
        return _with_registered(self, components, artifacts)

    def known_names(self) -> list[str]:
        """Every name torch accepts as an item (``all``, components, every artifact)."""
        return ["all", *sorted(self.components), *sorted(self.artifacts)]

    @cached_property
    def known_tuple(self) -> tuple[str, ...]:
        """:meth:`known_names` as a tuple, computed once per registry."""
        return tuple(self.known_names())

    @cached_property
    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Alias keys -> names (:func:`.aliases.alias_index`), computed once per registry."""
        from torch_logs_lsp.knowledge.aliases import (
            alias_index,  # aliases reads registries: imported late
        )

        return alias_index(self)

    @cached_property
    def known_set(self) -> frozenset[str]:
        """:meth:`known_names` as a set, computed once per registry."""
        return frozenset(self.known_tuple)

    @cached_property
    def logger_names(self) -> frozenset[str]:
        """Every qualified logger name the components set, computed once per registry."""
        return frozenset(q for c in self.components.values() for q in c.qnames)

    @cached_property
    def logger_name_lengths(self) -> frozenset[int]:
        """The lengths of :attr:`logger_names` (to test only prefixes that could match)."""
        return frozenset(len(q) for q in self.logger_names)

    def qnames_for(self, name: str) -> tuple[str, ...]:
        """Qualified logger names an item ``name`` sets (``all`` -> ``("torch",)``; in torch
        2.1 ``all`` sets every registered log, in registration order).

        Empty for artifacts and unknown names.
        """
        if name == "all":
            if release_tuple(self.release) < (2, 2):
                every = (q for c in self.components.values() for q in c.qnames)
                return tuple(dict.fromkeys(every))
            return ("torch",)
        comp = self.components.get(name)
        return comp.qnames if comp else ()


def _read_json(filename: str) -> Any:
    path = resources.files("torch_logs_lsp.knowledge") / "data" / filename
    return json.loads(path.read_text(encoding="utf-8"))


def release_tuple(release: str) -> tuple[int, int]:
    """``"2.13"`` -> ``(2, 13)`` for numeric comparison; ``(0, 0)`` when unreadable."""
    try:
        major, minor = release.split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return (0, 0)


def _short(release: str) -> str:
    parts = release.split(".")
    return ".".join(parts[:2])


@cache
def _facts() -> dict[str, Any]:
    data: dict[str, Any] = _read_json("names-by-torch-version.json")
    return {_short(k): v for k, v in data.items()}


@cache
def _descriptions() -> dict[str, dict[str, str]]:
    try:
        data = _read_json("descriptions.json")
    except FileNotFoundError:
        return {}
    out: dict[str, dict[str, str]] = {}
    out.update(data.get("names", {}))
    out.update(data.get("variables", {}))
    return out


def releases() -> list[str]:
    """Packaged releases, oldest first, as ``"major.minor"`` strings."""
    return sorted(_facts(), key=release_tuple)


@cache
def load_registry(release: str = DEFAULT_RELEASE) -> Registry:
    """The packaged registry of ``release`` (``"2.15"``; ``"2.15.0"`` is accepted too).

    Raises ``KeyError`` when the release is not packaged (see :func:`releases`).
    """
    return registry_from_facts(_short(release), _facts()[_short(release)])


def registry_from_facts(
    release: str,
    facts: dict[str, Any],
    torch_descriptions: dict[str, str] | None = None,
    source: str = "packaged",
    version: str = "",
) -> Registry:
    """A registry from facts shaped like one release of ``names-by-torch-version.json``
    (``{"logs": {alias: [qnames]}, "artifacts": {name: {"off_by_default", "visible"}}}``).

    ``torch_descriptions``: descriptions torch registers (artifact -> text), kept under
    the ``"torch"`` key and shown when we have no description of our own.
    """
    components = {name: Component(name, tuple(qnames)) for name, qnames in facts["logs"].items()}
    artifacts = {
        name: Artifact(name, bool(flags["off_by_default"]), bool(flags["visible"]))
        for name, flags in facts["artifacts"].items()
    }
    descriptions = _descriptions()
    if torch_descriptions:
        descriptions = dict(descriptions)
        for name, text in torch_descriptions.items():
            if text:
                descriptions[name] = {**descriptions.get(name, {}), "torch": text}
    return Registry(release, components, artifacts, descriptions, source, version)


#: Registries with a program's own names, by (base registry's id, the names): the base is
#: kept in the value, so its id is not reused while the entry lives.
_EXTENDED: dict[tuple[object, ...], tuple[Registry, Registry]] = {}
_MAX_EXTENDED = 64


def _with_registered(
    registry: Registry,
    components: tuple[tuple[str, tuple[str, ...]], ...],
    artifacts: tuple[tuple[str, bool, bool], ...],
) -> Registry:
    key = (id(registry), components, artifacts)
    found = _EXTENDED.get(key)
    if found is not None and found[0] is registry:
        return found[1]
    comps = dict(registry.components)
    for name, qnames in components:
        comps.setdefault(name, Component(name, qnames or (name,)))
    arts = dict(registry.artifacts)
    for name, off, visible in artifacts:
        if name not in comps:
            arts.setdefault(name, Artifact(name, off, visible))
    extended = replace(registry, components=comps, artifacts=arts)
    if len(_EXTENDED) >= _MAX_EXTENDED:
        _EXTENDED.pop(next(iter(_EXTENDED)))
    _EXTENDED[key] = (registry, extended)
    return extended
