"""The hosts' declarations (hosts/spec.py): consistent with the host modules, and every
declared comment marker is one that suppressions and pin comments recognise."""

from __future__ import annotations

from pathlib import Path

import pytest

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.comments import find_pin, markers, pin_comment
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.lint.suppressions import find_suppressions

SPECS = hosts.host_specs()
MARKERS = [(spec.kind, marker) for spec in SPECS for marker in spec.line_comments]


def test_one_declaration_per_host_in_table_order():
    # SPECS is the generated copy (hosts/declared.py, ./dev gen): equal to the modules'
    assert [spec.kind for spec in SPECS] == list(hosts.HOST_KINDS)
    for spec in SPECS:
        module = hosts.host_module(spec.kind)
        assert module is not None and spec == module.SPEC and spec.kind == module.HOST
        assert repr(module.SPEC) == repr(spec)
        assert spec.language_ids == module.LANGUAGE_IDS
        assert spec.line_comments[0] == module.COMMENT
        assert spec.line_comments, spec.kind


def _example(glob: str) -> str:
    return glob.replace("*", "x")


@pytest.mark.parametrize("spec", SPECS, ids=[s.kind for s in SPECS])
def test_every_glob_is_detected_as_its_host(spec: HostSpec):
    # the selector sends what the globs say: the server must read each as that host
    for glob in spec.globs:
        assert hosts.host_by_name(_example(glob)) == spec.kind, glob
        assert hosts.detect_host(f"/w/{_example(glob)}", "") == spec.kind, glob
        assert spec.claims(_example(glob)), glob


def test_claims_is_case_insensitive_and_whole_name():
    shell = hosts.host_module("shell")
    assert shell is not None
    assert shell.SPEC.claims("RUN.SH") and shell.SPEC.claims(".BashRC")
    assert not shell.SPEC.claims("run.shx") and not shell.SPEC.claims("x.bashrc")
    spec = HostSpec("t", ("a?.[ch]", "*.mk", "Makefile"))
    assert spec.claims("ab.c") and spec.claims("AB.H") and spec.claims("x.MK")
    assert spec.claims("makefile") and not spec.claims("abc.c") and not spec.claims("Makefile.x")


def test_markers_are_every_declared_line_comment():
    assert set(markers()) == {marker for _, marker in MARKERS}
    assert set(markers()) >= {"#", "//", ";", "::", "rem"}


@pytest.mark.parametrize(("kind", "marker"), MARKERS)
def test_every_declared_marker_is_recognised_by_suppressions(kind: str, marker: str):
    text = f"{marker} torch-logs: ignore[TL201]\nX=1\n"
    for host in (kind, None):
        (found,) = find_suppressions(text, host)
        assert found.codes == ("TL201",) and found.lines == (0, 1) and found.marker == 0
    if marker[0].isalpha():  # a word marker: any case, never inside a word
        assert find_suppressions(f"{marker.upper()} torch-logs: ignore\n", None)
        assert not find_suppressions(f"x{marker} torch-logs: ignore\n", None)


@pytest.mark.parametrize(("kind", "marker"), MARKERS)
def test_every_declared_marker_is_recognised_by_pin_comments(kind: str, marker: str):
    assert find_pin(f"X=1\n{marker} torch-logs: torch=2.4\n") == "2.4"
    text = f"X=1\n{marker} torch-logs: torch=abc\n"
    pin = pin_comment(text)
    assert pin is not None and pin.release is None
    assert text[pin.start : pin.end] == f"{marker} torch-logs: torch=abc"


def test_the_capability_tuples_name_every_host_that_has_the_capability() -> None:
    """mypy checks a capability's members against the hosts listed for it in the
    ``TYPE_CHECKING`` block of ``hosts/__init__.py``; a host that has the members but is
    not listed would go unchecked."""
    import ast

    source = Path(hosts.__file__).read_text(encoding="utf-8")
    listed: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Tuple):
            assert isinstance(node.target, ast.Name)
            listed[node.target.id] = {e.id for e in node.value.elts if isinstance(e, ast.Name)}
    lookups = {
        "_NOTES": hosts.notes_host,
        "_OVERWRITES": hosts.overwrites_host,
        "_STOPS": hosts.stops_host,
        "_PATH_FACTS": hosts.path_facts_host,
        "_OUTPUT": hosts.output_host,
        "_SET_LOGS": hosts.set_logs_host,
        "_SHARED": hosts.shared_host,
    }
    for name, lookup in lookups.items():
        having = {kind for kind in hosts.HOST_KINDS if lookup(kind) is not None}
        assert listed[name] == having, name
