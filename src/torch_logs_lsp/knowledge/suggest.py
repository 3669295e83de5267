"""Suggestions ("did you mean ...") for unknown names: aliases and descriptions
(:mod:`.aliases`), prefixes, and spelling distance with :mod:`difflib`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from functools import lru_cache

from torch_logs_lsp.knowledge.aliases import key
from torch_logs_lsp.model.limits import MAX_DIAGNOSTICS

#: Alias keys -> registered names (:func:`.aliases.alias_index`).
Aliases = Mapping[str, tuple[str, ...]]


@lru_cache(maxsize=16)
def _lowered(candidates: tuple[str, ...]) -> tuple[tuple[tuple[str, str], ...], int]:
    """Distinct candidates with their lower case, and the longest lower-case length."""
    pairs = tuple((c, c.lower()) for c in dict.fromkeys(candidates))
    return pairs, max((len(low) for _, low in pairs), default=0)


def _stripped(norm: str, aliases: Aliases, known: set[str]) -> list[str]:
    """The names left when the first ``_`` part of ``norm`` is a registered name or an
    alias (``inductor_output_code`` -> ``output_code``): equal, aliased or prefixed."""
    head, sep, rest = norm.partition("_")
    if not (sep and rest and aliases.get(key(head))):
        return []
    out = [c for c in aliases.get(key(rest), ()) if c in known]
    if len(rest) >= 3:
        out += sorted((c for c in known if c.lower().startswith(rest)), key=len)
    return out


def suggest(
    name: str,
    candidates: Iterable[str],
    limit: int = 3,
    close: bool = True,
    aliases: Aliases | None = None,
) -> list[str]:
    """Up to ``limit`` known names the user probably meant by ``name``, best first.

    Ranking: a case-insensitive or ``-``/``_`` insensitive match (``Dynamo`` ->
    ``dynamo``, ``graph-breaks`` -> ``graph_breaks``); then, with ``aliases``, names it
    is an alias of by the descriptions or known aliases (``aot_autograd`` -> ``aot``,
    ``recompilation`` -> ``recompiles``); then names that ``name`` is a prefix of
    (``aot_g`` -> ``aot_graphs``; at least three characters typed); then, with
    ``aliases``, the rest after a component word (``dynamo_guards`` -> ``guards``); then, with
    ``close``, ``difflib.get_close_matches`` (ratio >= 0.6; the costly part, ~0.4 ms per
    name). A name more than 7/3 times as long as every candidate is answered ``[]`` at
    once (no candidate can match it), so a 100 KB name costs nothing. Never raises;
    ``[]`` when nothing is close.
    """
    every, longest = _lowered(tuple(candidates))
    pairs = [(c, low) for c, low in every if c != name]
    if not name or not pairs:
        return []
    norm = name.lower().replace("-", "_").strip("+-")
    # The two first rankings need len(norm) <= len(c); difflib's ratio
    # 2*M/(len(norm)+len(c)) >= 0.6 with M <= len(c) needs 3*len(norm) <= 7*len(c).
    if 3 * len(norm) > 7 * longest:
        return []
    out: list[str] = [c for c, low in pairs if low == norm]
    known = {c for c, _ in pairs}
    if aliases:
        out += [c for c in aliases.get(key(norm), ()) if c in known]
    if len(norm) >= 3:
        out += sorted((c for c, low in pairs if low.startswith(norm)), key=len)
    if aliases:
        out += _stripped(norm, aliases, known)
    if close:
        lowered = {low: c for c, low in pairs}
        out += [lowered[m] for m in difflib.get_close_matches(norm, list(lowered), n=limit)]
    return list(dict.fromkeys(out))[:limit]


#: Names whose suggestions are remembered across values, per set of known names (a
#: ``.env`` file of 100,000 values repeating 8 misspelled names computes 8 of them).
_SHARED_NAMES = 4096
#: Longest name remembered (a longer one is computed each time; it is rare and mostly
#: answered at once, see :func:`suggest`).
_SHARED_LENGTH = 256
#: Known-name sets remembered at once (one per torch release in use).
_SHARED_SETS = 8

_Memo = dict[tuple[str, bool], tuple[str, ...]]
_shared: dict[tuple[int, int], tuple[tuple[str, ...], Aliases | None, _Memo]] = {}


def _shared_memo(known: tuple[str, ...], aliases: Aliases | None) -> _Memo:
    """The process-wide memo of :func:`suggest` for ``known`` and ``aliases`` (keyed by
    identity: each entry holds both objects, so their ids stay theirs while it lives)."""
    ids = (id(known), id(aliases))
    entry = _shared.get(ids)
    if entry is None or entry[0] is not known or entry[1] is not aliases:
        if len(_shared) >= _SHARED_SETS:
            _shared.clear()
        entry = _shared[ids] = (known, aliases, {})
    return entry[2]


class Suggestions:
    """:func:`suggest` over the ``known`` names, per name, memoised; with difflib for the first
    :data:`.limits.MAX_DIAGNOSTICS` names asked, then only the cheap rankings (equal up to
    case and ``-``/``_``, prefix). Names are asked in item order and each asking item has
    a diagnostic inside its range, so a name past that budget only has diagnostics past
    the first ``MAX_DIAGNOSTICS``: hidden ones, for which fix-all needs only the cheap
    ranking (see ``fixes``).

    The answers are also kept across values (per ``known`` and ``aliases`` object, at most
    ``_SHARED_NAMES`` names of at most ``_SHARED_LENGTH`` code points): the same name asked
    with the same budget state gives the same answer in any value, so a file repeating a
    few names over many values computes each once."""

    def __init__(self, known: tuple[str, ...], aliases: Aliases | None = None) -> None:
        self.known = known
        self.aliases = aliases
        self.left = MAX_DIAGNOSTICS
        self.memo: dict[str, tuple[str, ...]] = {}

    def __call__(self, name: str) -> tuple[str, ...]:
        """The suggestions for ``name`` (see the class docstring for the budget)."""
        found = self.memo.get(name)
        if found is None:
            self.left -= 1
            close = self.left >= 0
            shared = _shared_memo(self.known, self.aliases) if len(name) <= _SHARED_LENGTH else None
            found = shared.get((name, close)) if shared is not None else None
            if found is None:
                found = tuple(suggest(name, self.known, close=close, aliases=self.aliases))
                if shared is not None:
                    if len(shared) >= _SHARED_NAMES:
                        shared.clear()
                    shared[(name, close)] = found
            self.memo[name] = found
        return found
