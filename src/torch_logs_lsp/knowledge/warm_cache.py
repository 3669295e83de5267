"""Which TORCH_LOGS names print nothing when torch.compile's caches are warm (TL431).

``data/warm-cache-2.13.json`` is the measured table: real torch 2.13.0 ran a small compiled
training step in a cold process, a warm one (same ``TORCHINDUCTOR_CACHE_DIR``) and a warm
one with ``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` (``scripts/gen_warm_cache.py``).
``data/warm-cache-by-version.json`` lists, per release, the swallowed names whose logging
code and cache-hit path are the same as in 2.13 (``scripts/warm_cache_sources.py``); a
release not listed there gets no finding (nothing is guessed).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: The variables that turn every compile cache off (torch 2.13
#: ``torch/compiler/config.py``, ``force_disable_caches``, read as ``"1"``).
DISABLE_VARIABLES = ("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "TORCH_COMPILE_FORCE_DISABLE_CACHES")

#: The variable the quick fix sets, and its value.
FIX_VARIABLE = "TORCHINDUCTOR_FORCE_DISABLE_CACHES"
FIX_VALUE = "1"


def _load(filename: str) -> Any:
    path = resources.files("torch_logs_lsp.knowledge") / "data" / filename
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def measured_table() -> dict[str, Any]:
    """The measured table (``warm-cache-2.13.json``): ``torch`` (the measured version),
    ``names`` (name -> ``kind``, ``verdict``, ``records`` per run), ``cache_counters``;
    ``{}`` when the data cannot be read."""
    try:
        data = _load("warm-cache-2.13.json")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


@cache
def swallowed(release: str) -> frozenset[str]:
    """The names of ``release`` (``"2.13"``) that print nothing on a warm cache: measured
    in 2.13, carried to another release only where its logging code is unchanged; empty
    for a release not listed."""
    try:
        data = _load("warm-cache-by-version.json")
        return frozenset(str(n) for n in data.get(release, ()))
    except (OSError, ValueError, AttributeError, TypeError):
        return frozenset()


def measured_release() -> str:
    """The release the table was measured with (``"2.13.0+cpu"``); ``""`` when unknown."""
    return str(measured_table().get("torch", ""))


__all__ = [
    "DISABLE_VARIABLES",
    "FIX_VALUE",
    "FIX_VARIABLE",
    "measured_release",
    "measured_table",
    "swallowed",
]
