"""Run ``torch._logging.set_logs`` and ``TORCH_LOGS`` parsing under the installed torch
(2.13.0 with ``./dev test``) in ONE subprocess over a batch of cases.

Each case is ``{"kind": "call" | "args" | "twice" | "env" | "torch_logs", "source": ...}``:
``call`` evaluates ``set_logs(<source>)`` (``logging`` in scope), ``args`` passes the
comma-separated ``source`` as positional arguments, ``twice`` calls it twice,
``env`` calls it with ``TORCH_LOGS=+dynamo`` in ``os.environ``, ``torch_logs`` parses the
value like ``import torch`` does. The log registry is restored before each case (module
names register new logs). Result per case: ``{"outcome": "ok" | exception type name,
"message": str, "logs": {qname: level}, "artifacts": [names], "warnings": [text]}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.support.oracles import run_python, scratch_dir

RUNNER = r"""
import copy, json, logging, os, sys, warnings
warnings.filterwarnings("ignore")
os.environ.pop("TORCH_LOGS", None)
import torch._logging as tl
from torch._logging import _internal as I

class Grab(logging.Handler):
    def __init__(self):
        super().__init__()
        self.texts = []
    def emit(self, record):
        self.texts.append(record.getMessage())

saved = copy.deepcopy(I.log_registry)
out = []
for case in json.load(sys.stdin):
    I.log_registry = copy.deepcopy(saved)
    I._parse_log_settings.cache_clear()
    I.log_state.clear()
    grab = Grab()
    logging.getLogger("torch._logging._internal").addHandler(grab)
    res = {"outcome": "ok", "message": "", "logs": {}, "artifacts": [], "warnings": []}
    try:
        if case["kind"] == "torch_logs":
            state = I._parse_log_settings(case["source"])
        else:
            if case["kind"] == "args":
                tl.set_logs(*eval("(" + case["source"] + ",)", {"logging": logging}))
            kwargs = eval("dict(" + case["source"] + ")", {"logging": logging})
            if case["kind"] == "env":
                os.environ["TORCH_LOGS"] = "+dynamo"
            try:
                tl.set_logs(**kwargs)
                if case["kind"] == "twice":
                    I.log_state.clear()
                    tl.set_logs(**kwargs)
            finally:
                os.environ.pop("TORCH_LOGS", None)
            state = I.log_state
        res["logs"] = dict(state.log_qname_to_level)  # levels as torch keeps them
        res["artifacts"] = sorted(state.artifact_names)
    except Exception as exc:
        res["outcome"] = type(exc).__name__
        res["message"] = str(exc)
    logging.getLogger("torch._logging._internal").removeHandler(grab)
    res["warnings"] = grab.texts
    out.append(res)
json.dump(out, sys.stdout, default=repr)
"""


def run_cases(cases: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The results of ``cases`` (see the module docstring), from one subprocess of this
    interpreter (the test venv, which has torch)."""
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        cwd=scratch_dir(),
    )
    results: list[dict[str, Any]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return results


def signature_of_installed() -> list[str]:
    """``inspect.signature(torch._logging.set_logs)`` parameter names, in order, with the
    kind of each checked to be keyword-only."""
    code = (
        "import inspect, json, warnings; warnings.filterwarnings('ignore'); "
        "import torch._logging as tl; ps = inspect.signature(tl.set_logs).parameters; "
        "assert all(p.kind is p.KEYWORD_ONLY for p in ps.values()); print(json.dumps(list(ps)))"
    )
    proc = run_python(code, check=True)
    names: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return names
