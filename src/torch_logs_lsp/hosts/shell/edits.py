"""The shell host's edits: a value re-encoded for its quoting, the removal of an
assignment, and where a variable name is being typed (host interface functions of
:mod:`.shell`). Offsets are code points into the document."""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.embedded import LAYER, encode_layers
from torch_logs_lsp.hosts.interface import line_before, line_bounds
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.spans import ValueSpan

_SHELL_PLAIN = re.compile(r"[\w+\-.,/:@%=^]")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a part quoted with ``quote``: unquoted words escape with
    ``\\`` everything but letters, digits and ``_+-.,/:@%=^`` (``None`` for a newline,
    which would be a line continuation); ``"..."`` escapes ``$ ` " \\``; ``'...'``
    writes ``'`` as ``'\\''``. A layered quote (shell code inside a shell string, see
    :mod:`.embedded`) encodes through each layer."""
    if LAYER in quote:
        return encode_layers(quote, value, encode_part)
    if quote == "'":
        return value.replace("'", "'\\''")
    if quote == '"':
        return re.sub(r'([$`"\\])', r"\\\1", value)
    if "\n" in value:
        return None  # backslash-newline is a line continuation
    return "".join(c if _SHELL_PLAIN.match(c) else "\\" + c for c in value)


_STMT_START = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)[ \t]*(export[ \t]+)?$")
_STMT_END = re.compile(r"[ \t]*(?:$|[;&|)}#])")
_NEXT_WORD = re.compile(r"[ \t]+(?=[^ \t\r\n;&|)#])")


#: Before a value an option carries (``docker run -e NAME=``, ``--env=NAME=``,
#: ``srun --export=A=1,NAME=``): removing ``NAME=value`` would leave the option without
#: its argument, so such a value is not removed.
_OPTION_BEFORE = re.compile(r"(?:(?:^|[ \t])-[A-Za-z]*e|--env|--export)[ \t]+\Z|[^ \t\n'\"(;&|{]\Z")


_SUDO = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?sudo[ \t]", re.M)


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """``unset VAR`` for a statement, or dropping ``VAR=`` before a command (not for a
    value an option carries, see :data:`_OPTION_BEFORE`)."""
    if _OPTION_BEFORE.search(text[max(0, span.name_start - 40) : span.name_start]):
        return None
    ls, le, _ = line_bounds(text, span.name_start, span.raw_end)
    nxt = _NEXT_WORD.match(text, span.raw_end, le)
    if nxt is not None:  # a command prefix: VAR= cmd -> cmd (it inherits the variable)
        title = f"Remove `{span.variable}=` (the command inherits {span.variable})"
        if _SUDO.search(text, ls, span.name_start):  # sudo resets the environment
            title = f"Remove `{span.variable}=`"
        return title, TextEdit(span.name_start, nxt.end(), "")
    head = _STMT_START.search(text[ls : span.name_start])
    if head is None or _STMT_END.match(text, span.raw_end, le) is None:
        return None
    start = ls + head.start(1) if head.group(1) else span.name_start
    return f"Replace with `unset {span.variable}`", TextEdit(
        start, span.raw_end, f"unset {span.variable}"
    )


_NAME_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)?$")


def typed_name(text: str, offset: int) -> str | None:
    """At the start of a line, after ``export``."""
    m = _NAME_LINE.match(line_before(text, offset))
    return None if m is None else m.group(1) or ""
