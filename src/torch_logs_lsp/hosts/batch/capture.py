"""Whether a batch file keeps the stderr of the processes that read a value (TL411: torch
logs to stderr), the batch host's :meth:`~.interface.OutputHost.stderr_captured`.

A ``set`` value stays in the session: every later command reads it, so it counts as kept
only when there is at least one later command that may run Python (:data:`HARMLESS`
ones run none) and every such command keeps its stderr. cmd applies a command's
redirections left to right, as bash does ("Using command redirection operators"):
``2>file``, ``2>>file`` and ``>file 2>&1`` keep stderr, ``2>&1 >file`` and ``>file``
alone do not; ``2>&1 | more`` does (the pipe is stdout), ``| more`` alone does not.
Read line by line (``&``, ``&&``, ``||`` and ``|`` outside quotes split commands, ``^``
escapes): a later line with a block, ``if``, ``for`` or a line continuation, or a
``goto``/``call :label`` anywhere (the order is not the document's) makes it not certain.
A ``setx`` value is stored for later sessions: never kept. Offsets are code points.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch_logs_lsp.model.spans import ValueSpan

#: Commands that never start Python (lower case; cmd ignores case).
HARMLESS = frozenset(
    {
        "cd", "chdir", "cls", "copy", "del", "echo", "echo.", "endlocal", "erase", "exit",
        "md", "mkdir", "move", "path", "pause", "popd", "pushd", "rd", "ren", "rename",
        "rmdir", "set", "setlocal", "title", "timeout", "type", "ver", "xcopy", "more",
        "find", "findstr", "sort", "tee",
        "nvidia-smi",
    }
)  # fmt: skip
_QUOTED = re.compile(r'"[^"\n]*"?|\^.')
_SPLIT = re.compile(r"\|\||(?<![<>])&&?|\|")
_REDIRECT = re.compile(r"([0-9]?)(>>?)(&[0-9])?[ \t]*([^ \t&|<>]*)")
_COMMENT = re.compile(r"(?i)[ \t,;=@]*(?:rem(?:[ \t,;=/\"+].*)?|:.*)?")
_JUMPS = re.compile(r"(?im)^[ \t@]*(?:goto\b|call[ \t]+:)")
_UNCERTAIN = re.compile(r"(?i)^(?:if|for)\b|[()]|\^$")
_WORD = re.compile(r"[^ \t,;=&|<>]+")


def _kept(command: str, piped: bool) -> bool:
    """Whether one command (quotes blanked) keeps stderr; ``piped``: its stdout is a pipe."""
    table = ["pipe" if piped else "loose", "loose"]
    for m in _REDIRECT.finditer(command):
        fd = int(m.group(1) or "1")
        if fd not in (1, 2):
            continue
        if m.group(3):
            src = int(m.group(3)[1:])
            table[fd - 1] = table[src - 1] if src in (1, 2) else "loose"
        elif m.group(4).lower() == "con":
            table[fd - 1] = "loose"
        else:
            table[fd - 1] = "file"
    return table[1] != "loose"


def _later_kept(rest: str) -> bool:
    seen = False
    for line in rest.splitlines():
        if _COMMENT.fullmatch(line):
            continue
        blank = _QUOTED.sub(lambda m: "x" * len(m.group()), line)
        if _UNCERTAIN.search(blank.strip(" \t@")):
            return False
        parts: list[tuple[str, bool]] = []
        pos = 0
        for m in _SPLIT.finditer(blank):
            parts.append((blank[pos : m.start()], m.group() == "|"))
            pos = m.end()
        parts.append((blank[pos:], False))
        for part, piped in parts:
            word = _WORD.search(part.lstrip(" \t@"))
            if word is None or word.group().lower() in HARMLESS:
                continue
            seen = True
            if not _kept(part, piped):
                return False
    return seen


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured` of the batch host (see the module
    docstring): one flag per span of ``spans`` (``extract(text)``). Never raises."""
    from torch_logs_lsp.hosts.batch.host import found

    try:
        kinds = {f.span.name_start: f.command.kind for f in found(text)}
        jumps = _JUMPS.search(text) is not None
        out: list[bool] = []
        for span in spans:
            if kinds.get(span.name_start) != "set" or jumps:
                out.append(False)
                continue
            after = text[span.raw_end :]
            rest = after.lstrip('" \t')  # the rest of the line: `set X=a& python ...`
            if rest.startswith("&"):
                rest = rest.lstrip("&")
            elif "\n" in rest:
                rest = rest[rest.index("\n") + 1 :]
            else:
                rest = ""
            out.append(_later_kept(rest))
        return out
    except Exception:  # bad input never crashes the checker
        return [False] * len(spans)


__all__ = ["HARMLESS", "stderr_captured"]
