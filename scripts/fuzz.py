"""Fuzz the core entry points with hypothesis for a number of minutes.

Targets: the value parser and analysis (``analyse``; also on long values, up to 12,000
repetitions of a piece: bounded diagnostics and messages), each host extractor
(``dotenv``, ``jsonc``, ``shell``: spans must be well formed) and incremental extraction
(random edit sequences must give the same spans as a fresh extraction). The test suite
runs the same properties for a fixed number of examples (``tests/test_fuzz.py``); this
script runs them longer. A failure prints the falsifying example: add it to the tests.

Run: ``.venv/bin/python scripts/fuzz.py --minutes 10`` (time is split between targets).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import test_fuzz
from tests.hosts import test_incremental

#: Examples per hypothesis run; runs repeat until the target's share of time is used.
BATCH = 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="total time (minutes)")
    args = parser.parse_args()
    targets = [
        ("value", test_fuzz.check_value, test_fuzz.values),
        ("long-value", test_fuzz.check_value, test_fuzz.long_values),
        ("dotenv", lambda t: test_fuzz.check_host("dotenv", t), test_fuzz.documents("dotenv")),
        ("jsonc", lambda t: test_fuzz.check_host("jsonc", t), test_fuzz.documents("jsonc")),
        ("shell", lambda t: test_fuzz.check_host("shell", t), test_fuzz.documents("shell")),
        *[
            (f"incremental-{host}", test_incremental.check_sequence(host), test_incremental.EDITS)
            for host in sorted(test_incremental.SEEDS)
        ],
    ]
    budget = args.minutes * 60 / len(targets)
    failed = 0
    for name, check, strategy in targets:
        deadline = time.monotonic() + budget
        runs = 0
        while time.monotonic() < deadline:
            fuzz = settings(
                max_examples=BATCH,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )(given(strategy)(check))
            try:
                fuzz()
            except Exception as exc:  # the falsifying example is printed by hypothesis
                print(f"{name}: FAILED: {exc!r}")
                failed += 1
                break
            runs += BATCH
        print(f"{name}: {runs} examples in {budget:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
