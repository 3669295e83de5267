"""TL441 against real torch 2.13 (installed by ``./dev test``): for every knob of the
packaged 2.13 data that feeds a config entry directly, a value the finding says torch never
matches is given to a real ``import torch`` in a subprocess, and the entry's value is what
the finding says (off, on, the text kept, a ``ValueError``)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge.knobs import KnobInfo, judge, knobs

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(
        importlib.util.find_spec("torch") is None, reason="torch (the oracle) is not installed"
    ),
]

CONFIG_MODULES = {
    "torch/_inductor/config.py",
    "torch/_dynamo/config.py",
    "torch/compiler/config.py",
    "torch/_functorch/config.py",
}
#: Values tried for each knob, first one the finding judges (one per knob).
TRIES = ("true", "yes", "on", "false", "high", "0", "")

_SCRIPT = """
import json, sys, warnings, importlib
warnings.filterwarnings("ignore")
out = {}
for name, module, entry in json.loads(sys.argv[1]):
    obj = importlib.import_module(module)
    for part in entry.split("."):
        obj = getattr(obj, part)
    out[name] = obj if isinstance(obj, (bool, str, int, float, type(None))) else repr(obj)
print(json.dumps(out))
"""


def _cases() -> list[tuple[KnobInfo, str, str]]:
    """(knob, value, the finding) for each knob feeding a config entry directly."""
    out = []
    for knob in knobs("2.13").values():
        if knob.file not in CONFIG_MODULES or knob.entry.endswith("()") or not knob.entry:
            continue
        for value in TRIES:
            why = judge(knob, value)
            if why is not None:
                out.append((knob, value, why))
                break
    return out


def _run(env: dict[str, str], entries: list[tuple[str, str, str]], tmp: Path):
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(entries)],
        env={**os.environ, **env},
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_judged_value_does_what_the_finding_says(tmp_path: Path):
    cases = _cases()
    assert len(cases) >= 100  # most knobs of 2.13 compare with fixed strings
    raising = [c for c in cases if "ValueError" in c[2]]
    judged = [c for c in cases if "ValueError" not in c[2]]
    env = {k.name: v for k, v, _ in judged}
    entries = [(k.name, k.module, k.entry) for k, _, _ in judged]
    done = _run(env, entries, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    wrong = []
    for knob, value, why in judged:
        seen = got[knob.name]
        if "reads it as off" in why:
            ok = seen is False
        elif "reads it as on" in why:
            ok = seen is True
        elif "becomes the text" in why:
            ok = seen == value
        elif "turns" in why and "on" in why:  # bool(): any non-empty text
            ok = seen is True
        elif "uses the default" in why:  # get_tristate_env: "1"/"0", else the default
            ok = seen == ast.literal_eval(knob.default or "None")
        else:  # "none of them": no claim about the entry (it is not the comparison alone)
            ok = "takes it as none of them" in why
        if not ok:
            wrong.append((knob.name, value, seen, why))
    assert wrong == []
    assert raising, "no int()/float() knob read at import"
    for knob, value, why in raising[:3]:  # each raises where torch reads it
        failed = _run({knob.name: value}, [(knob.name, knob.module, knob.entry)], tmp_path)
        assert failed.returncode != 0 and "ValueError" in failed.stderr, (knob.name, why)


def test_the_example_values_of_the_docs():
    k = knobs("2.13")
    assert "reads it as off" in (judge(k["TORCHINDUCTOR_MAX_AUTOTUNE"], "true") or "")
    assert "becomes the text" in (judge(k["TORCHINDUCTOR_FORCE_DISABLE_CACHES"], "false") or "")
    assert judge(k["TORCHINDUCTOR_FORCE_DISABLE_CACHES"], "1") is None
    assert judge(k["TORCHINDUCTOR_CACHE_DIR"], "true") is None
