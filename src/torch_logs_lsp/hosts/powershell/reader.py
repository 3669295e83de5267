"""Where a PowerShell script sets a family variable, read from tree-sitter-powershell's tree.

Each family name in the text (any case) is looked up in the tree and kept when it stands
in one of these places (the name and the ``env:`` drive in any case; the span reports the
canonical upper-case name):

- ``$env:NAME = <value>`` and ``${env:NAME} = <value>`` (``+=`` and other operators: not
  static); ``= $null`` removes the variable (no span);
- ``Set-Item`` / ``si`` (``-Path`` position 0, ``-Value`` position 1) and ``New-Item`` /
  ``ni`` (``-Path`` position 0, ``-Name``, ``-Value`` named) with a path ``Env:NAME``,
  ``Env:\\NAME`` or ``Env:/NAME`` (or ``-Path Env: -Name NAME``); a parameter we do not
  know makes the value not static; without a value or with ``$null``: no span;
- ``[Environment]::SetEnvironmentVariable('NAME', <value>[, <target>])`` (also
  ``[System.Environment]``); ``$null`` as the value: no span.

The value is a string literal (:mod:`.powershell_strings`) that is the whole expression (or
the whole argument), a bare command argument, or a decimal integer after ``=``; anything
else (``"a" + "b"``, a method call, a pipeline) is not static. All offsets are **code
points into the document**.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from torch_logs_lsp.hosts.powershell.strings import BARE, Decoded, read_bare, read_string
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts._ts import Source

HOST: HostKind = "powershell"

NAME = re.compile(
    r"(?<![\w-])(TORCH_LOGS_TRACE_ID_FILTER|TORCH_LOGS_FORMAT|TORCH_LOGS_OUT|TORCH_LOGS"
    r"|TORCH_TRACE|TORCH_COMPILE_DEBUG)(?![\w-])",
    re.I,
)
_ENV_VARIABLE = re.compile(r"\$(?:env|\{env):(\w+)\}?", re.I)
_ENV_PATH = re.compile(r"env:(?:[\\/]?)(\w*)", re.I)
_INTEGER = re.compile(r"0|[1-9][0-9]{0,15}")
#: What may follow a whole value: a blank, a line break, a statement end, a comment.
_AFTER = re.compile(r"[ \t\f\v]*(?:$|[\r\n;})]|#)")
_AFTER_ARG = re.compile(r"$|[ \t\f\v\r\n;})|]")
#: The parameters of Set-Item and New-Item (PowerShell 7.5 and 5.1) and the common ones,
#: lower case, with their aliases; those taking no argument are the switches.
_COMMON = (
    "verbose vb debug db erroraction ea warningaction wa informationaction infa "
    "errorvariable ev warningvariable wv informationvariable iv outvariable ov outbuffer ob "
    "pipelinevariable pv progressaction proga whatif wi confirm cf"
)
_SET_ITEM = (
    f"path literalpath pspath lp value force passthru filter include exclude credential {_COMMON}"
)
_NEW_ITEM = f"path name value itemtype type force credential {_COMMON}"
_SWITCHES = frozenset(
    ["verbose", "vb", "debug", "db", "whatif", "wi", "confirm", "cf", "force", "passthru"]
)
_CMDLETS = {
    "set-item": (frozenset(_SET_ITEM.split()), ("path", "value")),
    "si": (frozenset(_SET_ITEM.split()), ("path", "value")),
    "new-item": (frozenset(_NEW_ITEM.split()), ("path",)),
    "ni": (frozenset(_NEW_ITEM.split()), ("path",)),
}
_ALIASES = {"pspath": "literalpath", "lp": "literalpath", "type": "itemtype"}
_STOP = frozenset({"program", "statement_list", "script_block", "script_block_body"})
_FOUND_AT = frozenset({"assignment_expression", "command", "invokation_expression"})


class Found(NamedTuple):
    """A span with its statement: the document range of the statement, ``top`` (the
    byte offset of the top-level statement, ``-1`` inside a block), ``prev`` (that of
    the top-level statement before it, ``-1`` for none) and ``persistent``
    (``SetEnvironmentVariable`` with a target other than the process)."""

    span: ValueSpan
    start: int
    end: int
    top: int
    prev: int = -1
    persistent: bool = False
    #: ``New-Item`` fails on an existing variable without ``-Force``: never overwrites
    #: or is overwritten for certain.
    unsure: bool = False


def _span(variable: str, name_start: int, name_len: int, d: Decoded) -> ValueSpan:
    static = d.value is not None
    return ValueSpan(
        variable,
        HOST,
        name_start,
        name_start + name_len,
        d.value if static else None,
        tuple(d.starts) if static else (),
        tuple(d.ends) if static else (),
        d.content_start,
        d.content_end,
        d.raw_start,
        d.raw_end,
        d.quote,
        d.terminated,
    )


def _value_at(
    text: str, start: int, end: int, argument: bool, exact: bool = False
) -> Decoded | None:
    """The value written at ``text[start:end]`` (a node's range), or ``None`` for
    ``$null`` (a removal). A string must be the whole expression or argument (``exact``:
    the whole node, a method argument); in an argument a bare word is its own value;
    after ``=`` a decimal integer is."""
    word = text[start:end]
    if word.lower() == "$null" and (_AFTER.match(text, end) if not argument else True):
        return None
    d = read_string(text, start)
    if d is not None:
        follow = _AFTER_ARG if argument else _AFTER
        cut = d.raw_end != end if exact else follow.match(text, d.raw_end) is None
        if d.terminated and cut:
            d = Decoded(None, [], [], start, end, start, end, "")
        return d
    if argument:
        if _AFTER_ARG.match(text, end) is None:  # `a,b` (an array), `a$b`
            return Decoded(None, [], [], start, end, start, end, "")
        return read_bare(text, start, end)
    if _INTEGER.fullmatch(word) and _AFTER.match(text, end):
        starts = list(range(start, end))
        return Decoded(word, starts, [k + 1 for k in starts], start, end, start, end, "")
    return Decoded(None, [], [], start, end, start, end, "")


class _Reader:
    def __init__(self, src: Source, root: tree_sitter.Node) -> None:
        self.src = src
        self.text = src.text

    def cps(self, node: tree_sitter.Node) -> tuple[int, int]:
        return self.src.cp(node.start_byte), self.src.cp(node.end_byte)

    def statement(self, node: tree_sitter.Node) -> tuple[int, int, int, int]:
        """The range of the statement holding ``node``, its byte offset when it is a
        top-level statement (else ``-1``) and that of the top-level statement before it."""
        stmt = node
        while stmt.parent is not None and stmt.parent.type not in _STOP:
            stmt = stmt.parent
        top = prev = -1
        if stmt.parent is not None and stmt.parent.type == "statement_list":
            grand = stmt.parent.parent
            if grand is not None and grand.type == "program":
                top = stmt.start_byte
                before = stmt.prev_named_sibling
                while before is not None and before.type in ("comment", "empty_statement"):
                    before = before.prev_named_sibling
                prev = before.start_byte if before is not None else -1
        a, b = self.cps(stmt)
        return a, b, top, prev

    def found(self, m: re.Match[str], root: tree_sitter.Node) -> Found | None:
        start, end = m.span()
        node = root.descendant_for_byte_range(self.src.byte(start), self.src.byte(end))
        while node is not None and node.type not in _FOUND_AT and node.type not in _STOP:
            node = node.parent
        if node is None or node.type in _STOP:
            return None
        variable = m.group(1).upper()
        if node.type == "assignment_expression":
            return self.assignment(node, variable, start)
        if node.type == "command":
            return self.command(node, variable, start)
        return self.invocation(node, variable, start)

    def assignment(self, node: tree_sitter.Node, variable: str, at: int) -> Found | None:
        kids = [k for k in node.children if k.type != "comment"]
        if len(kids) != 3:
            return None
        left, op, right = kids
        a, b = self.cps(left)
        if not (a <= at < b):
            return None
        m = _ENV_VARIABLE.fullmatch(self.text, a, b)
        if m is None or m.group(1).upper() != variable:
            return None
        if self.text[a + 1] == "{" and self.text[b - 1] != "}":
            return None
        r0, r1 = self.cps(right)
        value = _value_at(self.text, r0, r1, False)
        if value is None:
            return None  # = $null: removed
        if self.src.text[slice(*self.cps(op))] != "=":
            value = Decoded(None, [], [], r0, r1, r0, r1, "")
        s0, s1, top, prev = self.statement(node)
        return Found(_span(variable, at, len(variable), value), s0, s1, top, prev)

    def command(self, node: tree_sitter.Node, variable: str, at: int) -> Found | None:
        name = node.child_by_field_name("command_name")
        name = name or (node.named_children[0] if node.named_children else None)
        if name is None or name.type != "command_name":
            return None
        spec = _CMDLETS.get(self.src.text[slice(*self.cps(name))].lower())
        elements = next((c for c in node.named_children if c.type == "command_elements"), None)
        if spec is None or elements is None:
            return None
        known, positions = spec
        named: dict[str, tree_sitter.Node] = {}
        positional: list[tree_sitter.Node] = []
        unknown = False
        switches: set[str] = set()
        args = [c for c in elements.named_children if c.type != "command_argument_sep"]
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg.type != "command_parameter":
                positional.append(arg)
                continue
            raw = self.src.text[slice(*self.cps(arg))]
            param = raw.lstrip("-").rstrip(":").lower()
            full = [k for k in known if k.startswith(param)] if param not in known else [param]
            if len(full) != 1:
                unknown = True
                break
            key = _ALIASES.get(full[0], full[0])
            if key in _SWITCHES and not raw.endswith(":"):
                switches.add(key)
                continue
            if i < len(args):
                named[key] = args[i]
                i += 1
        if unknown or "whatif" in named or "whatif" in switches:
            return None  # (-WhatIf sets nothing)
        if "literalpath" in named:
            named.setdefault("path", named["literalpath"])  # one or the other, never both
        for key, arg in zip((k for k in positions if k not in named), positional, strict=False):
            named[key] = arg
        path = named.get("path") or named.get("literalpath")
        if path is None:
            return None
        p0, p1 = self.cps(path)
        pd = read_string(self.text, p0)
        path_text = pd.value if pd is not None else self.text[p0:p1]
        if path_text is None:
            return None
        pm = _ENV_PATH.fullmatch(path_text)
        if pm is None:
            return None
        if pm.group(1):  # Env:NAME
            target, target_text = path, pm.group(1)
        else:  # -Path Env: -Name NAME
            name_node = named.get("name")
            if name_node is None:
                return None
            target = name_node
            t0, t1 = self.cps(target)
            td = read_string(self.text, t0)
            target_text = td.value if td is not None else self.text[t0:t1]
        t0, t1 = self.cps(target)
        if not (t0 <= at < t1) or target_text is None or target_text.upper() != variable:
            return None
        value_node = named.get("value")
        if value_node is None:
            return None
        v0, v1 = self.cps(value_node)
        if v0 < t1:
            return None  # the value before the name: not a span we can describe
        value = _value_at(self.text, v0, v1, True)
        if value is None:
            return None
        s0, s1, top, prev = self.statement(node)
        unsure = "value" not in positions
        span = _span(variable, at, len(variable), value)
        return Found(span, s0, s1, top, prev, unsure=unsure)

    def invocation(self, node: tree_sitter.Node, variable: str, at: int) -> Found | None:
        kids = node.named_children
        if len(kids) != 3 or kids[0].type != "type_literal" or kids[2].type != "argument_list":
            return None
        kind = re.sub(r"\s+", "", self.src.text[slice(*self.cps(kids[0]))]).lower()
        member = self.src.text[slice(*self.cps(kids[1]))].lower()
        if kind not in ("[environment]", "[system.environment]"):
            return None
        if member != "setenvironmentvariable":
            return None
        lists = [c for c in kids[2].named_children if c.type == "argument_expression_list"]
        if len(lists) != 1:
            return None
        args = [c for c in lists[0].named_children if c.type == "argument_expression"]
        if len(args) not in (2, 3):
            return None
        n0, n1 = self.cps(args[0])
        if not (n0 <= at < n1):
            return None
        nd = read_string(self.text, n0)
        if nd is None or nd.raw_end != n1 or (nd.value or "").upper() != variable:
            return None
        v0, v1 = self.cps(args[1])
        value = _value_at(self.text, v0, v1, True, exact=True)
        if value is None:
            return None
        if value.quote == "" and value.value is not None:
            value = Decoded(None, [], [], v0, v1, v0, v1, "")  # a bare word is a command here
        persistent = False
        if len(args) == 3:
            t0, t1 = self.cps(args[2])
            target = self.text[t0:t1].strip("'\"").lower()
            persistent = not target.endswith("process")
        s0, s1, top, prev = self.statement(node)
        span = _span(variable, at, len(variable), value)
        return Found(span, s0, s1, top, prev, persistent=persistent)


_TYPED_BEFORE = re.compile(r"(?:^|[\r\n])[ \t]*\$\{?env:$", re.I)
_TYPED_AFTER = re.compile(r"\}?[ \t]*=[ \t]*")


def _outside_strings(src: Source, root: tree_sitter.Node, m: re.Match[str]) -> bool:
    """Whether the name at ``m`` is not in a string or comment tree-sitter parsed (where
    it found no assignment: a part it could not parse, or one it misread because it does
    not know typographic quotes)."""
    node: tree_sitter.Node | None = root.descendant_for_byte_range(
        src.byte(m.start()), src.byte(m.end())
    )
    while node is not None:
        if node.type in ("string_literal", "comment"):
            return False
        node = node.parent
    return True


def _typed(text: str, m: re.Match[str]) -> Found | None:
    """``$env:NAME = <string>`` at the start of a line where tree-sitter found no
    assignment: a quote never closed (being typed: a span to the end of the line) or a
    string tree-sitter-powershell cannot read (an empty here-string ``@'`` + ``'@``, a
    typographic quote), read by our decoder alone."""
    line = max(text.rfind("\n", 0, m.start()), text.rfind("\r", 0, m.start())) + 1
    if _TYPED_BEFORE.search(text, max(0, line - 1), m.start()) is None:
        return None
    after = _TYPED_AFTER.match(text, m.end())
    braced = "{" in text[line : m.start()]
    if after is None or braced != (text[m.end() : m.end() + 1] == "}"):
        return None
    d = read_string(text, after.end())
    if d is None or (d.terminated and _AFTER.match(text, d.raw_end) is None):
        return None
    variable = m.group(1).upper()
    return Found(_span(variable, m.start(), len(variable), d), line, d.raw_end, -1)


def read(src: Source, root: tree_sitter.Node) -> list[Found]:
    """Every family assignment of the document (see the module docstring), in order."""
    reader = _Reader(src, root)
    out: list[Found] = []
    seen: set[int] = set()
    for m in NAME.finditer(src.text):
        found = reader.found(m, root)
        if found is None and _outside_strings(src, root, m):
            found = _typed(src.text, m)
        if found is not None and found.span.name_start not in seen:
            seen.add(found.span.name_start)
            out.append(found)
    return out


__all__ = ["BARE", "FAMILY", "NAME", "Found", "read"]
