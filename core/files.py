"""Reading files safely: regular files only, never blocking, never unbounded.

Every file the project reads (workspace documents, ``.pth`` files, ``pyvenv.cfg``, an
installed torch's ``version.py`` and ``_registrations.py``, the server's tables) goes
through :func:`read_regular`: the file is opened with ``O_NONBLOCK`` (a FIFO does not
block the open), checked with ``fstat`` on the opened descriptor (a symlink to
``/dev/zero`` or a FIFO is refused, and no race between a check and the open is possible),
and read up to a cap in bytes (a file that grows past the cap while read is refused too).
"""

from __future__ import annotations

import logging
import os
import stat

log = logging.getLogger(__name__)

#: Largest workspace document the checker and the server read (bytes).
MAX_FILE_BYTES = 8 * 1024 * 1024

#: Largest environment file read (``.pth``, ``pyvenv.cfg``, torch sources), bytes. torch
#: 2.13's ``_registrations.py`` is ~9 KB, its ``version.py`` ~0.3 KB.
MAX_SOURCE_BYTES = 4 * 1024 * 1024

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


class SkippedFile(Exception):
    """A file that :func:`read_regular` did not read. ``path`` is the path given,
    ``reason`` a short lower-case phrase for a message ("not a regular file (FIFO)",
    "larger than 8388608 bytes", "cannot open: Permission denied")."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def _kind(mode: int) -> str:
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


def read_regular(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, at most ``max_bytes`` of them.

    Symlinks are followed; what they end at must be a regular file. Raises
    :class:`SkippedFile` (never ``OSError``) when the file cannot be opened or read, is
    not a regular file, or holds more than ``max_bytes`` bytes (checked on the size
    before reading and on the bytes read, so a file growing meanwhile is refused too).
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as exc:
        raise SkippedFile(name, f"cannot open: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SkippedFile(name, f"{_kind(info.st_mode)}, not a regular file")
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
        return b"".join(chunks)
    except OSError as exc:
        raise SkippedFile(name, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike[str], size: int = 256) -> bytes:
    """The first ``size`` bytes of a regular file (fewer when it is shorter), for kind
    detection. Raises :class:`SkippedFile` as :func:`read_regular` does (a FIFO, a
    device or an unreadable file), but a file of any size is read."""
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as exc:
        raise SkippedFile(name, f"cannot open: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SkippedFile(name, f"{_kind(info.st_mode)}, not a regular file")
        return os.read(fd, size)
    except OSError as exc:
        raise SkippedFile(name, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(
    path: str | os.PathLike[str],
    what: str,
    max_bytes: int = MAX_SOURCE_BYTES,
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


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_SOURCE_BYTES",
    "SkippedFile",
    "read_head",
    "read_regular",
    "read_text",
]
