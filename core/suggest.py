"""Suggestions ("did you mean ...") for unknown names, built on :mod:`difflib`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=16)
def _lowered(candidates: tuple[str, ...]) -> tuple[tuple[tuple[str, str], ...], int]:
    """Distinct candidates with their lower case, and the longest lower-case length."""
    pairs = tuple((c, c.lower()) for c in dict.fromkeys(candidates))
    return pairs, max((len(low) for _, low in pairs), default=0)


def suggest(name: str, candidates: Iterable[str], limit: int = 3, close: bool = True) -> list[str]:
    """Up to ``limit`` known names the user probably meant by ``name``, best first.

    Ranking: a case-insensitive or ``-``/``_`` insensitive match (``Dynamo`` ->
    ``dynamo``, ``graph-breaks`` -> ``graph_breaks``); then names that ``name`` is a prefix
    of (``aot_g`` -> ``aot_graphs``; at least three characters typed); then, with
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
    if len(norm) >= 3:
        out += sorted((c for c, low in pairs if low.startswith(norm)), key=len)
    if close:
        lowered = {low: c for c, low in pairs}
        out += [lowered[m] for m in difflib.get_close_matches(norm, list(lowered), n=limit)]
    return list(dict.fromkeys(out))[:limit]
