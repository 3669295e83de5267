"""Module names resolved where the reading process looks first (``sys.path[0]``): the
document's directory, the workspace, the directories of the scripts it runs
(:mod:`torch_logs_lsp.lint.script_dirs`), through the one pipeline."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.growth import growth
from torch_logs_lsp.lint.pipeline import check_document
from torch_logs_lsp.lint.script_dirs import MAX_DIRS, script_dirs
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.paths import PathFacts, Where


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``env/`` (the interpreter's path: only ``shared``), ``proj/`` with ``mypkg``
    (``model``) beside its scripts, ``proj/tools/helpers``, ``proj/srcdir/appmod``;
    the checks run from ``tmp_path`` (the current directory, outside ``proj``)."""
    for d in ("env/shared", "proj/mypkg", "proj/tools/helpers", "proj/srcdir/appmod"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("env/shared", "proj/mypkg", "proj/tools/helpers", "proj/srcdir/appmod"):
        (tmp_path / f / "__init__.py").write_text("")
    (tmp_path / "proj/mypkg/model.py").write_text("")
    return tmp_path


def _codes(tree: Path, host: HostKind, name: str, text: str, path: bool = True) -> list[str]:
    """Codes of a document at ``proj/<name>``, checked with a named interpreter whose
    path is ``env/`` (certain verdicts: errors) from ``tmp_path``."""
    finder = ModuleFinder([str(tree / "env")], complete=True, certain=True, description="py")
    file = tree / "proj" / name
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    checked = check_document(
        text,
        host,
        finder=finder,
        base_dir=str(tree),
        roots=(str(tree),),
        path=str(file) if path else None,
    )
    return [f.diagnostic.code for f in checked.findings()]


def test_the_issue_a_shell_script_beside_its_package(tree: Path):
    """`TORCH_LOGS=+mypkg.model python train.py` in proj/train.sh, checked from outside
    proj: `python train.py` run there finds proj/mypkg (sys.path[0] is proj)."""
    text = "TORCH_LOGS=+mypkg.model python train.py\n"
    assert "TL204" not in _codes(tree, "shell", "train.sh", text)
    # without the document's place only the working directory is known: not found there
    assert "TL204" in _codes(tree, "shell", "train.sh", text, path=False)
    # a module found nowhere is still an error
    assert "TL204" in _codes(tree, "shell", "train.sh", "TORCH_LOGS=+nothere.model\n")


def test_shell_a_script_in_a_subdirectory(tree: Path):
    text = "export TORCH_LOGS=+helpers\npython tools/train.py\n"
    assert "TL201" not in _codes(tree, "shell", "run.sh", text)
    assert "TL201" in _codes(tree, "shell", "run.sh", "export TORCH_LOGS=+helpers\n")


def test_shell_cd_then_python_m(tree: Path):
    """`cd` to an absolute directory: `python -m` runs there, modules there count."""
    srcdir = tree / "proj" / "srcdir"
    text = f"cd {srcdir}\nTORCH_LOGS=+appmod python -m app\n"
    assert "TL201" not in _codes(tree, "shell", "run.sh", text)
    assert "TL201" in _codes(tree, "shell", "run.sh", "TORCH_LOGS=+appmod python -m app\n")


def test_python_file_its_own_directory(tree: Path):
    text = 'import os\nos.environ["TORCH_LOGS"] = "+mypkg.model"\nimport torch\n'
    assert "TL204" not in _codes(tree, "python", "train.py", text)
    assert "TL204" in _codes(tree, "python", "train.py", text, path=False)
    # a script elsewhere does not see proj's package
    assert "TL204" in _codes(tree, "python", "../other/train.py", text)


def test_dotenv_beside_the_package(tree: Path):
    assert "TL204" not in _codes(tree, "dotenv", ".env", "TORCH_LOGS=+mypkg.model\n")
    assert "TL204" in _codes(tree, "dotenv", ".env", "TORCH_LOGS=+mypkg.model\n", path=False)


def test_makefile_recipe_runs_a_script(tree: Path):
    text = "train:\n\tTORCH_LOGS=+helpers python3 tools/train.py\n"
    assert "TL201" not in _codes(tree, "makefile", "Makefile", text)


def test_workflow_step_working_directory(tree: Path):
    step = (
        "jobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: python -m app\n"
        "        working-directory: proj/srcdir\n"
        "        env:\n          TORCH_LOGS: +appmod\n"
    )
    assert "TL201" not in _codes(tree, "yaml", ".github/workflows/ci.yml", step)
    elsewhere = step.replace("proj/srcdir", "proj")
    assert "TL201" in _codes(tree, "yaml", ".github/workflows/ci.yml", elsewhere)


def test_launch_json_program_and_cwd(tree: Path):
    """launch.json beside .vscode/: `${workspaceFolder}` is the workspace (here the
    current directory, a root); `program`'s directory and `cwd` (for `module`) count."""
    program = (
        '{"configurations": [{"type": "debugpy", "request": "launch",\n'
        ' "program": "${workspaceFolder}/proj/tools/train.py",\n'
        ' "env": {"TORCH_LOGS": "+helpers"}}]}\n'
    )
    assert "TL201" not in _codes(tree, "jsonc", ".vscode/launch.json", program)
    module = (
        '{"configurations": [{"type": "debugpy", "request": "launch", "module": "app",\n'
        ' "cwd": "${workspaceFolder}/proj/srcdir", "env": {"TORCH_LOGS": "+appmod"}}]}\n'
    )
    assert "TL201" not in _codes(tree, "jsonc", ".vscode/launch.json", module)
    nothing = module.replace("/proj/srcdir", "")
    assert "TL201" in _codes(tree, "jsonc", ".vscode/launch.json", nothing)


def test_launch_json_workspace_folder_is_the_folder_holding_vscode(tree: Path):
    """Checked from outside the project (roots: the current directory only), a
    `${workspaceFolder}` of `proj/.vscode/launch.json` is `proj`, as VS Code has it."""
    program = (
        '{"configurations": [{"type": "debugpy", "request": "launch",\n'
        ' "program": "${workspaceFolder}/tools/train.py",\n'
        ' "env": {"TORCH_LOGS": "+helpers"}}]}\n'
    )
    assert "TL201" not in _codes(tree, "jsonc", ".vscode/launch.json", program)
    module = (
        '{"configurations": [{"type": "debugpy", "request": "launch", "module": "app",\n'
        ' "cwd": "${workspaceFolder}/srcdir", "env": {"TORCH_LOGS": "+appmod,+nopkg"}}]}\n'
    )
    got = _codes(tree, "jsonc", ".vscode/launch.json", module)
    assert got.count("TL201") == 1 and "TL204" not in got  # nopkg only


def test_set_logs_modules_in_a_python_file(tree: Path):
    text = 'import torch\ntorch._logging.set_logs(modules={"mypkg.model": 10})\n'
    codes = _codes(tree, "python", "train.py", text)
    assert codes == [], codes
    assert _codes(tree, "python", "train.py", text, path=False) != []


def test_candidates(tree: Path):
    proj = tree / "proj"
    link = tree / "bin"
    link.mkdir()
    (link / "t.py").symlink_to(proj / "tools" / "x.py")  # dangling is fine for python too
    (proj / "tools" / "x.py").write_text("")
    text = (
        "python tools/x.py; python3 ./srcdir/y.py ~/nowhere/z.py /no/such/dir/a.py\n"
        f"python {link}/t.py $SCRIPT_DIR/b.py\n"
    )
    dirs = script_dirs(text, str(proj / "run.sh"), [], str(tree), (str(tree),))
    assert dirs == (
        str(proj),
        str(tree),
        str(proj / "tools"),
        str(proj / "srcdir"),
        str(link),
    )
    facts = Where(None, None, PathFacts(cwd=str(proj / "srcdir")))
    assert script_dirs("", None, [facts], None, None) == (str(proj / "srcdir"),)
    many = "".join(f"python d{i}/s.py\n" for i in range(MAX_DIRS + 10))
    for i in range(MAX_DIRS + 10):
        (proj / f"d{i}").mkdir()
    assert len(script_dirs(many, str(proj / "run.sh"), [], None, None)) == MAX_DIRS


def test_same_directory_as_the_real_process(tree: Path):
    """bash runs the document in proj (its directory): a script beside it, one through a
    symlink in another directory, `python -m` after a relative `cd`; each directory python
    puts first is a candidate."""
    proj = tree / "proj"
    probe = "import sys; print(sys.path[0])\n"
    (proj / "tools" / "probe.py").write_text(probe)
    (tree / "links").mkdir()
    (tree / "links" / "probe.py").symlink_to(proj / "tools" / "probe.py")
    text = (
        '"$PY" -E -s tools/probe.py\n'
        '"$PY" -E -s ../links/probe.py\n'
        'cd srcdir && "$PY" -E -s -m probe\n'
    )
    (proj / "srcdir" / "probe.py").write_text(probe)
    (proj / "run.sh").write_text(text)
    out = subprocess.run(
        ["bash", "run.sh"],
        cwd=proj,
        env={**os.environ, "PY": sys.executable},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [str(proj / "tools"), str(proj / "tools"), str(proj / "srcdir")]
    dirs = script_dirs(text, str(proj / "run.sh"), [], str(tree), (str(tree),))
    assert set(out) <= set(dirs), dirs


@pytest.mark.parametrize("unit", ["a", "a/", "${x}", "x.pyx", "cd ", '"cwd": "', "${ab"])
def test_linear_in_the_text(tmp_path: Path, unit: str):
    """One long word without `.py` (a minified line, a base64 blob) used to be scanned
    from each of its characters: quadratic."""

    def make(n: int) -> Callable[[], object]:
        text = unit * n
        return lambda: script_dirs(text, str(tmp_path / "a.sh"), [], None, None)

    assert growth(make, 20_000) < 8
