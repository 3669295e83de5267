"""``torch-logs check`` on a tree with paths it may not read: each is named on stderr, the
rest is checked, and the exit code is 2.

Permissions do not stop root, so as root the command runs as ``nobody`` (``setpriv``);
as any other user it runs as that user. The tree lives in a fresh directory under the
system's temporary directory, which ``nobody`` can reach (pytest's ``tmp_path`` is
private to its user).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

NOBODY = 65534
AS_ROOT = os.geteuid() == 0
SETPRIV = shutil.which("setpriv")


_NOBODY_CAN_RUN: list[bool] = []


def _nobody_can_run(prefix: list[str]) -> bool:
    """Whether ``nobody`` can run this interpreter with the installed package: a checkout
    inside a private directory (``mktemp -d``, ``/root``) is out of its reach."""
    if not _NOBODY_CAN_RUN:
        probe = [*prefix, sys.executable, "-c", "import torch_logs_lsp.cli.main"]
        ok = subprocess.run(probe, capture_output=True, timeout=60, check=False).returncode
        _NOBODY_CAN_RUN.append(ok == 0)
    return _NOBODY_CAN_RUN[0]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    prefix: list[str] = []
    if AS_ROOT:
        if SETPRIV is None:
            pytest.skip("running as root without setpriv: no unprivileged user to test with")
        prefix = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        if not _nobody_can_run(prefix):
            pytest.skip(f"nobody cannot run {sys.executable} (the checkout's directory is private)")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tempfile.gettempdir(),
        check=False,
    )


@pytest.fixture
def ws() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="torch-logs-unreadable-"))
    os.chmod(root, 0o755)
    try:
        yield root
    finally:
        for path in (root, *root.rglob("*")):
            if not path.is_symlink():
                os.chmod(path, 0o700)
        shutil.rmtree(root)


def _tree(ws: Path) -> None:
    (ws / "ok.env").write_text("TORCH_LOGS=+dynamo\n")
    (ws / "secret.env").write_text("TORCH_LOGS=aot_g\n")
    (ws / "secret.env").chmod(0)
    (ws / "private-script").write_text("#!/bin/bash\nexport TORCH_LOGS=aot_g\n")
    (ws / "private-script").chmod(0)
    (ws / "locked").mkdir()
    (ws / "locked" / "x.env").write_text("TORCH_LOGS=aot_g\n")
    (ws / "locked").chmod(0)


def test_unreadable_paths_are_named_and_the_rest_is_checked(ws: Path) -> None:
    _tree(ws)
    proc = cli("check", str(ws))
    assert "Traceback" not in proc.stderr, proc.stderr
    for name in ("locked", "private-script", "secret.env"):
        assert f"torch-logs: {ws / name}: cannot read (Permission denied); skipped" in (
            proc.stderr
        ), proc.stderr
    assert "1 file(s) checked: no findings" in proc.stderr  # ok.env, and only it
    assert proc.returncode == 2


def test_unreadable_paths_named_explicitly(ws: Path) -> None:
    _tree(ws)
    for name in ("secret.env", "locked/x.env"):
        proc = cli("check", str(ws / name), str(ws / "ok.env"))
        assert f"torch-logs: {ws / name}: cannot read (Permission denied); skipped" in (
            proc.stderr
        ), proc.stderr
        assert "not a .env" not in proc.stderr
        assert "1 file(s) checked" in proc.stderr
        assert proc.returncode == 2


def test_fix_in_a_directory_it_cannot_write(ws: Path) -> None:
    # the file is the user's, the directory is not: no temporary file can be made next to
    # it, so the file is left as it is (never rewritten in place)
    (ws / "ro").mkdir()
    path = ws / "ro" / ".env"
    path.write_bytes(b'TORCH_LOGS=" +dynamo"\n')
    if AS_ROOT:
        os.chown(path, NOBODY, NOBODY)
    (ws / "ro").chmod(0o555)
    proc = cli("check", "--fix", str(path))
    assert path.read_bytes() == b'TORCH_LOGS=" +dynamo"\n'
    assert f"{path}: cannot create a file in {ws / 'ro'}: Permission denied;" in proc.stderr
    assert "the file is unchanged, not fixed" in proc.stderr
    assert "0 value(s) fixed" in proc.stderr


def test_fix_of_another_users_file_keeps_it_as_it_is(ws: Path) -> None:
    # writable by everyone, in a directory everyone may write to, but owned by someone
    # else: the replacement could not keep its owner, so nothing is written
    if not AS_ROOT:
        pytest.skip("needs a file of another user: run as root")
    (ws / "shared").mkdir()
    (ws / "shared").chmod(0o777)
    path = ws / "shared" / ".env"
    path.write_bytes(b'TORCH_LOGS=" +dynamo"\n')
    path.chmod(0o666)
    proc = cli("check", "--fix", str(path))
    assert path.read_bytes() == b'TORCH_LOGS=" +dynamo"\n'
    assert path.stat().st_uid == 0
    assert f"{path}: cannot keep its owner and mode: Operation not permitted;" in proc.stderr
    assert os.listdir(ws / "shared") == [".env"]  # the temporary file is removed
