"""Whether a PowerShell script keeps the stderr of the processes that read a value (TL411:
torch logs to stderr), the PowerShell host's :meth:`~.interface.OutputHost.stderr_captured`.

A value set in the session (``$env:NAME = ...``, ``Set-Item Env:NAME``,
``[Environment]::SetEnvironmentVariable`` for the process) is read by every later command,
so it counts as kept only when there is at least one later command that may run Python
(:data:`HARMLESS` cmdlets run none) and every such command keeps its error output
(about_Redirection): ``2>file``, ``2>>file``, ``*>file``, ``*>>file`` (``2>$null`` too);
``2>&1`` (or ``*>&1``) with the success stream going on to a file (``>``), into a
pipeline (``2>&1 | Tee-Object log``, ``2>&1 | Out-File log``) or into a variable
(``$out = python a.py 2>&1``); ``Start-Process -RedirectStandardError``; a command run in a
script block (``& { python a.py } 2>&1 | Tee-Object log``) as that block's command does. A
pipe alone (``python a.py | Tee-Object log``) keeps only standard output. A value in a
loop counts the loop's commands before it too; a value stored for the user or the
machine (``SetEnvironmentVariable`` with ``"User"``/``"Machine"``) is never kept.
Offsets are code points.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor, walk

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: Cmdlets, aliases and tools that never start Python (lower case; PowerShell ignores case).
HARMLESS = frozenset(
    {
        "add-content", "cat", "cd", "chdir", "clear-host", "copy-item", "cp", "del", "dir",
        "echo", "get-childitem", "get-content", "get-date", "get-item", "get-location",
        "join-path", "ls", "md", "mkdir", "move-item", "mv", "new-item", "out-file",
        "out-null", "pop-location", "popd", "push-location", "pushd", "pwd", "remove-item",
        "resolve-path", "rm", "rmdir", "select-string", "set-content", "set-item",
        "set-location", "set-strictmode", "set-variable", "split-path", "start-sleep",
        "tee-object", "test-path", "write-debug", "write-error", "write-host",
        "write-information", "write-output", "write-verbose", "write-warning", "nvidia-smi",
    }
)  # fmt: skip
_LOOPS = frozenset({"foreach_statement", "for_statement", "while_statement", "do_statement"})
_STDERR = frozenset({"2>", "2>>", "*>", "*>>"})
_STDOUT = frozenset({">", ">>", "1>", "1>>"})
_MERGE = frozenset({"2>&1", "*>&1"})
_COMMANDS = declare_query("powershell", "(command) @c")
#: A redirection tree-sitter-powershell reads as a plain word (``2>$null``).
_WORD_REDIRECT = re.compile(r"([12*]?>>?)(&1)?(\S*)")


class _Script:
    def __init__(self, text: str, tree: tree_sitter.Tree | None = None) -> None:
        self.src = Source(text)
        self.root = (tree if tree is not None else self.src.parse("powershell")).root_node
        self._found: tuple[list[int], int] | None = None

    def _text(self, node: tree_sitter.Node) -> str:
        return self.src.data[node.start_byte : node.end_byte].decode(errors="replace")

    def name(self, command: tree_sitter.Node) -> str:
        for kid in command.children:
            if kid.type == "command_name_expr":  # & python ...
                kid = kid.children[0] if kid.child_count == 1 else kid
            if kid.type == "command_name":
                return self._text(kid).strip("'\"").lower()
        return ""  # & { ... }, & $exe: not known

    def kept(self, command: tree_sitter.Node) -> bool:
        """Whether ``command`` (a ``command`` node) keeps its error output."""
        stderr = merged = stdout = False
        elements = next((k for k in command.children if k.type == "command_elements"), None)
        words = elements.children if elements is not None else []
        for kid in words:
            if kid.type == "redirection":
                op = next((k for k in kid.children if "redirection_operator" in k.type), None)
                sign = self._text(op).strip() if op is not None else ""
                stderr = stderr or sign in _STDERR
                merged = merged or sign in _MERGE
                stdout = stdout or sign in _STDOUT
            elif kid.type == "generic_token":
                m = _WORD_REDIRECT.fullmatch(self._text(kid))
                if m is not None and (m.group(2) or m.group(3)):
                    sign = m.group(1)
                    stderr = stderr or (sign[0] in "2*" and not m.group(2))
                    merged = merged or (sign[0] in "2*" and bool(m.group(2)))
                    stdout = stdout or (sign[0] in ">1" and not m.group(2))
            elif kid.type == "command_parameter" and self._text(kid).lower().startswith(
                "-redirectstandarderror"
            ):
                stderr = stderr or self.name(command) in ("start-process", "saps", "start")
        if stderr:
            return True
        chain = command.parent
        if merged and (stdout or self._piped(command) or self._assigned(chain)):
            return True
        # a command in a script block run by another: that command's redirections count
        node = command.parent
        while node is not None and node.type not in ("program", "function_statement"):
            if node.type == "command" and node.id != command.id:
                return self.kept(node)
            node = node.parent
        return False

    def _piped(self, command: tree_sitter.Node) -> bool:
        after = command.next_sibling
        return after is not None and after.type == "|"

    def _assigned(self, chain: tree_sitter.Node | None) -> bool:
        pipeline = chain.parent if chain is not None else None
        holder = pipeline.parent if pipeline is not None else None
        return holder is not None and holder.type == "assignment_expression"

    def later_kept(self, at: int) -> bool:
        """Whether every command that may run Python after byte ``at`` keeps its error
        output, and there is one."""
        node: tree_sitter.Node | None = self.root.descendant_for_byte_range(at, at)
        while node is not None:
            if node.type in _LOOPS:
                at = min(at, node.start_byte)
            node = node.parent
        starts, last_loose = self._commands()
        k = bisect_left(starts, at)
        return last_loose < k < len(starts)

    def _commands(self) -> tuple[list[int], int]:
        """Where the commands that may run Python start (bytes, in order), and the index
        of the last one that does not keep its error output (``-1``: none); once per
        script, however many values ask."""
        if self._found is None:
            found = query_cursor(query("powershell", _COMMANDS)).captures(self.root)
            commands: list[tree_sitter.Node] = []
            for command in sorted(found.get("c", []), key=lambda n: n.start_byte):
                if self.name(command) in HARMLESS:
                    continue
                if any(k.type == "command_name_expr" for k in command.children):
                    inner = walk(command, lambda n: n.type == "command")[1:]
                    if inner and all(self.name(c) in HARMLESS for c in inner):
                        continue  # & { Write-Host ... }
                commands.append(command)
            last = len(commands) - 1
            while last >= 0 and self.kept(commands[last]):
                last -= 1
            self._found = ([c.start_byte for c in commands], last)
        return self._found


def script_kept(text: str) -> bool:
    """Whether the script ``text`` keeps the error output of every command of it that may
    run Python, and has one (a value set for the whole script: a workflow step's
    ``env:``). Never raises."""
    try:
        return _Script(text).later_kept(0)
    except Exception:  # bad input never crashes the checker
        log.exception("powershell: where stderr goes could not be read")
        return False


def stderr_captured(
    text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None = None
) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured` of the PowerShell host (see the
    module docstring): one flag per span of ``spans`` (``extract(text)``); ``tree``: the
    text's tree-sitter-powershell tree when the caller has it. Never raises (a failure
    keeps nothing)."""
    from torch_logs_lsp.hosts.powershell.host import found_statements

    try:
        found = {f.span.name_start: f for f in found_statements(text)}
        script = _Script(text, tree)
        out: list[bool] = []
        for span in spans:
            f = found.get(span.name_start)
            if f is None or f.persistent:
                out.append(False)
                continue
            out.append(script.later_kept(script.src.byte(f.end)))
        return out
    except Exception:  # bad input never crashes the checker
        log.exception("powershell: where stderr goes could not be read")
        return [False] * len(spans)


__all__ = ["HARMLESS", "script_kept", "stderr_captured"]
