"""Hostile inputs that made the checker or the server super-linear (a hostile tester's
findings: long ``&& \\`` chains, long single lines, long YAML flow mappings, fix-all over
many values). Each test bounds the WORK: it compares the cost of an input of size N with
one of size 4N (linear: x4, quadratic: x16) with a generous factor, or counts calls;
no wall-clock thresholds."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

from torch_logs_lsp.core.hosts import shell_operands
from torch_logs_lsp.core.hosts.base import ValueSpan


def _cost(run: Callable[[], object]) -> float:
    """The best of three timings of ``run`` (seconds): the least noisy measure."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def growth(make: Callable[[int], Callable[[], object]], n: int) -> float:
    """How much more an input of size ``4n`` costs than one of size ``n`` (linear: ~4,
    quadratic: ~16). Tiny timings are floored so noise cannot make a large ratio."""
    small, large = _cost(make(n)), _cost(make(4 * n))
    return large / max(small, 0.002)


#: The regular expression ``elsewhere`` used before: it backtracks quadratically.
_OLD_ELSEWHERE = re.compile(r"(?:^|[\s;&|(`'\"])(?:\S*/)?(docker|podman|srun)[ \t]")


def test_elsewhere_matches_what_the_old_expression_found():
    rng = random.Random(7)
    alphabet = ["docker", "podman", "srun", " ", "\t", "/", "\n", ";", "'", '"', "x", "a/", "("]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        pos = rng.randint(0, len(text))
        end = rng.randint(pos, len(text))
        old = [(m.end(), m.group(1)) for m in _OLD_ELSEWHERE.finditer(text, pos, end)]
        assert shell_operands._matches(text, pos, end) == old, (text, pos, end)


def _span_at(text: str, at: int) -> ValueSpan:
    return ValueSpan(
        variable="TORCH_LOGS",
        host="shell",
        name_start=at,
        name_end=at + 10,
        value="+dynamo",
        char_starts=(),
        char_ends=(),
        content_start=at + 11,
        content_end=at + 18,
        raw_start=at + 11,
        raw_end=at + 18,
        quote="",
        terminated=True,
    )


def test_elsewhere_is_linear_in_a_long_line_of_quotes():
    """``echo "'''...'"; TORCH_LOGS=+dynamo python``: 1,000,000 quotes took > 11 min."""

    def make(n: int) -> Callable[[], object]:
        text = 'echo "' + "'" * n + '"; TORCH_LOGS=+dynamo python\n'
        span = _span_at(text, text.index("TORCH_LOGS"))
        return lambda: shell_operands.elsewhere(text, span)

    assert growth(make, 50_000) < 8


def test_path_facts_read_a_continued_line_once():
    """4,000 values in one logical line (``&& \\``): each span used to re-read the line."""

    def make(n: int) -> Callable[[], object]:
        text = "#!/bin/sh\n" + "TORCH_LOGS=+dynamo srun x && \\\n" * n + "  true\n"
        spans = [_span_at(text, m.start()) for m in re.finditer("TORCH_LOGS", text)]
        return lambda: shell_operands.path_facts(text, spans)

    assert growth(make, 500) < 8
    text = "TORCH_LOGS=a srun x && \\\nTORCH_LOGS=b python\nTORCH_LOGS=c python\n"
    spans = [_span_at(text, m.start()) for m in re.finditer("TORCH_LOGS", text)]
    assert [shell_operands.elsewhere(text, s) for s in spans] == [
        None,
        "a Slurm job step (srun)",
        None,
    ]
