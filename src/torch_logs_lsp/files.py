"""Reading files safely: regular files only, never blocking, never unbounded.

Every file the project reads (workspace documents, ``.pth`` files, ``pyvenv.cfg``, an
installed torch's ``version.py`` and ``_registrations.py``, the server's tables) goes
through :func:`read_regular`: the file is opened with ``O_NONBLOCK`` (a FIFO does not
block the open), checked with ``fstat`` on the opened descriptor (a symlink to
``/dev/zero`` or a FIFO is refused, and no race between a check and the open is possible),
and read up to a cap in bytes (a file that grows past the cap while read is refused too).

Every file the project rewrites (``torch-logs check --fix``) goes through
:func:`replace_file`: the new bytes go to a temporary file in the same directory, which
carries the original's owner, mode and extended attributes, is flushed to disk and
renamed over the original only when the original is still what was read
(:func:`read_snapshot`). A write that fails (a full disk, a file-size limit, a
permission) leaves the original untouched. A file with more than one hard link is not
rewritten (:func:`replace_file` says why).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
from dataclasses import dataclass

log = logging.getLogger(__name__)

#: Largest workspace document the checker and the server read (bytes).
MAX_FILE_BYTES = 8 * 1024 * 1024

#: Largest environment file read as lines, never parsed with :mod:`ast` (``.pth`` files,
#: ``pyvenv.cfg``), bytes.
MAX_ENV_FILE_BYTES = 1024 * 1024

# Torch sources are parsed with ast, which takes ~900 bytes of memory per byte of input
# (a 4 MiB file of "a\n" lines: 3.8 GB, 17 s), so each has its own cap: a wide margin
# over what torch 2.13.0 ships, measured on its CPU wheel.

#: Largest ``torch/_logging/_registrations.py`` read, bytes (2.13.0's: 9,037; parsing a
#: file this large costs at most ~250 MB and ~1 s).
MAX_REGISTRATIONS_BYTES = 256 * 1024

#: Largest ``torch/_logging/_internal.py`` read for ``set_logs``' signature, bytes
#: (2.13.0's: 58,117; this is 4.5 times that).
MAX_INTERNAL_BYTES = 256 * 1024

#: Largest ``torch/version.py`` read, bytes (2.13.0's: 313).
MAX_VERSION_BYTES = 64 * 1024

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


class SkippedFile(Exception):
    """A file that :func:`read_regular` did not read. ``path`` is the path given,
    ``reason`` a short lower-case phrase for a message ("a FIFO, not a regular file",
    "larger than 8388608 bytes (9000000)", "cannot open: Permission denied").
    ``error``: the ``OSError`` when the file could not be opened or read (``None`` when
    it was refused for what it is: not a regular file, too large)."""

    def __init__(self, path: str, reason: str, error: OSError | None = None) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.error = error


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for a message: "a FIFO", "a directory"."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open(name: str) -> int:
    try:
        return os.open(name, _FLAGS)
    except OSError as exc:
        raise SkippedFile(name, f"cannot open: {exc.strerror or exc}", exc) from None


def _read_fd(name: str, fd: int, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of the open regular file ``fd`` (at most ``max_bytes``) and its ``fstat``
    before reading. Raises :class:`SkippedFile`."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SkippedFile(name, f"{file_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise SkippedFile(name, f"larger than {max_bytes} bytes ({info.st_size})")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise SkippedFile(name, f"larger than {max_bytes} bytes (grew while read)")
        return b"".join(chunks), info
    except OSError as exc:
        raise SkippedFile(name, f"cannot read: {exc.strerror or exc}", exc) from None


def read_regular(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, at most ``max_bytes`` of them.

    Symlinks are followed; what they end at must be a regular file. Raises
    :class:`SkippedFile` (never ``OSError``) when the file cannot be opened or read, is
    not a regular file, or holds more than ``max_bytes`` bytes (checked on the size
    before reading and on the bytes read, so a file growing meanwhile is refused too).
    """
    name = os.fspath(path)
    fd = _open(name)
    try:
        return _read_fd(name, fd, max_bytes)[0]
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike[str], size: int = 256) -> bytes:
    """The first ``size`` bytes of a regular file (fewer when it is shorter), for kind
    detection. Raises :class:`SkippedFile` as :func:`read_regular` does (a FIFO, a
    device or an unreadable file), but a file of any size is read."""
    name = os.fspath(path)
    fd = _open(name)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SkippedFile(name, f"{file_kind(info.st_mode)}, not a regular file")
        return os.read(fd, size)
    except OSError as exc:
        raise SkippedFile(name, f"cannot read: {exc.strerror or exc}", exc) from None
    finally:
        os.close(fd)


