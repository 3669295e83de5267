"""Regenerate ``knowledge/data/warm-cache-2.13.json``: which TORCH_LOGS names still print
when torch.compile's caches are warm, measured by running real torch.

One probe program (:data:`PROBE`: a small module with a graph break, trained for a step,
then called with a second batch size, so dynamo, dynamic shapes, AOTAutograd's forward and
backward and inductor's C++ code generation all run) is run in fresh processes that share
one fresh ``TORCHINDUCTOR_CACHE_DIR`` (and ``TRITON_CACHE_DIR``), with every name of the
release enabled at once (components with ``+``) and
``TORCH_LOGS_FORMAT=@@R@@%(name)s|%(message)s``, so each record names its logger:

1. ``cold``: the first process (empty caches);
2. ``warm``: the same program again (the FX graph cache and AOTAutograd cache hit);
3. ``nocache``: again, with ``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` (the control);
4. with ``--switches``, also ``fx_off`` (``TORCHINDUCTOR_FX_GRAPH_CACHE=0``), ``aot_off``
   (``TORCHINDUCTOR_AUTOGRAD_CACHE=0``) and ``both_off`` (both), warm.

An artifact's records are those of its loggers (``<module>.__<artifact>``); a component's,
those of the other loggers under one of its registered qualified names. A name is
``swallowed`` when it prints in ``cold`` and ``nocache`` but not in ``warm``; ``fewer``
when ``warm`` has less than half of ``cold``'s records; ``printed`` otherwise;
``not exercised`` when neither ``cold`` nor ``nocache`` prints it (no claim about it).

Run (six processes; about 10 minutes on a busy two-core machine):
``python scripts/gen_warm_cache.py --torch-python .venv/bin/python``. ``--names a,b``
measures only those names, three processes, and prints the result (the test does, and
compares it with the committed table); ``--print`` prints the whole table instead of
writing the data file. The torch sources of other releases are compared by
``scripts/warm_cache_sources.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

DATA = (
    Path(__file__).resolve().parent.parent
    / "src"
    / "torch_logs_lsp"
    / "knowledge"
    / "data"
    / "warm-cache-2.13.json"
)

MARK = "@@R@@"

#: The program each process runs (its last line prints the cache counters).
PROBE = r"""
import json
import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 4)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.a(x))
        torch._dynamo.graph_break()
        return (self.b(h).relu() * 2).sum(dim=1)


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
step = torch.compile(net)
for batch in (4, 4, 6):
    loss = step(torch.randn(batch, 8)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
with torch.no_grad():
    step(torch.randn(4, 8))
from torch._dynamo.utils import counters
print("@@COUNTERS@@" + json.dumps({k: dict(v) for k, v in counters.items()
      if k in ("inductor", "aot_autograd")}))
"""

#: Lists the release's names (run by the probed python).
NAMES = r"""
import json
import torch._logging._internal as internal
r = internal.log_registry
print(json.dumps({
    "version": __import__("torch").__version__,
    "artifacts": sorted(r.artifact_names),
    "components": {k: list(v) for k, v in sorted(r.log_alias_to_log_qnames.items())},
}))
"""

RUNS: dict[str, dict[str, str]] = {
    "cold": {},
    "warm": {},
    "nocache": {"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"},
}
SWITCH_RUNS: dict[str, dict[str, str]] = {
    "fx_off": {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0"},
    "aot_off": {"TORCHINDUCTOR_AUTOGRAD_CACHE": "0"},
    "both_off": {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"},
}


def release_names(python: str) -> dict[str, object]:
    """The probed torch's version, artifact names and components (alias -> qnames)."""
    out = subprocess.run(
        [python, "-c", NAMES], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _clean_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TORCH", "TRITON", "PYTORCH")) and k != "PYTHONPATH"
    }
    env["PYTHONWARNINGS"] = "ignore"
    return env


def run_probe(
    python: str, names: str, cache: Path, extra: dict[str, str]
) -> tuple[Counter[str], dict[str, object]]:
    """One process of :data:`PROBE` with ``TORCH_LOGS=names`` and the cache directory
    ``cache``: (records per logger name, the cache counters)."""
    env = _clean_env()
    env.update(
        {
            "TORCH_LOGS": names,
            "TORCH_LOGS_FORMAT": MARK + "%(name)s|%(message)s",
            "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"),
            "TRITON_CACHE_DIR": str(cache / "triton"),
        }
    )
    env.update(extra)
    proc = subprocess.run(
        [python, "-c", PROBE], capture_output=True, text=True, env=env, cwd=str(cache)
    )
    if proc.returncode != 0:
        raise RuntimeError(f"probe failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    records: Counter[str] = Counter()
    for line in proc.stderr.splitlines():
        if line.startswith(MARK):
            records[line[len(MARK) :].split("|", 1)[0]] += 1
    counters: dict[str, object] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("@@COUNTERS@@"):
            counters = json.loads(line[len("@@COUNTERS@@") :])
    return records, counters


def attribute(
    records: Counter[str], artifacts: list[str], components: dict[str, list[str]]
) -> Counter[str]:
    """Records per registered name: an artifact logger's (``x.y.__name``) to its artifact,
    any other logger's to each component with a qualified name that is the logger or a
    parent of it."""
    out: Counter[str] = Counter()
    known = set(artifacts)
    for logger, n in records.items():
        last = logger.rsplit(".", 1)[-1]
        if last.startswith("__") and last[2:] in known:
            out[last[2:]] += n
            continue
        for alias, qnames in components.items():
            if any(logger == q or logger.startswith(q + ".") for q in qnames):
                out[alias] += n
    return out


def verdict(counts: dict[str, int]) -> str:
    """``swallowed``, ``fewer``, ``printed`` or ``not exercised`` (see the module doc)."""
    cold, warm, nocache = counts["cold"], counts["warm"], counts["nocache"]
    if cold == 0 and nocache == 0:
        return "not exercised"
    if warm == 0 and cold > 0 and nocache > 0:
        return "swallowed"
    if warm * 2 < cold:
        return "fewer"
    return "printed"


def measure(
    python: str, only: list[str] | None = None, switches: bool = False
) -> dict[str, object]:
    """The table for the torch of ``python`` (all its names, or ``only``)."""
    reg = release_names(python)
    artifacts: list[str] = reg["artifacts"]  # type: ignore[assignment]
    components: dict[str, list[str]] = reg["components"]  # type: ignore[assignment]
    chosen = only or [*components, *artifacts]
    value = ",".join(("+" + n) if n in components else n for n in chosen)
    runs = dict(RUNS, **(SWITCH_RUNS if switches else {}))
    per_run: dict[str, Counter[str]] = {}
    counters: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="warm-cache-") as tmp:
        for run, extra in runs.items():
            records, counters[run] = run_probe(python, value, Path(tmp), extra)
            per_run[run] = attribute(records, artifacts, components)
    names: dict[str, object] = {}
    for name in chosen:
        counts = {run: per_run[run][name] for run in runs}
        names[name] = {
            "kind": "component" if name in components else "artifact",
            "verdict": verdict(counts),
            "records": counts,
        }
    return {
        "torch": reg["version"],
        "torch_logs": "every name" if only is None else value,
        "cache_counters": counters,
        "names": names,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch-python", default=sys.executable)
    parser.add_argument("--names", help="comma-separated names (default: every name)")
    parser.add_argument("--print", action="store_true", help="print instead of writing")
    args = parser.parse_args()
    only = args.names.split(",") if args.names else None
    table = measure(args.torch_python, only, switches=only is None)
    text = json.dumps(table, indent=1, sort_keys=False) + "\n"
    if args.print or only is not None:
        sys.stdout.write(text)
    else:
        DATA.write_text(text)
        print(f"wrote {DATA}", file=sys.stderr)


if __name__ == "__main__":
    main()
