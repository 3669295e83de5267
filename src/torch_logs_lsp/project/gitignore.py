"""The patterns of one ignore file (``.gitignore``, ``.ignore``, ``.git/info/exclude``),
matched one path at a time as git matches them during its directory walk.

Git decides for each path on its own, a directory before what is under it (``dir.c``:
the last pattern of the deepest file that matches the path itself decides; an excluded
directory is not entered). The ``pathspec`` library's ``GitIgnoreSpec`` answers another
question, whether a whole path is ignored given every pattern that matches it or one of
its parents, which does not say whether to enter a directory (``*`` then ``!a``: git
enters ``a``, while ``GitIgnoreSpec`` holds ``a/`` ignored). So the patterns are
translated here, following gitignore(5) (https://git-scm.com/docs/gitignore) and git's
``wildmatch.c`` with ``WM_PATHNAME``:

- a blank line or one starting with ``#`` is no pattern; trailing spaces are dropped
  unless escaped with ``\\``; ``!`` negates; ``\\`` escapes any character;
- a trailing ``/`` matches directories only; a ``/`` at the start or in the middle anchors
  the pattern to the ignore file's directory, else it matches a name at any depth;
- ``*`` and ``?`` never match ``/``; ``[...]`` (``[!...]``, ``[^...]``, ranges, POSIX
  classes such as ``[[:digit:]]``) never matches ``/``; ``**/`` at the start, ``/**/`` in
  the middle match zero or more directories, ``/**`` at the end everything inside; other
  runs of ``*`` are one ``*``.

Which files apply where (:class:`Level`, :func:`enter`, :func:`inherited`): see
:mod:`.walk`. Checked against git itself by ``tests/project/test_walk_gitignore.py``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from torch_logs_lsp.files import read_text

_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


def _bracket(pattern: str, start: int) -> tuple[str, int] | None:
    """The regex of the bracket expression opening at ``pattern[start]`` (``[``) and the
    index after it, ``None`` when it is not closed (then ``[`` is a literal)."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            body = "".join(items)
            return (f"(?!/)[^{body}]" if negated else f"(?!/)[{body}]"), i + 1
        first = False
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2 : end] if end >= 0 else ""
            if name in _CLASSES:
                items.append(_CLASSES[name])
                i = end + 2
                continue
            return None  # git: a malformed class makes the pattern match nothing
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            if high == "\\" and i + 3 < len(pattern):
                high = pattern[i + 3]
                i += 1
            if high >= c:
                items.append(f"{re.escape(c)}-{re.escape(high)}")
            i += 3
            continue
        items.append(re.escape(c))
        i += 1
    return None


def _translate(pattern: str) -> str:
    """The regex (for ``fullmatch``) of a glob matched against a ``/``-separated path."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            globstar = j - i >= 2 and (i == 0 or pattern[i - 1] == "/")
            if globstar and j == n:
                out.append(".*")
            elif globstar and pattern[j] == "/":
                out.append("(?:.*/)?")
                j += 1
            else:
                out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            found = _bracket(pattern, i)
            if found is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(found[0])
                i = found[1]
        elif c == "\\":
            if i + 1 == n:
                return "(?!)"  # a trailing backslash: git's wildmatch matches nothing
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Pattern:
    """One line of an ignore file: ``regex`` matches a path relative to the file's
    directory (``/``-separated); ``negated`` for ``!``; ``dir_only`` for a trailing
    ``/``."""

    regex: str
    negated: bool
    dir_only: bool


def parse_line(line: str) -> Pattern | None:
    """The pattern of one line of an ignore file, ``None`` for a blank line or a
    comment."""
    line = line.rstrip("\r")
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and stripped.endswith("\\"):
        # an escaped space ends the pattern: keep it (git's trim_trailing_spaces)
        stripped = line[: len(stripped) + 1]
    line = stripped
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    if dir_only:
        line = line[:-1]
    if not line:
        return None
    if "/" in line:  # anchored to the file's directory
        regex = _translate(line[1:] if line.startswith("/") else line)
    else:  # a name at any depth
        regex = "(?:.*/)?" + _translate(line)
    return Pattern(regex, negated, dir_only)


class IgnoreFile:
    """The patterns of one ignore file's text. :meth:`decides` tells whether a path is
    ignored by them (``True``), re-included (``False``) or not matched (``None``).

    All the patterns are one regex (an alternation, the last pattern first, so the first
    alternative that matches is git's last matching pattern): one match per path."""

    def __init__(self, text: str) -> None:
        patterns = [p for p in map(parse_line, text.split("\n")) if p is not None]
        self.count = len(patterns)
        self._negated = [p.negated for p in reversed(patterns)]
        self._dirs = self._compile([p.regex for p in reversed(patterns)])
        self._files = self._compile(
            [p.regex if not p.dir_only else "(?!)" for p in reversed(patterns)]
        )

    @staticmethod
    def _compile(regexes: list[str]) -> re.Pattern[str] | None:
        if not regexes:
            return None
        return re.compile("|".join(f"({r})" for r in regexes), re.DOTALL)

    def decides(self, path: str, is_dir: bool) -> bool | None:
        """Whether ``path`` (relative to the file's directory, ``/``-separated, no
        trailing ``/``) is ignored, re-included by a ``!`` pattern, or ``None``."""
        regex = self._dirs if is_dir else self._files
        if regex is None:
            return None
        m = regex.fullmatch(path)
        if m is None or m.lastindex is None:
            return None
        return not self._negated[m.lastindex - 1]


#: The ignore files read in each directory, highest precedence first (ripgrep's order).
IGNORE_FILES = (".ignore", ".gitignore")

#: The largest ignore file read (bytes); a larger one is logged and not applied.
MAX_IGNORE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Rules:
    """The patterns of one ignore file: a path ``p`` found by the walk is matched as
    ``prefix + p[cut:]`` (its path relative to the file's directory, ``/`` separated)."""

    spec: IgnoreFile
    cut: int
    prefix: str

    def decides(self, path: str, is_dir: bool) -> bool | None:
        """:meth:`IgnoreFile.decides` for a path as the walk spells it."""
        rel = self.prefix + path[self.cut :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        return self.spec.decides(rel, is_dir)


@dataclass(frozen=True)
class Level:
    """The ignore rules in force in one directory: ``.ignore`` files deepest first, then
    ``.gitignore`` files of the current repository deepest first, then its exclude."""

    ignores: tuple[Rules, ...] = ()
    gitignores: tuple[Rules, ...] = ()
    exclude: Rules | None = None

    def chain(self) -> tuple[Rules, ...]:
        """The files in the order they are asked (see :func:`ignored`)."""
        tail = (self.exclude,) if self.exclude is not None else ()
        return self.ignores + self.gitignores + tail


def ignored(chain: tuple[Rules, ...], path: str, is_dir: bool) -> bool:
    """Whether the walk's ``path`` (a directory when ``is_dir``) is ignored: the first of
    ``chain`` (:meth:`Level.chain`) with a matching pattern decides; none: not ignored."""
    for rules in chain:
        decided = rules.decides(path, is_dir)
        if decided is not None:
            return decided
    return False


def _spec(path: str) -> IgnoreFile | None:
    """The patterns of the ignore file ``path`` (a regular file), ``None`` when it has
    none or cannot be read (logged by :func:`.files.read_text`)."""
    text = read_text(path, "an ignore file", MAX_IGNORE_BYTES, errors="replace")
    if not text:
        return None
    spec = IgnoreFile(text)
    return spec if spec.count else None


def _exclude_file(dot_git: str) -> str:
    """``info/exclude`` of the repository whose ``.git`` is ``dot_git``: a directory, or a
    worktree's or submodule's file ``gitdir: PATH`` (its ``commondir`` followed)."""
    if not os.path.isfile(dot_git):  # a directory (or what is never opened: a FIFO)
        return os.path.join(dot_git, "info", "exclude")
    text = read_text(dot_git, "a .git file", 64 * 1024, errors="replace") or ""
    first = text.splitlines()[0] if text else ""
    if not first.startswith("gitdir:"):
        return os.path.join(dot_git, "info", "exclude")
    gitdir = os.path.join(os.path.dirname(dot_git), first[len("gitdir:") :].strip())
    common = (read_text(os.path.join(gitdir, "commondir"), "a commondir file") or "").strip()
    if common:
        gitdir = os.path.join(gitdir, common)
    return os.path.join(gitdir, "info", "exclude")


def enter(
    level: Level,
    directory: str,
    files: set[str],
    has_git: bool,
    cut: int,
    prefix: str,
) -> Level:
    """The rules in force in ``directory`` given those of its parent: ``files`` are the
    names of :data:`IGNORE_FILES` that are regular files there, ``has_git`` whether it
    holds a ``.git``; ``cut``/``prefix`` place paths relative to it (see :class:`Rules`)."""
    found: dict[str, Rules] = {}
    for name in IGNORE_FILES:
        if name in files:
            spec = _spec(os.path.join(directory, name))
            if spec is not None:
                found[name] = Rules(spec, cut, prefix)
    ignores, gitignores, exclude = level.ignores, level.gitignores, level.exclude
    if has_git:  # a repository's top: the rules above it are another repository's
        gitignores, exclude = (), None
        path = _exclude_file(os.path.join(directory, ".git"))
        spec = _spec(path) if os.path.isfile(path) else None
        if spec is not None:
            exclude = Rules(spec, cut, prefix)
    if ".ignore" in found:
        ignores = (found[".ignore"], *ignores)
    if ".gitignore" in found:
        gitignores = (found[".gitignore"], *gitignores)
    if (ignores, gitignores, exclude) == (level.ignores, level.gitignores, level.exclude):
        return level
    return Level(ignores, gitignores, exclude)


def repository_top(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` (absolute) holding a ``.git``."""
    here = directory
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def inherited(top: str) -> Level:
    """The rules the parent directories of ``top`` hand down to it: those of its
    repository's directories from the repository's top down to ``top``'s parent."""
    absolute = os.path.abspath(top)
    above = os.path.dirname(absolute)
    if above == absolute or os.path.lexists(os.path.join(absolute, ".git")):
        return Level()  # the file system's root, or a repository's top
    repo = repository_top(above)
    if repo is None:
        return Level()
    cut = len(os.path.join(top, ""))
    parts = os.path.relpath(absolute, repo).split(os.sep)
    level = Level()
    here = repo
    for depth in range(len(parts)):
        prefix = "/".join(parts[depth:]) + "/"
        files = {n for n in IGNORE_FILES if os.path.isfile(os.path.join(here, n))}
        has_git = os.path.lexists(os.path.join(here, ".git"))
        level = enter(level, here, files, has_git, cut, prefix)
        here = os.path.join(here, parts[depth])
    return level


__all__ = [
    "IGNORE_FILES",
    "MAX_IGNORE_BYTES",
    "IgnoreFile",
    "Level",
    "Pattern",
    "Rules",
    "enter",
    "ignored",
    "inherited",
    "parse_line",
]
