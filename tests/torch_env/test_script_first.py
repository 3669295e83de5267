"""Candidates for ``sys.path[0]`` (``ModuleFinder.first`` / ``with_first``): a name is found
when it is found with any candidate in front of the path, as the process that reads the
value finds it from its script's directory or its working directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.torch_env.context import TorchResolver, fallback_finder
from torch_logs_lsp.torch_env.modules import ModuleFinder


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """``env`` (the interpreter's path: a package ``shared`` and a module ``json2``),
    ``proj`` (``mypkg`` with ``model``, a ``json2.py`` shadowing the env's) and ``tools``
    (a ``mypkg`` of its own, without ``model``)."""
    env, proj, tools = tmp_path / "env", tmp_path / "proj", tmp_path / "tools"
    for d in (env / "shared", env / "json2", proj / "mypkg", tools / "mypkg"):
        d.mkdir(parents=True)
    (env / "shared" / "__init__.py").write_text("")
    (env / "json2" / "__init__.py").write_text("")
    (env / "json2" / "decoder.py").write_text("")
    (proj / "mypkg" / "__init__.py").write_text("")
    (proj / "mypkg" / "model.py").write_text("")
    (proj / "json2.py").write_text("")
    (tools / "mypkg" / "__init__.py").write_text("")
    (tools / "mypkg" / "other.py").write_text("")
    return {"env": env, "proj": proj, "tools": tools}


def _finder(layout: dict[str, Path], *first: str) -> ModuleFinder:
    return ModuleFinder([str(layout["env"])], complete=True, certain=True, first=first)


def test_a_candidate_finds_the_projects_own_package(layout: dict[str, Path]):
    bare = _finder(layout)
    assert bare.find_spec("mypkg.model").status == "parent_missing"
    found = bare.with_first([str(layout["proj"])]).find_spec("mypkg.model")
    assert found.status == "found" and found.spec is not None
    assert found.spec.origin == str(layout["proj"] / "mypkg" / "model.py")


def test_any_candidate_counts_not_only_the_first_holding_the_name(layout: dict[str, Path]):
    """One path with both prepended would stop at tools/mypkg (a regular package without
    `model`): a false TL204 for the script in proj."""
    both = _finder(layout, str(layout["tools"]), str(layout["proj"]))
    assert both.find_spec("mypkg.model").status == "found"
    assert both.find_spec("mypkg.other").status == "found"
    assert both.find_spec("mypkg.nothere").status == "not_found"
    assert both.find_spec("nothere").status == "not_found"


def test_a_candidate_shadows_as_sys_path_0_does(layout: dict[str, Path]):
    """proj/json2.py shadows the env's package json2 for a script in proj (python does
    the same); a candidate without json2 leaves the env's visible."""
    only_proj = _finder(layout, str(layout["proj"]))
    assert only_proj.find_spec("json2.decoder").status == "parent_not_package"
    either = _finder(layout, str(layout["proj"]), str(layout["tools"]))
    assert either.find_spec("json2.decoder").status == "found"


def test_unknown_with_a_candidate_is_no_verdict(layout: dict[str, Path]):
    partial = fallback_finder().with_first([str(layout["proj"])])
    assert partial.find_spec("mypkg.model").status == "found"
    assert partial.find_spec("mypackage").status == "unknown"  # incomplete path
    assert partial.find_spec("torch._dynamo.guards").status == "found"


def test_with_first_is_cached_and_shares_listings(layout: dict[str, Path]):
    base = _finder(layout)
    one = base.with_first([str(layout["proj"])])
    assert base.with_first([str(layout["proj"])]) is one
    assert base.with_first([]) is base
    assert one.with_first([str(layout["proj"])]) is one
    assert one.searched == (str(layout["proj"]), str(layout["env"]))
    assert one.certain and one.complete and one.description == base.description


def test_the_resolvers_workspace_is_a_candidate_not_a_path_entry(layout: dict[str, Path]):
    ctx = TorchResolver().context(python=sys.executable, workspace=str(layout["proj"]))
    assert ctx.finder.first == (str(layout["proj"]),)
    assert str(layout["proj"]) not in ctx.finder.paths
    assert ctx.finder.find_spec("mypkg.model").status == "found"


#: Run by a real interpreter as ``python SCRIPT`` and ``python -m``: its sys.path[0] and
#: importlib's answer for each name.
_PROBE = """\
import importlib.util, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = importlib.util.find_spec(name) is not None
    except ImportError:
        out[name] = False
print(json.dumps({"path0": sys.path[0], "found": out}))
"""


@pytest.mark.parametrize("how", ["script", "script_from_parent", "module_in_cwd"])
def test_same_answers_as_a_real_process(tmp_path: Path, how: str):
    """``python proj/tools/probe.py`` finds modules beside the script (not in the working
    directory); ``python -m probe`` in ``proj`` finds them in the working directory. Our
    finder, given that directory as the candidate, answers as importlib does."""
    proj = tmp_path / "proj"
    (proj / "tools" / "helpers").mkdir(parents=True)
    (proj / "mypkg").mkdir()
    (proj / "mypkg" / "__init__.py").write_text("")
    (proj / "mypkg" / "model.py").write_text("")
    (proj / "tools" / "helpers" / "__init__.py").write_text("")
    (proj / "tools" / "probe.py").write_text(_PROBE)
    (proj / "probe.py").write_text(_PROBE)
    names = ["mypkg", "mypkg.model", "mypkg.nothere", "helpers", "nothere.x", "json.decoder"]
    argv = {
        "script": ([sys.executable, "-E", "-s", "tools/probe.py"], proj),
        "script_from_parent": ([sys.executable, "-E", "-s", "proj/tools/probe.py"], tmp_path),
        "module_in_cwd": ([sys.executable, "-E", "-s", "-m", "probe"], proj),
    }[how]
    out = subprocess.run(
        [*argv[0], *names], cwd=argv[1], capture_output=True, text=True, check=True
    ).stdout
    real = json.loads(out)
    path0 = real["path0"] or str(argv[1])
    env = TorchResolver().context(python=sys.executable).finder
    ours = env.with_first([path0])
    assert {n: ours.find_spec(n).status == "found" for n in names} == real["found"]
