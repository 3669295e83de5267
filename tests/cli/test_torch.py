"""torch-logs --python / --torch-version / registry, and pin comments in checked files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_explain_with_python_and_release():
    proc = run("explain", "--json", "--python", sys.executable, "+some.random.module")
    data = json.loads(proc.stdout)
    assert data["torch_outcome"] == "module_not_found"
    assert data["diagnostics"][0]["code"] == "TL204"
    assert data["diagnostics"][0]["severity"] == "error"
    assert data["torch_release"] == "2.13"  # the installed torch, read statically
    data = json.loads(run("explain", "--json", "--torch", "2.3", "+dist_ddp").stdout)
    assert data["torch_outcome"] == "ok" and data["torch_release"] == "2.3"
    assert run("explain", "--torch", "x", "dynamo").returncode == 2


def test_check_honours_pin_comments(tmp_path: Path):
    (tmp_path / "a.env").write_text("# torch-logs: torch=2.13\nTORCH_LOGS=autotuning_inputs\n")
    (tmp_path / "b.env").write_text("TORCH_LOGS=autotuning_inputs\n")
    proc = run("check", str(tmp_path), "--torch-version", "2.15")
    assert proc.returncode == 0  # the option overrides the pin
    proc = run("check", str(tmp_path), "--python", sys.executable)
    assert "a.env:2:12: TL205 `autotuning_inputs` is not in torch 2.13 (added in 2.14)" in (
        proc.stdout
    )
    assert "b.env:2" not in proc.stdout and "b.env:1:12: TL205" in proc.stdout


def test_registry_command():
    data = json.loads(run("registry", "--json", "--torch", "2.4").stdout)
    names = {row["name"]: row for row in data["names"]}
    assert "ddp" in names and "dist_ddp" not in names
    assert names["guards"]["visible"] is True
    assert names["ddp"]["releases"] == "since 2.4"
    assert names["dynamo"]["loggers"][0] == "torch._dynamo"
    text = run("registry", "--torch", "2.3").stdout
    assert "dist_ddp" in text and "since 2.3, until 2.3" in text


def test_a_release_that_is_not_packaged_is_named_on_stderr(tmp_path: Path):
    (tmp_path / "a.env").write_text("TORCH_LOGS=+dynamo\n")
    (tmp_path / "b.env").write_text("TORCH_LOGS=guards\n")
    proc = run("check", str(tmp_path), "--torch-version", "9.9")
    note = "torch-logs: note: torch 9.9 is not packaged; using 2.15"
    assert proc.stderr.count(note) == 1, proc.stderr  # once, for both files
    (tmp_path / "b.env").write_text("# torch-logs: torch=3.0\nTORCH_LOGS=guards\n")
    proc = run("check", str(tmp_path))
    assert "torch-logs: note: torch 3.0 is not packaged; using 2.15" in proc.stderr
    assert "note:" not in run("check", str(tmp_path / "a.env")).stderr
    assert note in run("explain", "--torch", "9.9", "dynamo").stderr


def _project_with_venv(root: Path) -> Path:
    """A project whose .venv is this test's environment, seen through symlinks (read
    statically: pyvenv.cfg and site-packages)."""
    import sysconfig

    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text((Path(sys.prefix) / "pyvenv.cfg").read_text())
    purelib = Path(sysconfig.get_paths()["purelib"])
    site = venv / purelib.relative_to(sys.prefix)
    site.parent.mkdir(parents=True)
    site.symlink_to(purelib)
    return root


def test_each_checked_file_uses_its_own_projects_interpreter(tmp_path: Path):
    import os

    project = _project_with_venv(tmp_path / "proj")
    (project / "sub").mkdir()
    (project / "sub" / "a.env").write_text("TORCH_LOGS=autotuning_inputs\n")  # added in 2.14
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.env").write_text("TORCH_LOGS=autotuning_inputs\n")
    env = {**os.environ, "PATH": str(tmp_path / "nothing")}  # no python3 on PATH
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(project), str(other)],
        capture_output=True,
        text=True,
        cwd=other,  # the current directory's interpreter (none) is not the project's
        env=env,
        check=False,
    )
    # the project's torch (2.13, through its .venv) for its file, from anywhere
    assert "a.env:1:12: TL205 `autotuning_inputs` is not in torch 2.13" in proc.stdout, proc
    # the other project has no interpreter: the newest packaged release, not proj's
    assert "b.env:1" not in proc.stdout, proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(other)],
        capture_output=True,
        text=True,
        cwd=project,  # run from inside the project: another project's file still gets none
        env=env,
        check=False,
    )
    assert "b.env:1" not in proc.stdout, proc.stdout


def test_project_dir(tmp_path: Path, monkeypatch):
    from torch_logs_lsp.cli.torch_options import project_dir

    project = _project_with_venv(tmp_path / "p")
    (project / "a" / "b").mkdir(parents=True)
    assert project_dir(project / "a" / "b" / "x.sh") == str(project)
    assert project_dir(project / "x.sh") == str(project)
    lone = tmp_path / "lone"
    lone.mkdir()
    monkeypatch.chdir(project)
    assert project_dir(lone / "x.sh") == str(lone)  # not the current directory's
    monkeypatch.chdir(tmp_path)
    assert project_dir(lone / "x.sh") == str(tmp_path)  # under the current directory
    assert project_dir(None) == str(tmp_path)


def test_pin_diagnostics_only_for_a_pin_that_chose_an_unpackaged_release():
    from torch_logs_lsp.hosts.comments import pin_comment
    from torch_logs_lsp.torch_env.context import TorchResolver, pin_diagnostics

    resolver = TorchResolver()
    text = "x\n  // torch-logs: torch = 3.0.1 because\n"
    (d,) = pin_diagnostics(text, resolver.context(pin=pin_comment(text)))
    assert (d.code, d.severity, text[d.start : d.end]) == (
        "TL902",
        4,
        "// torch-logs: torch = 3.0.1",
    )
    assert "torch 3.0 is not packaged; using 2.15" in d.message
    pinned = resolver.context(pin=pin_comment(text), torch_version="2.13")
    assert pin_diagnostics(text, pinned) == []
    packaged = "# torch-logs: torch=2.4\n"
    assert pin_diagnostics(packaged, resolver.context(pin=pin_comment(packaged))) == []
    old = "# torch-logs: torch=1.13\n"  # older than every packaged release: the oldest
    (d,) = pin_diagnostics(old, resolver.context(pin=pin_comment(old)))
    assert "torch 1.13 is not packaged; using 2.1 (" in d.message


def test_a_pin_that_names_no_release_is_said_to_be_ignored():
    # (`torch=abc` and `torch=2` are not ignored silently)
    from torch_logs_lsp.hosts.comments import pin_comment
    from torch_logs_lsp.torch_env.context import TorchResolver, pin_diagnostics

    resolver = TorchResolver()
    for pin in ("torch=abc", "torch=2", "torch= 2.x"):
        text = f"A=1\n# torch-logs: {pin}\nTORCH_LOGS=+dynamo\n"
        (d,) = pin_diagnostics(text, resolver.context(pin=pin_comment(text), torch_version="2.13"))
        assert d.code == "TL902" and "names no release like `2.13`, so it is ignored" in d.message
        assert "configured release 2.13" in d.message
        assert text[d.start : d.end].startswith("# torch-logs: torch=")
