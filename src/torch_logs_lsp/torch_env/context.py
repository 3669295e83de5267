"""Which torch the user runs: the registry to check names against and the module finder.

Resolution order (the first that applies decides the registry):

1. an explicit release (``torchLogs.torchVersion`` setting, ``--torch-version``);
2. a pin comment in the checked file: ``# torch-logs: torch=2.4`` (in any host's comment
   syntax), found by the caller (:func:`torch_logs_lsp.hosts.comments.pin_comment`, which
   knows the hosts' comment markers) and passed in as a :class:`Pin`;
3. the torch installed for an interpreter: the explicit one (``torchLogs.python``,
   ``--python``) only, else ``.venv``/``venv`` in the workspace, then ``python3`` on
   ``PATH``; its ``torch/_logging/_registrations.py`` is read statically
   (:mod:`.torch_reader`), giving the exact registry of that build;
4. the newest packaged release.

Module names are resolved in the interpreter's environment found in step 3 (even when 1 or
2 chose the release); a found (not named) interpreter counts only when it has torch, since
an environment without torch is not the one the value is used with. An explicit
interpreter makes verdicts certain (errors); a found one makes them guesses (warnings).
Results are cached per interpreter and re-read when the interpreter, its site directories
or its torch change (modification times).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import sysconfig
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import NamedTuple

from torch_logs_lsp.knowledge.registry import (
    DEFAULT_RELEASE,
    Registry,
    load_registry,
    registry_from_facts,
    releases,
)
from torch_logs_lsp.knowledge.versions import nearest_release, parse_release
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.torch_env.environment import (
    PythonEnv,
    find_env,
    static_env,
    workspace_interpreters,
)
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.torch_env.reader import REGISTRATIONS, read_torch

log = logging.getLogger(__name__)


class Pin(NamedTuple):
    """A pin comment of a document (``# torch-logs: torch=2.4``): ``start``/``end`` its
    range (code points, from the comment marker to the end of the release as written),
    ``release`` the release it names (``"2.4"``), ``None`` when it names none like ``2.13``
    (``torch=abc``: ignored)."""

    start: int
    end: int
    release: str | None


@dataclass(frozen=True)
class TorchContext:
    """The user's torch as far as we know it.

    ``registry``: names to check against. ``finder``: module resolution. ``how``: where
    the release came from, for messages (``"pin comment (torch=2.4)"``). ``env``: the
    interpreter's environment, if one was found. ``certain``: the interpreter was named
    explicitly. ``notes``: warnings worth showing (a pin to an unpackaged release, a
    ``_registrations.py`` we could not fully read). ``pin``: the document's pin comment,
    as given to :meth:`TorchResolver.context`. ``guessed``: nothing named the release (no
    torch found, no pin, no configured release): ``registry`` is the newest packaged one.
    """

    registry: Registry
    finder: ModuleFinder
    how: str
    env: PythonEnv | None
    certain: bool
    notes: tuple[str, ...] = ()
    pin: Pin | None = None
    guessed: bool = False


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _env_key(python: str, env: PythonEnv | None) -> tuple[int, ...]:
    dirs = [python, os.path.join(os.path.dirname(os.path.dirname(python)), "pyvenv.cfg")]
    if env is not None:
        dirs += list(env.site_packages)
    return tuple(_mtime(d) for d in dirs)


def _torch_key(torch_dir: str) -> tuple[int, int]:
    return _mtime(os.path.join(torch_dir, "version.py")), _mtime(
        os.path.join(torch_dir, REGISTRATIONS)
    )


def packaged_torch_modules() -> tuple[str, list[str]]:
    """The packaged torch module list: ``(release, names)`` (``data/torch-modules-*.json``,
    generated from the installed torch 2.13.0; see ``data/README.md``)."""
    path = resources.files("torch_logs_lsp.knowledge") / "data" / "torch-modules-2.13.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data["release"]), [str(n) for n in data["modules"]]


_PREFETCHED: dict[str, Future[PythonEnv | None]] = {}


def prefetch(python: str | None) -> None:
    """Start finding ``python``'s environment in a thread: asking an interpreter takes
    ~100 ms, mostly waiting for its process, and the server's own start-up can hide that.
    The first :meth:`TorchResolver.env` for ``python`` (in any resolver) takes the answer.
    Only for an interpreter that may be run (``python3`` on PATH, a configured one)."""
    if not python or python in _PREFETCHED:
        return
    future: Future[PythonEnv | None] = Future()

    def run() -> None:
        try:
            future.set_result(find_env(python))
        except BaseException as exc:  # handed to the caller of env()
            future.set_exception(exc)

    _PREFETCHED[python] = future
    threading.Thread(target=run, name="torch-logs-prefetch", daemon=True).start()


def path_python() -> str | None:
    """``python3`` (else ``python``) on PATH, the last interpreter of the resolution order."""
    return shutil.which("python3") or shutil.which("python")


class TorchResolver:
    """Finds and caches the user's torch. One per server / CLI run. :meth:`context` may be
    called from several threads (the server resolves the workspace's torch in the
    background after the handshake): one call resolves at a time, so a caller that comes
    while another resolves waits for it and finds its caches filled."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._envs: dict[str, tuple[tuple[int, ...], PythonEnv | None]] = {}
        self._torch: dict[str, tuple[tuple[int, int], Registry, tuple[str, ...]]] = {}
        self._finders: dict[tuple[str, ...], ModuleFinder] = {}
        self._fallback: ModuleFinder | None = None

    # -- cached pieces -----------------------------------------------------------------
    def env(self, python: str, may_run: bool = True) -> PythonEnv | None:
        """The environment of ``python`` (cached; re-found when its mtimes change).

        ``may_run=False`` (an interpreter found inside the workspace) reads the
        environment only statically (``pyvenv.cfg`` and the directory layout): a binary
        from the workspace is never executed.
        """
        cached = self._envs.get(python)
        if cached is not None and cached[0] == _env_key(python, cached[1]):
            return cached[1]
        prefetched = _PREFETCHED.pop(python, None)
        if prefetched is not None and may_run and cached is None:
            env = prefetched.result()
        else:
            env = find_env(python) if may_run else static_env(python)
        self._envs[python] = (_env_key(python, env), env)
        return env

    def torch_registry(self, torch_dir: str) -> tuple[Registry, tuple[str, ...]]:
        """Registry of an installed torch, read statically (cached per mtime), and notes.

        Any shape the reader could not follow, and any exception while reading or
        building the registry (a hostile ``_registrations.py``: ``RecursionError``,
        ``MemoryError``, ...), makes it fall back to the nearest packaged release, with a
        logged warning and the reason in the notes: a partial registry would give wrong
        verdicts. Never raises (but ``KeyboardInterrupt``).
        """
        key = _torch_key(torch_dir)
        cached = self._torch.get(torch_dir)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        source = os.path.join(torch_dir, REGISTRATIONS)
        release = DEFAULT_RELEASE
        problems: list[str] = []
        registry: Registry | None = None
        try:
            result = read_torch(torch_dir)
            release = parse_release(result.version or "") or DEFAULT_RELEASE
            problems = result.problems
            if not problems:
                registry = registry_from_facts(
                    release, result.facts(), result.descriptions, source, result.version or ""
                )
        except Exception as exc:  # whatever the file does to the reader: fall back
            problems = [f"reader failed: {type(exc).__name__}"]
        notes: tuple[str, ...] = ()
        if registry is None:
            nearest = nearest_release(release)
            note = (
                f"{source}: could not read every registration ({'; '.join(problems[:3])})"
                f"; using the packaged registry of torch {nearest}"
            )
            log.warning(note)
            registry = load_registry(nearest)
            notes = (note,)
        self._torch[torch_dir] = (key, registry, notes)
        return registry, notes

    def finder(self, env: PythonEnv | None, workspace: str | None, certain: bool) -> ModuleFinder:
        """A module finder over the environment's search path, with the workspace folder
        as a candidate for the script's directory (``sys.path[0]``; a document adds its
        own with :meth:`.ModuleFinder.with_first`); without an environment, a partial one:
        our own standard library and the packaged torch module list."""
        if env is None:
            if self._fallback is None:
                _, known = packaged_torch_modules()
                paths = [sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")]
                self._fallback = ModuleFinder(
                    [p for p in paths if p],
                    complete=False,
                    stdlib_names=sys.stdlib_module_names,
                    known=known,
                    description="no Python environment found",
                )
            return self._fallback
        paths = env.search_path()
        first = [workspace] if workspace else []
        key = (env.python, str(certain), *first, "", *paths)
        finder = self._finders.get(key)
        if finder is None:
            finder = ModuleFinder(
                paths,
                complete=True,
                certain=certain and not env.pth_imports_editable(),
                builtins=env.builtins,
                description=env.python,
                first=first,
            )
            self._finders[key] = finder
        return finder

    # -- the resolution order ------------------------------------------------------------
    def interpreters(self, python: str | None, workspace: str | None) -> list[tuple[str, bool]]:
        """Candidate interpreters in order (explicit one alone when given), each with
        whether it may be run (asked for its search path): the configured interpreter and
        ``python3`` on PATH may; a ``.venv``/``venv`` found in the workspace may not."""
        if python:
            return [(python, True)]
        out = [(p, False) for p in workspace_interpreters(workspace)] if workspace else []
        on_path = path_python()
        if on_path:
            out.append((on_path, True))
        return out

    def context(
        self,
        *,
        torch_version: str | None = None,
        pin: Pin | None = None,
        python: str | None = None,
        workspace: str | None = None,
    ) -> TorchContext:
        """The torch context for one file whose pin comment is ``pin`` (``None``: it has
        none)."""
        with self._lock:
            return self._context(torch_version, pin, python, workspace)

    def _context(
        self, torch_version: str | None, pin: Pin | None, python: str | None, workspace: str | None
    ) -> TorchContext:
        certain = bool(python)
        env: PythonEnv | None = None
        torch_dir: str | None = None
        for candidate, may_run in self.interpreters(python, workspace):
            found = self.env(candidate, may_run)
            if found is None:
                continue
            if python:  # the named interpreter, with or without torch
                env = found
            torch_dir = found.torch_dir()
            if torch_dir:  # a found interpreter counts only if it has torch
                env = found
                break
        if python and env is None:
            log.warning("interpreter %s not found or not usable", python)
        finder = self.finder(env, workspace, certain)
        wanted = torch_version if torch_version and torch_version != "auto" else None
        how = ""
        if wanted is None:
            wanted = pin.release if pin else None
            how = f"pin comment (torch={wanted})" if wanted else ""
        else:
            how = f"configured release {wanted}"
        if wanted is not None:
            nearest = nearest_release(wanted)
            notes: tuple[str, ...] = ()
            if nearest != wanted:
                notes = (unpackaged_note(wanted, nearest),)
                how = f"{how}: not packaged, using torch {nearest}"
            registry = load_registry(nearest)
            return TorchContext(registry, finder, how, env, certain, notes, pin)
        if env is not None and torch_dir is not None:
            registry, notes = self.torch_registry(torch_dir)
            how = f"torch {registry.version or registry.release} of {env.python}"
            return TorchContext(registry, finder, how, env, certain, notes, pin)
        how = f"newest packaged release {DEFAULT_RELEASE} (no torch found)"
        registry = load_registry(DEFAULT_RELEASE)
        return TorchContext(registry, finder, how, env, certain, (), pin, guessed=True)


def unpackaged_note(wanted: str, used: str) -> str:
    """The notice for a release asked for (setting, ``--torch-version``, pin comment) that
    is not packaged: which packaged release is used instead (:func:`.versions.
    nearest_release`) and which are packaged."""
    return f"torch {wanted} is not packaged; using {used} ({releases()[0]}-{releases()[-1]} are)"


#: The code of :func:`pin_diagnostics`.
UNPACKAGED_PIN = "TL902"


def pin_diagnostics(text: str, context: TorchContext) -> list[Diagnostic]:
    """A hint on the pin comment of the document ``text`` (``context.pin``, found in it:
    ``# torch-logs: torch=3.0``) when that pin chose ``context``'s release and names a
    release that is not packaged (the packaged one used instead is named), or when it names
    no release at all (``torch=abc``, ``torch=2``: ignored; what is used instead is named).
    Offsets: code points into ``text``, from the comment's marker to the end of the
    release. Empty otherwise (no pin, a setting that overrides it, a packaged release).
    Never raises."""
    pin = context.pin
    if pin is None:
        return []
    if pin.release is None:  # `torch=abc`, `torch=2`: not understood, so ignored
        message = (
            f"this pin names no release like `2.13`, so it is ignored: the names are "
            f"checked against {context.how}"
        )
        return [Diagnostic(UNPACKAGED_PIN, Severity.HINT, message, pin.start, pin.end)]
    if not context.how.startswith("pin comment"):
        return []
    used = context.registry.release
    if pin.release == used:
        return []
    message = unpackaged_note(pin.release, used)
    return [Diagnostic(UNPACKAGED_PIN, Severity.HINT, message, pin.start, pin.end)]


@cache
def fallback_finder() -> ModuleFinder:
    """The module finder used when no environment is known (shared, built once)."""
    return TorchResolver().finder(None, None, False)


__all__ = [
    "Pin",
    "TorchContext",
    "TorchResolver",
    "fallback_finder",
    "packaged_torch_modules",
    "pin_diagnostics",
    "unpackaged_note",
]
