"""Find a Python environment's search path and its torch without running workspace code.

Two ways, in this order:

1. Statically, for a virtual environment (PEP 405): ``pyvenv.cfg`` next to the
   interpreter's directory gives ``home`` (the base interpreter's directory) and the
   Python version; site-packages is ``lib/python3.X/site-packages`` (POSIX) or
   ``Lib/site-packages`` (Windows); the standard library is ``lib/python3.X`` (and
   ``lib-dynload``) under ``home``'s parent, or ``Lib``/``DLLs`` under ``home`` on Windows.
2. Otherwise the interpreter is asked once, isolated: ``python -I -S -c`` :data:`ASK`.
   ``-I`` ignores ``PYTHON*`` variables, the user site and the current directory; ``-S``
   skips ``site.main()``, so no ``.pth`` file and no ``sitecustomize``/``usercustomize``
   runs; the one-liner imports only ``sys``, ``site`` (its functions, not ``main``) and
   ``json`` from the standard library. It runs in the temporary directory, with a 10 s
   timeout, and at most 1 MiB of its output is read (more, or no exit in time: killed,
   not used, the reason logged).

``.pth`` files in each site-packages directory are read as ``site`` would (sorted, one
path per line, relative to the directory, existing directories only), but lines starting
with ``import`` are never executed: they are recorded in :attr:`PythonEnv.pth_imports`
(editable installs use them; modules they provide cannot be seen statically).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from torch_logs_lsp.files import read_text

log = logging.getLogger(__name__)

#: The fixed program run as ``python -I -S -c ASK`` when an interpreter must be asked.
ASK = (
    "import sys,site,json;print(json.dumps({"
    "'version':'%d.%d'%sys.version_info[:2],'path':sys.path,"
    "'site':site.getsitepackages([sys.prefix,sys.exec_prefix]),"
    "'builtins':list(sys.builtin_module_names)}))"
)
ASK_TIMEOUT_S = 10.0

#: Most bytes of an asked interpreter's output read (a real answer is ~0.6 KB: ``sys.path``,
#: site directories and built-in module names).
ASK_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class PythonEnv:
    """An interpreter's module search path, found without importing from it.

    ``python``: the interpreter path as given. ``version``: ``"3.11"`` (``""`` unknown).
    ``stdlib``: standard-library directories; ``site_packages``: site directories in
    ``site`` order; ``pth_paths``: directories added by ``.pth`` path lines;
    ``pth_imports``: ``.pth`` files with ``import`` lines (not executed).
    ``how``: ``"pyvenv.cfg"`` or ``"asked"``. ``builtins``: built-in module names
    (from the interpreter when asked, else those of the running Python).
    """

    python: str
    version: str
    stdlib: tuple[str, ...]
    site_packages: tuple[str, ...]
    pth_paths: tuple[str, ...]
    pth_imports: tuple[str, ...]
    how: str
    builtins: tuple[str, ...] = tuple(sys.builtin_module_names)

    def search_path(self) -> list[str]:
        """``sys.path`` of a script run by this interpreter, minus the script's directory:
        the standard library, then each site directory followed by its ``.pth`` paths."""
        return [*self.stdlib, *self.site_packages, *self.pth_paths]

    def pth_imports_editable(self) -> bool:
        """Whether a ``.pth`` import line installs an editable-install finder
        (``__editable__*``): modules it provides are invisible to a static search."""
        return any("__editable__" in os.path.basename(p) for p in self.pth_imports)

    def torch_dir(self) -> str | None:
        """The ``torch`` package directory ``import torch`` would use, if any."""
        for entry in self.search_path():
            candidate = os.path.join(entry, "torch")
            if os.path.isfile(os.path.join(candidate, "__init__.py")):
                return candidate
        return None


def _read_cfg(path: str) -> dict[str, str]:
    """The ``key = value`` lines of a ``pyvenv.cfg`` (keys lower-cased); ``{}`` when it is
    not a readable regular UTF-8 file of at most :data:`.files.MAX_ENV_FILE_BYTES` (1 MiB;
    the reason logged)."""
    out: dict[str, str] = {}
    text = read_text(path, "pyvenv.cfg")
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def venv_root(python: str) -> str | None:
    """The directory holding ``pyvenv.cfg`` for an interpreter path (PEP 405: the
    executable's directory or its parent), or ``None``. Symlinks are not followed: a
    venv's ``bin/python`` usually links to the base interpreter. A ``pyvenv.cfg`` that is
    not a regular file (a FIFO, a link to ``/dev/zero``) still marks a venv: such an
    interpreter would block or fail reading it at start-up, so it is never asked, and
    :func:`static_env` reads what it can without the file."""
    here = os.path.dirname(os.path.abspath(python))
    for root in (here, os.path.dirname(here)):
        cfg = os.path.join(root, "pyvenv.cfg")
        if os.path.exists(cfg) and not os.path.isdir(cfg):
            return root
    return None


def read_pth(site_dir: str) -> tuple[list[str], list[str]]:
    """Directories that the ``.pth`` files of ``site_dir`` add, and the ``.pth`` files
    holding ``import`` lines (which ``site`` would execute; we never do). A ``.pth`` that
    is not a regular file of at most :data:`.files.MAX_ENV_FILE_BYTES` (1 MiB) (a FIFO, a link to
    ``/dev/zero``) is skipped with a logged warning; never raises."""
    paths: list[str] = []
    imports: list[str] = []
    try:
        names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth"))
    except OSError:
        return paths, imports
    for name in names:
        file = os.path.join(site_dir, name)
        text = read_text(file, "a .pth file", errors="replace")
        if text is None:
            continue
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith(("import ", "import\t")):
                imports.append(file)
                continue
            directory = os.path.normpath(os.path.join(site_dir, line.rstrip()))
            if os.path.isdir(directory) and directory not in paths:
                paths.append(directory)
    return paths, list(dict.fromkeys(imports))


def _with_pth(
    python: str, version: str, stdlib: list[str], sites: list[str], how: str, builtins: list[str]
) -> PythonEnv:
    existing = [s for s in dict.fromkeys(sites) if os.path.isdir(s)]
    pth_paths: list[str] = []
    pth_imports: list[str] = []
    for site_dir in existing:
        p, i = read_pth(site_dir)
        pth_paths += [x for x in p if x not in pth_paths]
        pth_imports += i
    return PythonEnv(
        python,
        version,
        tuple(s for s in dict.fromkeys(stdlib) if os.path.isdir(s)),
        tuple(existing),
        tuple(pth_paths),
        tuple(pth_imports),
        how,
        tuple(builtins),
    )


def static_env(python: str) -> PythonEnv | None:
    """The environment of a venv interpreter from ``pyvenv.cfg`` and directory listings
    alone; ``None`` when ``python`` is not in a venv."""
    root = venv_root(python)
    if root is None:
        return None
    cfg = _read_cfg(os.path.join(root, "pyvenv.cfg"))
    version = ".".join(cfg.get("version_info", cfg.get("version", "")).split(".")[:2])
    if not version:
        found = sorted(glob.glob(os.path.join(root, "lib", "python3.*", "site-packages")))
        version = os.path.basename(os.path.dirname(found[-1]))[6:] if found else ""
    sites = [os.path.join(root, "Lib", "site-packages")]
    if version:
        sites.insert(0, os.path.join(root, "lib", f"python{version}", "site-packages"))
    stdlib: list[str] = []
    home = cfg.get("home", "")
    base_sites: list[str] = []
    if home:
        base = os.path.dirname(home.rstrip("/\\"))
        if version:
            lib = os.path.join(base, "lib", f"python{version}")
            stdlib += [lib, os.path.join(lib, "lib-dynload")]
            base_sites += [
                os.path.join(lib, "site-packages"),
                os.path.join(base, "local", "lib", f"python{version}", "dist-packages"),
                os.path.join(base, "lib", "python3", "dist-packages"),
            ]
        stdlib += [os.path.join(home, "Lib"), os.path.join(home, "DLLs")]
        base_sites.append(os.path.join(home, "Lib", "site-packages"))
    if cfg.get("include-system-site-packages", "false").lower() == "true":
        sites += base_sites
    return _with_pth(python, version, stdlib, sites, "pyvenv.cfg", list(sys.builtin_module_names))


class _AskFailed(Exception):
    """The asked interpreter gave no usable answer; the message says why."""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and, on POSIX, its process group (it runs in a session of its own, so
    a child it started does not keep the pipe open)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, 9)
        else:  # pragma: no cover - Windows
            proc.kill()
    except OSError:
        pass


def _run_capped(argv: list[str], timeout: float, max_bytes: int) -> bytes:
    """Run ``argv`` (stdin and stderr closed) in the temporary directory and return its
    standard output once it exits. The output is read incrementally by a thread: more
    than ``max_bytes`` bytes, or no exit within ``timeout`` seconds, kills the process and
    raises :class:`_AskFailed` ("wrote more than 1048576 bytes", "no answer within 10
    s"); ``OSError`` when it cannot be started."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tempfile.gettempdir(),
        start_new_session=os.name == "posix",
    )
    assert proc.stdout is not None
    stdout = proc.stdout
    fd = stdout.fileno()
    chunks: list[bytes] = []

    def read() -> None:
        total = 0
        while total <= max_bytes:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # closed after a timeout
                return
            if not chunk:
                return
            chunks.append(chunk)
            total += len(chunk)

    deadline = time.monotonic() + timeout
    reader = threading.Thread(target=read, name="ask-python-output", daemon=True)
    reader.start()
    reader.join(timeout)
    try:
        if sum(map(len, chunks)) > max_bytes:
            raise _AskFailed(f"wrote more than {max_bytes} bytes")
        if reader.is_alive():
            raise _AskFailed(f"no answer within {timeout:g} s")
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise _AskFailed(f"did not exit within {timeout:g} s") from None
    finally:
        if proc.returncode is None:
            _kill(proc)
            proc.wait()
        reader.join(1.0)
        if not reader.is_alive():  # else a process that left the group still holds the
            stdout.close()  # pipe: the reader ends at its EOF, its fd is not reused
    return b"".join(chunks)


def asked_env(python: str) -> PythonEnv | None:
    """Ask the interpreter once, isolated (``-I -S``, see the module docstring). At most
    :data:`ASK_MAX_BYTES` of its output are read and it gets :data:`ASK_TIMEOUT_S`
    seconds: an interpreter that writes endlessly (``cat /dev/zero``) or never exits is
    killed. ``None`` when it gives no usable answer, the reason logged (WARNING)."""
    try:
        out = _run_capped([python, "-I", "-S", "-c", ASK], ASK_TIMEOUT_S, ASK_MAX_BYTES)
        data = json.loads(out.decode("utf-8"))
        path = [str(p) for p in data["path"] if p]
        sites = [str(s) for s in data["site"]]
        version = str(data["version"])
        builtins = [str(b) for b in data["builtins"]]
    except (OSError, _AskFailed, ValueError, KeyError, TypeError) as exc:
        log.warning("cannot ask %s for its search path: %s", python, exc)
        return None
    return _with_pth(python, version, path, sites, "asked", builtins)


def find_env(python: str) -> PythonEnv | None:
    """The environment of an interpreter: statically for a venv, else by asking it."""
    if not os.path.exists(python):
        return None
    return static_env(python) or asked_env(python)


def workspace_interpreters(root: str) -> list[str]:
    """Interpreters of ``.venv`` / ``venv`` in a workspace folder, in that order."""
    out = []
    for name in (".venv", "venv"):
        for rel in (("bin", "python"), ("Scripts", "python.exe")):
            candidate = os.path.join(root, name, *rel)
            if os.path.exists(candidate):
                out.append(candidate)
                break
    return out


def interpreter_path(value: str, workspace_root: str | None) -> str:
    """An interpreter the user named (the server's ``python`` setting, the CLI's
    ``--python``) as a file path: trimmed, a leading ``~`` expanded (editors pass it
    without a shell), a bare name looked up on PATH as a shell would, a relative path
    (``./py3``) taken from ``workspace_root`` or, when it is ``None``, from the current
    directory as a shell does. A path found is absolute: the interpreter is asked from
    another directory (:func:`asked_env` runs it in the temporary directory), where
    ``./py3`` would name another file. Never raises; the result may not exist (the
    caller says so)."""
    python = value.strip()
    if not python:
        return python
    if python.startswith("~"):
        python = os.path.expanduser(python)
    if os.sep not in python and "/" not in python:
        found = shutil.which(python)  # relative when PATH has "." or "bin"
        return os.path.abspath(found) if found else python
    if not os.path.isabs(python):
        python = os.path.join(workspace_root, python) if workspace_root else os.path.abspath(python)
    return python


__all__ = [
    "ASK",
    "PythonEnv",
    "asked_env",
    "find_env",
    "interpreter_path",
    "read_pth",
    "static_env",
    "venv_root",
    "workspace_interpreters",
]
