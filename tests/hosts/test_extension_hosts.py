"""The VS Code extension's copy of the hosts' declarations (its document selector data and
activation events) is what scripts/gen_extension_hosts.py writes from them."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType

from tests.support.paths import ROOT


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_extension_hosts.py"
    spec = importlib.util.spec_from_file_location("gen_extension_hosts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_the_extension_files_are_generated_from_the_host_declarations():
    gen = _generator()
    stale = [str(p.relative_to(ROOT)) for p in gen.stale()]
    assert not stale, f"{', '.join(stale)} differ from the hosts' declarations: run ./dev gen"


def test_activation_never_by_any_yaml_file():
    events = json.loads((ROOT / "vscode-extension" / "package.json").read_text())[
        "activationEvents"
    ]
    assert "onLanguage:yaml" not in events
    assert "onNotebook:jupyter-notebook" in events
    assert len(events) == len(set(events))
