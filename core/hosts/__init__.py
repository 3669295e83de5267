"""Host extractors: find TORCH_LOGS-family assignments in documents of each file kind.

``detect_host(path, text)`` names the host kind of a document (from its path and content,
never from an editor's languageId alone); ``extract(host, text)`` returns its value spans.
"""

from __future__ import annotations

import re

from .base import FAMILY, ValueSpan
from .incremental import DocumentCache

__all__ = ["FAMILY", "HOST_KINDS", "ValueSpan", "detect_host", "extract"]

#: The host kinds, each the name of the module in this package that extracts it.
HOST_KINDS: tuple[str, ...] = ("dotenv", "jsonc", "shell")

_SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "mksh", "ash"})
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")
# ``.env.<suffix>`` files that are source or data files, not .env files (``.env.py``,
# ``.env.d.ts``, ``.env.json``): their last suffix, lower case.
_SOURCE_WORDS = (
    "py pyi js mjs cjs ts mts cts tsx jsx json jsonc json5 yaml yml toml xml md rst html"
    " htm css go rs java kt rb php c h cc cpp hpp cs swift sql ps1 bat cmd"
)
_SOURCE_SUFFIXES = frozenset(_SOURCE_WORDS.split())
# Every family name contains one of these; a document without them has no spans.
_NEEDLES = ("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DEBUG")


def _basename(path: str) -> str:
    path = path.split("?", 1)[0].split("#", 1)[0]  # a URI's query or fragment
    return re.split(r"[/\\]", path.rstrip("/\\"))[-1]


def _shebang_shell(text: str) -> bool:
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    m = _SHEBANG.match(first)
    if m is None:
        return False
    program = _basename(m.group(1))
    if program == "env" and m.group(2):  # #!/usr/bin/env bash, #!/usr/bin/env -S bash
        program = _basename(m.group(2))
    return program in _SHELLS


def detect_host(path: str, text: str) -> str | None:
    """The host kind of a document, or ``None`` when it is not one we read.

    ``path`` is a filesystem path or the path part of a ``file://`` URI (either separator);
    ``text`` is the document (its first line is enough). Never raises.

    - ``"dotenv"``: ``.env``, ``.env.*`` (``.env.local``, ``.env.development.local``)
      except a source or data file by its last suffix (``.env.py``, ``.env.d.ts``,
      ``.env.json``: none), ``*.env``;
    - ``"jsonc"``: ``launch.json``, ``tasks.json``, ``*.code-workspace``;
    - ``"shell"``: ``*.sh``, ``*.bash``, ``*.zsh``, ``*.ksh``, ``.envrc`` (direnv runs it
      with bash), ``.bashrc``-style dotfiles, and files without an extension whose
      shebang names sh, bash, zsh, ksh or dash (``#!/usr/bin/env bash`` too).
    """
    name = _basename(path)
    lower = name.lower()
    if lower == ".envrc" or lower.endswith((".sh", ".bash", ".zsh", ".ksh")):
        return "shell"
    if lower in (".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv", ".zprofile"):
        return "shell"
    if lower == ".env" or lower.endswith(".env"):
        return "dotenv"
    if lower.startswith(".env.") and lower.rsplit(".", 1)[1] not in _SOURCE_SUFFIXES:
        return "dotenv"
    if lower in ("launch.json", "tasks.json") or lower.endswith(".code-workspace"):
        return "jsonc"
    stem = name.lstrip(".")
    if "." not in stem and _shebang_shell(text):
        return "shell"
    return None


def extract(host: str, text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of ``text`` read as host kind ``host`` (one of :data:`HOST_KINDS`).

    Offsets are code points into ``text``. An unknown host kind or a document that names
    no family variable gives ``[]`` without parsing; the host modules (tree-sitter ones
    included) are imported on first use. ``cache`` (one per open document, kept across
    its versions) makes the extraction incremental with the same result (see
    :mod:`.incremental`). Never raises.
    """
    if host not in HOST_KINDS:
        return []
    # A JSON key may spell a name with escapes ("TORCH\\u005fLOGS"): parse those.
    escaped = host == "jsonc" and "\\u" in text
    if not escaped and not any(needle in text for needle in _NEEDLES):
        if cache is not None:
            cache.reset()
        return []
    try:
        if host == "dotenv":
            from . import dotenv

            return dotenv.extract(text, cache)
        if host == "jsonc":
            from . import jsonc

            return jsonc.extract(text, cache)
        from . import shell

        return shell.extract(text, cache)
    except BaseException:
        if cache is not None:
            cache.reset()  # a half-updated cache must not feed the next version
        raise
