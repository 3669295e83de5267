"""Example counts for hypothesis tests under the active profile (tests/conftest.py).

A test asks ``@settings(max_examples=examples(400))``: the count it states under the
``ci`` profile (the default), at most the profile's own ``max_examples`` under ``dev``
(``./dev test --quick``), so the edit-test loop stays short while CI runs every example.
"""

from __future__ import annotations

from hypothesis import settings

#: A profile whose ``max_examples`` is below this caps every test's count.
_CAPPING_BELOW = 100


def examples(n: int) -> int:
    """``n`` examples, or fewer when the active hypothesis profile is a short one."""
    cap = settings.default.max_examples
    return n if cap >= _CAPPING_BELOW else min(n, cap)
