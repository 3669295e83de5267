"""Overwritten values in a shell script (:meth:`.interface.Host.overwritten`).

A value is overwritten when bash certainly assigns the same variable again before any
command can see it (checked against bash 5.2 in the tests, by running the script):

- two assignments in one simple command or one ``export`` (``TORCH_LOGS=a TORCH_LOGS=b
  cmd``, ``export TORCH_LOGS=a TORCH_LOGS=b``, ``A=a A=b`` alone), or two operands of one
  ``env`` (``env A=a A=b cmd``): bash (and env) assign them left to right, the last wins;
- two statements ``NAME=value`` / ``export NAME=value`` in the same list of statements
  (the script's top level, a ``{ ...; }`` or function body, a ``( ... )`` subshell, a
  loop's ``do ... done``) with nothing between them but comments and other such
  assignments: no command, function call, pipeline or ``&&``/``||`` list runs in between.

Never when the second is an append (``+=``), when a ``$`` or a backquote appears from the
first assignment's end to the second statement's end (an expansion may read the first
value or run a command: bash expands all the words of ``export X=b Y=`cmd``` before it
assigns any), when a
statement between or the second one runs in the background (``&``), or when the two sit
in different branches of ``if``/``case``/``&&`` or in a condition. ``local``,
``readonly`` and ``declare`` are not followed. Offsets are code points.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.interface import Overwrite
from torch_logs_lsp.hosts.shell.bash_parse import parse_bash
from torch_logs_lsp.model.spans import ValueSpan, set_again

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

#: Lists of statements run one after the other, each statement once per run of the list.
_SEQUENCES = frozenset({"program", "compound_statement", "subshell", "do_group"})
_SAME_COMMAND = "{name} is assigned again later in the same command, and bash keeps the last"
_STATEMENT = "{name} is set again before any command runs"


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """The overwritten spans of a shell script (see the module docstring). Never raises
    (a failure gives ``[]``, logged)."""
    if len(spans) < 2 or len({s.variable for s in spans}) == len(spans):
        return []
    if not _maybe_overwritten(text, spans):
        return []  # (no parse: the bash parse of a 10,000-line script costs ~35-70 ms)
    try:
        return _overwritten(text, spans)
    except Exception:  # bad input never crashes the checker
        log.exception("finding overwritten shell values failed")
        return []


#: The rest of an assignment's line that runs no command: more ``NAME=word``, ``;``, a
#: comment (``X=a python t.py`` runs a command with the value: not quiet).
_QUIET_REST = re.compile(r"(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=\S*)*[ \t]*;?[ \t]*(?:#.*)?")


_REST_OF_LINE = re.compile(r"[^\r\n]*")
#: After an assignment that is a statement of its own: more assignments, then the end of
#: the line or an operator (not a command word: ``X=b cmd`` sets X for cmd only).
_OWN_STATEMENT = re.compile(r"(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=\S*)*[ \t]*(?:[;&|#)}]|$)")
#: Line breaks with only quiet lines between them: blank, a comment, or starting with an
#: assignment (``X=..``, ``export X=..``); any other line runs something.
_QUIET_BLOCK = re.compile(
    r"(?:\r\n|\r|\n)(?:[ \t]*(?:#[^\r\n]*|(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=[^\r\n]*)?"
    r"(?:\r\n|\r|\n))*"
)


def _maybe_overwritten(text: str, spans: list[ValueSpan]) -> bool:
    """A cheap test before any parse: whether some span is followed by another of the
    same variable on the same line, or with only quiet lines (:data:`_QUIET_BLOCK`)
    between them, the rest of the first's line quiet and the second a statement of its
    own (``X=b cmd`` sets X for cmd only: the first stays for later commands). ``False``
    means no span is overwritten; ``True`` only means the parse must decide. A few
    regular-expression matches per pair, no slicing (a 10,000-line script: ~1 ms)."""
    for earlier, later in set_again(spans):
        before, span = spans[earlier], spans[later]
        first_end = _REST_OF_LINE.match(text, before.raw_end)
        end1 = first_end.end() if first_end else before.raw_end
        if end1 >= span.name_start:
            return True  # the same line
        if not _QUIET_REST.fullmatch(text, before.raw_end, end1):
            continue  # a command after the first, on its line
        line2 = max(
            text.rfind("\n", end1, span.name_start), text.rfind("\r", end1, span.name_start)
        )
        if not _QUIET_BLOCK.fullmatch(text, end1, line2 + 1):
            continue  # a command on a line between
        rest = _REST_OF_LINE.match(text, span.raw_end)
        if rest is None or _OWN_STATEMENT.match(text, span.raw_end, rest.end()):
            return True
    return False


def _assignment(src: Source, root: tree_sitter.Node, span: ValueSpan) -> tree_sitter.Node | None:
    """The ``variable_assignment`` node whose name is ``span``'s, or the ``word`` of an
    ``env`` operand (``env A=a A=b cmd``: env sets them left to right, the last wins)."""
    start = src.byte(span.name_start)
    node = root.named_descendant_for_byte_range(start, start)
    if node is not None and node.type == "word" and node.start_byte == start:
        command = node.parent
        name = command.child_by_field_name("name") if command is not None else None
        program = src.data[name.start_byte : name.end_byte] if name is not None else b""
        return node if program.rsplit(b"/", 1)[-1] == b"env" else None
    if node is None or node.type != "variable_name":
        return None
    parent = node.parent
    if (
        parent is None
        or parent.type != "variable_assignment"
        or parent.child_by_field_name("name") != node
    ):
        return None
    return parent


def _statement(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The statement an assignment is (``X=a``) or is the operand of (``export X=a``),
    when that statement stands in a list of :data:`_SEQUENCES`."""
    parent = node.parent
    if parent is not None and parent.type == "declaration_command":
        if not _one_command(parent):
            return None
        node, parent = parent, parent.parent
    return node if parent is not None and parent.type in _SEQUENCES else None


