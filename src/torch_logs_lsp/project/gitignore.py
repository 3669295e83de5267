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

A bracket expression that is not closed, or names an unknown class (``[[:foo:]]``), makes
git's ``wildmatch`` give up on the pattern (``WM_ABORT_ALL``): such a pattern matches
nothing, and so does one ending in a single ``\\``.

All the patterns of a file are compiled once into one matcher (:class:`IgnoreFile`), as
ripgrep's ``ignore`` crate does (``globset``): literal names and paths and
``*SUFFIX`` patterns are looked up in hash tables; the rest are one automaton per kind
(a name at any depth is matched against the last component, an anchored pattern against
the whole path), each run as a lazily built DFA over the patterns' NFA (states cached,
at most :data:`MAX_CACHED_POSITIONS` NFA positions held, then the cache starts afresh).
Matching a path of length ``L`` never backtracks: ``O(L)`` cached steps, and at worst
``O(L * N)`` for ``N`` NFA positions (about the patterns' total length) when the states
are new, however the patterns are written (``*a*a*a*b``, ``**/**/**/x``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from torch_logs_lsp.files import read_text

#: git's POSIX classes in a bracket expression (``wildmatch.c``, C locale, ASCII).
_CLASSES: dict[str, frozenset[str]] = {
    "alnum": frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
    "alpha": frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "blank": frozenset(" \t"),
    "cntrl": frozenset(map(chr, [*range(0x20), 0x7F])),
    "digit": frozenset("0123456789"),
    "graph": frozenset(map(chr, range(0x21, 0x7F))),
    "lower": frozenset("abcdefghijklmnopqrstuvwxyz"),
    "print": frozenset(map(chr, range(0x20, 0x7F))),
    "punct": frozenset(c for c in map(chr, range(0x21, 0x7F)) if not c.isalnum()),
    "space": frozenset(" \t\n\r\f\v"),
    "upper": frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "xdigit": frozenset("0123456789abcdefABCDEF"),
}

#: What makes a pattern more than its text.
_WILD = re.compile(r"[*?\[\\]")

# Token kinds of a compiled glob (one NFA position each; ``**/`` takes two).
_LIT, _ONE, _SET, _STAR, _DSTAR, _DBODY, _ALL, _END = range(8)


@dataclass(frozen=True)
class CharSet:
    """A bracket expression: ``chars`` and inclusive ``ranges`` (code points), negated
    with ``!`` or ``^``; never matches ``/``."""

    negated: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]

    def matches(self, c: str) -> bool:
        """Whether the expression matches the one character ``c``."""
        if c == "/":
            return False
        inside = c in self.chars or any(lo <= c <= hi for lo, hi in self.ranges)
        return inside != self.negated


#: One token: ``(kind, argument)``; the argument is the character of ``_LIT`` and the
#: :class:`CharSet` of ``_SET``.
Token = tuple[int, "str | CharSet | None"]


def _bracket(pattern: str, start: int) -> tuple[CharSet, int] | None:
    """The bracket expression opening at ``pattern[start]`` (``[``) and the index after
    it, read as git's ``dowild`` reads it; ``None`` when git gives up on the pattern
    (not closed, an unknown ``[:class:]``, a ``\\`` at the end). Linear in the pattern:
    the ``]`` ending a ``[:`` is found once for every ``[:`` up to it."""
    n = len(pattern)
    i = start + 1
    negated = i < n and pattern[i] in "!^"
    if negated:
        i += 1
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    prev = ""
    close = -1  # the next "]" at or after i, found once per stretch
    first = True
    while True:
        if i >= n:
            return None
        c = pattern[i]
        if c == "]" and not first:
            return CharSet(negated, frozenset(chars), tuple(ranges)), i + 1
        first = False
        if c == "\\":
            i += 1
            if i >= n:
                return None
            c = pattern[i]
            chars.add(c)
        elif c == "-" and prev and i + 1 < n and pattern[i + 1] != "]":
            i += 1
            high = pattern[i]
            if high == "\\":
                i += 1
                if i >= n:
                    return None
                high = pattern[i]
            ranges.append((prev, high))
            c = ""
        elif c == "[" and pattern.startswith("[:", i):
            if close < i + 2:
                close = pattern.find("]", i + 2)
            if close < 0:
                return None
            if close - (i + 2) >= 1 and pattern[close - 1] == ":":
                name = pattern[i + 2 : close - 1]
                if name not in _CLASSES:
                    return None  # git: a malformed [:class:]
                chars |= _CLASSES[name]
                i = close
                c = ""
            else:  # no ":]": the "[" is a character of the set
                chars.add(c)
        else:
            chars.add(c)
        prev = c
        i += 1


def _tokens(pattern: str) -> tuple[Token, ...] | None:
    """The tokens of a glob matched against a ``/``-separated path (see the module
    docstring for the rules); ``None`` when the pattern matches nothing."""
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            globstar = j - i >= 2 and (i == 0 or pattern[i - 1] == "/")
            if globstar and j == n:
                out.append((_ALL, None))
            elif globstar and pattern[j] == "/":
                if not out or out[-1][0] != _DSTAR:  # **/**/ is **/
                    out.append((_DSTAR, None))
                j += 1
            else:
                out.append((_STAR, None))
            i = j
        elif c == "?":
            out.append((_ONE, None))
            i += 1
        elif c == "[":
            found = _bracket(pattern, i)
            if found is None:
                return None
            out.append((_SET, found[0]))
            i = found[1]
        elif c == "\\":
            if i + 1 == n:
                return None  # a trailing backslash: git's wildmatch matches nothing
            out.append((_LIT, pattern[i + 1]))
            i += 2
        else:
            out.append((_LIT, c))
            i += 1
    return tuple(out)


@dataclass(frozen=True)
class Pattern:
    """One line of an ignore file: ``tokens`` of its glob (``None``: it matches nothing,
    unless ``literal``),
    matched against the last component of a path when ``basename`` (no ``/`` in the
    pattern: a name at any depth), else against the path relative to the file's
    directory (``/``-separated); ``negated`` for ``!``; ``dir_only`` for a trailing
    ``/``."""

    tokens: tuple[Token, ...] | None
    basename: bool
    negated: bool
    dir_only: bool
    #: The text a pattern without wildcards or escapes matches (then ``tokens`` is unused).
    literal: str | None = None


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
    basename = "/" not in line  # a name at any depth, else anchored to the file's directory
    if not basename and line.startswith("/"):
        line = line[1:]
    if _WILD.search(line) is None:  # no wildcard, no escape: the text itself
        return Pattern(None, basename, negated, dir_only, line)
    return Pattern(_tokens(line), basename, negated, dir_only)


#: Most NFA positions the cached DFA states of one automaton hold together; past it the
#: cache starts afresh (RE2's lazy DFA does the same), so memory stays bounded.
MAX_CACHED_POSITIONS = 1 << 20

#: ``(pattern index deciding for a directory, for a file)``; ``-1``: none matches.
_Hit = tuple[int, int]
_NONE: _Hit = (-1, -1)


class _Automaton:
    """Glob patterns as one NFA (a position per token), run as a lazily built DFA.
    :meth:`run` gives the index of the last pattern matching the whole text, for a
    directory and for a file (``dir_only`` patterns match directories only).

    With ``names`` (texts without ``/``), the leading ``*`` of a pattern matches any
    prefix, so its positions are in every state: they are kept out of the states and
    stepped once per character (thousands of ``*NAME*`` patterns cost a table lookup per
    character, not a pass over every pattern)."""

    def __init__(self, patterns: list[tuple[int, tuple[Token, ...], bool]], names: bool) -> None:
        kinds: list[int] = []
        chars: list[str] = []  # the character of a _LIT position, else ""
        self._classes: dict[int, CharSet] = {}  # _SET positions
        self._ends: dict[int, tuple[int, bool]] = {}  # _END: (pattern index, dir_only)
        starts: list[int] = []
        for index, tokens, dir_only in patterns:
            starts.append(len(kinds))
            for kind, arg in tokens:
                if isinstance(arg, CharSet):
                    self._classes[len(kinds)] = arg
                kinds.append(kind)
                chars.append(arg if isinstance(arg, str) else "")
                if kind == _DSTAR:
                    kinds.append(_DBODY)
                    chars.append("")
            self._ends[len(kinds)] = (index, dir_only)
            kinds.append(_END)
            chars.append("")
        self._kinds = kinds
        self._chars = chars
        # the positions reached without reading: * and .* may match nothing, **/ too
        skip = {_STAR: 1, _ALL: 1, _DSTAR: 2}
        closures: list[tuple[int, ...]] = [()] * len(kinds)
        for p in range(len(kinds) - 1, -1, -1):
            step = skip.get(kinds[p])
            closures[p] = (p, *closures[p + step]) if step else (p,)
        self._closures = closures
        leading = (_STAR, _ALL)
        self._always = frozenset(
            q for s in starts if names and kinds[s] in leading for q in closures[s]
        )
        self._always_hit = self._hit(self._always)
        self._first = frozenset(q for s in starts for q in closures[s]) - self._always
        self._reset()

    def _reset(self) -> None:
        self._ids: dict[frozenset[int], int] = {}
        self._states: list[frozenset[int]] = []
        self._moves: list[dict[str, int]] = []
        self._hits: list[_Hit] = []
        self._held = 0
        self._from_always: dict[str, set[int]] = {}
        dead = self._state(frozenset())
        self._dead = -1 if self._always else dead  # with _always no state is dead
        self._start = self._state(self._first)

    def _hit(self, positions: frozenset[int]) -> _Hit:
        any_hit = file_hit = -1
        for p in positions:
            if p in self._ends:
                index, dir_only = self._ends[p]
                any_hit = max(any_hit, index)
                if not dir_only:
                    file_hit = max(file_hit, index)
        return any_hit, file_hit

    def _state(self, positions: frozenset[int]) -> int:
        sid = self._ids.get(positions)
        if sid is None:
            sid = self._ids[positions] = len(self._states)
            self._states.append(positions)
            self._moves.append({})
            self._hits.append(_better(self._hit(positions), self._always_hit))
            self._held += len(positions) + 1
        return sid

    def _step(self, positions: frozenset[int], c: str) -> frozenset[int]:
        """The state after reading ``c`` (without the ``_always`` positions)."""
        out = self._advance(positions, c)
        if self._always:
            from_always = self._from_always.get(c)
            if from_always is None:
                from_always = self._from_always[c] = self._advance(self._always, c)
                self._held += len(from_always) + 1
            out |= from_always
            out -= self._always
        return frozenset(out)

    def _advance(self, positions: frozenset[int], c: str) -> set[int]:
        kinds, chars, closures = self._kinds, self._chars, self._closures
        out: set[int] = set()
        for p in positions:
            kind = kinds[p]
            if kind == _LIT:
                if chars[p] == c:
                    out.update(closures[p + 1])
            elif kind == _ONE:
                if c != "/":
                    out.update(closures[p + 1])
            elif kind == _SET:
                if self._classes[p].matches(c):
                    out.update(closures[p + 1])
            elif kind == _STAR:
                if c != "/":
                    out.update(closures[p])
            elif kind == _DSTAR:  # after nothing or a "/": a "/" stays, else inside a name
                if c == "/":
                    out.update(closures[p])
                else:
                    out.add(p + 1)
            elif kind == _DBODY:  # inside a directory name of **/
                if c == "/":
                    out.update(closures[p - 1])
                else:
                    out.add(p)
            elif kind == _ALL:
                out.update(closures[p])
        return out

    def run(self, text: str) -> _Hit:
        """The last patterns matching all of ``text`` (see the class docstring)."""
        if self._held > MAX_CACHED_POSITIONS:
            self._reset()
        sid, dead, moves = self._start, self._dead, self._moves
        for c in text:
            nxt = moves[sid].get(c)
            if nxt is None:
                nxt = self._state(self._step(self._states[sid], c))
                moves[sid][c] = nxt
                self._held += 1
            sid = nxt
            if sid == dead:
                return _NONE
        return self._hits[sid]


def _better(hit: _Hit | None, best: _Hit) -> _Hit:
    if hit is None:
        return best
    return (max(hit[0], best[0]), max(hit[1], best[1]))


class _Table:
    """Literal texts -> the last pattern index per kind of path (:data:`_Hit`)."""

    def __init__(self) -> None:
        self.hits: dict[str, _Hit] = {}

    def add(self, text: str, index: int, dir_only: bool) -> None:
        old = self.hits.get(text, _NONE)
        self.hits[text] = (max(old[0], index), old[1] if dir_only else max(old[1], index))


class IgnoreFile:
    """The patterns of one ignore file's text. :meth:`decides` tells whether a path is
    ignored by them (``True``), re-included (``False``) or not matched (``None``): git's
    last matching pattern decides.

    The patterns are compiled once (see the module docstring): a name or path with no
    wildcard is a hash lookup, a ``*SUFFIX`` name one lookup per distinct suffix length,
    the rest two automata (names, anchored paths)."""

    def __init__(self, text: str) -> None:
        patterns = [p for p in map(parse_line, text.split("\n")) if p is not None]
        self.count = len(patterns)
        self._negated = [p.negated for p in patterns]
        self._names = _Table()
        self._paths = _Table()
        suffixes: dict[int, _Table] = {}
        globs: dict[bool, list[tuple[int, tuple[Token, ...], bool]]] = {True: [], False: []}
        for index, p in enumerate(patterns):
            if p.literal is not None:
                (self._names if p.basename else self._paths).add(p.literal, index, p.dir_only)
            elif p.tokens is None:
                continue
            elif all(kind == _LIT for kind, _ in p.tokens):
                text_of = "".join(str(arg) for _, arg in p.tokens)
                (self._names if p.basename else self._paths).add(text_of, index, p.dir_only)
            elif (
                p.basename
                and p.tokens[0][0] == _STAR
                and all(kind == _LIT for kind, _ in p.tokens[1:])
            ):
                suffix = "".join(str(arg) for _, arg in p.tokens[1:])
                suffixes.setdefault(len(suffix), _Table()).add(suffix, index, p.dir_only)
            else:
                globs[p.basename].append((index, p.tokens, p.dir_only))
        self._suffixes = sorted(suffixes.items())
        self._name_globs = _Automaton(globs[True], names=True) if globs[True] else None
        self._path_globs = _Automaton(globs[False], names=False) if globs[False] else None

    def decides(self, path: str, is_dir: bool) -> bool | None:
        """Whether ``path`` (relative to the file's directory, ``/``-separated, no
        trailing ``/``) is ignored, re-included by a ``!`` pattern, or ``None``."""
        name = path[path.rfind("/") + 1 :]
        best = _better(self._names.hits.get(name), _NONE)
        best = _better(self._paths.hits.get(path), best)
        for length, table in self._suffixes:
            if length > len(name):
                break
            best = _better(table.hits.get(name[len(name) - length :]), best)
        if self._name_globs is not None:
            best = _better(self._name_globs.run(name), best)
        if self._path_globs is not None:
            best = _better(self._path_globs.run(path), best)
        index = best[0] if is_dir else best[1]
        if index < 0:
            return None
        return not self._negated[index]


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
