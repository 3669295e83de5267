"""How often people use each registered name (``data/usage.json``: a sample of public
TORCH_LOGS values; its ``_source`` says how and when it was taken), for completion order."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def usage_counts() -> dict[str, int]:
    """Name -> uses in the sample (only names seen at least once); ``{}`` when the data
    cannot be read."""
    try:
        path = resources.files("torch_logs_lsp.knowledge") / "data" / "usage.json"
        counts = json.loads(path.read_text(encoding="utf-8"))["counts"]
        return {str(k): int(v) for k, v in counts.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


@cache
def popularity(name: str) -> str:
    """A sort key prefix: ``"0NNN"`` for a name used in the sample (``NNN`` its place, most
    used first; ties by name), ``"1"`` for the rest. Compared as text, so every used name
    sorts before every other."""
    counts = usage_counts()
    if name not in counts:
        return "1"
    order = sorted(counts, key=lambda n: (-counts[n], n))
    return f"0{order.index(name):03d}"


__all__ = ["popularity", "usage_counts"]
