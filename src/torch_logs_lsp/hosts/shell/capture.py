"""Whether a shell script keeps the stderr of the process that reads a value (TL411: torch
logs to stderr), the shell host's :meth:`~.interface.OutputHost.stderr_captured`.

Read from the tree-sitter-bash parse (:func:`.bash_parse.parse_bash`) as bash 5.2 sets up
a command's file descriptors (bash manual, "Redirections", "Pipelines"): the redirections
of the enclosing compound commands first, then the command's own, left to right.
Standard output and standard error are followed as *kept* (a file, a pipe, a process
substitution, ``/dev/null``, closed) or not (the script's own, a terminal or a CI log):

- ``2>file``, ``2>>file``, ``&>file``, ``&>>file``, ``>&file``, ``>file 2>&1`` keep
  stderr; ``2>&1 >file`` does not (stderr goes where stdout went before), nor does
  ``>file`` alone (stdout only);
- a command piped into another has its stdout kept, whatever reads the pipe (``tee``
  keeps a copy, ``grep`` filters, both decided by the user): ``2>&1 | tee log`` keeps
  stderr, ``| tee log`` alone does not; ``|&`` does (``2>&1 |`` after the command's own
  redirections); ``$(...)`` and ``<(...)`` keep stdout;
- ``exec 2>log`` or ``exec &> >(tee log)`` as a statement of the script's top level keeps
  stderr for every command after it (an ``exec`` elsewhere, in a branch or a function,
  makes the script's stderr unknown from there on); a command in a function runs with its
  caller's: not known.

Which process reads a value: for ``NAME=value cmd`` (and ``env NAME=value cmd``,
``docker run -e NAME=value``, ``bash -c 'NAME=value cmd'``) the command carrying it; a
value that stays in the shell (``export NAME=value``, ``NAME=value``) is read by every
later command, so it counts as kept only when there is at least one later command that may
run Python, and every such command (:data:`HARMLESS` ones run none) keeps its stderr, and
no ``trap`` is set (its command runs whenever); a value in a loop counts the loop's
commands before it too. A redirection to ``/dev/fd/N`` (N other than 1 and 2) or from a
``{name}>`` descriptor is not followed. Offsets are code points; on the side of saying
"not kept" whenever in doubt.
"""

from __future__ import annotations

import logging
import posixpath
import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor
from torch_logs_lsp.hosts.incremental import only_values_differ
from torch_logs_lsp.hosts.shell.bash_parse import parse_bash

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: Where a file descriptor goes, in terms of the context it runs in: ``"1"``/``"2"`` that
#: context's stdout/stderr, :data:`KEPT` a file, pipe or ``/dev/null``, :data:`LOOSE`
#: somewhere not known to keep it (a terminal).
KEPT = "kept"
LOOSE = "loose"
#: A table: where (stdout, stderr) go.
Table = tuple[str, str]
SAME: Table = ("1", "2")
#: The script's own descriptors: a terminal or a CI log, not kept.
SCRIPT: Table = (LOOSE, LOOSE)

#: Commands that never start Python (shell builtins and common tools): a value that stays
#: in the shell needs no capture of theirs.
HARMLESS = frozenset(
    {
        ":", "[", "alias", "basename", "cat", "cd", "chmod", "chown", "cp", "cut", "date",
        "df", "dirname", "du", "echo", "false", "grep", "egrep", "fgrep", "head", "hostname",
        "ln", "ls", "mkdir", "mv", "nproc", "popd", "printf", "pushd", "pwd", "read",
        "readlink", "realpath", "rm", "rmdir", "set", "shift", "shopt", "sleep", "sort",
        "tail", "tee", "test", "touch", "tr", "true", "ulimit", "umask", "uname", "uniq",
        "unset", "wait", "wc", "whoami", "exit", "return", "nvidia-smi",
    }
)  # fmt: skip
_DEV = {"/dev/stdout": "1", "/dev/fd/1": "1", "/dev/stderr": "2", "/dev/fd/2": "2"}
_FUNCTION = frozenset({"function_definition"})
_COMMANDS = declare_query("bash", "(command) @c")
_EXEC = re.compile(rb"(?<![\w-])exec(?![\w-])")
_LOOPS = frozenset({"for_statement", "c_style_for_statement", "while_statement"})


def _after(table: Table, outer: Table) -> Table:
    """``table`` (in terms of its context) with its context's ``outer`` substituted."""

    def one(s: str) -> str:
        return outer[int(s) - 1] if s in ("1", "2") else s

    return (one(table[0]), one(table[1]))


