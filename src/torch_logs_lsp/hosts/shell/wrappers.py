"""Commands that run another command: the shell host follows them to the assignments
they carry (``exec nohup env TORCH_LOGS=x cmd``, ``sudo TORCH_LOGS=x cmd``,
``docker run -e TORCH_LOGS=x img``, ``bash -c 'TORCH_LOGS=x cmd'``, ``srun --export=...``).

:func:`command_items` reads a command's words as bash splits them (:func:`words`) and
walks through the wrappers, each with its real option syntax: ``exec [-cl] [-a NAME]``
(the bash builtin), ``command [-p]``, ``time [-p]`` (a reserved word: the words after it
are a command of their own, assignments included), ``nohup``, ``nice [-n N | -N]``,
``timeout [-fpv] [-k D] [-s SIG] DURATION``, ``stdbuf [-i M] [-o M] [-e M]`` (GNU
coreutils 9: ``getopt_long`` with ``+``, options only before the command), ``sudo``
(sudo 1.9 ``parse_args.c``: ``NAME=value`` operands among its options; with its
``env_reset`` the variable is still given to the command, or sudo refuses to run it),
``env`` and ``srun`` (:mod:`.shell_slurm`); ``docker``/``podman`` (:mod:`.shell_docker`)
and ``bash``/``sh -c`` (:mod:`.shell_nested`). An option it does not know, a word that is
not static, or a redirection among the words ends the walk: no span is better than a
wrong one.

All offsets are code points into the text the words are read from (plus ``base``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from torch_logs_lsp.hosts.shell.words import _NAME_START, scan_word
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source
    from torch_logs_lsp.hosts.ts_index import TreeIndex


class ShellWord(NamedTuple):
    """One word of a command: its text (``raw``), where it starts and ends, and its value
    after quote removal (``None`` when bash would expand something in it)."""

    start: int
    end: int
    raw: str
    value: str | None


_BLANK = re.compile(r"(?:[ \t]|\\\n)*")


def words(text: str, start: int) -> list[ShellWord]:
    """The words of the simple command starting at ``start``, as bash splits them, up to
    its end (a newline, ``;``, ``&``, ``|``, ``)``, a comment) or the first redirection
    (``<``/``>``: the walk stops being sure there)."""
    out: list[ShellWord] = []
    i = start
    n = len(text)
    while True:
        i = _BLANK.match(text, i).end()  # type: ignore[union-attr]
        if i >= n or text[i] in "\n;&|<>()#\r":
            return out
        w = scan_word(text, i, n, command_word=True)
        if w.end <= i or not w.terminated:
            return out
        value = "".join(w.chars) if w.static else None
        if w.end < n and text[w.end] in "<>" and value is not None and value.isdigit():
            return out  # 2>file: a redirection, not a word
        out.append(ShellWord(i, w.end, text[i : w.end], value))
        i = w.end


#: What :func:`command_items` gives: assignments with a literal ``NAME=`` (variable, name
#: start, value start, static, command word), read as the shell host reads assignments,
#: and spans built here (containers, ``srun --export``, code run by ``bash -c``).
Found = tuple[str, int, int, bool, bool]


class Items(NamedTuple):
    """What a command carries (see :data:`Found`); offsets are document code points."""

    found: list[Found]
    spans: list[ValueSpan]


def _name(word: ShellWord) -> str | None:
    """A command name: the base name of an absolute path (``/usr/bin/env``)."""
    v = word.value
    if v is None:
        return None
    return v.rsplit("/", 1)[-1] if v.startswith("/") else v


def is_name(word: str) -> bool:
    """Whether ``word`` is a shell variable name."""
    return (
        bool(word) and word[0] in _NAME_START and all(c in _NAME_START or c.isdigit() for c in word)
    )


def literal_assignment(word: ShellWord) -> str | None:
    """The variable of a word that starts with a literal ``NAME=`` (unquoted), else ``None``."""
    name, eq, _ = word.raw.partition("=")
    return name if eq and is_name(name) else None


class Options(NamedTuple):
    """A GNU ``getopt_long`` option table: short letters that take an argument, that take
    none; long names that take one, that take none, whose argument is optional."""

    short_arg: str
    short_flag: str
    long_arg: frozenset[str]
    long_flag: frozenset[str]
    long_optional: frozenset[str] = frozenset()


def getopt(args: list[ShellWord], i: int, opts: Options) -> int | None:
    """The index of the first operand after the options from ``args[i]`` (GNU getopt with
    ``+``: options end at the first operand, or after ``--``); ``None`` for an option not
    in ``opts`` (an abbreviated long name too), a word that is not static, or an option
    missing its argument."""
    while i < len(args):
        v = args[i].value
        if v is None:  # not static: an operand if it starts with a literal letter
            first = args[i].raw[:1]
            return i if first.isalnum() or first in "_./" else None
        if v == "--":
            return i + 1
        if v.startswith("--"):
            name, eq, _ = v[2:].partition("=")
            if name in opts.long_arg:
                i += 1 if eq else 2
            elif (name in opts.long_flag and not eq) or name in opts.long_optional:
                i += 1
            else:
                return None
            continue
        if not v.startswith("-") or v == "-":
            return i
        i += 1
        for j, c in enumerate(v[1:], 1):
            if c in opts.short_arg:
                if j == len(v) - 1:
                    i += 1  # the next word is its argument
                break
            if c not in opts.short_flag:
                return None
    return None if i > len(args) else i


_NONE: frozenset[str] = frozenset()
#: bash's ``exec`` and ``command`` builtins; coreutils 9 ``nohup``, ``nice``,
#: ``timeout``, ``stdbuf`` and ``env`` (their ``getopt_long`` strings and tables).
_WRAPPERS = {
    "exec": Options("a", "cl", _NONE, _NONE),
    "command": Options("", "p", _NONE, _NONE),
    "nohup": Options("", "", _NONE, _NONE),
    "nice": Options("n", "", frozenset({"adjustment"}), _NONE),
    "timeout": Options(
        "ks",
        "fpv",
        frozenset({"kill-after", "signal"}),
        frozenset({"foreground", "preserve-status", "verbose"}),
    ),
    "stdbuf": Options("ioe", "", frozenset({"input", "output", "error"}), _NONE),
}
_ENV = Options(
    "uC", "i0v", frozenset({"unset", "chdir"}), frozenset({"ignore-environment", "null", "debug"})
)
#: sudo 1.9 (``src/parse_args.c``): the options of a plain run; ``-i``/``-s`` (a shell
#: runs the command), ``-e``/``-l``/``-v``/``-K``/``-V``/``-h`` (no command) are not here.
_SUDO = Options(
    "aCcDgpRrtTu",
    "AbBEHknNPS",
    frozenset(
        {
            "auth-type", "chdir", "chroot", "close-from", "command-timeout", "group",
            "login-class", "prompt", "role", "type", "user",
        }
    ),
    frozenset(
        {
            "askpass", "background", "bell", "set-home", "reset-timestamp",
            "non-interactive", "no-update", "preserve-groups", "stdin",
        }
    ),
    frozenset({"preserve-env"}),
)  # fmt: skip

_HOPS = 16  # at most this many wrappers in one chain
_BUILTINS = frozenset({"exec", "command", "time"})
#: The names :func:`command_items` follows (a command named otherwise carries nothing).
NAMES = frozenset(
    {*_WRAPPERS, "time", "env", "sudo", "docker", "podman", "srun", "bash", "sh", "dash"}
)
_BOUNDARY = frozenset({"program", "list", "pipeline", "subshell", "compound_statement"})


def wrapped(
    node: tree_sitter.Node | None,
    found: list[tuple[str, tree_sitter.Node]],
    seen: set[int],
    tree: TreeIndex,
) -> None:
    """If ``node`` (where a family name was found) is a word of a command named in
    :data:`NAMES`, add ``("wrap", command)`` to ``found`` once (``seen``: command ids);
    ``tree``: the index of ``node``'s tree (parents without a walk from the root)."""
    for _ in range(6):
        if node is None or node.type in _BOUNDARY:
            return
        if node.type == "command":
            break
        node = tree.parent(node)
    else:
        return
    if node is None or node.id in seen:
        return
    name = node.child_by_field_name("name")
    text = name.text if name is not None else None
    if text is not None and text.rsplit(b"/", 1)[-1].decode(errors="replace") in NAMES:
        seen.add(node.id)
        found.append(("wrap", node))


