"""What a shell script does to the paths its TORCH_LOGS_OUT / TORCH_TRACE values name:
the directories its commands create, where ``cd`` takes it, and whether it runs here at all
(the shell host's :meth:`~.interface.Host.path_facts`).

Read from the tree-sitter-bash parse (:func:`.bash_parse.parse_bash`); each argument is
decoded with :func:`.shell_words.scan_word` as a command word (a glob or brace character, an
expansion: not static). Facts, all on the side of saying less (no false positives):

- ``mkdir [-p|--parents] [-m MODE] [-v] [-Z] DIR...`` and ``install -d DIR...`` (``install
  -D SRC DEST``: DEST's directory; ``-D -t DIR``: DIR) create their directories, and a
  directory's parents count as created too (``mkdir -p /a/b`` creates ``/a``; a plain
  ``mkdir /a/b`` needs ``/a`` to exist when it runs). GNU getopt permutes, so options may
  follow operands; ``--`` ends them. ``sudo``/``command``/``builtin`` before the name are
  looked through. ``$DIR``/``${DIR}`` is read as its value only when that is certain
  (:func:`certain_values`: one plain assignment at the top level before the command, the
  name used nowhere else). An operand that is not static otherwise (``mkdir -p "$DIR"``),
  an option we do not know, ``source``/``.``/``eval`` (what they run is not read) make
  the created directories unknown.
- Which mkdir counts for a value: for ``NAME=value cmd`` (and ``env NAME=value cmd``) the
  ones before ``cmd``; for an assignment that stays in the shell (``export NAME=value``,
  ``NAME=value``) every one in the script, since a later command may create the directory
  before the process that reads the variable starts. A value in a function: every one.
- ``cd``/``pushd`` to a static absolute path, or to ``./x``/``../x`` from a known
  directory, as a statement of the script's top level, moves the working directory; any
  other ``cd``/``pushd``/``popd`` (no operand, ``-``, a relative name that CDPATH may
  resolve, one inside a block or function) makes it unknown, as does any ``cd`` after an
  assignment that stays in the shell (the process may start after it).
- A line starting with ``#SBATCH`` (SLURM), ``#PBS`` (PBS/Torque), ``#BSUB`` (LSF),
  ``#$`` (Grid Engine) or ``#flux:`` (Flux) makes the script a batch job that runs on
  another machine: its paths are not judged here.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.shell.bash_parse import parse_bash
from torch_logs_lsp.hosts.shell.commands import cd_target, install_dirs, mkdir_dirs
from torch_logs_lsp.value.paths import PathFacts

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

#: Batch-scheduler directive lines: (pattern at a line start, what the script is).
_BATCH = re.compile(rb"^#(SBATCH|PBS|BSUB|\$|flux:)", re.MULTILINE | re.IGNORECASE)
_BATCH_NAMES = {
    "SBATCH": "a SLURM batch script (#SBATCH)",
    "PBS": "a PBS batch script (#PBS)",
    "BSUB": "an LSF batch script (#BSUB)",
    "$": "a Grid Engine batch script (#$)",
    "FLUX:": "a Flux batch script (#flux:)",
}
#: Commands whose names we look for (a byte search finds candidates; the tree confirms).
_COMMANDS = re.compile(rb"(?<![\w.-])(mkdir|install|cd|pushd|popd|source|eval|\.)(?![\w.-])")
_WRAPPERS = frozenset({"sudo", "command", "builtin"})
_INTERESTING = _WRAPPERS | {"mkdir", "install", "cd", "pushd", "popd", "source", "eval", "."}
_BLOCKS = frozenset({"function_definition"})
_LOOPS = frozenset({"for_statement", "c_style_for_statement", "while_statement"})
_TOP = frozenset({"program"})
#: The variables whose values are paths.
PATH_VARIABLES = frozenset({"TORCH_LOGS_OUT", "TORCH_TRACE"})


def runs_elsewhere(data: bytes) -> str | None:
    """Why a script (UTF-8 ``data``) runs on another machine (its first batch-scheduler
    directive line), or ``None``."""
    m = _BATCH.search(data)
    return None if m is None else _BATCH_NAMES[m.group(1).decode().upper()]


@dataclass
class _Event:
    """A command that matters: at code point ``offset``; ``kind`` ``"made"`` (``dirs``
    created, ``None``: unknown), ``"cd"`` (``target``: absolute, ``./``-relative, or
    ``None`` for unknown) or ``"popd"``; ``top``: a statement of the top level."""

    offset: int
    kind: str
    dirs: list[str] | None = None
    target: str | None = None
    top: bool = False


#: Values substituted for ``$NAME``: characters that neither word splitting nor pathname
#: expansion change, so quoted or not the word is the same.
_PLAIN_VALUE = re.compile(r"[\w./+,:@%=-]+")
#: Variables bash itself sets or changes (``cd`` sets PWD).
_SHELL_SET = frozenset(
    [
        "PWD",
        "OLDPWD",
        "HOME",
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "BASHPID",
        "DIRSTACK",
        "PPID",
        "UID",
        "EUID",
        "GROUPS",
        "HOSTNAME",
        "IFS",
        "REPLY",
        "OPTARG",
        "OPTIND",
    ]
)
_EXPANSION = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")

#: A variable whose value is certain from a point on: name -> (offset after its only
#: assignment, the value).
Certain = dict[str, tuple[int, str]]


def certain_values(src: Source, root: tree_sitter.Node) -> Certain:
    """The variables assigned once, as a statement of the top level (``D=/x``, ``export
    D=/x``, ``readonly D=/x``), to a static plain value (:data:`_PLAIN_VALUE`), whose name
    appears nowhere else in the script but in ``$NAME``/``${NAME}`` (no ``read NAME``,
    ``unset NAME``, ``for NAME in``, second assignment, ``${NAME:-x}`` ...): from that
    point on ``$NAME`` is certainly that value."""
    from torch_logs_lsp.hosts.shell.words import scan_word

    found: dict[str, list[tuple[int, str | None]]] = {}
    for stmt in root.children:
        kids = [stmt] if stmt.type == "variable_assignment" else []
        if stmt.type == "declaration_command" and stmt.children[0].type in ("export", "readonly"):
            kids = [k for k in stmt.children if k.type == "variable_assignment"]
        for kid in kids:
            name, op = kid.child_by_field_name("name"), kid.child(1)
            if name is None or name.type != "variable_name" or op is None or op.type != "=":
                continue
            start, end = src.cp(op.end_byte), src.cp(kid.end_byte)
            w = scan_word(src.text, start, end)
            value = "".join(w.chars) if w.static and w.terminated and w.end == end else None
            var = src.data[name.start_byte : name.end_byte].decode()
            found.setdefault(var, []).append((end, value))
    out: Certain = {}
    for var, assigned in found.items():
        (end, value), *more = assigned
        if more or value is None or var in _SHELL_SET or not _PLAIN_VALUE.fullmatch(value):
            continue
        bare = re.compile(rb"(?<![\w$])(?<!\$\{)" + var.encode() + rb"(?!\w)")
        if len(bare.findall(src.data)) == 1:  # the assignment itself
            out[var] = (end, value)
    return out


def _words(src: Source, command: tree_sitter.Node, certain: Certain) -> list[str | None]:
    """The static words of a command, name first (``None`` for one that is not static); a
    ``$NAME`` of a :func:`certain_values` variable assigned before the command is read as
    its value."""
    from torch_logs_lsp.hosts.shell.words import scan_word

    name = command.child_by_field_name("name")
    at = src.cp(command.start_byte)

    def value(m: re.Match[str]) -> str:
        var = m.group(1) or m.group(2)
        known = certain.get(var)
        return known[1] if known is not None and known[0] <= at else m.group()

    out: list[str | None] = []
    for child in [name, *command.children_by_field_name("argument")]:
        if child is None:
            return []
        start, end = src.cp(child.start_byte), src.cp(child.end_byte)
        w = scan_word(src.text, start, end, command_word=True)
        ok = w.static and w.terminated and w.end == end
        raw = src.text[start:end]
        if not ok and certain and not any(c in raw for c in "'\\`"):
            raw = _EXPANSION.sub(value, raw)
            w = scan_word(raw, 0, len(raw), command_word=True)
            ok = w.static and w.terminated and w.end == len(raw)
        out.append("".join(w.chars) if ok else None)
    return out


def _is_top(node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type == "redirected_statement":
        parent = parent.parent
    return parent is not None and parent.type in _TOP


def _events(src: Source, root: tree_sitter.Node) -> list[_Event]:
    """The commands of the script that create directories or move it, in order."""
    certain = certain_values(src, root)
    out: list[_Event] = []
    seen: set[int] = set()
    for m in _COMMANDS.finditer(src.data):
        start, end = m.span(1)
        node = root.descendant_for_byte_range(start, end)
        while node is not None and node.type not in ("command", "program"):
            node = node.parent
        if node is None or node.type != "command" or node.id in seen:
            continue
        seen.add(node.id)
        name_node = node.child_by_field_name("name")
        if name_node is None:
            continue
        raw = src.data[name_node.start_byte : name_node.end_byte].rsplit(b"/", 1)[-1]
        if raw.strip(b"'\"\\").decode(errors="replace") not in _INTERESTING:
            continue  # ``find . -name x``, ``echo cd``: not a command we read
        words = _words(src, node, certain)
        if not words or words[0] is None:
            continue
        name = posixpath.basename(words[0])
        at = 1
        if name in _WRAPPERS:  # sudo mkdir ..., command cd ...
            names = [posixpath.basename(w) if w else "" for w in words[1:]]
            hit = next((i for i, n in enumerate(names) if n in ("mkdir", "install", "cd")), -1)
            if hit < 0:
                continue
            name, at = names[hit], 2 + hit
        args, offset = words[at:], src.cp(node.start_byte)
        if name == "mkdir":
            out.append(_Event(offset, "made", dirs=mkdir_dirs(args)))
        elif name == "install":
            out.append(_Event(offset, "made", dirs=install_dirs(args)))
        elif name in ("cd", "pushd"):
            out.append(_Event(offset, "cd", target=cd_target(args), top=_is_top(node)))
        elif name == "popd":
            out.append(_Event(offset, "cd"))
        elif name in ("source", ".", "eval"):  # what they run is not read
            out.append(_Event(offset, "made"))
            out.append(_Event(offset, "cd"))
    return out


def _place(src: Source, root: tree_sitter.Node, span: ValueSpan) -> tuple[int, int, bool]:
    """For a span: (its position, the end of what may run before its process starts,
    whether it is in a function)."""
    at = src.byte(span.name_start)
    node = root.descendant_for_byte_range(at, at)
    command: tree_sitter.Node | None = None
    loop: tree_sitter.Node | None = None
    while node is not None:
        if node.type == "command" and command is None:
            command = node
        if node.type in _BLOCKS:
            return span.name_start, len(src.text), True
        if node.type in _LOOPS:
            loop = node
        node = node.parent
    if command is None:  # stays in the shell: any later command may run first
        return span.name_start, len(src.text), False
    limit = src.cp(command.start_byte)
    if loop is not None:
        limit = max(limit, src.cp(loop.end_byte))
    return span.name_start, limit, False


def _join(cwd: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(cwd, path)) if cwd else posixpath.normpath(path)


def _facts(events: list[_Event], position: int, limit: int, in_function: bool) -> PathFacts:
    """The facts at a value: ``position`` its offset, ``limit`` the end of the commands that
    may run before its process starts."""
    created: list[str] = []
    unknown = False
    cwd: str | None = ""
    for e in events:
        if e.offset >= limit:
            break
        if e.kind == "cd":
            if in_function or e.offset >= position or not e.top or e.target is None:
                cwd = None
            elif cwd is not None:
                cwd = _join(cwd, e.target)
            continue
        if e.dirs is None or (cwd is None and any(not d.startswith("/") for d in e.dirs)):
            unknown = True
            continue
        for d in e.dirs:
            if d.startswith("/"):
                created.append(posixpath.normpath(d))
            elif cwd is not None:
                created.append(_join(cwd, d))
    return PathFacts(None, tuple(created), unknown, cwd)


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """:meth:`~.interface.Host.path_facts` of the shell host (see the module docstring):
    one :class:`~.interface.PathFacts` per span. Spans of variables that are not paths, or
    without a static value, get the empty facts. Never raises."""
    empty = [PathFacts()] * len(spans)
    if not any(s.variable in PATH_VARIABLES and s.value is not None for s in spans):
        return empty
    src = Source(text)
    elsewhere = runs_elsewhere(src.data)
    if elsewhere is not None:
        return [PathFacts(runs_elsewhere=elsewhere)] * len(spans)
    if _COMMANDS.search(src.data) is None:
        return empty  # no command that creates or moves: no parse needed
    try:
        root = parse_bash(src.data).root_node
        events = _events(src, root)
        out: list[PathFacts] = []
        for span in spans:
            if span.variable not in PATH_VARIABLES or span.value is None:
                out.append(PathFacts())
                continue
            position, limit, in_function = _place(src, root, span)
            out.append(_facts(events, position, limit, in_function))
        return out
    except Exception:  # bad input never crashes: claim nothing
        return [PathFacts(created_unknown=True, cwd=None)] * len(spans)


__all__ = ["PATH_VARIABLES", "certain_values", "path_facts", "runs_elsewhere"]
