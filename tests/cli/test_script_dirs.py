"""``torch-logs check --python`` resolves module names the way the process that reads the
value would: from the directory of the script it runs (``sys.path[0]``), not only from the
current directory (issue #25 item 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _fake_python(root: Path) -> Path:
    """A venv interpreter tree read statically (pyvenv.cfg, site-packages), never run:
    its ``bin/python`` is an empty file."""
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    python.chmod(0o755)
    (root / "pyvenv.cfg").write_text(f"home = {root / 'nowhere' / 'bin'}\nversion_info = 3.11.9\n")
    shared = root / "lib" / "python3.11" / "site-packages" / "shared"
    shared.mkdir(parents=True)
    (shared / "__init__.py").write_text("")
    return python


def _project(root: Path) -> Path:
    """``proj/`` with its package ``mypkg`` (``model``) beside its scripts."""
    proj = root / "proj"
    (proj / "mypkg").mkdir(parents=True)
    (proj / "mypkg" / "__init__.py").write_text("")
    (proj / "mypkg" / "model.py").write_text("")
    return proj


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_the_issue_a_script_beside_its_package(tmp_path: Path):
    """From outside the project (no .venv anywhere), with a named interpreter."""
    python = _fake_python(tmp_path / "py")
    proj = _project(tmp_path)
    (proj / "train.sh").write_text("TORCH_LOGS=+mypkg.model python train.py\n")
    (proj / ".env").write_text("TORCH_LOGS=+mypkg.model\n")
    (proj / "train.py").write_text(
        'import os\nos.environ["TORCH_LOGS"] = "+mypkg.model"\nimport torch\n'
    )
    proc = check("--python", str(python), "proj", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, ""), proc
    for name in ("train.sh", ".env", "train.py"):  # the verdicts stay certain: errors
        text = (proj / name).read_text().replace("mypkg.model", "mypkg.nothere")
        (proj / name).write_text(text)
    proc = check("--python", str(python), "proj", cwd=tmp_path)
    assert proc.returncode == 1, proc
    assert proc.stdout.count("TL204") == 3, proc.stdout


def test_a_script_in_another_directory(tmp_path: Path):
    """`python ../proj/train.py` in a script of `jobs/`: proj is where python looks."""
    python = _fake_python(tmp_path / "py")
    _project(tmp_path)
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "run.sh").write_text("export TORCH_LOGS=+mypkg.model\npython ../proj/train.py\n")
    proc = check("--python", str(python), "jobs/run.sh", cwd=tmp_path)
    assert proc.returncode == 0, proc
    (jobs / "run.sh").write_text("export TORCH_LOGS=+mypkg.model\npython ./train.py\n")
    proc = check("--python", str(python), "jobs/run.sh", cwd=tmp_path)
    assert "TL204 `mypkg.model`: no module `mypkg` in" in proc.stdout, proc


@pytest.mark.parametrize(
    ("value", "torch_ok"), [("+mypkg.model", True), ("+mypkg.model,+mypkg.nothere", False)]
)
def test_as_torch_decides_at_import(tmp_path: Path, value: str, torch_ok: bool):
    """The real process: `python proj/train.py` from the parent directory imports torch
    with TORCH_LOGS set; it fails exactly when the check reports an error."""
    proj = _project(tmp_path)
    (proj / "train.py").write_text("import torch\n")
    (proj / "train.sh").write_text(f"TORCH_LOGS={value} python proj/train.py\n")
    env = {**os.environ, "TORCH_LOGS": value, "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)
    real = subprocess.run(
        [sys.executable, "proj/train.py"], cwd=tmp_path, env=env, capture_output=True, check=False
    )
    assert (real.returncode == 0) == torch_ok, real.stderr[-500:]
    proc = check("--python", sys.executable, "proj/train.sh", cwd=tmp_path)
    assert (proc.returncode == 0) == torch_ok, proc
