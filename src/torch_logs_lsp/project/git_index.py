"""The files git tracks in a repository, read from its index file (no git process runs:
a repository's configuration can name programs git would start, e.g. ``core.fsmonitor``).

git never ignores a tracked file (gitignore(5): "files already tracked by Git are not
affected"), so the walk (:mod:`.walk`) checks a file an ignore rule matches when the index
holds it. The index format (``Documentation/gitformat-index.txt``, versions 2, 3 and 4):
a ``DIRC`` header with the version and the number of entries, then per entry 62 bytes of
stat data, object id and flags (64 with the extended flags of version 3), the path, and
in versions 2 and 3 NUL padding to a multiple of 8 bytes; version 4 writes each path as
the number of bytes to drop from the previous path (a varint) and the rest, NUL-ended.
Only SHA-1 repositories (20-byte ids) are read; anything else gives no tracked files.
"""

from __future__ import annotations

import logging
import os
import struct
from functools import lru_cache

from torch_logs_lsp.files import SkippedFile, read_regular, read_text

log = logging.getLogger(__name__)

#: An index larger than this is not read (the walk then treats every file as untracked).
MAX_INDEX_BYTES = 64 * 1024 * 1024
_ENTRY = 62  # ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), id (20), flags


def _git_dir(top: str) -> str | None:
    """The git directory of the repository whose top is ``top``: ``top/.git``, or the
    directory a ``.git`` file names (``gitdir: ...``: a linked worktree, a submodule)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    # (the one safe reader: a FIFO or a device named .git is never opened)
    line = (read_text(dot_git, "a .git file", 4096, errors="replace") or "").strip()
    if not line.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(top, line[len("gitdir:") :].strip()))


def _varint(data: bytes, pos: int, limit: int) -> tuple[int, int]:
    """git's offset varint (``decode_varint``) at ``pos``: the value and the next pos.
    Raises ``ValueError`` as soon as the value exceeds ``limit`` (a path cannot drop more
    bytes than the previous path has: a hostile run of ``0xFF`` stops within a few bytes
    instead of growing an integer 7 bits per byte)."""
    c = data[pos]
    pos += 1
    value = c & 0x7F
    while c & 0x80:
        if value > limit:
            raise ValueError("bad path compression")
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos


def index_paths(data: bytes) -> list[str]:
    """The paths (``/``-separated, relative to the repository's top) of an index file's
    bytes ``data``. Raises ``ValueError`` (or ``IndexError``/``struct.error``) for bytes
    that are not an index of version 2, 3 or 4."""
    if data[:4] != b"DIRC":
        raise ValueError("not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError(f"index version {version}")
    pos = 12
    previous = b""
    out: list[str] = []
    for _ in range(count):
        (flags,) = struct.unpack(">H", data[pos + _ENTRY - 2 : pos + _ENTRY])
        start = pos + _ENTRY + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            drop, start = _varint(data, start, len(previous))
            end = data.index(b"\0", start)
            if drop > len(previous):
                raise ValueError("bad path compression")
            name = previous[: len(previous) - drop] + data[start:end]
            pos = end + 1
        else:
            end = data.index(b"\0", start)
            name = data[start:end]
            pos += (end - pos + 8) & ~7  # the entry and 1-8 NULs: a multiple of 8 bytes
        previous = name
        out.append(name.decode("utf-8", "surrogateescape"))
    return out


@lru_cache(maxsize=64)
def _tracked(top: str, stamp: tuple[int, int]) -> tuple[frozenset[str], frozenset[str]]:
    git_dir = _git_dir(top)
    if git_dir is None:
        return frozenset(), frozenset()
    try:  # (the one safe reader: regular files only, never blocking, size capped)
        paths = index_paths(read_regular(os.path.join(git_dir, "index"), MAX_INDEX_BYTES))
    except (SkippedFile, ValueError, IndexError, struct.error) as exc:
        log.info("git index of %s not read: %s", top, exc)
        return frozenset(), frozenset()
    files = {os.path.normpath(os.path.join(top, p)) for p in paths}
    dirs: set[str] = set()
    for path in files:
        parent = os.path.dirname(path)
        while len(parent) > len(top) and parent not in dirs:
            dirs.add(parent)
            parent = os.path.dirname(parent)
    return frozenset(files), frozenset(dirs)


def tracked(top: str) -> tuple[frozenset[str], frozenset[str]]:
    """The files git tracks in the repository whose top directory is ``top`` (absolute,
    normalised paths) and the directories that hold one (below ``top``). Empty when
    ``top`` holds no readable index. Remembered until the index file changes."""
    git_dir = _git_dir(top)
    try:
        info = os.stat(os.path.join(git_dir, "index")) if git_dir else None
    except OSError:
        info = None
    stamp = (info.st_mtime_ns, info.st_size) if info else (0, 0)
    return _tracked(os.path.normpath(top), stamp)


__all__ = ["MAX_INDEX_BYTES", "index_paths", "tracked"]
