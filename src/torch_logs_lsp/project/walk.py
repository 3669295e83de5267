"""Finding the files ``torch-logs check`` reads: the tree walk and its ignore rules.

A directory named on the command line is walked depth first in sorted order with
``os.scandir`` (its own stack: no recursion limit). What is never entered: the
directories of :data:`SKIP_DIRS`, virtualenvs (a ``pyvenv.cfg``), hidden directories
(a name starting with ``.``) except :data:`SHOWN_DOT_DIRS`, symlinked directories (so a
symlink loop is never followed), and what the ignore files say, as git and ripgrep read
them:

- ``.gitignore`` in every directory, its patterns relative to that directory, with git's
  semantics (``gitignore(5)``: negation ``!``, directory-only ``dir/``, anchored
  ``/name`` or ``a/b``, ``**``; :mod:`.gitignore`); the repository's
  ``.git/info/exclude`` below them. The deepest
  file with a matching pattern decides, the last matching pattern in it wins; an
  ignored directory is not entered, so nothing under it can be re-included (as git).
  A directory holding ``.git`` starts a new repository: the ``.gitignore`` files above
  it no longer apply (as ripgrep).
- ``.ignore`` (ripgrep's and the silver searcher's): the same syntax, above all
  ``.gitignore`` rules (as ripgrep).
- When the directory named is inside a git repository, the ignore files of its parent
  directories from the repository's top apply too (``check src/`` skips what the top
  ``.gitignore`` ignores in ``src/``). Outside any repository, the ``.gitignore`` files
  in the walked tree still apply (ruff and ripgrep's ``--no-require-git``); those above
  the directory named do not. Git's global excludes (``core.excludesFile``) are not read.

A path named on the command line is always looked at, even when it is ignored, hidden or
in :data:`SKIP_DIRS` (as ruff and ripgrep do for a file named explicitly); ``--no-ignore``
turns the ignore files off (not the other skips).

Only names are looked at before a file is opened: a file whose name no host claims
(an extension no host reads) is never ``stat``-ed, matched or opened; only a name that
could be a script's (no extension, or a dotfile) has its first bytes read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from torch_logs_lsp import hosts
from torch_logs_lsp.files import SkippedFile, file_kind, read_head
from torch_logs_lsp.notebook.reader import NOTEBOOK, FileKind, is_notebook
from torch_logs_lsp.project.git_index import tracked
from torch_logs_lsp.project.gitignore import (
    IGNORE_FILES,
    Level,
    Rules,
    enter,
    ignored,
    inherited,
    repository_top,
)

#: Directories never entered when walking a tree (also with ``--no-ignore``).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        ".ipynb_checkpoints",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
        "build",
        "dist",
    }
)

#: Hidden directories that are walked all the same: the hosts' files live there (VS Code's
#: ``launch.json``, dev containers, CI workflows).
SHOWN_DOT_DIRS = frozenset(
    {".vscode", ".devcontainer", ".github", ".gitlab", ".circleci", ".buildkite", ".gitea"}
)


def walk(
    top: str,
    report: Callable[[SkippedFile], None],
    *,
    ignore: bool = True,
    wanted: Callable[[str], bool] | None = None,
    left_out: Callable[[os.DirEntry[str]], None] | None = None,
) -> Iterator[os.DirEntry[str]]:
    """The non-directory entries under the directory ``top``, depth first in sorted
    order (a directory's files, then each subdirectory's, as ``os.walk`` top-down with
    sorted names), skipping what the module's docstring says (ignore files only when
    ``ignore``; ``top`` itself is always entered). ``wanted``: when given, only entries
    whose name it accepts are yielded (and only those are matched against the ignore
    rules). ``left_out``: called with each wanted file the ignore rules leave out (not
    those under an ignored directory, which is not entered).

    A symlink to a directory is not entered nor yielded; a broken symlink is yielded
    like a file. A directory that cannot be listed is handed to ``report`` as a
    :class:`SkippedFile` ("cannot list: ...") and the walk goes on."""
    start = inherited(top) if ignore else Level()
    if start.chain() and ignored(start.chain(), os.path.join(top, "\0"), False):
        start = Level()  # a directory named although ignored: checked, as a named file is
    first_repo = repository_top(os.path.abspath(top)) if ignore else None
    # (directory, its rules, its repository's top, whether only tracked files count there:
    # an ignored directory entered because git tracks files in it)
    stack: list[tuple[str, Level, str | None, bool]] = [(top, start, first_repo, False)]
    known: Tracked = {}
    while stack:
        root, parent_level, repo, only_tracked = stack.pop()
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            report(SkippedFile(str(Path(root)), f"cannot list: {exc.strerror or exc}", exc))
            continue
        level = parent_level
        if ignore:
            files = {e.name for e in entries if e.name in IGNORE_FILES and _entry_is_file(e)}
            has_git = any(e.name == ".git" for e in entries)
            if has_git:
                repo = os.path.abspath(root)
            if files or has_git:
                cut = len(os.path.join(root, ""))
                level = enter(parent_level, root, files, has_git, cut, "")
        chain = level.chain()
        subdirs: list[tuple[str, Level, str | None, bool]] = []

        for entry in entries:
            try:
                is_dir = entry.is_dir()  # follows a symlink, like os.walk
            except OSError:
                is_dir = False
            name = entry.name
            if not is_dir:
                if wanted is None or wanted(name):
                    if _kept(chain, repo, entry, False, known, only_tracked):
                        yield entry
                    elif left_out is not None:
                        left_out(entry)
            elif (
                name not in SKIP_DIRS
                and (name[0] != "." or name in SHOWN_DOT_DIRS)
                and not _is_symlink(entry)
                and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
            ):
                kept = _kept(chain, repo, entry, True, known, only_tracked)
                if kept:
                    subdirs.append((entry.path, level, repo, kept == _TRACKED_ONLY))
        stack.extend(reversed(subdirs))


#: A walk's tracked files and directories of each repository top (read once per walk).
Tracked = dict[str, tuple[frozenset[str], frozenset[str]]]


#: :func:`_kept`'s verdict for an ignored directory entered only for the files git tracks
#: in it.
_TRACKED_ONLY = 2


def _kept(
    chain: tuple[Rules, ...],
    repo: str | None,
    entry: os.DirEntry[str],
    is_dir: bool,
    known: Tracked,
    only_tracked: bool,
) -> int:
    """Whether the walk keeps ``entry``: 0 (left out), 1 (kept) or :data:`_TRACKED_ONLY`
    (an ignored directory holding files tracked by the git repository whose top is
    ``repo``: entered, but only its tracked files count). git never ignores a tracked
    file (gitignore(5)); inside an ignored directory (``only_tracked``) nothing else
    counts. ``known``: the walk's index readings, filled on first need."""
    if not only_tracked and not (chain and ignored(chain, entry.path, is_dir)):
        return 1
    if repo is None:
        return 0
    if repo not in known:
        known[repo] = tracked(repo)
    files, dirs = known[repo]
    if os.path.abspath(entry.path) not in (dirs if is_dir else files):
        return 0
    return _TRACKED_ONLY if is_dir else 1


