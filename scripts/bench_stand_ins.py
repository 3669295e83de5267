"""Times ``check_document`` on documents full of compile knobs (``.env`` and shell script
with ``TORCHINDUCTOR_*`` assignments among family values): the stages that replace names
by a family name and extract the copy (TL408, TL421-TL424, TL441). Prints the median wall
and CPU (``time.process_time``) seconds of several runs per input.

Usage: ``PYTHONPATH=src python scripts/bench_stand_ins.py [runs]``
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_inputs import gen_env, gen_shell

from torch_logs_lsp.lint.pipeline import check_document

KNOBS = ("TORCHINDUCTOR_MAX_AUTOTUNE=true", "TORCHINDUCTOR_FORCE_DISABLE_CACHE=1")


def with_knobs(text: str, every: int, prefix: str = "") -> str:
    """``text`` with one knob assignment (alternately each of :data:`KNOBS`) inserted
    after every ``every``-th line, 400 at most (200 of each)."""
    out: list[str] = []
    for i, line in enumerate(text.splitlines()):
        out.append(line)
        if i % every == every - 1 and len(out) - i - 1 < 400:
            out.append(prefix + KNOBS[(i // every) % 2])
    return "\n".join(out) + "\n"


INPUTS = {
    "env (5,000 lines, 400 knobs)": ("dotenv", with_knobs(gen_env(4600), 11)),
    "shell (10,000 lines, 400 knobs)": ("shell", with_knobs(gen_shell(9600), 24, "export ")),
}


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for name, (host, text) in INPUTS.items():
        knobs = sum(text.count(k) for k in KNOBS)
        check_document(text, host)  # warm: registries, grammars
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(runs):
            w, c = time.perf_counter(), time.process_time()
            check_document(text, host)
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        lines = text.count("\n")
        print(
            f"{name}: {lines} lines, {knobs} knobs; median of {runs}: "
            f"wall {statistics.median(walls) * 1000:.0f} ms, "
            f"cpu {statistics.median(cpus) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
