"""``bash -c 'script'`` (also ``sh``/``dash``, ``bash -lc``, ``bash -e -o pipefail -c``):
the script is shell code, read by the shell host itself through
:func:`.embedded.shell_spans` with every offset mapped back into the document and the
quotes layered (an edit is encoded for the script's own quoting, then for the word that
holds it). Only a static script word is read (no ``$X`` or ``$(...)`` in it), and code
inside code is followed at most :data:`MAX_DEPTH` levels deep.

The options are bash 5.2's invocation options (``bash --help``; ``sh``/``dash`` take a
subset): long ones first (``--rcfile FILE``/``--init-file FILE`` take a word), then
clusters of ``-``/``+`` letters where ``o``/``O`` take the next word; with ``c`` among
them the first operand is the script. Anything else ends the walk.
"""

from __future__ import annotations

from contextvars import ContextVar

from torch_logs_lsp.hosts.embedded import EmbeddedCode, shell_spans
from torch_logs_lsp.hosts.shell.words import scan_word
from torch_logs_lsp.hosts.shell.wrappers import Items, ShellWord

#: How many ``bash -c`` levels are read (``bash -c "bash -c '...'"`` is two).
MAX_DEPTH = 3
_DEPTH: ContextVar[int] = ContextVar("shell_nested_depth", default=0)


def nesting() -> int:
    """How many levels of code in code (``bash -c '...'``) the current read is inside."""
    return _DEPTH.get()


_LONG_FLAGS = frozenset(
    {
        "--debugger", "--dump-po-strings", "--dump-strings", "--help", "--login",
        "--noediting", "--noprofile", "--norc", "--posix", "--pretty-print", "--restricted",
        "--verbose", "--version",
    }
)  # fmt: skip
_LONG_ARG = frozenset({"--rcfile", "--init-file"})
_FLAGS = frozenset("abefhkmnptuvxBCEHPTilrsDc")


def script_word(args: list[ShellWord], i: int) -> ShellWord | None:
    """The script operand of ``args[i:]`` (``bash [options] -c script ...``), or ``None``
    (no ``-c``, an option not known, a word that is not static)."""
    k = i + 1
    while k < len(args) and (args[k].value or "") in _LONG_FLAGS | _LONG_ARG:
        k += 2 if args[k].value in _LONG_ARG else 1
    command = False
    while k < len(args):
        v = args[k].value
        if v is None:
            return None
        if v in ("-", "--"):
            k += 1
            break
        if v[:1] not in ("-", "+") or len(v) < 2:
            break
        k += 1
        for c in v[1:]:
            if c in "oO":
                k += 1
            elif c not in _FLAGS:
                return None
            command = command or (c == "c" and v[0] == "-")
    if not command or k >= len(args):
        return None
    return args[k]


def script_items(text: str, args: list[ShellWord], i: int, base: int, items: Items) -> None:
    """Add the spans of the script of ``args[i:]`` (see :func:`script_word`) to
    ``items``; ``text`` is what the words were read from, ``base`` its document offset."""
    word = script_word(args, i)
    level = _DEPTH.get()
    if word is None or word.value is None or level >= MAX_DEPTH:
        return
    w = scan_word(text, word.start, word.end, command_word=True)
    kinds = {q for q, _, _ in w.parts}
    quote: str | None = kinds.pop() if len(kinds) == 1 else ("" if not kinds else None)
    end = w.parts[-1][2] if w.parts else w.end
    code = EmbeddedCode(
        "".join(w.chars),
        [base + s for s in w.starts],
        [base + e for e in w.ends],
        base + end,
        None if quote == "$'" else quote,
    )
    token = _DEPTH.set(level + 1)
    try:
        items.spans.extend(shell_spans("shell", code))
    finally:
        _DEPTH.reset(token)