def _redirect(src: Source, node: tree_sitter.Node, table: Table) -> Table:
    """``table`` after one ``file_redirect`` ``node``."""
    fd: int | None = None
    op = ""
    for kid in node.children:
        if kid.type == "file_descriptor":
            digits = src.data[kid.start_byte : kid.end_byte]
            fd = int(digits) if digits.isdigit() else -1  # {name}>file: another one
        elif not kid.is_named:
            op = kid.type
    if fd is None and src.data[node.start_byte - 1 : node.start_byte] == b"}":
        fd = -1  # {name}>file (tree-sitter-bash: a word, then >file): a new descriptor
    dest = node.child_by_field_name("destination")
    raw = src.data[dest.start_byte : dest.end_byte].decode(errors="replace") if dest else ""
    raw = raw.strip("'\"")  # 2>"/dev/null" (a quoted name is the same file)
    out = list(table)
    if op in ("&>", "&>>") or (op == ">&" and fd is None and not raw.isdigit() and raw != "-"):
        return (KEPT, KEPT)  # both to a file
    if fd is None:
        fd = 0 if op.startswith("<") else 1
    if fd not in (1, 2):
        return table
    if op in (">&", "<&"):
        if raw in ("1", "2"):
            out[fd - 1] = table[int(raw) - 1]
        elif raw == "-":
            out[fd - 1] = KEPT  # closed: nothing is printed
        else:
            out[fd - 1] = LOOSE  # another descriptor: not followed
    elif op in (">&-", "<&-"):
        out[fd - 1] = KEPT
    elif dest is not None and dest.type == "process_substitution":
        out[fd - 1] = KEPT  # 2> >(tee log)
    elif raw in _DEV:
        out[fd - 1] = table[int(_DEV[raw]) - 1]
    elif raw == "/dev/tty" or raw.startswith("/dev/fd/"):
        out[fd - 1] = LOOSE  # the terminal, or a descriptor not followed
    else:  # >, >>, >|, <, <>: a file
        out[fd - 1] = KEPT
    return (out[0], out[1])


def _redirects(src: Source, nodes: list[tree_sitter.Node]) -> Table:
    table = SAME
    for node in nodes:
        if node.type == "file_redirect":
            table = _redirect(src, node, table)
    return table


def _binds_to(body: tree_sitter.Node, command: tree_sitter.Node) -> bool:
    """Whether a redirection after ``body`` applies to ``command`` inside it: always,
    but for a ``list`` or ``pipeline`` body (tree-sitter-bash hangs a trailing
    redirection on the whole ``a && b 2>err`` or ``a | b 2>err``, where bash gives it
    to the last command only): then only for a command of the last element."""
    last = body
    while last.type in ("list", "pipeline"):
        named = [c for c in last.named_children if c.type != "comment"]
        if not named:
            return True
        last = named[-1]
    return last.start_byte <= command.start_byte and command.end_byte <= last.end_byte


