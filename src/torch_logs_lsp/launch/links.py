"""Launch configurations that run a Python file with ``TORCH_LOGS`` set (``TL632``).

torch's ``set_logs`` returns at once when ``TORCH_LOGS`` is in ``os.environ``: it only
logs "Using TORCH_LOGS environment variable for log settings, ignoring call to set_logs"
(torch 2.13.0 ``torch/_logging/_internal.py`` line 492). A workspace folder's
``.vscode/launch.json`` can run a script with the variable set; this module finds those
links, only where they are certain, and words the hint on the script's ``set_logs``
calls. Nothing here imports or runs user code; files are read through
:func:`.files.read_text` (regular files only, under a cap) or the caller's reader (an
editor's open documents first).

What counts, as the Python debugger does it (microsoft/vscode-python-debugger
``resolvers/launch.ts``, ``helper.ts``, ``common/variables/environment.ts``; debugpy
``launcher/handlers.py`` and ``server/cli.py``):

- a configuration of ``type`` ``debugpy`` or ``python`` with ``request`` ``launch``,
  exactly one of ``program`` / ``module`` (debugpy rejects both; ``code`` runs no file),
  and no ``linux`` / ``osx`` / ``windows`` block that changes what is run or its
  environment (which block applies is the machine's business);
- ``program``: VS Code substitutes ``${workspaceFolder}`` (also ``${workspaceRoot}``,
  ``${workspaceFolder:NAME}`` when ``NAME`` is a known folder, ``${/}``,
  ``${pathSeparator}``); any other variable (``${file}``, ``${env:X}``, ...) makes the
  link uncertain: skipped. A relative path is taken from the configuration's ``cwd``
  (default: the workspace folder), since debugpy starts the launcher in ``cwd`` and
  runs ``runpy.run_path(program)`` there;
- ``module``: debugpy puts ``""`` (the ``cwd``) first on ``sys.path`` and runs the
  module; it is linked only when every package on the way is a regular package in
  ``cwd`` (``__init__.py``: a namespace portion could lose to a regular package later on
  the path), the module is a ``.py`` file there with no extension module or package of
  the same name beside it, and its top-level name is not a standard-library module (a
  built-in or frozen one is found before ``sys.path``). A package runs its
  ``__main__.py``;
- the environment: ``env`` wins over ``envFile`` (``mergeVariables(..., overwrite:
  true)``). ``env.TORCH_LOGS`` as a string sets it; ``null``, another type or a value
  with a VS Code variable is not certain; an empty value crashes ``import torch``
  already (``TL001`` on the value itself), so it gives no hint either. Without it, the
  ``envFile`` (a string; when there is none the extension uses the ``python.envFile``
  setting, whose documented default is ``${workspaceFolder}/.env``: "By default, the
  Python extension looks for and loads a file named .env in the current workspace
  folder" — code.visualstudio.com/docs/python/environments, and ``launch.ts``
  ``provideLaunchDefaults``) is read the way the debugger parses it: lines split at
  ``\\n``, ``^\\s*(_*[a-zA-Z]\\w*)\\s*=\\s*(.*?)?\\s*$``, one pair of surrounding quotes
  removed, the last ``TORCH_LOGS`` line wins. A value with ``${`` (substituted, maybe to
  nothing) is not certain. The default ``.env`` is used only when the folder's
  ``.vscode/settings.json`` does not set ``python.envFile`` (a setting we can resolve is
  used instead; an unreadable settings file: no default). A user-level
  ``python.envFile`` cannot be seen: that one case is the documented default assumed.
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from torch_logs_lsp.files import MAX_FILE_BYTES, read_text
from torch_logs_lsp.launch.config import (
    Member,
    env_file_line,
    launch_configurations,
    top_level,
)
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.host_kind import HostKind

log = logging.getLogger(__name__)

LINKED_CALL = "TL632"

#: Reads a file as text by absolute path: ``None`` when it is missing or not readable.
Reader = Callable[[str], "str | None"]

_TYPES = frozenset({"debugpy", "python"})
_PLATFORMS = ("linux", "osx", "windows")
_PLATFORM_KEYS = frozenset({"program", "module", "code", "cwd", "env", "envFile", "type"})
_PLATFORM_KEYS |= {"request"}
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


@dataclass(frozen=True)
class LaunchLink:
    """A launch configuration that runs the file with ``TORCH_LOGS`` set.

    ``config``: its ``name``; ``launch_path``: the launch.json; ``source_path``: the file
    whose line sets the variable (the launch.json for ``env``, else the env file);
    ``line``: that line, 0-based; ``start``/``end``: the ``TORCH_LOGS`` key there (code
    points into that file's text); ``via``: ``"env"``, ``"envFile"`` or
    ``"python.envFile"`` (the default ``.env``)."""

    config: str
    launch_path: str
    source_path: str
    line: int
    start: int
    end: int
    via: str


def read_file(path: str) -> str | None:
    """A workspace file's text from disk (:func:`.files.read_text`: regular files only,
    at most :data:`.files.MAX_FILE_BYTES`, undecodable bytes replaced); ``None`` when it
    cannot be read (the reason logged, except for a missing file)."""
    return read_text(path, "a launch-linked file", MAX_FILE_BYTES, errors="replace")


def _line_of(text: str, offset: int) -> int:
    """0-based line of a code point offset (lines end at ``\\n``, ``\\r\\n`` or ``\\r``)."""
    head = text[:offset]
    return head.count("\n") + head.count("\r") - head.count("\r\n")


def substitute(value: str, folder: str, folders: Mapping[str, str] | None = None) -> str | None:
    """``value`` with the VS Code variables we know replaced (``${workspaceFolder}``,
    ``${workspaceRoot}``, ``${workspaceFolder:NAME}`` for ``NAME`` in ``folders`` (name ->
    path), ``${/}``, ``${pathSeparator}``); ``None`` when it holds any other variable."""
    unknown = False

    def replace(m: re.Match[str]) -> str:
        nonlocal unknown
        name = m.group(1)
        if name in ("workspaceFolder", "workspaceRoot"):
            return folder
        if name in ("/", "pathSeparator"):
            return os.sep
        if name.startswith("workspaceFolder:") and folders is not None:
            path = folders.get(name.split(":", 1)[1])
            if path is not None:
                return path
        unknown = True
        return ""

    out = _VARIABLE.sub(replace, value)
    return None if unknown or "${" in out else out


def _string(config: Mapping[str, Member], key: str) -> str | None:
    member = config.get(key)
    return member.value if member is not None and isinstance(member.value, str) else None


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (symlinks resolved); only paths with the same base
    name are resolved (a launch.json of thousands of configurations stays cheap)."""
    if os.path.normcase(os.path.basename(a)) != os.path.normcase(os.path.basename(b)):
        return False
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _module_file(module: str, cwd: str) -> str | None:
    """The file debugpy runs for ``module`` from ``cwd`` when that is certain (see the
    module docstring), else ``None``."""
    parts = module.split(".")
    if not all(_IDENTIFIER.match(p) for p in parts) or parts[0] in sys.stdlib_module_names:
        return None
    init_names = [
        "__init__" + s
        for s in (
            *importlib.machinery.EXTENSION_SUFFIXES,
            *importlib.machinery.SOURCE_SUFFIXES,
            *importlib.machinery.BYTECODE_SUFFIXES,
        )
    ]
    directory = cwd
    for package in parts[:-1]:
        directory = os.path.join(directory, package)
        if not os.path.isfile(os.path.join(directory, "__init__.py")):
            return None
    last = os.path.join(directory, parts[-1])
    if os.path.isdir(last):
        if os.path.isfile(os.path.join(last, "__init__.py")):
            return os.path.join(last, "__main__.py")
        if any(os.path.exists(os.path.join(last, name)) for name in init_names):
            return None
    if any(os.path.exists(last + s) for s in importlib.machinery.EXTENSION_SUFFIXES):
        return None
    return last + ".py" if os.path.isfile(last + ".py") else None


