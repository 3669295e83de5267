"""The user's torch read statically: exact registry of the installed 2.13.0, unusual files,
and environments that would run code if anything were imported or executed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.hosts.comments import find_pin, pin_comment
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.torch_env.context import TorchResolver
from torch_logs_lsp.torch_env.environment import asked_env, find_env, read_pth, static_env
from torch_logs_lsp.torch_env.reader import read_registrations, read_torch
from torch_logs_lsp.value.analysis import analyse

VENV_PYTHON = sys.executable  # the .venv interpreter with torch 2.13.0 (./dev test)


def _installed_torch() -> Path:
    spec = importlib.util.find_spec("torch")  # locates, does not import
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def test_static_reader_on_installed_torch_gives_the_packaged_2_13_registry():
    result = read_torch(str(_installed_torch()))
    assert result.problems == []
    assert result.version is not None and result.version.startswith("2.13.0")
    packaged = load_registry("2.13")
    assert {k: tuple(v) for k, v in result.logs.items()} == {
        k: c.qnames for k, c in packaged.components.items()
    }
    assert result.artifacts == {
        k: {"off_by_default": a.off_by_default, "visible": a.visible}
        for k, a in packaged.artifacts.items()
    }
    assert result.descriptions["guards"].startswith("This prints the guards")


def test_resolver_uses_the_installed_build_for_the_venv():
    ctx = TorchResolver().context(python=VENV_PYTHON)
    assert ctx.registry.release == "2.13"
    assert ctx.registry.version.startswith("2.13.0")
    assert ctx.registry.source.endswith(os.path.join("_logging", "_registrations.py"))
    assert ctx.certain and ctx.notes == ()
    assert ctx.env is not None and ctx.env.how == "pyvenv.cfg"
    assert analyse("autotuning_inputs", ctx.registry).diagnostics[0].code == "TL205"


UNUSUAL = """
from ._internal import register_artifact, register_log
import os
BASE = ["torch.a", "torch.b"]
register_log("alpha", BASE + ["torch.c"])
register_log("beta", [*BASE, "torch.d"])
register_log(setting_name="gamma", log_name="torch.g")
os.system("touch SHOULD_NEVER_RUN")
NAMES = []
for n in ("x", "y"):
    NAMES.append(n)
    register_artifact(n, "looped")
register_artifact("delta", "desc", off_by_default=True)
register_artifact("eps", "d", True)
register_log("computed", os.environ["X"])
register_artifact(name_from_call(), "x")
if os.environ.get("Y"):
    register_log("conditional", "torch.y")
"""


def test_unusual_registrations_return_what_can_be_read(tmp_path: Path):
    result = read_registrations(UNUSUAL)
    assert result.logs == {
        "alpha": ["torch.a", "torch.b", "torch.c"],
        "beta": ["torch.a", "torch.b", "torch.d"],
        "gamma": ["torch.g"],
    }
    assert result.artifacts == {
        "delta": {"off_by_default": True, "visible": False},
        "eps": {"off_by_default": False, "visible": True},
    }
    lines = " | ".join(result.problems)
    assert "line 10: For" in lines and "line 15" in lines and "line 16" in lines
    assert "line 17: If" in lines
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("source", ["def (", "\x00", "register_log(", ""])
def test_broken_files_never_raise(source: str):
    result = read_registrations(source)
    assert result.logs == {}


def _booby_trapped_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A real venv whose site-packages would write markers if any code ran."""
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True
    )
    site = next(venv.glob("lib/python3.*/site-packages"))
    markers = tmp_path / "markers"
    markers.mkdir()
    write = "open({!r}, 'w').write('ran')"
    (site / "trap.pth").write_text(
        f"import os; {write.format(str(markers / 'pth'))}\n../extra\n", encoding="utf-8"
    )
    (site.parent / "extra").mkdir()
    (site.parent / "extra" / "mymod.py").write_text("", encoding="utf-8")
    (site / "sitecustomize.py").write_text(write.format(str(markers / "sitecustomize")))
    (site / "usercustomize.py").write_text(write.format(str(markers / "usercustomize")))
    torch = site / "torch"
    (torch / "_logging").mkdir(parents=True)
    (torch / "__init__.py").write_text(
        write.format(str(markers / "torch")) + "\nraise SystemExit('imported torch')\n"
    )
    (torch / "version.py").write_text("__version__ = '2.4.1'\n")
    real = _installed_torch() / "_logging" / "_registrations.py"
    (torch / "_logging" / "__init__.py").write_text(write.format(str(markers / "logging")))
    (torch / "_logging" / "_registrations.py").write_text(
        real.read_text(encoding="utf-8")
        + f"\nregister_artifact({write.format(str(markers / 'registrations'))} and 'x', '')\n"
    )
    return venv, markers


