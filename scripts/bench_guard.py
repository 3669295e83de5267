"""The benchmark's regression guard: a run's ``--json`` against a committed baseline.

Usage: ``scripts/bench_guard.py BASELINE.json NEW.json [--factor 1.5]`` (``./dev bench
guard`` runs ``scripts/bench.py --runs 3`` and compares it with
``scripts/bench_baseline.json``). Run by hand before a change is finished, not in CI: the
numbers depend on the machine and its load.

A metric is every number of the JSON whose key names a unit of time or memory (``_ms``,
``_mb``, ``seconds`` as a word of the key: ``initialize_ms``, ``completion_ms_p99``,
``peak_rss_mb``, ``rss_mb_after_all``); of a ``{"median", "min", "max"}`` object
(``scripts/bench_peers.py``) the median. Keys starting with ``ratio`` or ``load_average``
are not metrics. Lower is better in each. A metric fails when it is more than
``factor`` times its baseline and also worse by more than the slack (``--slack-ms``,
``--slack-mb``; 1 ms and 1 MB by default: sub-millisecond times vary by more than 1.5x
between runs on a shared machine; a baseline at or below 0 counts as 0), and when the
baseline has a number where the new run has ``null`` (diagnostics that no longer arrive).
A metric the new run did not measure (a run with ``--only``) is listed, not failed. Prints
each metric with both values and the ratio new / baseline; exit 1 when any failed, 2 when
a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UNIT = re.compile(r"(?:^|_)(ms|mb|seconds)(?:_|$)")
LOADS = ("load_average", "load_average_end")

Number = float | None


def unit(key: str) -> str | None:
    """``ms``, ``mb`` or ``seconds`` when ``key`` names a time or memory metric."""
    found = UNIT.search(key)
    return found.group(1) if found else None


def metrics(doc: Any, path: str = "") -> dict[str, Number]:
    """Every metric of a benchmark JSON document by its path (keys joined by ``/``):
    its number, or ``None`` where the run had none. NaN counts as absent."""
    out: dict[str, Number] = {}
    if not isinstance(doc, dict):
        return out
    for key, value in doc.items():
        key = str(key)
        if key.startswith(("ratio", "load_average")):
            continue
        where = f"{path}/{key}" if path else key
        if isinstance(value, dict) and "median" in value and unit(key):
            value = value["median"]
        if isinstance(value, dict):
            out.update(metrics(value, where))
        elif unit(key) and value is None:
            out[where] = None
        elif unit(key) and _number(value) and not math.isnan(value):
            out[where] = float(value)
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class Row:
    """One metric: its baseline and new values, new / baseline, and the verdict (``ok``,
    ``slower``, ``lost``: a number became ``null``, ``not measured``, ``no baseline``)."""

    path: str
    base: Number
    new: Number
    ratio: Number
    verdict: str

    @property
    def failed(self) -> bool:
        return self.verdict in ("slower", "lost")


def compare(
    base: dict[str, Number],
    new: dict[str, Number],
    factor: float = 1.5,
    slack_ms: float = 1.0,
    slack_mb: float = 1.0,
) -> list[Row]:
    """The rows of every metric of ``base`` (and of those only ``new`` has), by path."""
    rows = []
    for path in sorted(base.keys() | new.keys()):
        b, n = base.get(path), new.get(path)
        if path not in base or b is None:
            rows.append(Row(path, b, n, None, "no baseline"))
            continue
        if path not in new:
            rows.append(Row(path, b, None, None, "not measured"))
            continue
        if n is None:
            rows.append(Row(path, b, None, None, "lost"))
            continue
        kind = unit(path.rsplit("/", 1)[-1])
        slack = {"ms": slack_ms, "seconds": slack_ms / 1000}.get(kind or "", slack_mb)
        # a baseline at or below 0 (the soak's growth: memory given back) counts as 0
        ratio = n / b if b > 0 else None
        too_slow = (ratio is None or ratio > factor) and n - max(b, 0.0) > slack
        rows.append(Row(path, b, n, ratio, "slower" if too_slow else "ok"))
    return rows


def _fmt(x: Number) -> str:
    return "-" if x is None else f"{x:.4g}"


def load(path: Path) -> dict[str, Any]:
    """A benchmark JSON file (``ValueError`` or ``OSError`` when it cannot be read)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not a JSON object")
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--factor", type=float, default=1.5, help="fail above this ratio")
    parser.add_argument("--slack-ms", type=float, default=1.0, help="ms a time may always grow")
    parser.add_argument("--slack-mb", type=float, default=1.0, help="MB memory may always grow")
    args = parser.parse_args(argv)
    try:
        base_doc, new_doc = load(args.baseline), load(args.new)
    except (OSError, ValueError) as exc:
        print(f"bench_guard: {exc}", file=sys.stderr)
        return 2
    for name, doc in (("baseline", base_doc), ("new", new_doc)):
        loads = [doc.get(k) for k in LOADS if isinstance(doc.get(k), list)]
        if loads:
            shown = " -> ".join(" ".join(f"{x:.2f}" for x in la) for la in loads)
            print(f"{name}: load average (1/5/15 min) {shown}")
    rows = compare(metrics(base_doc), metrics(new_doc), args.factor, args.slack_ms, args.slack_mb)
    width = max((len(r.path) for r in rows), default=10)
    print(f"{'metric':<{width}} {'baseline':>10} {'new':>10} {'ratio':>7}  verdict")
    for r in rows:
        print(
            f"{r.path:<{width}} {_fmt(r.base):>10} {_fmt(r.new):>10} {_fmt(r.ratio):>7}  "
            f"{r.verdict}"
        )
    failed = [r for r in rows if r.failed]
    compared = sum(r.verdict in ("ok", "slower", "lost") for r in rows)
    if failed:
        print(f"\nFAILED: {len(failed)} of {compared} metrics over {args.factor}x slower or lost:")
        for r in failed:
            print(f"  {r.path}: {_fmt(r.base)} -> {_fmt(r.new)} ({r.verdict})")
        return 1
    print(f"\nok: none of {compared} metrics is over {args.factor}x slower")
    return 0


if __name__ == "__main__":
    sys.exit(main())