def _entry_is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()  # a FIFO named .gitignore is never opened
    except OSError:
        return False


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # cannot tell: do not enter it


def _named_kind(name: str) -> FileKind | None:
    """The kind a file's base name gives (a notebook first), ``None`` when no host claims
    the name (its content may still: see :func:`_may_sniff`)."""
    return NOTEBOOK if is_notebook(name) else hosts.host_by_name(name)


#: Dotfiles that are never scripts: not sniffed for a shebang (the ignore files are read
#: once, by the walk).
NOT_SCRIPTS = frozenset(
    {
        *IGNORE_FILES,
        ".gitattributes",
        ".gitmodules",
        ".gitkeep",
        ".keep",
        ".mailmap",
        ".dockerignore",
        ".npmignore",
        ".prettierignore",
        ".eslintignore",
        ".editorconfig",
        ".python-version",
        ".nvmrc",
        ".coverage",
        ".DS_Store",
    }
)


def _may_sniff(name: str) -> bool:
    """Whether a name no host claims could be a script's (no extension, or a dotfile;
    not one of :data:`NOT_SCRIPTS`), so that its first bytes are read for a shebang."""
    dot = name.rfind(".")
    if name.startswith("."):
        return name not in NOT_SCRIPTS
    return not 0 < dot < len(name) - 1  # Path(name).suffix == ""