def test_booby_trapped_environment_never_runs_anything(tmp_path: Path):
    venv, markers = _booby_trapped_venv(tmp_path)
    python = str(venv / "bin" / "python")
    env = find_env(python)
    assert env is not None and env.how == "pyvenv.cfg"
    assert any(p.endswith("extra") for p in env.pth_paths)  # path line read
    assert env.pth_imports and env.pth_imports[0].endswith("trap.pth")  # import line not run
    asked = asked_env(python)  # the interpreter asked, isolated (-I -S)
    assert asked is not None and asked.version == f"{sys.version_info[0]}.{sys.version_info[1]}"
    ctx = TorchResolver().context(python=python)
    # the registrations file has an unreadable extra statement: nearest packaged release
    assert ctx.registry.release == "2.4" and ctx.registry.source == "packaged"
    assert ctx.notes and "could not read every registration" in ctx.notes[0]
    assert ctx.finder.find_spec("mymod").status == "found"  # via the .pth path line
    assert ctx.finder.find_spec("torch._logging").status == "found"
    assert analyse("+mymod,nosuchmod.sub", ctx.registry, ctx.finder).outcome == ("module_not_found")
    assert sorted(os.listdir(markers)) == []


def test_pth_reading(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "x.pth").write_text("# comment\n\na\nmissing\nimport sys\n")
    paths, imports = read_pth(str(tmp_path))
    assert paths == [str(tmp_path / "a")]
    assert imports == [str(tmp_path / "x.pth")]


def test_static_env_of_this_venv_finds_torch():
    env = static_env(VENV_PYTHON)
    assert env is not None
    assert env.torch_dir() == str(_installed_torch())


def test_cache_rereads_when_torch_changes(tmp_path: Path):
    venv, _ = _booby_trapped_venv(tmp_path)
    python = str(venv / "bin" / "python")
    resolver = TorchResolver()
    assert resolver.context(python=python).registry.release == "2.4"
    torch = next(venv.glob("lib/python3.*/site-packages/torch"))
    real = _installed_torch() / "_logging" / "_registrations.py"
    (torch / "_logging" / "_registrations.py").write_text(real.read_text(encoding="utf-8"))
    (torch / "version.py").write_text("__version__ = '2.16.0.dev20260101'\n")
    os.utime(torch / "version.py", ns=(1, 1))  # a different mtime, whatever the clock says
    ctx = resolver.context(python=python)
    assert (ctx.registry.release, ctx.registry.version) == ("2.16", "2.16.0.dev20260101")
    assert ctx.registry.source != "packaged"


@pytest.mark.parametrize(
    ("text", "release"),
    [
        ("# torch-logs: torch=2.4\nTORCH_LOGS=ddp\n", "2.4"),
        ("TORCH_LOGS=ddp  # torch-logs: torch=2.9.1", "2.9"),
        ('{ // torch-logs: torch=2.3\n "env": {} }', "2.3"),
        ("# torch-logs torch 2.4", None),
    ],
)
def test_pin_comment(text: str, release: str | None):
    assert find_pin(text) == release


def test_resolution_order(tmp_path: Path):
    resolver = TorchResolver()
    pin = "# torch-logs: torch=2.3\n"
    assert resolver.context(torch_version="2.5", pin=pin_comment(pin)).registry.release == "2.5"
    assert resolver.context(pin=pin_comment(pin), python=VENV_PYTHON).registry.release == "2.3"
    ctx = resolver.context(pin=pin_comment("# torch-logs: torch=2.0\n"))
    assert ctx.registry.release == "2.1" and "not packaged" in ctx.notes[0]
    # no setting, no pin, no interpreter in the workspace: .venv of the workspace is used
    work = tmp_path / "ws"
    (work / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv" / "bin" / "python").symlink_to(VENV_PYTHON)
    (work / ".venv" / "pyvenv.cfg").write_text(
        Path(VENV_PYTHON).parent.parent.joinpath("pyvenv.cfg").read_text()
    )
    sp = work / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    (sp / "site-packages").mkdir(parents=True)
    (sp / "site-packages" / "torch").symlink_to(_installed_torch())
    ctx = resolver.context(workspace=str(work))
    assert ctx.registry.version.startswith("2.13.0") and not ctx.certain


def test_workspace_interpreter_is_never_executed(tmp_path: Path):
    """A `.venv/bin/python` in the workspace without pyvenv.cfg is read, not run."""
    marker = tmp_path / "ran"
    fake = tmp_path / "ws" / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n")
    fake.chmod(0o755)
    ctx = TorchResolver().context(workspace=str(tmp_path / "ws"))
    assert not marker.exists()
    assert ctx.registry.release  # fell through to PATH / packaged, still a registry


def test_prefetched_environment_is_the_one_env_returns():
    """The server asks python3 on PATH at launch (prefetch); the resolver then takes that
    answer instead of asking again, and it is the same as asking directly."""
    from torch_logs_lsp.torch_env import context as torch_context

    python = sys.executable
    torch_context._PREFETCHED.pop(python, None)
    torch_context.prefetch(python)
    assert python in torch_context._PREFETCHED
    env = TorchResolver().env(python)
    assert python not in torch_context._PREFETCHED  # consumed
    assert env == find_env(python)
