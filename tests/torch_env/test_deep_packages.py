"""A package nested 1,100 levels deep, named in the value (adversarial CLI finding
F-deep-package-recursion): the recursive submodule walk (torch >= 2.11 sets a package's
submodules too) raised ``RecursionError`` and the CLI died with a traceback.

The CLI runs in a subprocess with a timeout and a 1 GiB address-space limit; torch 2.13.0
itself (the oracle) runs in a subprocess too, importing only the empty test packages.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from torch_logs_lsp.torch_env.modules import ModuleFinder

DEPTH = 1100
MEMORY_LIMIT = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _deep_tree(root: Path, depth: int, siblings: bool = False) -> None:
    """``deep/d/d/.../__init__.py`` ``depth`` packages deep; with ``siblings`` each level
    also has a module ``m.py`` and a namespace directory ``ns`` (skipped by pkgutil)."""
    p = root / "deep"
    for _ in range(depth):
        p.mkdir()
        (p / "__init__.py").write_text("")
        if siblings:
            (p / "m.py").write_text("")
            (p / "ns").mkdir()
        p = p / "d"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        preexec_fn=_limit_memory,
        check=False,
    )


def _torch_walk(cwd: Path, name: str) -> list[str]:
    """torch 2.13.0's ``_get_module_and_submodules(name)`` with ``cwd`` on ``sys.path``."""
    code = (
        "import sys, json, warnings; warnings.filterwarnings('ignore'); sys.path.insert(0, '.')\n"
        "import torch._logging._internal as i\n"
        f"print(json.dumps(i._get_module_and_submodules({name!r})))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return names


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("deep")
    _deep_tree(root, DEPTH)
    (root / "t.env").write_text("TORCH_LOGS=deep\n")
    yield root
    # pytest's own clean-up (shutil.rmtree) recurses and fails on this tree; rm does not
    subprocess.run(["rm", "-rf", str(root)], check=True)


def test_check_and_explain_do_not_crash(deep: Path):
    check = _cli(deep, "check", "--python", sys.executable, "t.env")
    assert "Traceback" not in check.stderr and "RecursionError" not in check.stderr
    assert check.returncode == 0 and "no findings" in check.stderr  # a module: a hint
    explain = _cli(deep, "explain", "--json", "--python", sys.executable, "deep")
    assert "Traceback" not in explain.stderr, explain.stderr[-2000:]
    data = json.loads(explain.stdout)
    assert data["torch_outcome"] == "ok" and data["diagnostics"][0]["code"] == "TL202"
    assert len(data["logs"]) == DEPTH  # the package and every submodule


def test_walk_lists_every_level_and_torch_a_prefix_of_it(deep: Path):
    """torch stops where importing the package recurses too deep (its onerror swallows
    the RecursionError): its list is the start of ours."""
    finder = ModuleFinder([str(deep)], complete=True)
    lookup = finder.find_spec("deep")
    assert lookup.spec is not None
    ours = finder.walk(lookup.spec)
    assert len(ours) == DEPTH and ours[-1] == "deep" + ".d" * (DEPTH - 1)
    theirs = _torch_walk(deep, "deep")
    assert 500 < len(theirs) <= DEPTH
    assert ours[: len(theirs)] == theirs


def test_walk_order_equals_torch(tmp_path: Path):
    """Depth first, a package before its submodules, modules and packages sorted per
    directory, namespace directories skipped: exactly torch's list."""
    _deep_tree(tmp_path, 30, siblings=True)
    (tmp_path / "deep" / "z.py").write_text("")
    finder = ModuleFinder([str(tmp_path)], complete=True)
    lookup = finder.find_spec("deep")
    assert lookup.spec is not None
    ours = finder.walk(lookup.spec)
    assert ours == _torch_walk(tmp_path, "deep")
    assert ours[:4] == ["deep", "deep.d", "deep.d.d", "deep.d.d.d"] and ours[-1] == "deep.z"


def test_recursion_error_in_resolution_is_cannot_tell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Whatever still recurses too deep while resolving is "unknown", never raised."""
    _deep_tree(tmp_path, 3)
    finder = ModuleFinder([str(tmp_path)], complete=True)
    spec = finder.find_spec("deep").spec
    assert spec is not None

    def boom(*args: object) -> object:
        raise RecursionError

    monkeypatch.setattr(finder, "_find_in", boom)
    assert finder.find_spec("deep.d").status == "unknown"
    monkeypatch.setattr(finder, "_listing", boom)
    assert finder.walk(spec) == ["deep"]
    assert os.path.isdir(tmp_path / "deep" / "d")