def _target(
    config: Mapping[str, Member], folder: str, folders: Mapping[str, str] | None
) -> str | None:
    """The file a configuration certainly runs, else ``None``."""
    if _string(config, "type") not in _TYPES or _string(config, "request") != "launch":
        return None
    for platform in _PLATFORMS:
        block = config.get(platform)
        if block is not None and (
            not isinstance(block.value, dict) or _PLATFORM_KEYS & block.value.keys()
        ):
            return None
    if sum(key in config for key in ("program", "module", "code")) != 1:
        return None
    cwd: str | None = folder
    if "cwd" in config:
        raw = _string(config, "cwd")
        cwd = substitute(raw, folder, folders) if raw is not None else None
        if cwd is not None and not os.path.isabs(cwd):
            cwd = None  # relative to what the debug adapter runs in: not knowable here
    if "program" in config:
        raw = _string(config, "program")
        program = substitute(raw, folder, folders) if raw else None
        if program is None or program.startswith("~"):
            return None
        if not os.path.isabs(program):
            if cwd is None:
                return None
            program = os.path.join(cwd, program)
        return os.path.normpath(program)
    module = _string(config, "module")
    if module is None or cwd is None:
        return None
    return _module_file(module, cwd)


def _default_env_file(
    folder: str, folders: Mapping[str, str] | None, read: Reader
) -> tuple[str, str] | None:
    """The env file a configuration without ``envFile`` loads: ``python.envFile`` of the
    folder's ``.vscode/settings.json`` when it resolves, else the documented default
    ``${workspaceFolder}/.env``; ``None`` when the settings cannot be read with certainty."""
    settings_text = read(os.path.join(folder, ".vscode", "settings.json"))
    setting = "${workspaceFolder}/.env"
    if settings_text is not None:
        settings = top_level(settings_text)
        if settings is None:
            return None
        member = settings.get("python.envFile")
        if member is not None:
            if not isinstance(member.value, str):
                return None
            setting = member.value
    path = substitute(setting, folder, folders)
    return (os.path.normpath(path), "python.envFile") if path and os.path.isabs(path) else None