def read_text(
    path: str | os.PathLike[str],
    what: str,
    max_bytes: int = MAX_ENV_FILE_BYTES,
    errors: str = "strict",
) -> str | None:
    """A regular file decoded as UTF-8, or ``None`` with the reason logged (WARNING,
    naming ``what`` the file is for: "a .pth file", "torch's _registrations.py").
    ``errors`` as in :meth:`bytes.decode`; a file that does not decode is ``None``."""
    try:
        return read_regular(path, max_bytes).decode("utf-8", errors)
    except SkippedFile as exc:
        if not exc.reason.startswith("cannot open: No such file"):
            log.warning("%s %s not read: %s", what, exc.path, exc.reason)
        return None
    except UnicodeDecodeError as exc:
        log.warning("%s %s not read: not UTF-8 (%s)", what, os.fspath(path), exc.reason)
        return None


@dataclass(frozen=True)
class Snapshot:
    """A regular file as :func:`read_snapshot` read it: ``path`` as given, ``data`` (its
    bytes), and what :func:`replace_file` compares and keeps: ``device`` and ``inode``,
    ``size`` (bytes), ``mtime_ns`` (nanoseconds), ``digest`` (SHA-256 of ``data``),
    ``mode`` (``st_mode``), ``uid`` and ``gid``, ``links`` (``st_nlink``, the number of
    hard links), all taken from ``fstat`` on the descriptor that was read."""

    path: str
    data: bytes
    device: int
    inode: int
    size: int
    mtime_ns: int
    digest: bytes
    mode: int
    uid: int
    gid: int
    links: int = 1


