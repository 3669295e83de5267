"""Which shell runs a Dockerfile stage's shell-form commands, and where an ``ARG`` is seen.

As moby/buildkit (73ed6825) decides it, ``frontend/dockerfile/dockerfile2llb/convert.go``:

- ``withShell``: a shell-form ``RUN``/``CMD``/``ENTRYPOINT`` runs ``Config.Shell`` of the
  stage's image plus the command line as one last argument (``/bin/sh -c`` by default);
  ``dispatchShell`` sets ``Config.Shell`` for the stage it is in. A stage starts from its
  base image's config: the default shell again, or the shell of an earlier stage named
  in ``FROM`` (``FROM build AS test``). :func:`posix_shell` says which ``SHELL`` arrays
  still run the line as POSIX shell code (``["/bin/bash", "-c"]``,
  ``["bash", "-o", "pipefail", "-c"]``).
- ``dispatchArg``: an ``ARG`` before the first ``FROM`` is global: it is in scope for the
  ``FROM`` lines only; a stage sees its value only through ``ARG NAME`` without a default
  in that stage (docs/reference.md, "Understand how ARG and FROM interact").
"""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.dockerfile import lines, words

_SHELLS = frozenset({"sh", "bash", "dash", "ash"})
#: The last word of a ``SHELL`` array that makes the next argument the script: ``-c`` or
#: combined short options ending in ``c`` (``-ec``, ``-euxc``).
_DASH_C = re.compile(r"-[a-zA-Z]*c\Z")
#: Options that take the next word as their argument (``-o pipefail``).
_WITH_ARG = frozenset({"-o", "+o", "-O", "+O"})


def posix_shell(ins: lines.Instruction) -> bool:
    """Whether a ``SHELL`` instruction's array runs the command line as shell code read
    by a POSIX shell: ``sh``/``bash``/``dash``/``ash`` (any directory), options, and a
    last word ``-c`` (or ``-ec`` ...) not taken as an option's argument. Anything else
    (``pwsh``, ``cmd /S /C``, a shell form ``SHELL``, which BuildKit rejects) is not."""
    if ins.args is None:
        return False
    array = lines.json_array(ins.line.text[ins.args :])
    if not array or array[0].rsplit("/", 1)[-1] not in _SHELLS:
        return False
    if len(array) < 2 or _DASH_C.match(array[-1]) is None:
        return False
    return not (len(array) > 2 and array[-2] in _WITH_ARG)


def from_names(ins: lines.Instruction) -> tuple[str, str]:
    """``(base, stage name)`` of a ``FROM`` line (``""`` when absent or not readable):
    ``FROM [--platform=...] base [AS name]`` (``parseFrom``). The name is lower case
    (``addState`` stores it so); the base is as written (``addState`` looks it up so:
    ``FROM Build`` is not the stage ``build``)."""
    if ins.args is None:
        return "", ""
    found = lines.unquoted_words(ins.line.text[ins.args :]) or []
    base = found[0] if found else ""
    name = found[2].lower() if len(found) == 3 and found[1].lower() == "as" else ""
    return base, name


def bare_args(ins: lines.Instruction, escape: str) -> list[str]:
    """The names an ``ARG`` declares without a default (``ARG TORCH_LOGS``), as written."""
    if ins.args is None:
        return []
    text = ins.line.text
    end = len(text)
    return [
        text[w.start : w.end]
        for w in words.words(text, ins.args, end, escape)
        if "=" not in text[w.start : w.end]
    ]


_PLAIN = re.compile(r"[A-Za-z0-9_./+-]+\Z")
#: bash 5.2 invocation letters (``bash --help``) but ``c``: ``-c`` makes the first operand
#: the script and stdin data again.
_STDIN_FLAGS = frozenset("abefhkmnptuvxBCEHPTilrsD")
_LONG = frozenset({"--norc", "--noprofile", "--posix", "--login", "--noediting", "--verbose"})


def stdin_script(rest: str) -> bool | None:
    """``rest`` (a shell-form ``RUN``'s command words) is one heredoc on standard input
    and a POSIX shell with options only (``<<EOF bash -e``, ``sh <<'EOF'``): the shell reads
    the body from its stdin as its script. Then whether the delimiter is quoted (the body
    reaches the shell as written; unquoted, ``/bin/sh`` expands ``$``, backquotes and
    backslashes in it first); ``None`` for any other command."""
    found = lines.raw_words(rest)
    if not found:
        return None
    docs = [lines.HEREDOC.match(w) for w in found]
    heredocs = [m for m in docs if m is not None and m.group(3)]
    if len(heredocs) != 1 or heredocs[0].group(1) not in ("", "0"):
        return None
    quoted = any(c in heredocs[0].group(3) for c in "'\"\\")
    others = [w for w, m in zip(found, docs, strict=True) if m is None or not m.group(3)]
    if not others or not all(_PLAIN.match(w) for w in others):
        return None
    if others[0].rsplit("/", 1)[-1] not in _SHELLS:
        return None
    k = 1
    while k < len(others):
        w = others[k]
        k += 1
        if w in _LONG or w in ("-", "--"):
            continue
        if w[:1] not in ("-", "+") or len(w) < 2 or w.startswith("--"):
            return None  # an operand (a script file: stdin is its data) or an unknown option
        for c in w[1:]:
            if c in "oO":
                k += 1
            elif c not in _STDIN_FLAGS:
                return None
    return quoted if k == len(others) else None