def command_items(src: Source, command: tree_sitter.Node, base: int) -> Items:
    """The assignments a command (a tree-sitter ``command`` node of ``src``) carries
    through its wrappers (see the module docstring); ``base``: the document offset of
    ``src``. Never raises."""
    name = command.child_by_field_name("name")
    items = Items([], [])
    if name is None:
        return items
    args = words(src.text, src.cp(name.start_byte))
    i: int | None = 0
    try:
        for _ in range(_HOPS):
            if i is None or i >= len(args):
                break
            # bash's builtins (and the reserved word time) only run as the shell's own
            # command: after an external wrapper the same word names a program
            word = _name(args[i])
            own = all(_name(w) in ("exec", "command") for w in args[:i] if w.value)
            if word in _BUILTINS and not (own and (i == 0 or word != "time")):
                break
            i = _step(src.text, args, i, base, items)
    except (IndexError, ValueError):  # bad input never crashes: what was found stays
        pass
    return items


def _step(text: str, args: list[ShellWord], i: int, base: int, items: Items) -> int | None:
    """Read the command whose name is ``args[i]``: the index of the command it runs, or
    ``None`` (not a wrapper, or not sure)."""
    name = _name(args[i])
    if name is None:
        return None
    if name == "nice" and i + 1 < len(args) and _nice_number(args[i + 1].value):
        return i + 2
    if name in _WRAPPERS:
        k = getopt(args, i + 1, _WRAPPERS[name])
        if k is None or name != "timeout":
            return k
        return k + 1 if k < len(args) and args[k].value is not None else None  # DURATION
    if name == "time":  # a reserved word: the command after it may have assignments
        k = i + 2 if i + 1 < len(args) and args[i + 1].value == "-p" else i + 1
        while k < len(args) and (var := literal_assignment(args[k])) is not None:
            if var in FAMILY:
                start = base + args[k].start
                items.found.append((var, start, start + len(var) + 1, True, False))
            k += 1
        return k
    if name == "env":
        return _env(args, i + 1, base, items)
    if name == "sudo":
        return _sudo(args, i + 1, base, items)
    if name in ("docker", "podman"):
        from torch_logs_lsp.hosts.shell.docker import docker_items

        return docker_items(text, args, i, base, items)
    if name == "srun":
        from torch_logs_lsp.hosts.shell.slurm import srun_items

        return srun_items(text, args, i, base, items)
    if name in ("bash", "sh", "dash"):
        from torch_logs_lsp.hosts.shell.nested import script_items

        script_items(text, args, i, base, items)
    return None


