"""Long TORCH_LOGS values: the generated values, and their cost through the core
(``analyse``, ``value_fixes``, ``fix_all_value``, the document edit of the fixed value:
``value_edit``) and the CLI (``torch-logs explain`` and
``check``: wall time and output size). ``scripts/bench.py`` also runs the server on each
(a one-line .env) and prints these numbers after its table.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: name -> the value (each also a bench.py server input: ``TORCH_LOGS=<value>`` in a .env).
VALUES: dict[str, Callable[[], str]] = {
    # one item, 7,999 `+` inside its name
    "value-24k": lambda: "+a." * 8000 + "b",
    "value-100k": lambda: "+a." * 33_333 + "b",
    "items-10k": lambda: ",".join(["+dynamo"] * 10_000),
    "unknown-10k": lambda: ",".join(f"name{i}" for i in range(10_000)),
    # repetitive text under 4,000 code points: difflib took ~2 s per quickfix on it
    "typos-100": lambda: ",".join(["+dynamoo"] * 100),
}


def _ms(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), out


def _cli(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main"]
    return subprocess.run([*cli, *args], capture_output=True, check=False)


def measure(name: str, runs: int = 3) -> dict[str, Any]:
    """Median milliseconds and sizes of one value through the core and the CLI."""
    from torch_logs_lsp import hosts
    from torch_logs_lsp.hosts.edits import value_edit
    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.value.analysis import analyse
    from torch_logs_lsp.value.fixes import fix_all_value, value_fixes

    value = VALUES[name]()
    registry = load_registry()
    analyse_ms, result = _ms(lambda: analyse(value, registry), runs)
    fixes_ms, _ = _ms(lambda: value_fixes(result, registry), runs)
    fix_all_ms, fixed = _ms(lambda: fix_all_value(value, registry), runs)
    text = f"TORCH_LOGS={value}\n"
    span = next(s for s in hosts.extract("dotenv", text) if s.variable == "TORCH_LOGS")
    edit_ms, _ = _ms(lambda: value_edit("dotenv", text, span, fixed), runs)
    explain_ms, explain = _ms(lambda: _cli(["explain", value]), runs)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.env"
        path.write_text(f"TORCH_LOGS={value}\n", encoding="utf-8")
        check_ms, check = _ms(lambda: _cli(["check", str(path)]), runs)
    return {
        "bytes": len(value.encode()),
        "diagnostics_shown": len(result.diagnostics),
        "diagnostics_total": len(result.every_diagnostic),
        "message_bytes": sum(len(d.message.encode()) for d in result.diagnostics),
        "analyse_ms": analyse_ms,
        "value_fixes_ms": fixes_ms,
        "fix_all_ms": fix_all_ms,
        "edit_ms": edit_ms,
        "explain_ms": explain_ms,
        "explain_stdout_bytes": len(explain.stdout),
        "check_ms": check_ms,
        "check_stdout_bytes": len(check.stdout),
    }


def print_values_table(results: dict[str, dict[str, Any]]) -> None:
    """The core / CLI numbers of each long value (ms; output sizes in bytes)."""
    print("\nlong values through the core and the CLI (ms, medians; sizes in bytes):")
    head = (
        f"{'value':<13}{'bytes':>8}{'shown/all':>12}{'analyse':>9}{'fixes':>8}"
        f"{'fix-all':>9}{'edit':>7}{'explain':>9}{'out':>8}{'check':>8}{'out':>8}"
    )
    print(head)
    for name, r in results.items():
        print(
            f"{name:<13}{r['bytes']:>8}"
            f"{str(r['diagnostics_shown']) + '/' + str(r['diagnostics_total']):>12}"
            f"{r['analyse_ms']:>9.0f}{r['value_fixes_ms']:>8.0f}{r['fix_all_ms']:>9.0f}"
            f"{r['edit_ms']:>7.0f}"
            f"{r['explain_ms']:>9.0f}{r['explain_stdout_bytes']:>8}"
            f"{r['check_ms']:>8.0f}{r['check_stdout_bytes']:>8}"
        )