def read_snapshot(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> Snapshot:
    """Read a regular file as :func:`read_regular` does (same errors: raises
    :class:`SkippedFile`) and remember its identity, for :func:`replace_file`."""
    name = os.fspath(path)
    fd = _open(name)
    try:
        data, info = _read_fd(name, fd, max_bytes)
    finally:
        os.close(fd)
    return Snapshot(
        name,
        data,
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        _sha256(data),
        info.st_mode,
        info.st_uid,
        info.st_gid,
        info.st_nlink,
    )


def _sha256(data: bytes) -> bytes:
    import hashlib  # only for --fix: ~2.5 ms the server's start-up (the code cache) skips

    return hashlib.sha256(data).digest()


class NotWritten(Exception):
    """:func:`replace_file` left the file as it was. ``path`` is the path given,
    ``reason`` a short lower-case phrase ("cannot write: File too large")."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ChangedOnDisk(NotWritten):
    """The file is no longer what :func:`read_snapshot` read (another program wrote,
    replaced or removed it meanwhile): it was not replaced."""


def _unchanged(target: str, expected: Snapshot) -> bool:
    """Whether ``target`` is still the file of ``expected``: same device and inode, size,
    modification time, mode, owner and group, and content (read again, compared by
    SHA-256)."""
    try:
        fd = _open(target)
    except SkippedFile:
        return False
    try:
        data, info = _read_fd(target, fd, expected.size)
    except SkippedFile:
        return False  # no longer regular, or grew
    finally:
        os.close(fd)
    now = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if now != (expected.device, expected.inode, expected.size, expected.mtime_ns):
        return False
    # a chmod/chown while the fix ran (no mtime change): the new file would undo it
    if (info.st_mode, info.st_uid, info.st_gid) != (expected.mode, expected.uid, expected.gid):
        return False
    if info.st_nlink != expected.links:  # a link made meanwhile: the rename would split it
        return False
    return _sha256(data) == expected.digest


def _keep_owner(fd: int, expected: Snapshot) -> None:
    """Give the new file ``fd`` the owner and group of ``expected``. Raises
    :class:`OSError` (``EPERM``) when they cannot be kept (a user other than root
    replacing another user's file)."""
    info = os.fstat(fd)
    if hasattr(os, "fchown") and (info.st_uid, info.st_gid) != (expected.uid, expected.gid):
        os.fchown(fd, expected.uid, expected.gid)


def _keep_mode(fd: int, expected: Snapshot) -> None:
    """Give the new file ``fd`` the permission bits of ``expected``."""
    if hasattr(os, "fchmod"):  # (Windows before Python 3.13 has none)
        os.fchmod(fd, stat.S_IMODE(expected.mode))


#: ``errno`` values of a file system (or a platform) without extended attributes.
_NO_XATTRS = frozenset(
    {errno.ENOTSUP, errno.EOPNOTSUPP, getattr(errno, "ENODATA", errno.ENOENT), errno.ENOSYS}
)


def _copy_xattrs(source: str, fd: int) -> None:
    """Give the open file ``fd`` the extended attributes of the file ``source``, no more
    and no fewer (Linux: ``os.listxattr``; POSIX ACLs are ``system.posix_acl_access``,
    SELinux labels ``security.selinux``). One the new file already holds with the same
    value (a label the directory gave it) is not set again; one it holds that ``source``
    has not (an ACL inherited from the directory's default ACL) is removed. Nothing
    happens where the platform or the file system has none. Raises :class:`OSError`
    when one cannot be set or removed (``EPERM``: a ``trusted.`` attribute, or a label
    this user may not give)."""
    if not hasattr(os, "listxattr"):  # macOS, Windows: Python has no xattr calls there
        return
    try:
        names = os.listxattr(source)
    except OSError as exc:
        if exc.errno in _NO_XATTRS or exc.errno == errno.ENOENT:
            return  # (a file removed meanwhile is refused by the comparison)
        raise
    for name in names:
        try:
            value = os.getxattr(source, name)
        except OSError as exc:
            if exc.errno in _NO_XATTRS:
                continue  # removed meanwhile
            raise
        with contextlib.suppress(OSError):
            if os.getxattr(fd, name) == value:
                continue
        os.setxattr(fd, name, value)
    for name in os.listxattr(fd):  # one the directory gave it: a default ACL's access ACL
        if name not in names:
            os.removexattr(fd, name)


def _fill(name: str, fd: int, data: bytes, source: str, expected: Snapshot) -> None:
    """Write ``data`` to the new file ``fd`` with the owner, mode and extended attributes
    of ``source`` (read as ``expected``), ``fsync`` and close it (always). Raises
    :class:`NotWritten`."""
    step = "cannot keep its owner and mode"
    try:
        try:
            _keep_owner(fd, expected)  # first: chown clears set-id bits and capabilities
            step = "cannot keep its extended attributes"
            _copy_xattrs(source, fd)
            step = "cannot keep its owner and mode"
            _keep_mode(fd, expected)
            step = "cannot write"
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise NotWritten(name, f"{step}: {exc.strerror or exc}") from None


def replace_file(path: str | os.PathLike[str], data: bytes, expected: Snapshot) -> None:
    """Replace the contents of the file ``path`` by ``data``, atomically.

    ``data`` is written to a new temporary file in the same directory (``.NAME.*.tmp``)
    with the owner, group and permission bits of ``expected`` and the file's extended
    attributes (ACLs, SELinux labels, ``user.`` attributes), flushed to disk
    (``fsync``), and renamed over the file, which must still be the file of ``expected``
    (device, inode, size, ``mtime_ns``, link count and content): else
    :class:`ChangedOnDisk` is raised. When ``path`` is a symlink, the file it points to
    is replaced and the link is kept.

    A file with more than one hard link (``expected.links > 1``) is refused with
    :class:`NotWritten`: the rename would give ``path`` a new inode and leave the other
    names with the old contents, and writing into the shared inode instead would change
    a file under names this program was not asked about (possibly outside the checked
    paths) and is not atomic.

    Raises :class:`NotWritten` (never ``OSError``) when the temporary file cannot be
    created, written or given the owner, mode and extended attributes (a full disk,
    ``EFBIG`` under a file-size limit, no write permission on the directory, an attribute
    this user may not set); the original is then untouched and the temporary file
    removed. Only the short window between the comparison and the rename
    is not covered: a write landing there is lost (POSIX has no compare-and-rename).
    """
    import tempfile  # only when writing: not on the server's start-up path

    name = os.fspath(path)
    if expected.links > 1:
        raise NotWritten(name, hard_links_reason(expected.links))
    target = os.path.realpath(name)
    directory, base = os.path.split(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        reason = f"cannot create a file in {directory}: {exc.strerror or exc}"
        raise NotWritten(name, reason) from None
    try:
        _fill(name, fd, data, target, expected)
        if not _unchanged(target, expected):
            raise ChangedOnDisk(name, "changed on disk since it was read")
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise NotWritten(name, f"cannot replace it: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def hard_links_reason(links: int) -> str:
    """Why a file with ``links`` hard links is not rewritten, for a message."""
    return (
        f"has {links} hard links: replacing it would split them, and writing into it would"
        " change the file under its other names too"
    )


def _fsync_directory(directory: str) -> None:
    """Flush a rename in ``directory`` to disk (POSIX); best effort, never raises."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = [
    "MAX_ENV_FILE_BYTES",
    "MAX_FILE_BYTES",
    "MAX_INTERNAL_BYTES",
    "MAX_REGISTRATIONS_BYTES",
    "MAX_VERSION_BYTES",
    "ChangedOnDisk",
    "NotWritten",
    "SkippedFile",
    "Snapshot",
    "file_kind",
    "hard_links_reason",
    "read_head",
    "read_regular",
    "read_snapshot",
    "read_text",
    "replace_file",
]