def _nice_number(v: str | None) -> bool:
    """nice's obsolete ``-N``/``--N``/``-+N`` adjustment (coreutils ``nice.c``)."""
    if v is None or not v.startswith("-"):
        return False
    rest = v[2:] if v[1:2] in ("-", "+") else v[1:]
    return rest.isdigit()


def _env(args: list[ShellWord], i: int, base: int, items: Items) -> int | None:
    """env's options (then a lone ``-``, read as ``-i``), then its ``NAME=value`` operands
    (every word with a ``=``, coreutils ``env.c``); the index of the command it runs."""
    k = getopt(args, i, _ENV)
    if k is not None and k < len(args) and args[k].value == "-":
        k += 1
    while k is not None and k < len(args) and _has_operand(args, k, env=True):
        if not _operand(args[k], base, items):
            return None
        k += 1
    return k


def _sudo(args: list[ShellWord], i: int, base: int, items: Items) -> int | None:
    """sudo's options and its ``NAME=value`` operands among them (a word with ``=`` not
    starting with ``/``, before ``--``); the index of the command it runs."""
    while True:
        k = getopt(args, i, _SUDO)
        if k is None or (k > i and args[k - 1].value == "--"):
            return k
        if k >= len(args) or not _has_operand(args, k, env=False):
            return k
        if not _operand(args[k], base, items):
            return None
        i = k + 1


def _has_operand(args: list[ShellWord], i: int, *, env: bool) -> bool:
    v = args[i].value
    if v is None:  # TORCH_LOGS=$X: an operand, and then the words may split
        return literal_assignment(args[i]) is not None
    return "=" in v and (env or not v.startswith("/"))


def _operand(word: ShellWord, base: int, items: Items) -> bool:
    """Record a ``NAME=value`` operand; ``False`` when a family name is written with
    quotes or escapes (the walk then stops: what would it read?)."""
    var = literal_assignment(word)
    if var is None:
        return word.value is not None and word.value.partition("=")[0] not in FAMILY
    if var in FAMILY:
        items.found.append((var, base + word.start, base + word.start + len(var) + 1, True, True))
    return word.value is not None  # an expansion may split it: the next words are not sure


__all__ = [
    "NAMES",
    "Found",
    "Items",
    "Options",
    "ShellWord",
    "command_items",
    "getopt",
    "words",
    "wrapped",
]
