"""A FIFO or a symlink to ``/dev/zero`` in place of any file the project reads (workspace
files, ``pyvenv.cfg``, ``.pth`` files, an installed torch's sources, the code cache) is
skipped with a reason, never opened for reading nor read without a cap.

The CLI runs in a subprocess with a timeout (a blocked open of a FIFO would otherwise hang
the test run) and a 2 GiB address-space limit (reading ``/dev/zero`` without a cap fails
fast with MemoryError instead of filling the machine's memory).
"""

from __future__ import annotations

import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from torch_logs_lsp.server import codecache
from torch_logs_lsp.torch_env.environment import PythonEnv

PY_VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"
MEMORY_LIMIT = 2 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,  # a bounded wait: the old code blocked here forever on a FIFO
        preexec_fn=_limit_memory,
        check=False,
    )


def _special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def _installed_torch() -> Path:
    spec = importlib.util.find_spec("torch")  # locates, does not import
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def _fake_venv(root: Path) -> tuple[Path, Path]:
    """A venv read statically: ``bin/python`` (a link to this interpreter), ``pyvenv.cfg``,
    a ``.pth`` path line and a torch 2.4.1 package with the real registrations file."""
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    home = os.path.dirname(os.path.realpath(sys.executable))
    (venv / "pyvenv.cfg").write_text(f"home = {home}\nversion = {PY_VERSION}.0\n")
    site = venv / "lib" / f"python{PY_VERSION}" / "site-packages"
    (site / "torch" / "_logging").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text("")
    (site / "torch" / "version.py").write_text("__version__ = '2.4.1'\n")
    shutil.copy(
        _installed_torch() / "_logging" / "_registrations.py",
        site / "torch" / "_logging" / "_registrations.py",
    )
    (root / "extra").mkdir()
    (site / "extra.pth").write_text("../../../../extra\n")
    return venv, site


# what is logged for each (the CLI prints the log's warnings on stderr), and where
PLACES = {
    "a .pth file": "lib/python{v}/site-packages/zz.pth",
    "torch's version.py": "lib/python{v}/site-packages/torch/version.py",
    "_registrations.py": "lib/python{v}/site-packages/torch/_logging/_registrations.py",
    "pyvenv.cfg": "pyvenv.cfg",
}


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
@pytest.mark.parametrize("place", list(PLACES))
def test_special_file_in_the_environment(tmp_path: Path, place: str, kind: str) -> None:
    venv, _ = _fake_venv(tmp_path)
    _special(venv / PLACES[place].format(v=PY_VERSION), kind)
    (tmp_path / "a.env").write_text("TORCH_LOGS=+dynamo\n")
    proc = cli("check", "--python", str(venv / "bin" / "python"), str(tmp_path / "a.env"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "1 file(s) checked: no findings" in proc.stderr
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert f"{what}, not a regular file" in proc.stderr, proc.stderr
    assert os.path.basename(PLACES[place]) in proc.stderr


def test_the_environment_is_still_read_around_a_skipped_pth(tmp_path: Path) -> None:
    from torch_logs_lsp.torch_env.environment import static_env

    venv, site = _fake_venv(tmp_path)
    fifo = site / "aa.pth"  # sorted before extra.pth
    _special(fifo, "fifo")
    found: list[object] = []
    reader = threading.Thread(
        target=lambda: found.append(static_env(str(venv / "bin" / "python"))), daemon=True
    )
    reader.start()
    reader.join(timeout=30)  # a bounded wait: the old code blocked opening the FIFO
    hung = reader.is_alive()
    if hung:  # release it: a FIFO opened for writing ends the reader's wait
        os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        reader.join(timeout=30)
    assert not hung, "reading the environment blocked on a FIFO .pth"
    (env,) = found
    assert isinstance(env, PythonEnv) and env.pth_paths == (str(tmp_path / "extra"),)


WORKSPACE_NAMES = [".env.dev", ".envrc", "train", "x.env", "launch.json", "run.sh"]


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_special_files_in_a_workspace(tmp_path: Path, kind: str) -> None:
    for name in WORKSPACE_NAMES:
        _special(tmp_path / "ws" / name, kind)
    (tmp_path / "ws" / "ok.env").write_text("TORCH_LOGS=+dynamo\n")
    proc = cli("check", str(tmp_path / "ws"))
    assert proc.returncode == 0, proc.stderr
    assert "1 file(s) checked: no findings" in proc.stderr
    what = "a FIFO" if kind == "fifo" else "a character device"
    for name in WORKSPACE_NAMES:
        line = f"torch-logs: {tmp_path / 'ws' / name}: skipped ({what}, not a regular file)"
        # an extensionless name has a kind only by its content: a file that is not regular
        # has none, and is left out without a word, as any file of no kind
        assert (line in proc.stderr) == (name != "train"), name


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
@pytest.mark.parametrize("name", [".env.dev", ".envrc", "train"])
def test_special_file_named_explicitly(tmp_path: Path, kind: str, name: str) -> None:
    path = tmp_path / name
    _special(path, kind)
    for args in (("check",), ("check", "--fix")):
        proc = cli(*args, str(path))
        assert proc.returncode == 0, proc.stderr
        what = "a FIFO" if kind == "fifo" else "a character device"
        assert f"torch-logs: {path}: skipped ({what}, not a regular file)" in proc.stderr
        assert "0 file(s) checked" in proc.stderr


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_special_file_in_place_of_the_code_cache(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "code.marshal"
    _special(path, kind)
    assert codecache._read(str(path)) == {}
