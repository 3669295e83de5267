"""The git index reader never blocks and never runs away: a FIFO where git keeps its files
is not opened (the one safe reader), and every field of a hostile index is bounded."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.project.git_index import index_paths, tracked

_PROBE = (
    "import sys\nfrom torch_logs_lsp.project.walk import walk\n"
    "print(sorted(e.name for e in walk(sys.argv[1], lambda skipped: None)))\n"
)


def _walk_in_child(top: Path) -> subprocess.CompletedProcess[str]:
    """The walk of ``top`` in a child process (a blocked open must fail the test, not
    hang the run)."""
    return subprocess.run(
        [sys.executable, "-c", _PROBE, str(top)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=top,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("where", [".git", ".git/index", "gitdir:index"])
def test_a_fifo_among_gits_files_is_never_opened(tmp_path: Path, where: str) -> None:
    top = tmp_path / "repo"
    top.mkdir()
    (top / ".gitignore").write_text("ignored.env\n")
    (top / "ignored.env").write_text("TORCH_LOGS=+dynamo\n")
    (top / "run.env").write_text("TORCH_LOGS=+dynamo\n")
    if where == ".git":
        os.mkfifo(top / ".git")
    elif where == ".git/index":
        (top / ".git").mkdir()
        os.mkfifo(top / ".git" / "index")
    else:
        gitdir = tmp_path / "elsewhere"
        gitdir.mkdir()
        os.mkfifo(gitdir / "index")
        (top / ".git").write_text(f"gitdir: {gitdir}\n")
    proc = _walk_in_child(top)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "run.env" in proc.stdout and "ignored.env" not in proc.stdout
    assert tracked(str(top)) == (frozenset(), frozenset())


def _index_v4(entries: list[bytes]) -> bytes:
    """A version 4 index whose entries are the given raw path parts (varint + name)."""
    out = b"DIRC" + struct.pack(">II", 4, len(entries))
    for part in entries:
        out += b"\0" * 60 + struct.pack(">H", 0) + part + b"\0"
    return out


def test_a_hostile_path_compression_varint_stops_at_once() -> None:
    data = _index_v4([b"\x00a.env", b"\xff" * 1_000_000 + b"\x01b"])
    with pytest.raises(ValueError, match="bad path compression"):
        index_paths(data)


def test_a_version_4_index_is_read() -> None:
    # "dir/a.env", then drop 5 bytes ("a.env") and add "b.env"
    data = _index_v4([b"\x00dir/a.env", b"\x05b.env"])
    assert index_paths(data) == ["dir/a.env", "dir/b.env"]
