"""Suggestions ("did you mean ...") for unknown names, built on :mod:`difflib`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """Up to ``limit`` known names the user probably meant by ``name``, best first.

    Ranking: a case-insensitive or ``-``/``_`` insensitive match (``Dynamo`` ->
    ``dynamo``, ``graph-breaks`` -> ``graph_breaks``); then names that ``name`` is a prefix
    of (``aot_g`` -> ``aot_graphs``; at least three characters typed); then
    ``difflib.get_close_matches`` (ratio >= 0.6). Never raises; ``[]`` when nothing is close.
    """
    pool = [c for c in dict.fromkeys(candidates) if c != name]
    if not name or not pool:
        return []
    norm = name.lower().replace("-", "_").strip("+-")
    out: list[str] = [c for c in pool if c.lower() == norm]
    if len(norm) >= 3:
        out += sorted((c for c in pool if c.lower().startswith(norm)), key=len)
    lowered = {c.lower(): c for c in pool}
    out += [lowered[m] for m in difflib.get_close_matches(norm, list(lowered), n=limit)]
    return list(dict.fromkeys(out))[:limit]