class _Script:
    """One parsed script and its top-level ``exec`` redirections."""

    def __init__(self, text: str, tree: tree_sitter.Tree | None = None) -> None:
        self.src = Source(text)
        self.root = (tree if tree is not None else parse_bash(self.src.data)).root_node
        self._commands: list[tree_sitter.Node] | None = None  # that may run Python
        self._trap = False
        self._starts: list[int] = []
        self._last_loose: dict[Table, int] = {}
        self._words: dict[bytes, str] = {}  # a command name's bytes: its word (_word)
        self.execs: list[tuple[int, Table | None]] = []  # (byte, table after it or None)
        table = SAME  # the script's own
        for node in self._all_commands(_EXEC.search(self.src.data) is not None):
            if self._word(node.child_by_field_name("name")) != "exec":
                continue
            if node.children_by_field_name("argument"):
                continue  # exec python ...: replaces the shell, a process of its own
            stmt = (
                node.parent if node.parent and node.parent.type == "redirected_statement" else node
            )
            top = stmt.parent is not None and stmt.parent.type == "program"
            if top:
                table = _after(_redirects(self.src, self._own(node)), table)
                self.execs.append((node.end_byte, table))
            else:
                table = (LOOSE, LOOSE)  # a branch's or a function's exec: unknown from here on
                self.execs.append((node.end_byte, None))

    def _all_commands(self, wanted: bool = True) -> list[tree_sitter.Node]:
        """Every ``command`` node in document order (``[]`` unless ``wanted``: a byte search
        saves the query when no command can matter)."""
        if not wanted:
            return []
        found = query_cursor(query("bash", _COMMANDS)).captures(self.root).get("c", [])
        return sorted(found, key=lambda n: n.start_byte)

    def _word(self, node: tree_sitter.Node | None) -> str | None:
        """A command name without its quotes and directory (``"/bin/echo"``: ``echo``)."""
        if node is None:
            return None
        raw = self.src.data[node.start_byte : node.end_byte]
        word = self._words.get(raw)  # a script names few commands, many times
        if word is None:
            text = raw.decode(errors="replace")
            word = self._words[raw] = posixpath.basename(text.strip("'\"\\"))
        return word

    def _own(self, command: tree_sitter.Node) -> list[tree_sitter.Node]:
        """A simple command's redirections in order: among its words, then after it."""
        own = [k for k in command.children if k.type == "file_redirect"]
        parent = command.parent
        if (
            parent is not None
            and parent.type == "redirected_statement"
            and parent.child_by_field_name("body") == command
        ):
            own += parent.children_by_field_name("redirect")
        return own

    def _context(self, at: int) -> Table:
        """The script's descriptors at byte ``at`` (after the top-level ``exec``s before),
        in terms of its own."""
        table = SAME
        for end, after in self.execs:
            if end > at:
                break
            table = after if after is not None else (LOOSE, LOOSE)
        return table

    def process(self, command: tree_sitter.Node, context: Table = SCRIPT) -> Table:
        """Where the stdout and stderr of ``command`` (a ``command`` node) go; ``context``:
        the script's own descriptors (those of ``bash -c`` around it, when nested)."""
        parent = command.parent
        node = command
        if (
            parent is not None
            and parent.type == "redirected_statement"
            and parent.child_by_field_name("body") == command
        ):
            node = parent  # its redirections are the command's own (merged by _own)
        table = self._dup(node, _redirects(self.src, self._own(command)))
        while node is not None and node.parent is not None:
            child, node = node, node.parent
            kind = node.type
            if kind == "redirected_statement" and node.child_by_field_name("body") == child:
                if not _binds_to(child, command):
                    continue  # `a && b 2>err`: bash gives b alone the redirection
                level = _redirects(self.src, node.children_by_field_name("redirect"))
                table = _after(table, self._dup(node, level))
            elif kind == "pipeline":
                if child.type not in ("command", "redirected_statement"):
                    table = _after(table, self._dup(child, SAME))  # { ...; } |& cat
                if child.next_named_sibling is not None:  # not the last: stdout is a pipe
                    table = _after(table, (KEPT, "2"))
            elif kind == "command_substitution":
                table = _after(table, (KEPT, "2"))
            elif kind == "process_substitution":
                if self.src.data[node.start_byte : node.start_byte + 2] == b"<(":
                    table = _after(table, (KEPT, "2"))
            elif kind in _FUNCTION:
                return _after(table, (LOOSE, LOOSE))  # run by its callers: not known
            elif kind == "program":
                return _after(table, _after(self._context(command.start_byte), context))
        return _after(table, context)

    def _dup(self, node: tree_sitter.Node, level: Table) -> Table:
        """``level`` (a pipeline element's own redirections) then ``|&``'s ``2>&1``."""
        after = node.next_sibling
        piped = node.parent is not None and node.parent.type == "pipeline"
        if piped and after is not None and after.type == "|&":
            return (level[0], level[0])
        return level

    def command_of(self, span: ValueSpan) -> tree_sitter.Node | None:
        """The command whose process reads ``span``'s value, or ``None`` when the value
        stays in the shell (``export NAME=value``, ``NAME=value`` alone)."""
        at = self.src.byte(span.name_start)
        node: tree_sitter.Node | None = self.root.descendant_for_byte_range(at, at)
        while node is not None:
            if node.type == "command":
                return node
            if node.type in ("declaration_command", "variable_assignments", "program"):
                return None
            if node.type == "variable_assignment":
                parent = node.parent
                if parent is None or parent.type != "command":
                    return None
            node = node.parent
        return None

    def runs_python(self, at: int) -> bool:
        """Whether a command that may run Python starts at or after byte ``at``."""
        self.later_kept(at, SCRIPT)  # (finds the commands)
        return bisect_left(self._starts, at) < len(self._starts)

    def later_kept(self, at: int, context: Table) -> bool:
        """Whether every command that may run Python after byte ``at`` (the end of a value
        that stays in the shell) keeps its stderr, and there is one."""
        node: tree_sitter.Node | None = self.root.descendant_for_byte_range(at, at)
        while node is not None:  # in a loop, its commands before the value run after it too
            if node.type in _LOOPS:
                at = min(at, node.start_byte)
            node = node.parent
        if self._commands is None:  # once per script: many values may ask
            commands = self._all_commands()
            names = [self._word(c.child_by_field_name("name")) for c in commands]
            self._commands = [
                c
                for c, name in zip(commands, names, strict=True)
                if name not in HARMLESS
                and not (name == "exec" and not c.children_by_field_name("argument"))
            ]  # (an exec with redirections only starts no process)
            self._trap = "trap" in names
            self._starts = [c.start_byte for c in self._commands]
        if self._trap:
            return False
        last = self._last_loose.get(context)
        if last is None:  # the last command that does not keep it (-1: none)
            last = len(self._commands) - 1
            while last >= 0 and self.process(self._commands[last], context)[1] == KEPT:
                last -= 1
            self._last_loose[context] = last
        return last < bisect_left(self._starts, at) < len(self._commands)