def launch_links(
    file: str,
    folder: str,
    read: Reader = read_file,
    folders: Mapping[str, str] | None = None,
) -> list[LaunchLink]:
    """The configurations of ``folder``'s ``.vscode/launch.json`` that certainly run the
    Python file ``file`` (an absolute path) with a non-empty ``TORCH_LOGS`` (rules in the
    module docstring), in the order of the launch.json. ``read`` gives a file's text by
    absolute path (an editor passes its open documents first); ``folders`` maps workspace
    folder names to paths for ``${workspaceFolder:NAME}``. A launch.json that is missing
    or cannot be read with certainty gives ``[]``. Never raises."""
    launch_path = os.path.join(folder, ".vscode", "launch.json")
    text = read(launch_path)
    if text is None:
        return []
    configs = launch_configurations(text) or []
    out: list[LaunchLink] = []
    env_files: dict[str, str | None] = {}
    for config in configs:
        try:
            target = _target(config, folder, folders)
        except (OSError, ValueError):
            target = None
        if target is None or not _same_file(target, file):
            continue
        name = _string(config, "name") or "(no name)"
        env = config.get("env")
        if env is not None and not isinstance(env.value, dict):
            continue  # not an object: what VS Code passes is not certain
        entry = (
            env.value.get("TORCH_LOGS") if env is not None and isinstance(env.value, dict) else None
        )
        if entry is not None:
            v = entry.value
            if isinstance(v, str) and v and substitute(v, folder, folders) == v:
                line = _line_of(text, entry.key_start)
                out.append(
                    LaunchLink(
                        name, launch_path, launch_path, line, entry.key_start, entry.key_end, "env"
                    )
                )
            continue  # env wins over envFile, whatever it holds
        env_file = config.get("envFile")
        if env_file is not None and isinstance(env_file.value, str):
            path = substitute(env_file.value, folder, folders)
            if not path or not os.path.isabs(path):
                continue
            source: tuple[str, str] | None = (os.path.normpath(path), "envFile")
        else:
            source = _default_env_file(folder, folders, read)
        if source is None:
            continue
        env_path, via = source
        if env_path not in env_files:
            env_files[env_path] = read(env_path)
        env_text = env_files[env_path]
        where = env_file_line(env_text) if env_text is not None else None
        if where is not None:
            out.append(LaunchLink(name, launch_path, env_path, *where, via))
    return out


