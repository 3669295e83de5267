"""Where torch registers each TORCH_LOGS name: the ``register_log(...)`` /
``register_artifact(...)`` call of ``torch/_logging/_registrations.py``, read with
:mod:`ast` (never imported), or the same calls in a read-only text written from the
packaged registry of a release (:func:`packaged_registrations`) when no torch of that
release is installed.

Positions are :class:`Site`: 0-based lines and code-point columns of the file's text, lines
ending at ``\\n``, ``\\r\\n`` or ``\\r`` as an editor shows them; the server turns them into
LSP positions.
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from torch_logs_lsp.files import MAX_REGISTRATIONS_BYTES, SkippedFile, read_regular
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.knowledge.versions import parse_release
from torch_logs_lsp.torch_env.context import TorchContext
from torch_logs_lsp.torch_env.reader import REGISTRATIONS, read_version

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Site:
    """A range of one file: ``path`` (absolute; ``""`` for the packaged registry's text),
    ``line``/``column`` to ``end_line``/``end_column`` (0-based lines, code points into
    the line). ``line_text``/``end_text``: the text of those lines when they are not
    ASCII (``""``: ASCII, where code points are also UTF-8 and UTF-16 units)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    line_text: str = ""
    end_text: str = ""


@dataclass(frozen=True)
class Registration:
    """One name's registration: ``kind`` (``"component"`` for ``register_log``,
    ``"artifact"`` for ``register_artifact``), ``call`` the whole call, ``name`` the
    string literal naming it (quotes included)."""

    kind: Literal["component", "artifact"]
    call: Site
    name: Site


class Lines:
    """A source text's lines (split as an editor splits them), to make :class:`Site`
    from :mod:`ast` positions (1-based lines, UTF-8 byte columns)."""

    def __init__(self, text: str) -> None:
        self.lines = _LINE_END.split(text)

    def column(self, line: int, byte_column: int) -> int:
        """Code points of 0-based ``line`` before UTF-8 byte ``byte_column``."""
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        if text.isascii():
            return byte_column
        return len(text.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "replace"))

    def text_of(self, line: int) -> str:
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        return "" if text.isascii() else text

    def site(self, path: str, node: ast.AST) -> Site | None:
        """The :class:`Site` of an ast node with positions (``None`` without them)."""
        lineno = getattr(node, "lineno", None)
        end_lineno = getattr(node, "end_lineno", None)
        col = getattr(node, "col_offset", None)
        end_col = getattr(node, "end_col_offset", None)
        if lineno is None or end_lineno is None or col is None or end_col is None:
            return None
        line, end_line = lineno - 1, end_lineno - 1
        return Site(
            path,
            line,
            self.column(line, col),
            end_line,
            self.column(end_line, end_col),
            self.text_of(line),
            self.text_of(end_line),
        )


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def registrations_in(source: str, path: str = "") -> dict[str, Registration]:
    """The module-level ``register_log(name, ...)`` and ``register_artifact(name, ...)``
    calls of a ``_registrations.py`` text whose name is a string literal (positional or
    ``setting_name=``), by name; the first call of a name wins (torch raises on a second
    one). Never raises: a text that does not parse gives ``{}``."""
    try:
        tree = ast.parse(source)
    except Exception:  # SyntaxError, ValueError, MemoryError, RecursionError
        return {}
    lines = Lines(source)
    out: dict[str, Registration] = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        call = stmt.value
        fn = _call_name(call.func)
        if fn not in ("register_log", "register_artifact"):
            continue
        node: ast.expr | None = call.args[0] if call.args else None
        for kw in call.keywords:
            if kw.arg == "setting_name":
                node = kw.value
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        call_site, name_site = lines.site(path, call), lines.site(path, node)
        if call_site is None or name_site is None or node.value in out:
            continue
        kind: Literal["component", "artifact"] = "component" if fn == "register_log" else "artifact"
        out[node.value] = Registration(kind, call_site, name_site)
    return out


_INSTALLED: dict[str, tuple[tuple[int, int], dict[str, Registration]]] = {}


def installed_registrations(torch_dir: str) -> dict[str, Registration]:
    """:func:`registrations_in` the ``_registrations.py`` of the torch package in
    ``torch_dir``, cached per path and modification time; ``{}`` when it is not a regular
    UTF-8 file of at most :data:`.files.MAX_REGISTRATIONS_BYTES`."""
    path = os.path.join(torch_dir, REGISTRATIONS)
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size)
    cached = _INSTALLED.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        source = read_regular(path, MAX_REGISTRATIONS_BYTES).decode("utf-8")
    except (SkippedFile, UnicodeDecodeError):
        return {}
    found = registrations_in(source, os.path.abspath(path))
    _INSTALLED[path] = (key, found)
    return found


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@cache
def packaged_text(release: str) -> str:
    """A read-only Python text of the packaged registry of ``release`` (``"2.15"``): one
    ``register_log(name, [logger names])`` per component, then one
    ``register_artifact(name, ...)`` per artifact with its flags, each after a comment
    with our description. Raises ``KeyError`` for a release that is not packaged."""
    registry = load_registry(release)
    out = [
        f"# The TORCH_LOGS names of torch {registry.release}, as its",
        "# torch/_logging/_registrations.py registers them. No torch of this release was",
        "# found, so torch-logs-lsp wrote this from its packaged registry: names, logger",
        "# names and flags are torch's; the comments are torch-logs-lsp's. Read-only.",
        "",
        "# Logs (components): the loggers each name sets the level of.",
    ]
    for comp in registry.components.values():
        description = registry.description(comp.name).replace("\n", " ")
        if description:
            out.append(f"# {description}")
        qnames = ", ".join(_literal(q) for q in comp.qnames)
        out.append(f"register_log({_literal(comp.name)}, [{qnames}])")
    out += ["", "# Artifacts: each switches one kind of output on."]
    for art in registry.artifacts.values():
        description = registry.description(art.name).replace("\n", " ")
        if description:
            out.append(f"# {description}")
        flags = "".join(
            f", {flag}=True"
            for flag, on in (("visible", art.visible), ("off_by_default", art.off_by_default))
            if on
        )
        out.append(f"register_artifact({_literal(art.name)}{flags})")
    return "\n".join(out) + "\n"


@cache
def packaged_registrations(release: str) -> dict[str, Registration]:
    """:func:`registrations_in` :func:`packaged_text` of ``release`` (sites with path
    ``""``). Raises ``KeyError`` for a release that is not packaged."""
    return registrations_in(packaged_text(release))


def source_torch_dir(context: TorchContext) -> str | None:
    """The installed torch package whose sources match the names ``context`` checks
    against: the one whose ``_registrations.py`` gave the registry, else the
    environment's torch when its release is the registry's (a setting or pin naming
    another release has no installed sources); ``None`` otherwise."""
    registry = context.registry
    if registry.source != "packaged":
        return os.path.dirname(os.path.dirname(registry.source))
    torch_dir = context.env.torch_dir() if context.env is not None else None
    if torch_dir is None:
        return None
    if parse_release(read_version(torch_dir) or "") != registry.release:
        return None
    return torch_dir


__all__ = [
    "Lines",
    "Registration",
    "Site",
    "installed_registrations",
    "packaged_registrations",
    "packaged_text",
    "registrations_in",
    "source_torch_dir",
]
