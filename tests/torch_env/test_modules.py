"""Static module resolution (find_spec mirror), checked on fake trees and against importlib."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.torch_env.context import fallback_finder, packaged_torch_modules
from torch_logs_lsp.torch_env.environment import static_env
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import Severity, analyse

EXT = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def tree(tmp_path: Path) -> list[str]:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a / "pkg" / "sub", a / "ns" / "one", b / "ns" / "two", b / "pkg", a / "nsonly"):
        d.mkdir(parents=True)
    (a / "pkg" / "__init__.py").write_text("")
    (a / "pkg" / "mod.py").write_text("")
    (a / "pkg" / "sub" / "__init__.py").write_text("")
    (a / "pkg" / "sub" / "deep.py").write_text("")
    (a / "pkg" / f"fast{EXT}").write_text("")
    (b / "pkg" / "__init__.py").write_text("")  # shadowed by a/pkg
    (b / "pkg" / "hidden.py").write_text("")
    (a / "ns" / "one" / "__init__.py").write_text("")
    (b / "ns" / "two" / "x.py").write_text("")
    (a / "plain.py").write_text("")
    (b / "compiled.pyc").write_text("")
    (a / "pkg" / "not-ident.py").write_text("")
    return [str(a), str(b)]


@pytest.mark.parametrize(
    ("name", "status", "kind"),
    [
        ("pkg", "found", "package"),
        ("pkg.mod", "found", "module"),
        ("pkg.fast", "found", "extension"),
        ("pkg.sub.deep", "found", "module"),
        ("pkg.hidden", "not_found", None),  # a regular package stops the search
        ("ns", "found", "namespace"),
        ("ns.one", "found", "package"),
        ("ns.two.x", "found", "module"),  # namespace portions span both entries
        ("plain", "found", "module"),
        ("compiled", "found", "module"),
        ("plain.x", "parent_not_package", None),
        ("nope.x", "parent_missing", None),
        ("nope", "not_found", None),
        ("pkg.", "not_found", None),
        (".pkg", "relative", None),
        ("pkg..mod", "parent_missing", None),
    ],
)
def test_find_spec(tree: list[str], name: str, status: str, kind: str | None):
    lookup = ModuleFinder(tree, complete=True).find_spec(name)
    assert lookup.status == status
    assert (lookup.spec.kind if lookup.spec else None) == kind


def test_same_answers_as_importlib(tree: list[str], monkeypatch: pytest.MonkeyPatch):
    """Our static answers equal importlib's on the same tree (it imports, we don't)."""
    monkeypatch.setattr(sys, "path", list(tree))
    finder = ModuleFinder(tree, complete=True)
    for name in ("pkg", "pkg.mod", "pkg.sub.deep", "ns.two.x", "pkg.hidden", "nope", "plain"):
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        assert (finder.find_spec(name).status == "found") == found, name
    for mod in [m for m in sys.modules if m.split(".")[0] in ("pkg", "ns", "plain")]:
        del sys.modules[mod]


def test_children_and_walk(tree: list[str]):
    finder = ModuleFinder(tree, complete=True)
    pkg = finder.find_spec("pkg").spec
    assert pkg is not None
    assert finder.children(pkg) == [("fast", False), ("mod", False), ("sub", True)]
    assert finder.walk(pkg) == ["pkg", "pkg.fast", "pkg.mod", "pkg.sub", "pkg.sub.deep"]


def test_incomplete_path_gives_unknown_for_top_level_misses():
    finder = fallback_finder()
    assert finder.find_spec("mypackage").status == "unknown"
    assert finder.find_spec("json.decoder").status == "found"
    assert finder.find_spec("torch._dynamo.guards").status == "found"  # packaged list
    assert finder.find_spec("torch._dynamo.nope").status == "not_found"
    assert not finder.certain


def test_packaged_torch_module_list_matches_installed_torch():
    env = static_env(sys.executable)
    assert env is not None
    finder = ModuleFinder(env.search_path(), complete=True)
    spec = finder.find_spec("torch").spec
    assert spec is not None
    release, names = packaged_torch_modules()
    assert release == "2.13"
    assert finder.walk(spec) == names


def test_severity_depends_on_certainty(tree: list[str]):
    reg = load_registry("2.13")
    certain = ModuleFinder(tree, complete=True, certain=True, description="/x/python")
    guessed = ModuleFinder(tree, complete=True, description="/x/python")
    for finder, severity in ((certain, Severity.ERROR), (guessed, Severity.WARNING)):
        result = analyse("+nope.sub", reg, finder)
        assert result.outcome == "module_not_found"
        (d,) = result.diagnostics
        assert (d.code, d.severity) == ("TL204", severity)
        assert d.message == (
            "`nope.sub`: no module `nope` in /x/python: torch will raise ModuleNotFoundError "
            "at import"
        )
        (d,) = analyse("mypackage", reg, finder).diagnostics
        assert (d.code, d.severity) == ("TL201", severity)
        assert "nor a module in /x/python" in d.message
    result = analyse("pkg.hidden", reg, certain)
    assert (result.outcome, result.diagnostics[0].code) == ("invalid", "TL204")


def test_package_enables_submodules_from_2_11(tree: list[str]):
    finder = ModuleFinder(tree, complete=True)
    config = analyse("+pkg.sub", load_registry("2.13"), finder).config
    assert config is not None and config.logs == {"pkg.sub": 10, "pkg.sub.deep": 10}
    config = analyse("+pkg.sub", load_registry("2.10"), finder).config
    assert config is not None and config.logs == {"pkg.sub": 10}
