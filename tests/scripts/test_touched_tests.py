"""scripts/touched_tests.py (``./dev test --quick``): which test files a change selects,
on this checkout's own tests (``area`` is given the changed paths; git is not asked)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT, SCRIPTS

HOSTS = ROOT / "src" / "torch_logs_lsp" / "hosts"
KINDS = sorted(p.parent.name for p in HOSTS.glob("*/host.py"))


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("touched_tests", SCRIPTS / "touched_tests.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


touched = _load()


def _tests(folder: str) -> set[str]:
    """The test files directly in ``tests/<folder>``."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / folder).glob("test_*.py")}


def test_every_host_has_its_tests_folder() -> None:
    assert len(KINDS) == 12, KINDS
    for kind in KINDS:
        assert _tests(f"hosts/{kind}"), kind
        assert (ROOT / "tests" / "hosts" / kind / "__init__.py").is_file(), kind


@pytest.mark.parametrize("kind", KINDS)
def test_a_hosts_module_selects_its_folder(kind: str) -> None:
    area = set(touched.area([f"src/torch_logs_lsp/hosts/{kind}/host.py"]))
    assert _tests(f"hosts/{kind}") <= area
    # another host's tests only when they import this host
    package = f"torch_logs_lsp.hosts.{kind}"
    for other in set(KINDS) - {kind}:
        for test in _tests(f"hosts/{other}") & area:
            assert any(m.startswith(package) for m in touched.imports(ROOT / test)), test


def test_toml_host_selects_its_folder_and_its_server_test() -> None:
    area = set(touched.area(["src/torch_logs_lsp/hosts/toml/host.py"]))
    assert _tests("hosts/toml") <= area
    assert "tests/server/test_toml_lsp.py" in area
    # imports torch_logs_lsp.hosts.toml
    assert "tests/hosts/test_pytest_env_oracle.py" in area
    # another host's folder is not selected by name
    assert not _tests("hosts/shell") & area


def test_a_module_selects_the_folder_named_after_it() -> None:
    area = set(touched.area(["src/torch_logs_lsp/notebook/__init__.py"]))
    assert _tests("notebook") <= area
    assert "tests/server/test_notebook_sync.py" in area


def test_a_support_module_selects_its_importers() -> None:
    area = set(touched.area(["tests/support/spancheck.py"]))
    assert "tests/hosts/toml/test_host.py" in area
    assert "tests/hosts/shell/test_host.py" in area
    assert "tests/cli/test_codes.py" not in area


def test_a_conftest_selects_the_tests_under_it() -> None:
    area = set(touched.area(["tests/server/conftest.py"]))
    assert _tests("server") <= area
    assert not {t for t in area if not t.startswith("tests/server/")}


@pytest.mark.parametrize(
    "changed", ["tests/conftest.py", "pyproject.toml", "tests/support/budget.py"]
)
def test_a_change_to_every_test_selects_every_test(changed: str) -> None:
    every = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    assert set(touched.area([changed])) == every


def test_a_touched_test_selects_itself_and_nothing_by_name() -> None:
    assert touched.area(["tests/hosts/ini/test_cli.py"]) == ["tests/hosts/ini/test_cli.py"]


def test_module_of() -> None:
    assert touched.module_of("src/torch_logs_lsp/hosts/toml/host.py") == (
        "torch_logs_lsp.hosts.toml.host"
    )
    assert touched.module_of("tests/hosts/toml/test_host.py") == "tests.hosts.toml.test_host"
    assert touched.module_of("tests/support/__init__.py") == "tests.support"
    assert touched.module_of("docs/cli.md") is None


def test_named_source_folder_selects_its_area(tmp_path: Path) -> None:
    """``touched_tests.py PATHS``: the area of the source files and folders named, as if
    they were touched (``./dev test --quick src/...``)."""
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "touched_tests.py"), str(HOSTS / "toml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "tests/hosts/toml/test_host.py" in out
    assert "tests/server/test_toml_lsp.py" in out
    assert not any(t.startswith("tests/hosts/yaml/") for t in out)
