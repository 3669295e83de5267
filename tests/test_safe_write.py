"""``check --fix`` never destroys a file: the new text is written to a temporary file
and renamed over the original, only when the original is still what was
read."""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from torch_logs_lsp.files import (
    ChangedOnDisk,
    NotWritten,
    read_snapshot,
    replace_file,
)
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint import fixer

FIXABLE = b'TORCH_LOGS=" +dynamo ,guards"\n'
FIXED = b'TORCH_LOGS="+dynamo,guards"\n'
# ~6 KB: more than a 4 KB file-size limit lets a process write
PADDING = b"".join(b"# padding line %04d %s\n" % (i, b"x" * 40) for i in range(100))
LIMIT = 4096


def _limited(keep_sigxfsz_default: bool) -> Callable[[], None]:
    def setup() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))
        if keep_sigxfsz_default:  # undo CPython's SIG_IGN: the kernel kills the writer
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)

    return setup


def _fix_under_limit(path: Path, default_signal: bool) -> subprocess.CompletedProcess[str]:
    # The signal disposition set in preexec_fn survives exec only when it is SIG_DFL or
    # SIG_IGN; CPython sets SIGXFSZ to SIG_IGN at start-up, so the child sets it again.
    code = "import sys; from torch_logs_lsp.cli.main import main; sys.exit(main(sys.argv[1:]))"
    if default_signal:
        code = "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); " + code
    return subprocess.run(
        [sys.executable, "-c", code, "check", "--fix", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited(default_signal),
        check=False,
    )


def test_a_failed_write_under_a_file_size_limit_leaves_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.env"
    before = FIXABLE + PADDING
    assert len(before) > LIMIT
    path.write_bytes(before)
    proc = _fix_under_limit(path, default_signal=False)
    assert path.read_bytes() == before  # the old code left it cut at 4096 bytes
    assert sorted(os.listdir(tmp_path)) == ["big.env"]  # the temporary file is gone
    assert f"{path}: cannot write: File too large; the file is unchanged, not fixed" in (
        proc.stderr
    )
    assert "0 value(s) fixed" in proc.stderr
    assert "TL101" in proc.stdout  # and the file is still checked as it is


def test_a_writer_killed_by_sigxfsz_leaves_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.env"
    before = FIXABLE + PADDING
    path.write_bytes(before)
    proc = _fix_under_limit(path, default_signal=True)
    assert proc.returncode == -signal.SIGXFSZ
    assert path.read_bytes() == before  # the temporary file took the blow
    assert all(n == "big.env" or n.startswith(".big.env.") for n in os.listdir(tmp_path))


def test_fix_keeps_mode_owner_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    target = real / "shared.env"
    target.write_bytes(FIXABLE)
    os.chmod(target, 0o640)
    owner = (65534, 65534) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    if os.geteuid() == 0:
        os.chown(target, *owner)
    link = tmp_path / ".env"
    link.symlink_to(target)
    old_inode = target.stat().st_ino
    result = fixer.fix_file(link, "dotenv", load_registry())
    assert result.skipped is None and len(result.changes) == 1
    assert target.read_bytes() == FIXED
    assert link.is_symlink() and os.readlink(link) == str(target)
    info = target.stat()
    assert stat.S_IMODE(info.st_mode) == 0o640
    assert (info.st_uid, info.st_gid) == owner
    assert info.st_ino != old_inode  # replaced by a rename, not rewritten in place
    assert sorted(os.listdir(real)) == ["shared.env"]


def test_a_concurrent_edit_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".env"
    path.write_bytes(FIXABLE)
    compute = fixer.fix_text

    def edited_meanwhile(*args: object, **kwargs: object) -> object:
        out = compute(*args, **kwargs)  # type: ignore[arg-type]
        with open(path, "ab") as fh:  # another program saves while we compute
            fh.write(b"OTHER=2\n")
        return out

    monkeypatch.setattr(fixer, "fix_text", edited_meanwhile)
    result = fixer.fix_file(path, "dotenv", load_registry())
    assert result.skipped == "changed on disk while being fixed; not fixed"
    assert result.changes == []
    assert path.read_bytes() == FIXABLE + b"OTHER=2\n"
    assert sorted(os.listdir(tmp_path)) == [".env"]


def _append(path: Path) -> None:
    with open(path, "ab") as fh:
        fh.write(b"B=2\n")


def _same_size_same_mtime(path: Path) -> None:
    info = path.stat()
    path.write_bytes(path.read_bytes().upper())
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _replaced(path: Path) -> None:  # an editor saving by rename
    tmp = path.with_name("x.tmp")
    tmp.write_bytes(path.read_bytes())
    os.replace(tmp, path)


@pytest.mark.parametrize("change", [_append, _same_size_same_mtime, _replaced])
def test_replace_file_refuses_a_changed_file(tmp_path: Path, change: Callable[[Path], None]):
    path = tmp_path / "a.env"
    path.write_bytes(b"a=1\n")
    snapshot = read_snapshot(path)
    change(path)
    now = path.read_bytes()
    with pytest.raises(ChangedOnDisk):
        replace_file(path, b"new\n", snapshot)
    assert path.read_bytes() == now
    assert sorted(os.listdir(tmp_path)) == ["a.env"]


def test_replace_file_refuses_a_removed_file(tmp_path: Path) -> None:
    path = tmp_path / "a.env"
    path.write_bytes(b"a=1\n")
    snapshot = read_snapshot(path)
    path.unlink()
    with pytest.raises(ChangedOnDisk):
        replace_file(path, b"new\n", snapshot)
    assert os.listdir(tmp_path) == []


def test_replace_file_in_a_missing_directory_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "a.env"
    path.write_bytes(b"a=1\n")
    snapshot = read_snapshot(path)
    with pytest.raises(NotWritten, match="cannot create a file"):
        replace_file(tmp_path / "gone" / "a.env", b"new\n", snapshot)
    assert path.read_bytes() == b"a=1\n"


def _set_xattr(path: Path, name: str, value: bytes) -> None:
    """Set an extended attribute, or skip the test where there are none."""
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes in this Python (Linux only)")
    try:
        os.setxattr(path, name, value)
    except OSError as exc:
        pytest.skip(f"the file system of tmp_path has no user xattrs: {exc.strerror}")


def test_fix_keeps_extended_attributes(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(FIXABLE)
    _set_xattr(path, "user.torch_logs.test", b"\x00kept\xff")
    _set_xattr(path, "user.empty", b"")
    old_inode = path.stat().st_ino
    result = fixer.fix_file(path, "dotenv", load_registry())
    assert result.skipped is None and len(result.changes) == 1
    assert path.read_bytes() == FIXED
    assert path.stat().st_ino != old_inode  # a new file: the attributes were copied
    assert sorted(os.listxattr(path)) == ["user.empty", "user.torch_logs.test"]
    assert os.getxattr(path, "user.torch_logs.test") == b"\x00kept\xff"
    assert os.getxattr(path, "user.empty") == b""
    assert sorted(os.listdir(tmp_path)) == [".env"]


def test_an_attribute_that_cannot_be_kept_leaves_the_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".env"
    path.write_bytes(FIXABLE)
    _set_xattr(path, "user.label", b"x")

    def refused(*args: object) -> None:  # as for a label this user may not give
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refused)
    result = fixer.fix_file(path, "dotenv", load_registry())
    assert result.changes == [] and result.skipped is not None
    assert "extended attributes: Operation not permitted" in result.skipped
    assert path.read_bytes() == FIXABLE
    assert sorted(os.listdir(tmp_path)) == [".env"]


def test_fix_refuses_a_file_with_another_hard_link(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(FIXABLE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = elsewhere / "shared.env"
    os.link(path, other)
    old_inode = path.stat().st_ino
    result = fixer.fix_file(path, "dotenv", load_registry())
    assert result.changes == []
    assert result.skipped is not None and "has 2 hard links" in result.skipped
    assert path.read_bytes() == other.read_bytes() == FIXABLE
    assert path.stat().st_ino == other.stat().st_ino == old_inode  # still one file
    assert path.stat().st_nlink == 2
    assert sorted(os.listdir(tmp_path)) == [".env", "elsewhere"]


def test_check_fix_says_why_a_hard_linked_file_is_not_fixed(tmp_path: Path) -> None:
    path = tmp_path / "x.env"
    path.write_bytes(FIXABLE)
    os.link(path, tmp_path / "y.env")
    done = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "has 2 hard links" in done.stderr and "not fixed" in done.stderr
    assert "fixed TORCH_LOGS" not in done.stdout
    assert path.read_bytes() == FIXABLE and path.stat().st_nlink == 2


def test_replace_file_refuses_a_file_linked_after_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "a.env"
    path.write_bytes(b"a=1\n")
    snapshot = read_snapshot(path)
    os.link(path, tmp_path / "b.env")
    with pytest.raises(ChangedOnDisk):
        replace_file(path, b"new\n", snapshot)
    assert path.read_bytes() == b"a=1\n" and path.stat().st_nlink == 2
    assert sorted(os.listdir(tmp_path)) == ["a.env", "b.env"]


def _default_acl(directory: Path) -> None:
    """Give ``directory`` a default ACL (user 1234 may read and write the files made in
    it), written as the kernel's ``system.posix_acl_default`` xattr (acl(5): version 2,
    then tag, permissions, id per entry); skip where ACLs are not supported."""
    import struct

    def entry(tag: int, perm: int, uid: int = 0xFFFFFFFF) -> bytes:
        return struct.pack("<HHI", tag, perm, uid)

    user_obj, user, group_obj, mask, other = 0x01, 0x02, 0x04, 0x10, 0x20
    acl = struct.pack("<I", 2) + entry(user_obj, 6) + entry(user, 6, 1234)
    acl += entry(group_obj, 4) + entry(mask, 6) + entry(other, 4)
    _set_xattr(directory, "system.posix_acl_default", acl)


def test_fix_gives_no_acl_the_file_did_not_have(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(FIXABLE)
    os.chmod(path, 0o644)
    _default_acl(tmp_path)  # after the file was made: the file has no ACL
    assert os.listxattr(path) == []
    result = fixer.fix_file(path, "dotenv", load_registry())
    assert result.skipped is None and path.read_bytes() == FIXED
    assert os.listxattr(path) == []  # no access for user 1234 came with the new file
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