def script_kept(text: str) -> bool:
    """Whether the script ``text`` keeps the stderr of every command of it that may run
    Python, and has one: a value set for the whole script (a workflow step's ``env:``)
    counts as kept then. Never raises."""
    return scripts_kept([text])


def scripts_kept(texts: list[str]) -> bool:
    """:func:`script_kept` for a value that reaches several scripts, each run by a shell of
    its own (a GitLab job's ``before_script`` + ``script``, then ``after_script``): every
    command of them that may run Python keeps its stderr, and there is one. Never
    raises."""
    try:
        seen = False
        for text in texts:
            script = _Script(text)
            if script.later_kept(0, SCRIPT):
                seen = True
            elif script.runs_python(0):
                return False
        return seen
    except Exception:  # bad input never crashes the checker
        log.exception("shell: where stderr goes could not be read")
        return False


#: The last scripts asked about (:func:`stderr_captured`): ``(text, spans, context,
#: answer)``, most recent last.
_answers: list[tuple[str, list[ValueSpan], Table, list[bool]]] = []
#: Most scripts remembered, and the longest (code points) remembered at all.
MAX_ANSWERS = 8
MAX_KEPT_CHARS = 1 << 20


def _any(span: ValueSpan) -> bool:
    return True


def stderr_captured(
    text: str,
    spans: list[ValueSpan],
    context: Table = SCRIPT,
    tree: tree_sitter.Tree | None = None,
) -> list[bool]:
    """:func:`captured_now`, remembered for the last :data:`MAX_ANSWERS` scripts: a script
    that differs from one of them only inside one plain value
    (:func:`.incremental.only_values_differ`: typing in a value) has its answer, without
    a parse or a walk of its commands. Same arguments and result."""
    for i, (old, old_spans, old_context, answer) in enumerate(_answers):
        if old_context == context and only_values_differ(old, old_spans, text, spans, _any):
            del _answers[i]
            _answers.append((text, spans, context, answer))
            return list(answer)
    answer = captured_now(text, spans, context, tree)
    if len(text) <= MAX_KEPT_CHARS:
        _answers.append((text, spans, context, list(answer)))
        del _answers[:-MAX_ANSWERS]
    return answer


def captured_now(
    text: str,
    spans: list[ValueSpan],
    context: Table = SCRIPT,
    tree: tree_sitter.Tree | None = None,
) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured` of the shell host (see the module
    docstring): one flag per span of ``spans`` (``extract(text)``); ``context``: the
    script's own stdout and stderr (:data:`SCRIPT`, or those of the ``bash -c`` command
    around it); ``tree``: the text's :func:`.bash_parse.parse_bash` tree when the caller
    has it. A value read from code inside a word (``bash -c '...'``) counts as kept
    when that code keeps it too. Never raises (a failure keeps nothing)."""
    from torch_logs_lsp.hosts.embedded import EmbeddedSpan, inner_captured

    try:
        script = _Script(text, tree)
        out: list[bool] = []
        for span in spans:
            command = script.command_of(span)
            if command is None:
                out.append(script.later_kept(script.src.byte(span.raw_end), context))
                continue
            table = script.process(command, context)
            if isinstance(span, EmbeddedSpan):  # bash -c '...': the script says, run there
                out.append(inner_captured(span, table))
            else:
                out.append(table[1] == KEPT)
        return out
    except Exception:  # bad input never crashes the checker
        log.exception("shell: where stderr goes could not be read")
        return [False] * len(spans)


__all__ = [
    "HARMLESS",
    "KEPT",
    "LOOSE",
    "SCRIPT",
    "Table",
    "script_kept",
    "scripts_kept",
    "stderr_captured",
]
