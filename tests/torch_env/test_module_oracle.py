"""Differential test with module names against torch 2.13.0: our checker, given the same
interpreter (this .venv, resolved statically), predicts ``import torch``'s outcome and, for
accepted values, the logger levels (packages include their submodules on 2.11+)."""

from __future__ import annotations

import random
import sys
import warnings

import pytest

from torch_logs_lsp.torch_env.context import TorchResolver
from torch_logs_lsp.value.analysis import analyse

warnings.filterwarnings("ignore")  # torch warns that NumPy is missing
import torch._logging._internal as internal  # noqa: E402  (the oracle; ./dev test installs it)

CTX = TorchResolver().context(python=sys.executable)
MODULE_NAMES = [
    "json",
    "json.decoder",
    "json.nothere",
    "json.decoder.x",
    "json.",
    "torch._dynamo.guards",
    "torch.nothere",
    "some.random.module",
    ".json",
    "a..b",
    "os.path",
    "collections.abc",
    "email.mime",
    "nosuchmodule_xyz",
]
REGISTERED = ["dynamo", "guards", "aot", "output_code", "all", "inductor"]


def torch_verdict(value: str) -> tuple[str, dict[str, int] | None]:
    """torch's outcome, with its log registry restored afterwards (module names register
    new logs, which would change the verdict for later values)."""
    reg = internal.log_registry
    saved = (dict(reg.log_alias_to_log_qnames), set(reg.child_log_qnames))
    try:
        state = internal._parse_log_settings.__wrapped__(value)
    except ValueError:
        return "invalid", None
    except ImportError:
        return "module_not_found", None
    finally:
        reg.log_alias_to_log_qnames.clear()
        reg.log_alias_to_log_qnames.update(saved[0])
        reg.child_log_qnames.clear()
        reg.child_log_qnames.update(saved[1])
    return "ok", dict(state.log_qname_to_level)


def _values(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = [*MODULE_NAMES, *(f"+{m}" for m in MODULE_NAMES)]
    while len(out) < count:
        items = [
            rng.choice(["", "+", "-"]) + rng.choice(MODULE_NAMES + REGISTERED)
            for _ in range(rng.choice([1, 2, 3]))
        ]
        out.append(rng.choice([",", ", "]).join(items))
    return out


VALUES = _values(400, seed=3)


def test_context_is_the_installed_torch():
    assert CTX.registry.version.startswith("2.13.0") and CTX.certain


@pytest.mark.parametrize("value", MODULE_NAMES)
def test_each_module_form(value: str):
    assert analyse(value, CTX.registry, CTX.finder).outcome == torch_verdict(value)[0]


def test_outcomes_and_levels_equal_torch():
    mismatches = []
    seen = set()
    for value in VALUES:
        ours = analyse(value, CTX.registry, CTX.finder)
        outcome, logs = torch_verdict(value)
        seen.add(outcome)
        if ours.outcome != outcome:
            mismatches.append((value, ours.outcome, outcome))
        elif outcome == "ok":
            assert ours.config is not None
            assert ours.config.logs == logs, value
    assert mismatches == []
    assert seen == {"ok", "invalid", "module_not_found"}
