"""Static module resolution: what ``importlib.util.find_spec(name)`` would answer in the
user's environment, found by reading directories only (nothing is imported or executed).

torch (``torch/_logging/_internal.py`` ``_is_valid_module``, 2.6+) calls
``importlib.util.find_spec(name)`` for a name that is not registered. Its answers, which
:meth:`ModuleFinder.find_spec` mirrors (checked against torch 2.13.0 by
``tests/value/test_torch_oracle.py``):

- a relative name (``.json``) raises ``ImportError`` -> status ``relative``;
- for ``a.b.c`` the parents ``a`` and ``a.b`` are imported first: a missing parent, or a
  parent that is a plain module, raises ``ModuleNotFoundError`` -> ``parent_missing`` /
  ``parent_not_package``;
- a missing last part returns ``None``, and torch raises ``ValueError`` -> ``not_found``.

A directory entry resolves like ``FileFinder``: ``x/__init__.*`` (regular package) first,
then ``x.py``/``x.pyc``/extension modules (``x.cpython-311-x86_64-linux-gnu.so``,
``x.abi3.so``, ``x.so``, ``x.cp311-win_amd64.pyd``, ``x.pyd``), and a directory without
``__init__`` is a namespace portion that is used only when no entry of the path has a
regular package or module. Zip files on the path are not read (lookups they could answer
are reported ``unknown`` only when the path is incomplete).

``sys.path[0]`` depends on how the process that reads the value starts (``python
dir/train.py``: ``dir``; ``python -m pkg.mod`` and ``python -c``: the working directory),
which a checked file rarely says for certain. A finder therefore takes ``first``: the
directories that may be ``sys.path[0]``, and a name is found when it is found with *any*
of them in front of the path (no finding for a module the project's own script could
import). :meth:`ModuleFinder.with_first` gives a document its own candidates.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from torch_logs_lsp.model.limits import quote

log = logging.getLogger(__name__)

SpecKind = Literal["package", "module", "extension", "namespace", "builtin"]
Status = Literal[
    "found", "not_found", "parent_missing", "parent_not_package", "relative", "unknown"
]

#: Names in ``sys.modules`` before any user code runs that are not files of their own
#: (``os`` installs ``os.path``); ``find_spec`` answers them from ``sys.modules``.
ALIASED = frozenset({"os.path"})

#: Most finders :meth:`ModuleFinder.with_first` keeps per finder (one per set of candidate
#: directories: in practice one per document directory).
_MAX_DERIVED = 256

_MODULE_FILE = re.compile(
    r"^(?P<name>[^\W\d]\w*)"
    r"(?:\.py|\.pyc|(?:\.(?:cpython-\d+[\w-]*|abi3|cp\d+[\w-]*|pypy[\w-]*))?\.(?:so|pyd))$"
)


@dataclass(frozen=True)
class Spec:
    """A found module: ``kind``, ``origin`` (its file, ``""`` for namespace packages and
    built-in modules) and ``locations`` (``submodule_search_locations``: empty for plain
    modules; ``None``-like empty tuple also when a built-in package's files are unknown)."""

    name: str
    kind: SpecKind
    origin: str
    locations: tuple[str, ...] = ()

    @property
    def is_package(self) -> bool:
        return self.kind in ("package", "namespace")


@dataclass(frozen=True)
class Lookup:
    """The answer for one name. ``missing`` names the module that could not be found (or
    that is not a package) for the failing statuses."""

    name: str
    status: Status
    spec: Spec | None = None
    missing: str = ""

    def parent_problem(self, where: str) -> str:
        """For ``parent_missing`` / ``parent_not_package``: why the parent fails, as a
        phrase naming the module and ``where`` it was looked for ("no module `a` in the
        environment"; "`json` is a module, not a package")."""
        if self.status == "parent_missing":
            return f"no module {quote(self.missing)} in {where}"
        return f"{quote(self.missing)} is a module, not a package"


def module_file_name(filename: str) -> str | None:
    """The module name a file in a package directory defines (``x.py`` -> ``x``), or None."""
    m = _MODULE_FILE.match(filename)
    return m.group("name") if m else None


class ModuleFinder:
    """Resolves module names over a search path (the user's ``sys.path`` as far as known).

    ``paths``: directories in ``sys.path`` order. ``complete``: the path is the user's
    whole ``sys.path`` (a missing top-level module is then a verdict, not ``unknown``).
    ``certain``: the environment was named by the user (setting / ``--python``), so a
    missing module is an error rather than a warning. ``builtins``: built-in module names
    (no file). ``known``: dotted names known to exist without files here (the packaged
    torch module list), used when the path does not have the top-level package.
    ``description``: where the path came from, for messages (``".venv/bin/python"``).
    ``first``: directories that may be ``sys.path[0]`` (see the module docstring): a name
    found with any of them in front of ``paths`` is found.
    """

    def __init__(
        self,
        paths: Sequence[str],
        *,
        complete: bool,
        certain: bool = False,
        builtins: Iterable[str] = sys.builtin_module_names,
        stdlib_names: Iterable[str] = (),
        known: Iterable[str] = (),
        description: str = "",
        first: Sequence[str] = (),
    ) -> None:
        self.paths = tuple(dict.fromkeys(os.path.abspath(p) for p in paths))
        self.first = tuple(dict.fromkeys(os.path.abspath(p) for p in first))
        self.complete = complete
        self.certain = certain
        self.builtins = frozenset(builtins)
        self.stdlib_names = frozenset(stdlib_names)
        self.known = frozenset(known)
        #: Names in ``known`` with a known submodule (every dotted prefix), built once.
        self._known_packages = frozenset(
            k[:i] for k in self.known for i, ch in enumerate(k) if ch == "."
        )
        self.description = description
        self._listings: dict[str, tuple[int, frozenset[str]]] = {}
        #: Per directory listing: module name -> its file names, sorted (built once).
        self._module_files: dict[str, tuple[frozenset[str], dict[str, tuple[str, ...]]]] = {}
        #: Finders made by :meth:`with_first`, per candidate tuple (they share the caches).
        self._derived: dict[tuple[str, ...], ModuleFinder] = {}

    @property
    def searched(self) -> tuple[str, ...]:
        """Every directory a lookup may list first: ``first``, then ``paths``."""
        return self.first + self.paths

    def with_first(self, first: Sequence[str]) -> ModuleFinder:
        """This finder with ``first`` added to its candidates for ``sys.path[0]`` (the
        same object for the same candidates, and ``self`` when they add nothing; the
        directory listings are shared, so a document's finder costs a few listings)."""
        extra = tuple(
            d for d in dict.fromkeys(os.path.abspath(p) for p in first) if d not in self.first
        )
        if not extra:
            return self
        key = self.first + extra
        derived = self._derived.get(key)
        if derived is None:
            if len(self._derived) >= _MAX_DERIVED:
                self._derived.clear()
            # a copy sharing every table (the listings, the known names' prefixes: a
            # few ms to build for the packaged torch module list)
            derived = copy.copy(self)
            derived.first = key
            derived._derived = {}
            self._derived[key] = derived
        return derived

    # -- directory reading ----------------------------------------------------------
    def _listing(self, directory: str) -> frozenset[str]:
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError:
            return frozenset()
        cached = self._listings.get(directory)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        try:
            names = frozenset(os.listdir(directory))
        except OSError:
            names = frozenset()
        self._listings[directory] = (mtime, names)
        return names

    def _files_of(self, directory: str, listing: frozenset[str], part: str) -> tuple[str, ...]:
        """File names in ``listing`` (of ``directory``) that are module ``part``
        (``part.py``, ``part.cpython-311-x86_64-linux-gnu.so``), sorted; from an index built
        once per listing, so 10,000 names do not scan the directory 10,000 times."""
        entry = self._module_files.get(directory)
        if entry is None or entry[0] is not listing:
            index: dict[str, list[str]] = {}
            for fn in sorted(listing):
                mod = module_file_name(fn)
                if mod and fn.startswith(mod + "."):
                    index.setdefault(mod, []).append(fn)
            entry = (listing, {k: tuple(v) for k, v in index.items()})
            self._module_files[directory] = entry
        return entry[1].get(part, ())

    def _init_file(self, package_dir: str) -> str | None:
        for fn in sorted(self._listing(package_dir)):
            if module_file_name(fn) == "__init__":
                return os.path.join(package_dir, fn)
        return None

    def _find_in(self, part: str, qual: str, locations: Sequence[str]) -> Spec | None:
        """``FileFinder`` over ``locations`` for one name part (``qual`` is its full name)."""
        if not part:
            return None
        portions: list[str] = []
        for directory in locations:
            listing = self._listing(directory)
            if part in listing:
                sub = os.path.join(directory, part)
                if os.path.isdir(sub):
                    init = self._init_file(sub)
                    if init is not None:
                        return Spec(qual, "package", init, (sub,))
                    portions.append(sub)
            for fn in self._files_of(directory, listing, part):
                path = os.path.join(directory, fn)
                if os.path.isfile(path):
                    kind: SpecKind = "extension" if fn.endswith((".so", ".pyd")) else "module"
                    return Spec(qual, kind, path)
        if portions:
            return Spec(qual, "namespace", "", tuple(portions))
        return None

    def _known_spec(self, qual: str) -> Spec | None:
        if qual not in self.known:
            return None
        is_pkg = qual in self._known_packages
        return Spec(qual, "package" if is_pkg else "module", "", ())

    # -- the find_spec mirror --------------------------------------------------------
    def find_spec(self, name: str) -> Lookup:
        """What ``importlib.util.find_spec(name)`` would do in the user's environment.
        Never raises: should resolving recurse too deep (``RecursionError``), the answer
        is ``unknown`` ("cannot tell": no finding), the reason logged."""
        try:
            return self._find_spec(name)
        except RecursionError:
            log.warning("cannot resolve module %.80s: RecursionError", name)
            return Lookup(name, "unknown")

    def _find_spec(self, name: str) -> Lookup:
        if name.startswith("."):
            return Lookup(name, "relative", missing=name)
        if name in ALIASED:
            return Lookup(name, "found", Spec(name, "module", ""))
        if not self.first:
            return self._resolve(name, self.paths)
        # a candidate matters only when it holds the top-level name (else the answer is
        # the one without it): each such one is tried, then the path alone
        top = name.partition(".")[0]
        answers: list[Lookup] = []
        for directory in self.first:
            if self._holds(directory, top):
                answer = self._resolve(name, (directory, *self.paths))
                if answer.status == "found":
                    return answer
                answers.append(answer)
        if len(answers) < len(self.first):
            answer = self._resolve(name, self.paths)
            if answer.status == "found":
                return answer
            answers.append(answer)
        for answer in answers:
            if answer.status == "unknown":
                return answer  # cannot tell with one of the candidates: no verdict
        return answers[0]

    def _holds(self, directory: str, part: str) -> bool:
        """Whether ``directory`` has an entry named ``part`` or a module file of it."""
        listing = self._listing(directory)
        return part in listing or bool(self._files_of(directory, listing, part))

    def _resolve(self, name: str, paths: Sequence[str]) -> Lookup:
        """``find_spec(name)`` with ``paths`` as ``sys.path``."""
        parts = name.split(".")
        locations: Sequence[str] = paths
        from_known = False
        spec: Spec | None = None
        for i, part in enumerate(parts):
            qual = ".".join(parts[: i + 1])
            last = i == len(parts) - 1
            if i == 0 and part in self.builtins:
                spec = Spec(qual, "builtin", "")
            elif from_known:
                spec = self._known_spec(qual)
            else:
                spec = self._find_in(part, qual, locations)
                if spec is None and i == 0:
                    spec = self._known_spec(qual)
                    from_known = spec is not None
                if spec is None and i == 0 and part in self.stdlib_names:
                    spec = Spec(qual, "builtin", "")  # stdlib without known files
            if spec is None:
                if i == 0 and not self.complete:
                    return Lookup(name, "unknown")
                status: Status = "not_found" if last else "parent_missing"
                return Lookup(name, status, missing=qual)
            if last:
                return Lookup(name, "found", spec)
            if from_known and spec.kind == "package":
                continue
            if spec.kind == "builtin":
                return Lookup(name, "unknown")  # a module whose files we cannot read
            if not spec.locations:
                return Lookup(name, "parent_not_package", missing=qual)
            locations = spec.locations
        return Lookup(name, "unknown")  # pragma: no cover - loop always returns

    # -- listing ---------------------------------------------------------------------
    def children(self, spec: Spec) -> list[tuple[str, bool]]:
        """Direct submodules of a package as ``(name, is_package)``, sorted; namespace
        subdirectories count as packages (``find_spec`` finds them)."""
        out: dict[str, bool] = {}
        if not spec.locations:
            prefix = spec.name + "."
            for k in sorted(self.known):
                if k.startswith(prefix) and "." not in k[len(prefix) :]:
                    out[k[len(prefix) :]] = any(x.startswith(k + ".") for x in self.known)
            return sorted(out.items())
        for directory in spec.locations:
            for fn in sorted(self._listing(directory)):
                path = os.path.join(directory, fn)
                if fn.isidentifier() and fn != "__pycache__" and os.path.isdir(path):
                    out.setdefault(fn, True)
                else:
                    mod = module_file_name(fn)
                    if mod and mod != "__init__":
                        out.setdefault(mod, False)
        return sorted(out.items())

    def walk(self, spec: Spec) -> list[str]:
        """``spec.name`` and, for a package, every submodule in ``pkgutil.walk_packages``
        order (depth first, a package before its submodules), as torch 2.11+
        ``_get_module_and_submodules`` lists them (subdirectories without ``__init__`` are
        skipped, as pkgutil skips them).

        The walk is iterative: a package nested 1,100 levels deep is listed whole, where
        the old recursive walk raised ``RecursionError``. torch's own walk imports each
        package and recurses; beyond ~990 levels (the recursion limit less the caller's
        stack) that import raises ``RecursionError``, which ``walk_packages``' ``onerror``
        swallows, so torch lists fewer of the deepest submodules than this (measured on
        2.13.0: 988 names of 1,100). Should anything here still recurse too deep, the
        answer is ``[spec.name]`` (the reason logged), never an exception."""
        out = [spec.name]
        if not spec.locations:
            return out
        try:
            seen: set[str] = set()
            stack = [self._level(list(spec.locations), spec.name + ".")]
            while stack:
                entry = next(stack[-1], None)
                if entry is None:
                    stack.pop()
                    continue
                name, package_dir = entry
                out.append(name)
                if package_dir is not None and package_dir not in seen:
                    seen.add(package_dir)
                    stack.append(self._level([package_dir], name + "."))
        except RecursionError:
            log.warning("submodules of %s not listed: RecursionError", spec.name)
            return [spec.name]
        return out

    def _level(self, locations: list[str], prefix: str) -> Iterator[tuple[str, str | None]]:
        """The direct submodules in ``locations`` as ``pkgutil.iter_modules`` yields them:
        ``(prefix + name, package directory or None)``, sorted per directory, each name
        once."""
        yielded: set[str] = set()
        for directory in locations:
            for fn in sorted(self._listing(directory)):
                path = os.path.join(directory, fn)
                mod = module_file_name(fn)
                is_pkg = False
                if mod is None and "." not in fn and os.path.isdir(path):
                    if self._init_file(path) is None:
                        continue
                    mod, is_pkg = fn, True
                if not mod or mod == "__init__" or mod in yielded:
                    continue
                yielded.add(mod)
                yield prefix + mod, (path if is_pkg else None)


__all__ = ["Lookup", "ModuleFinder", "Spec", "module_file_name"]