def iter_files(
    paths: list[str],
    skipped: Callable[[SkippedFile], None] | None = None,
    *,
    ignore: bool = True,
    ignored_env: Callable[[Path], None] | None = None,
) -> Iterator[tuple[Path, FileKind]]:
    """Files under ``paths`` that hold a host kind, with that kind, in sorted order
    (Jupyter notebooks too, with the kind :data:`.notebook.NOTEBOOK`).

    A path naming a file is checked when its kind can be detected (content included),
    ignored or not; directories are walked (:func:`walk`; ``ignore``: whether the
    ignore files apply; ``ignored_env``: called with each ``.env`` file they leave out,
    where values usually live). A path given twice (or a file reached twice) is yielded once.
    A path that does not exist is handed to ``skipped`` (with its error), like one that
    cannot be read; the others are still yielded.

    Only names and ``stat`` (symlinks followed) are looked at before a file is opened: a
    FIFO, a device or a socket found by walking is never opened (a process writing into
    a FIFO keeps waiting, a ``/proc/kmsg`` link is not consumed); one whose name gives a
    kind is reported. The first bytes of a regular file whose name gives no kind (an
    extensionless script, a dotfile) are read with :func:`.files.read_head`. Each path
    that cannot be looked at is handed to ``skipped`` and left out: a directory that
    cannot be listed, a file that cannot be ``stat``-ed or whose first bytes cannot be
    read (``SkippedFile.error`` set), a path that is not a regular file or directory
    (``error`` ``None``). The files yielded may still fail to read (or be replaced by a
    FIFO meanwhile): :func:`torch_logs_lsp.lint.checker.read_document` raises then.
    """
    report = skipped or (lambda exc: None)
    seen: set[str] = set()
    kinds: dict[str, FileKind | None] = {}  # by base name: __init__.py comes a thousand times

    def named_kind(name: str) -> FileKind | None:
        if name in kinds:
            return kinds[name]
        kind = kinds[name] = _named_kind(name)
        return kind

    def worth_a_look(name: str) -> bool:
        return named_kind(name) is not None or _may_sniff(name)

    def first_time(path: Path) -> bool:
        key = os.path.normpath(os.path.abspath(path))
        if key in seen:
            return False
        seen.add(key)
        return True

    for raw in paths:
        path = Path(raw)
        try:
            info = os.stat(raw)
        except OSError as exc:  # a missing path too: the others are still checked
            report(SkippedFile(raw, f"cannot open: {exc.strerror or exc}", exc))
            continue
        if not stat.S_ISDIR(info.st_mode):
            if not stat.S_ISREG(info.st_mode):
                report(SkippedFile(raw, f"{file_kind(info.st_mode)}, not a regular file"))
                continue
            kind = _kind_of(path, report)
            if kind and first_time(path):
                yield path, kind
            continue

        def left_out(entry: os.DirEntry[str]) -> None:
            if ignored_env is not None and named_kind(entry.name) == "dotenv":
                ignored_env(Path(entry.path))

        for entry in walk(raw, report, ignore=ignore, wanted=worth_a_look, left_out=left_out):
            named = named_kind(entry.name)
            if not _entry_is_file(entry):  # the directory entry's type: no stat but for a link
                try:
                    mode = entry.stat().st_mode  # follows a symlink; no open
                except OSError as exc:
                    reason = f"cannot open: {exc.strerror or exc}"
                    if _is_symlink(entry) and exc.errno in (errno.ENOENT, errno.ELOOP):
                        # a broken link or a loop found by walking: a note, not a failure
                        report(SkippedFile(entry.path, f"a broken symbolic link ({reason})"))
                    else:
                        report(SkippedFile(entry.path, reason, exc))
                    continue
                if not stat.S_ISREG(mode):
                    if named:  # a FIFO named .env: say why it is not checked
                        reason = f"{file_kind(mode)}, not a regular file"
                        report(SkippedFile(entry.path, reason))
                    continue
            file = Path(entry.path)
            kind = named or _kind_of(file, report)
            if kind and (len(paths) == 1 or first_time(file)):  # one walk: no path twice
                yield file, kind


def _kind_of(path: Path, report: Callable[[SkippedFile], None]) -> FileKind | None:
    """The host kind of a file by its name, else by its first bytes (only when the name
    could be a script's: no extension, or a dotfile); a Jupyter notebook is
    :data:`.notebook.NOTEBOOK`, a kind of file but no host's document (first: the
    IPython cell host claims ``*.ipynb`` names for the cells an editor opens)."""
    kind = _named_kind(path.name)
    if kind or not _may_sniff(path.name):
        return kind
    try:
        head = read_head(path, 256).decode("utf-8", "replace")
    except SkippedFile as exc:
        if exc.error is not None:  # a FIFO or device has no kind to detect: not reported
            report(exc)
        return None
    return hosts.detect_host(str(path), head)


__all__ = ["NOT_SCRIPTS", "SHOWN_DOT_DIRS", "SKIP_DIRS", "iter_files", "walk"]