def _shown(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` when inside it, else as it is."""
    try:
        rel = os.path.relpath(path, folder)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def link_message(links: list[LaunchLink], folder: str) -> str:
    """The ``TL632`` message for a call of a file run by ``links`` (at least one): the
    first link named, the number of the others."""
    first = links[0]
    source = _shown(first.source_path, folder)
    if first.via == "env":
        where = f"{source} line {first.line + 1} sets TORCH_LOGS"
    elif first.via == "envFile":
        where = f"its envFile {source} sets TORCH_LOGS on line {first.line + 1}"
    else:
        where = (
            f"the Python debugger's default envFile {source} sets TORCH_LOGS on line "
            f"{first.line + 1}"
        )
    msg = f'set_logs(...) is ignored when run with launch configuration "{first.config}" ({where})'
    others = len(links) - 1
    if others:
        msg += f" and {others} other configuration{'s' if others > 1 else ''}"
    return (
        msg + '; torch only logs "Using TORCH_LOGS environment variable for log settings, '
        'ignoring call to set_logs"'
    )


def link_diagnostics(
    calls: list[tuple[int, int]], links: list[LaunchLink], folder: str
) -> list[Diagnostic]:
    """One ``TL632`` (information) over each call ``[start, end)`` (document offsets)
    when ``links`` is not empty (paths in the message relative to ``folder``). The
    call's other diagnostics stay: the file may also be run another way."""
    if not links or not calls:
        return []
    msg = link_message(links, folder)
    return [Diagnostic(LINKED_CALL, Severity.INFORMATION, msg, s, e) for s, e in calls]


def call_hints(
    file: str,
    text: str,
    roots: Sequence[str],
    read: Reader = read_file,
    folders: Mapping[str, str] | None = None,
    host: HostKind = "python",
) -> tuple[list[Diagnostic], list[LaunchLink]]:
    """``TL632`` for the ``set_logs(...)`` calls of the Python document ``text`` (the file
    ``file``, an absolute path) when a launch configuration of any workspace folder
    (``roots``: absolute paths, searched in order; ``folders``: their names for
    ``${workspaceFolder:NAME}``, when known) certainly runs it with
    ``TORCH_LOGS`` set; also the links found (for related information). Offsets are
    code points into ``text``. ``host``: the document's host kind (its
    ``set_logs_calls``; only Python documents have any). Costs nothing for a document
    without ``set_logs`` calls (the launch.json is not read). Never raises."""
    from torch_logs_lsp import hosts

    module = hosts.set_logs_host(host)
    try:
        calls = [(c.start, c.end) for c in module.set_logs_calls(text)] if module else []
    except Exception:
        log.exception("finding the set_logs calls of %s failed", file)
        return [], []
    if not calls:
        return [], []
    links: list[LaunchLink] = []
    first_folder = ""
    for path in dict.fromkeys(roots):
        try:
            found = launch_links(file, path, read, folders)
        except Exception:  # a bug must not take the caller down
            log.exception("linking %s to the launch configurations of %s failed", file, path)
            continue
        if found and not links:
            first_folder = path
        links += found
    return link_diagnostics(calls, links, first_folder), links


__all__ = [
    "LINKED_CALL",
    "LaunchLink",
    "Reader",
    "call_hints",
    "launch_links",
    "link_diagnostics",
    "link_message",
    "read_file",
    "substitute",
]
