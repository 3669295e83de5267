"""How the cost of a computation grows with its input, measured so that other processes
on the machine (pytest-xdist's second worker, a parallel build) do not move the result:
the calling thread's CPU time (``time.thread_time``, not wall-clock time), the best of
three runs, with the garbage collector paused during each run."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: Timings below this (seconds of CPU) are floored: noise cannot make a large ratio.
FLOOR = 0.002


def cost(run: Callable[[], object], before: Callable[[], object] = lambda: None) -> float:
    """The least CPU time (seconds) of three runs of ``run``; ``before`` runs untimed
    ahead of each (e.g. to clear a cache)."""
    best = float("inf")
    for _ in range(3):
        before()
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.thread_time()
            run()
            best = min(best, time.thread_time() - start)
        finally:
            if enabled:
                gc.enable()
    return best


def growth(make: Callable[[int], Callable[[], object]], n: int) -> float:
    """How much more an input of size ``4n`` costs than one of size ``n`` (linear: ~4,
    quadratic: ~16)."""
    small, large = cost(make(n)), cost(make(4 * n))
    return large / max(small, FLOOR)