def _quiet(node: tree_sitter.Node) -> bool:
    """A statement that runs no command: an assignment or ``export`` of assignments."""
    if node.type in ("comment", "variable_assignment"):
        return True
    if node.type != "declaration_command":
        return False
    first = node.child(0)
    return (
        first is not None
        and first.type == "export"
        and all(c.type in ("variable_assignment", "variable_name") for c in node.named_children)
    )


def _overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    src = Source(text)
    root = parse_bash(src.data).root_node
    nodes: dict[int, tree_sitter.Node | None] = {}

    def node_of(i: int) -> tree_sitter.Node | None:
        if i not in nodes:
            nodes[i] = _assignment(src, root, spans[i])
        return nodes[i]

    out: list[Overwrite] = []
    for before, i in set_again(spans):
        span = spans[i]
        if text.startswith("+=", span.name_end):
            continue  # an append reads the value before it
        node, first = node_of(i), node_of(before)
        if node is None or first is None:
            continue

        def expands(container: tree_sitter.Node, start: int = spans[before].raw_end) -> bool:
            """A ``$`` or backquote from the first value to the end of ``container`` (the
            command or statement of the second): ``export X=b Y=`cmd``` runs ``cmd``
            with the first value, since bash expands every word before assigning."""
            between = text[start : src.cp(container.end_byte)]
            return "$" in between or "`" in between

        parent = node.parent
        if parent is not None and first.parent == parent and _one_command(parent):
            gap = text[spans[before].raw_end : span.name_start]
            if "\n" in gap or "\r" in gap:
                continue  # one command on two lines: tree-sitter-bash's reading after
                # `X=$(cmd) A=f`, not bash's (a line continuation is not followed either)
            if not expands(parent):
                out.append(Overwrite(before, i, _SAME_COMMAND.format(name=span.variable)))
            continue
        second_stmt, first_stmt = _statement(node), _statement(first)
        if second_stmt is None or first_stmt is None or second_stmt.parent != first_stmt.parent:
            continue
        if not expands(second_stmt) and _runs_in_order(first_stmt, second_stmt):
            out.append(Overwrite(before, i, _STATEMENT.format(name=span.variable)))
    return out


def _one_command(node: tree_sitter.Node) -> bool:
    """A simple command (its prefix assignments), ``A=a B=b`` alone, or an ``export``."""
    if node.type in ("command", "variable_assignments"):
        return True
    first = node.child(0)
    return node.type == "declaration_command" and first is not None and first.type == "export"


def _runs_in_order(first: tree_sitter.Node, second: tree_sitter.Node) -> bool:
    """Whether only quiet statements and ``;`` separate ``first`` from ``second`` in
    their list, and neither runs in the background (``&`` after it)."""
    node = first.next_sibling
    while node is not None and node != second:
        if node.type == "&" or (node.is_named and not _quiet(node)):
            return False
        node = node.next_sibling
    after = second.next_sibling
    return node == second and (after is None or after.type != "&")


__all__ = ["overwritten"]
