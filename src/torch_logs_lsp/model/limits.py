"""Bounds on what one TORCH_LOGS value can make us write.

A value is user text of any length (a 100 KB line, 10,000 items), so everything derived
from it is bounded here, in one place:

- a message quotes at most :data:`MAX_QUOTED` code points of user text
  (:func:`excerpt`: the start and the end of a longer text around one ``…``);
- one value shows at most :data:`MAX_DIAGNOSTICS` diagnostics; the rest are summarised by
  one more (``TL901``, see ``analysis``).
"""

from __future__ import annotations

#: Most code points of user text one message, suggestion list or fix title quotes.
MAX_QUOTED = 60

#: Most diagnostics shown for one value (one summary diagnostic follows the rest).
MAX_DIAGNOSTICS = 100

ELLIPSIS = "…"


def excerpt(text: str, limit: int = MAX_QUOTED) -> str:
    """``text`` when it has at most ``limit`` code points, else its first and last code
    points around ``…`` (``limit`` code points in all, the start one longer), so a long
    dotted name keeps both its package and its last part. ``limit`` must be >= 3."""
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2
    head = limit - 1 - tail
    return text[:head] + ELLIPSIS + text[len(text) - tail :]


def quote(text: str) -> str:
    """User text as a message shows it: :func:`excerpt` in backticks."""
    return f"`{excerpt(text)}`"


__all__ = ["ELLIPSIS", "MAX_DIAGNOSTICS", "MAX_QUOTED", "excerpt", "quote"]
