"""Differential test against real torch (2.13.0, installed by `./dev test`).

For thousands of generated values made of registered names, typos, prefixes, separators,
whitespace, quotes and Unicode, our ``torch_outcome`` equals what
``torch._logging._internal._parse_log_settings`` does, and for every accepted value our
logger levels and artifacts equal torch's ``LogState``. The generator avoids names that
resolve as modules (torch would import them and register new logs, changing its state).
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
import warnings

import pytest

from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.value.analysis import analyse

warnings.filterwarnings("ignore")  # torch warns that NumPy is missing
import torch._logging._internal as internal  # noqa: E402  (the oracle; ./dev test installs it)

REGISTRY = load_registry("2.13")
NAMES = REGISTRY.known_names()


def torch_outcome(value: str) -> tuple[str, dict[str, int] | None, set[str] | None]:
    try:
        state = internal._parse_log_settings(value)
    except ValueError as exc:
        return ("help" if "TORCH_LOGS Info" in str(exc) else "invalid"), None, None
    except ImportError:  # ModuleNotFoundError included
        return "module_not_found", None, None
    if isinstance(state, dict):
        return "crash", None, None
    return "ok", dict(state.log_qname_to_level), set(state.artifact_names)


def _typo(rng: random.Random, name: str) -> str:
    ops = [
        lambda s: s[:-1],
        lambda s: s.capitalize(),
        lambda s: s.upper(),
        lambda s: s.replace("_", "-"),
        lambda s: s + rng.choice("sx_"),
        lambda s: s[1:],
        lambda s: s[: len(s) // 2] + s[len(s) // 2 + 1 :],
    ]
    return rng.choice(ops)(name)


def _is_module(name: str) -> bool:
    core = name.lstrip("+-")
    if not core or "." in core or not core.isidentifier():
        return False
    if core in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(core) is not None
    except (ImportError, ValueError):
        return True


def generate(rng: random.Random) -> str:
    items = []
    for _ in range(rng.choice([1, 1, 2, 3, 4, 6])):
        r = rng.random()
        if r < 0.7:
            name = rng.choice(NAMES)
        elif r < 0.85:
            name = _typo(rng, rng.choice(NAMES))
        elif r < 0.9:
            name = rng.choice(["help", "all", "é", "ßeta", "x1", "_", "日本"])
        else:
            name = rng.choice(NAMES) + rng.choice(["'", '"', ";", "=1", "🙂", " "])
        prefix = rng.choice(["", "", "", "+", "-", "++", "+-"])
        items.append(prefix + name)
    seps = [",", ",", ",", ", ", ",\t", ",\n ", " ,", ",,", ";", " ", ",\u00a0"]
    value = items[0]
    for item in items[1:]:
        value += rng.choice(seps) + item
    r = rng.random()
    if r < 0.04:
        value = " " + value
    elif r < 0.08:
        value += rng.choice([" ", ",", "\n"])
    elif r < 0.12:
        q = rng.choice("\"'")
        value = q + value + q
    elif r < 0.14:
        value = rng.choice(["", "help", "+help", "-help", "all", " "])
    return value


def _values(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        value = generate(rng)
        if any(_is_module(part.strip()) for part in value.replace(";", ",").split(",")):
            continue
        out.append(value)
    return out


VALUES = _values(6000, seed=20261129)


def test_generator_covers_every_outcome():
    outcomes = {analyse(v, REGISTRY).outcome for v in VALUES}
    assert outcomes == {"ok", "invalid", "help", "crash"}


def test_outcome_levels_and_artifacts_equal_torch():
    mismatches = []
    accepted = 0
    for value in VALUES:
        ours = analyse(value, REGISTRY)
        outcome, logs, artifacts = torch_outcome(value)
        if ours.outcome != outcome:
            mismatches.append((value, ours.outcome, outcome))
            continue
        if outcome == "ok":
            accepted += 1
            assert ours.config is not None
            assert list(ours.config.logs.items()) == list((logs or {}).items()), value
            assert set(ours.config.artifacts) == artifacts, value
    assert mismatches == []
    assert accepted > 1000  # the comparison of configurations is not vacuous


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        ("+torch._dynamo.guards", "ok"),
        (".json", "module_not_found"),
        ("a..b", "module_not_found"),
        ("os", "ok"),
        ("dynamo,help", "invalid"),
    ],
)
def test_module_forms_agree_with_torch(value: str, outcome: str):
    assert analyse(value, REGISTRY).outcome == outcome == torch_outcome(value)[0]


def test_empty_value_crashes_import_torch():
    env = dict(os.environ, TORCH_LOGS="")
    proc = subprocess.run(
        [sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "AttributeError" in proc.stderr
    assert analyse("", REGISTRY).outcome == "crash"


@pytest.mark.parametrize(
    "value",
    [
        "+a." * 8000 + "b",  # 24 KB: one item, 7,999 illegal `+`
        "+a." * 33_333 + "b",  # 100 KB
        ",".join(["+dynamo"] * 10_000),
        ",".join(["+dynamo", "guards", "-aot", "all"] * 2_500),
        ", ".join(["dynamo"] * 10_000),
        ",".join(f"name{i}" for i in range(10_000)),
    ],
    ids=["24k", "100k", "dynamo-10k", "mixed-10k", "spaced-10k", "unknown-10k"],
)
def test_long_values_agree_with_torch(value: str):
    """Exactness holds on long values too (torch's own parse takes milliseconds on them;
    a dotted name of hundreds of parts is left out: torch's find_spec then recurses into
    RecursionError, depending on the stack depth of the import)."""
    ours = analyse(value, REGISTRY)
    outcome, logs, artifacts = torch_outcome(value)
    assert ours.outcome == outcome
    if outcome == "ok":
        assert ours.config is not None
        assert list(ours.config.logs.items()) == list((logs or {}).items())
        assert set(ours.config.artifacts) == artifacts
