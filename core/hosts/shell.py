"""The shell host: assignments in bash/sh/zsh scripts, decoded as bash 5.2 assigns them.

tree-sitter-bash locates the assignments: ``NAME=value`` (alone, as a command prefix, or
after ``export``/``declare -x``/``local``/``readonly``/``typeset``) and the ``NAME=value``
operands of ``env`` (after its options ``-i``, ``-u NAME``, ...). Each value is then decoded
from the document text by :func:`scan_word`, which follows the bash manual ("Quoting",
"Shell Expansions"): backslash escapes and line continuations, single quotes, double quotes
(where a backslash escapes only ``$ ` " \\`` and newline), ``$'...'`` ANSI-C quoting (a NUL
ends the string), ``$"..."`` (read as a double-quoted string) and concatenations of these.

A value is non-static (``value=None``) when bash would expand something in it: parameter
expansion, command or arithmetic substitution, backquotes, a tilde at the start or after an
unquoted ``:``, an array ``(...)``, ``+=``, ``declare`` with an attribute that transforms
the value (``-i -l -u -a -A -n -c``), a ``$'...'`` escape producing a byte >= 0x80 (no
longer text), and for ``env`` operands (ordinary words) unquoted glob or brace characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import toplevel
from ._ts import Source
from .base import FAMILY, ValueSpan, names_family
from .bash_parse import parse_bash
from .incremental import DocumentCache
from .interface import (
    PathFacts,
    TextEdit,
    line_before,
    line_bounds,
    no_notes,
    no_set_logs_calls,
    no_set_logs_site,
    no_set_logs_source,
)
from .shell_overwrites import overwritten as overwritten
from .typographic import shell_findings

if TYPE_CHECKING:
    import tree_sitter

HOST = "shell"
COMMENT = "#"
NEVER_SET: str | None = "bash stops with a syntax error (unexpected end of file)"
STRIPS_TRAILING_BLANKS = False
_SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "mksh", "ash"})
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")
_DOTFILES = frozenset({".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv", ".zprofile"})


def detect_name(name: str) -> bool:
    """``*.sh``, ``*.bash``, ``*.zsh``, ``*.ksh``, ``.envrc`` (direnv runs it with bash)
    and ``.bashrc``-style dotfiles."""
    lower = name.lower()
    return (
        lower == ".envrc"
        or lower.endswith((".sh", ".bash", ".zsh", ".ksh"))
        or (lower in _DOTFILES)
    )


def _program(path: str) -> str:
    return re.split(r"[/\\]", path)[-1]


def detect_content(name: str, head: str) -> bool:
    """A file without an extension whose shebang names sh, bash, zsh, ksh or dash
    (``#!/usr/bin/env bash`` too)."""
    if "." in name.lstrip("."):
        return False
    first = head.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    m = _SHEBANG.match(first)
    if m is None:
        return False
    program = _program(m.group(1))
    if program == "env" and m.group(2):  # #!/usr/bin/env bash, #!/usr/bin/env -S bash
        program = _program(m.group(2))
    return program in _SHELLS


may_hold_values = names_family
notes = no_notes
set_logs_calls = no_set_logs_calls
set_logs_source = no_set_logs_source
quote_findings = shell_findings  # bash: characters of the word; a `(` then ends it


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """See :func:`.shell_paths.path_facts` (directories the script creates, ``cd``,
    batch-scheduler headers)."""
    from .shell_paths import path_facts as facts

    return facts(text, spans)


set_logs_site = no_set_logs_site
_META = frozenset(" \t\n;&|<>()")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_SPECIAL_PARAMS = frozenset("0123456789@*#?-$!")
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n"}
_ANSI_SIMPLE.update({"r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})
_OCT = frozenset("01234567")
_HEXD = frozenset("0123456789abcdefABCDEF")
_DQ_ESCAPES = frozenset('$`"\\')
_TRANSFORMING = frozenset("aAilnuc")  # declare attributes that change or reinterpret a value


class Word:
    """A decoded shell word (see :func:`scan_word`); offsets are code points."""

    def __init__(self, start: int) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.static = True
        self.end = start
        self.terminated = True
        self.parts: list[tuple[str, int, int]] = []  # (quote, content_start, content_end)

    def add(self, ch: str, start: int, end: int) -> None:
        self.chars.append(ch)
        self.starts.append(start)
        self.ends.append(end)


def _skip_balanced(text: str, i: int, limit: int, close: str) -> int:
    """Index after the ``close`` matching an opener just before ``i`` (quotes honoured)."""
    opener = "(" if close == ")" else "{"
    depth = 1
    while i < limit:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1, limit)
            i = limit if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_dq(text, i + 1, limit)
            continue
        if c == opener:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return limit


def _skip_dq(text: str, i: int, limit: int) -> int:
    while i < limit:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text[i + 1 : i + 2] in ("(", "{"):
            i = _skip_balanced(text, i + 2, limit, ")" if text[i + 1] == "(" else "}")
        else:
            i += 1
    return limit


def _expansion_end(text: str, i: int, limit: int) -> int:
    """If ``text[i] == "$"`` starts an expansion, its end; else ``i`` ($ is literal)."""
    nxt = text[i + 1 : i + 2] if i + 1 < limit else ""
    if nxt in ("(", "{"):
        return _skip_balanced(text, i + 2, limit, ")" if nxt == "(" else "}")
    if nxt and nxt in _SPECIAL_PARAMS:
        return i + 2
    if nxt and nxt in _NAME_START:
        j = i + 2
        while j < limit and (text[j] in _NAME_START or (text[j].isdigit() and text[j].isascii())):
            j += 1
        return j
    return i


def _ansi_c(text: str, i: int, limit: int, w: Word) -> int:
    """Decode ``$'...'`` whose body starts at ``i``; return the index after the closing
    quote (or ``limit`` when unterminated)."""
    nul = False
    while i < limit:
        c = text[i]
        if c == "'":
            return i + 1
        if c != "\\":
            if not nul:
                w.add(c, i, i + 1)
            i += 1
            continue
        nxt = text[i + 1 : i + 2] if i + 1 < limit else ""
        cp: int | None = None
        width = 2
        if nxt in _ANSI_SIMPLE:
            cp = ord(_ANSI_SIMPLE[nxt])
        elif nxt in _OCT and nxt:
            j = i + 1
            while j < min(i + 4, limit) and text[j] in _OCT:
                j += 1
            cp, width = int(text[i + 1 : j], 8) & 0xFF, j - i
        elif nxt in ("x", "u", "U"):
            most = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i + 2
            while j < min(i + 2 + most, limit) and text[j] in _HEXD:
                j += 1
            if j > i + 2:
                cp, width = int(text[i + 2 : j], 16), j - i
                if (nxt == "x" and cp >= 0x80) or cp > 0x10FFFF or 0xD800 <= cp < 0xE000:
                    w.static = False  # a raw byte, or no character
        elif nxt == "c" and i + 2 < limit:
            # bash's lexer first finds the closing quote (a backslash pairs with any next
            # character), then decodes the body (lib/sh/strtrans.c, TOCTRL)
            ctl = text[i + 2]
            if ctl == "'":  # the quote closes the string: "\c" at its end stays as is
                if not nul:
                    w.add("\\", i, i + 1)
                    w.add("c", i + 1, i + 2)
                return i + 3
            if ctl == "\\":
                # control-backslash; $'\c\\' takes both backslashes (POSIX); otherwise the
                # character paired with this backslash stays literal ($'\c\'' is 0x1c, ')
                after = text[i + 3] if i + 3 < limit else ""
                if not nul and w.static:
                    w.add("\x1c", i, i + (4 if after == "\\" else 3))
                if after and after != "\\" and not nul:
                    w.add(after, i + 3, i + 4)
                i += 4 if after else 3
                continue
            if not ctl.isascii():
                w.static = False  # bash takes the first byte of a multibyte character
            cp, width = (0x7F if ctl == "?" else ord(ctl.upper()) & 0x1F), 3
        if cp is None:  # not an escape: the backslash stays
            if not nul:
                w.add("\\", i, i + 1)
            i += 1
            continue
        if cp >= 0x80 and nxt in _OCT:
            w.static = False
        if cp == 0:
            nul = True  # bash's string ends here; the rest of $'...' is dropped
        elif not nul and w.static:
            w.add(chr(cp), i, i + width)
        i += width
    w.terminated = False
    return limit


def scan_word(text: str, start: int, limit: int, *, command_word: bool = False) -> Word:
    """Decode the shell word (an assignment's value) starting at ``start``.

    Reads up to the first unquoted metacharacter (or ``limit``). ``command_word`` is set
    for ``env`` operands, which also undergo brace and pathname expansion. A quote still
    open at ``limit`` gives ``terminated=False``. Never raises.
    """
    w = Word(start)
    i = start
    after_colon = True  # tilde expansion applies at the start and after an unquoted ':'
    if text[i : i + 1] == "(":
        w.static = False  # an array assignment
        i = _skip_balanced(text, i + 1, limit, ")")
    while i < limit:
        c = text[i]
        tilde_ok, after_colon = after_colon, False
        if c in _META:
            break
        if c == "\\":
            if text[i + 1 : i + 2] == "\n" and i + 1 < limit:
                i += 2  # line continuation: removed
                after_colon = tilde_ok
                continue
            if i + 1 < limit:
                w.add(text[i + 1], i, i + 2)
                w.parts.append(("", i, i + 2))
                i += 2
            else:
                w.add("\\", i, i + 1)
                w.parts.append(("", i, i + 1))
                i += 1
            continue
        if c == "'" or (c == "$" and text[i + 1 : i + 2] == "'" and i + 1 < limit):
            ansi = c == "$"
            body = i + 2 if ansi else i + 1
            if ansi:
                i = _ansi_c(text, body, limit, w)
            else:
                j = text.find("'", body, limit)
                i = limit if j < 0 else j + 1
                w.terminated = j >= 0
                for k in range(body, j if j >= 0 else limit):
                    w.add(text[k], k, k + 1)
            end = i - 1 if w.terminated else i
            w.parts.append(("$'" if ansi else "'", body, end))
            if not w.terminated:
                break
            continue
        if c == '"' or (c == "$" and text[i + 1 : i + 2] == '"' and i + 1 < limit):
            body = i + 2 if c == "$" else i + 1
            i = _double_quoted(text, body, limit, w)
            end = i - 1 if w.terminated else i
            w.parts.append(('"', body, end))
            if not w.terminated:
                break
            continue
        if c == "$":
            j = _expansion_end(text, i, limit)
            if j > i:
                w.static = False
                w.parts.append(("", i, j))
                i = j
                continue
        elif c == "`":
            j = text.find("`", i + 1, limit)
            w.static = False
            w.parts.append(("", i, limit if j < 0 else j + 1))
            i = limit if j < 0 else j + 1
            continue
        elif (c == "~" and tilde_ok) or (command_word and c in "*?[{"):
            w.static = False
        w.add(c, i, i + 1)
        w.parts.append(("", i, i + 1))
        after_colon = c == ":"
        i += 1
    w.end = i
    return w


def _double_quoted(text: str, i: int, limit: int, w: Word) -> int:
    """Decode a double-quoted body starting at ``i``; return the index after the quote."""
    while i < limit:
        c = text[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < limit:
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt in _DQ_ESCAPES:
                w.add(nxt, i, i + 2)
                i += 2
                continue
        elif c == "$":
            j = _expansion_end(text, i, limit)
            if j > i:
                w.static = False
                i = j
                continue
        elif c == "`":
            w.static = False
            j = text.find("`", i + 1, limit)
            i = limit if j < 0 else j + 1
            continue
        w.add(c, i, i + 1)
        i += 1
    w.terminated = False
    return limit


def _line_end(text: str, pos: int) -> int:
    j = text.find("\n", pos)
    return len(text) if j < 0 else j


def _span(
    text: str,
    variable: str,
    name_start: int,
    start: int,
    *,
    static: bool = True,
    command_word: bool = False,
) -> ValueSpan:
    w = scan_word(text, start, len(text), command_word=command_word)
    if not w.terminated:
        # A quote open at the end of the document (bash: unexpected EOF): the user is
        # typing it. Read the rest of its line only. (A quote closed by a later line is a
        # multi-line value, as bash reads it.)
        w = scan_word(text, start, _line_end(text, start), command_word=command_word)
        w.terminated = False
    ok = static and w.static
    kinds = {quote for quote, _, _ in w.parts}
    quote: str | None = kinds.pop() if len(kinds) == 1 else ("" if not kinds else None)
    if quote == "$'":
        quote = None
    first = w.parts[0][1] if w.parts else start
    last = w.parts[-1][2] if w.parts else start
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=name_start,
        name_end=name_start + len(variable),
        value="".join(w.chars) if ok else None,
        char_starts=tuple(w.starts) if ok else (),
        char_ends=tuple(w.ends) if ok else (),
        content_start=first,
        content_end=max(first, last),
        raw_start=start,
        raw_end=w.end,
        quote=quote,
        terminated=w.terminated,
    )


_ENV_NAMES = frozenset({"env", "/usr/bin/env", "/bin/env"})
_ENV_FLAGS = frozenset({"-i", "-0", "-v", "-", "--ignore-environment", "--null", "--debug"})
_ENV_WITH_ARG = frozenset({"-u", "-C", "--unset", "--chdir"})


def _env_operands(src: Source, command: tree_sitter.Node) -> list[tuple[str, int, int]]:
    """``NAME=value`` operands of an ``env`` command: (name, name start, value start)."""
    name = command.child_by_field_name("name")
    if name is None or src.data[name.start_byte : name.end_byte].decode(errors="replace") not in (
        _ENV_NAMES
    ):
        return []
    found: list[tuple[str, int, int]] = []
    skip_next = False
    for arg in command.children_by_field_name("argument"):
        start = src.cp(arg.start_byte)
        word = src.text[start : src.cp(arg.end_byte)]
        if skip_next:
            skip_next = False
        elif word in _ENV_FLAGS or (word.startswith("--") and "=" in word):
            pass
        elif word in _ENV_WITH_ARG:
            skip_next = True
        elif word.startswith("-") and word[1:2] in ("u", "C") and "=" not in word:
            pass  # -uNAME
        else:
            var, eq, _ = word.partition("=")
            if not eq or not var or not all(c in _NAME_START or c.isdigit() for c in var):
                break  # the command env runs: no more assignments
            if var in FAMILY:
                found.append((var, start, start + len(var) + 1))
    return found


def _declaration_transforms(src: Source, node: tree_sitter.Node) -> bool:
    """Whether a declaration command (``declare -i`` ...) has a value-changing attribute."""
    for child in node.children:
        if child.type == "word":
            flag = src.data[child.start_byte : child.end_byte].decode(errors="replace")
            if flag[:1] in ("-", "+") and any(c in _TRANSFORMING for c in flag[1:]):
                return True
    return False


# Where the nodes extraction looks at can be: the family names and env's names are
# literal tokens, so a byte search (C speed) finds every place, and the tree confirms
# each one (a tree-sitter query over a 10,000-line script took ~110 ms; this ~10 ms).
_NAMES = re.compile(
    "|".join(re.escape(n) for n in sorted(FAMILY | _ENV_NAMES, key=len, reverse=True)).encode()
)


def _nodes(src: Source, root: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """In document order: ``("var", variable_name node)`` for each variable name that is
    a family name; ``("env", command node)`` for each command whose name is ``env`` (or
    ``/usr/bin/env``, ``/bin/env``); ``("prefix", command node)`` for a command with
    assignments before it whose words include ``FAMILY_NAME=``, which tree-sitter-bash
    does not take for an assignment after a line continuation (``A=0\\<newline>
    TORCH_LOGS=x cmd``: bash does)."""
    found: list[tuple[str, tree_sitter.Node]] = []
    prefixed: set[int] = set()
    for m in _NAMES.finditer(src.data):
        start, end = m.span()
        node = root.descendant_for_byte_range(start, end)
        if node is None or node.start_byte != start:
            continue
        word = m.group().decode()
        if node.end_byte != end:
            if word in FAMILY and node.type == "word" and src.data[end : end + 1] == b"=":
                command = node.parent
                if command is not None and command.type == "command_name":
                    command = command.parent
                if command is not None and command.type == "command" and command.id not in prefixed:
                    prefixed.add(command.id)
                    found.append(("prefix", command))
            continue
        if node.type == "variable_name":
            if word in FAMILY:
                found.append(("var", node))
            continue
        name = node.parent if node.type == "word" and word in _ENV_NAMES else None
        if name is None or name.type != "command_name":
            continue
        if name.start_byte != start or name.end_byte != end:
            continue
        command = name.parent
        if command is not None and command.child_by_field_name("name") == name:
            found.append(("env", command))
    return found


def _after_prefix(src: Source, command: tree_sitter.Node) -> list[tuple[str, int, int]]:
    """Family assignments that follow a command's last prefix assignment in bash (see
    :func:`_nodes`): from the end of that assignment's word as bash reads it."""
    prefix = [kid for kid in command.children if kid.type == "variable_assignment"]
    if not prefix:
        return []
    name = prefix[-1].child_by_field_name("name")
    if name is None:
        return []
    at = src.cp(name.end_byte)
    at += 2 if src.text[at : at + 2] == "+=" else 1
    end = scan_word(src.text, at, len(src.text)).end
    return _following_assignments(src.text, end, set())


#: An assignment found in the tree: (variable, name start, value start, static, command
#: operand); offsets are code points into the document.
Found = tuple[str, int, int, bool, bool]


def _assignments(src: Source, root: tree_sitter.Node, base: int = 0) -> list[Found]:
    """The family assignments under ``root``, in tree order; ``src`` is the text ``root``
    was parsed from and ``base`` the code point offset of that text in the document."""
    found: list[Found] = []
    for kind, node in _nodes(src, root):
        if kind == "env":
            for var, name_start, value_start in _env_operands(src, node):
                found.append((var, base + name_start, base + value_start, True, True))
            continue
        if kind == "prefix":
            for var, name_start, value_start in _after_prefix(src, node):
                found.append((var, base + name_start, base + value_start, True, False))
            continue
        parent = node.parent
        if parent is None or parent.type == "subscript":
            continue
        op = node.next_sibling
        if op is None or op.type not in ("=", "+=") or op.start_byte != node.end_byte:
            continue
        static = op.type == "="
        decl = parent.parent if parent.type == "variable_assignment" else None
        if decl is not None and decl.type == "declaration_command":
            static = static and not _declaration_transforms(src, decl)
        var = src.data[node.start_byte : node.end_byte].decode()
        name_start, value_start = src.cp(node.start_byte), src.cp(op.end_byte)
        found.append((var, base + name_start, base + value_start, static, False))
    return found


def _spans(
    text: str, found: list[Found], reuse: Callable[[Found], ValueSpan | None]
) -> tuple[list[ValueSpan], dict[int, object]]:
    """Spans of the ``found`` assignments (``reuse`` may offer a previous one), plus the
    assignments tree-sitter misses after a line continuation; and each span's context."""
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}

    def add(item: Found) -> None:
        var, name_start, value_start, static, command = item
        span = reuse(item)
        if span is None:
            span = _span(text, var, name_start, value_start, static=static, command_word=command)
        contexts[name_start] = (static, command)
        spans.append(span)

    for item in found:
        add(item)
    # tree-sitter-bash splits a word at a line continuation (``a\\<newline>b``) and then
    # takes the assignments after it for arguments: follow the words after each value.
    seen = {span.name_start for span in spans}
    for span in list(spans):
        for var, name_start, value_start in _following_assignments(text, span.raw_end, seen):
            add((var, name_start, value_start, True, False))
    spans.sort(key=lambda s: s.name_start)
    return spans, contexts


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """Find the TORCH_LOGS-family assignments in a shell script.

    Returns one :class:`ValueSpan` (``host="shell"``) per assignment, in document order,
    with every offset a code point index into ``text``. The decoded value is what bash 5.2
    assigns (see the module docstring for what counts as non-static, ``value=None``). A
    quote left open (the user typing) gives ``terminated=False`` and a span to the end of
    its line. With ``cache`` (one per open document) the previous version's statements and
    spans are reused: only the edited statements are parsed again when that is safe (see
    :mod:`.toplevel`), else the whole document afresh (unchanged spans are reused, see
    :mod:`.incremental`); the result is the same. Never raises.
    """
    src = Source(text)
    edit = cache.edit_for(HOST, text) if cache is not None else None
    if cache is not None and edit is not None and isinstance(cache.state, toplevel.Statements):
        spans = _extract_window(src, cache, cache.state)
        if spans is not None:
            return spans
    # Otherwise the whole document is parsed afresh: tree-sitter-bash's incremental parse
    # (with the old tree) can give another tree than a fresh parse, with or without syntax
    # errors (found by tests/hosts/test_incremental.py and a fuzzing user), so it is not
    # used; spans away from the edit are still reused.
    tree = parse_bash(src.data)

    def reuse(item: Found) -> ValueSpan | None:
        if cache is None:
            return None
        var, name_start, value_start, static, command = item
        return cache.reusable(edit, var, name_start, value_start, (static, command))

    spans, contexts = _spans(text, _assignments(src, tree.root_node), reuse)
    if cache is not None:
        cache.computed = len(spans) - cache.reused
        cache.store(text, spans, toplevel.Statements.of(src.data, tree), contexts)
    return spans


def _extract_window(
    src: Source, cache: DocumentCache, st: toplevel.Statements
) -> list[ValueSpan] | None:
    """:func:`extract` by re-parsing only the edited statements; ``None`` when
    :func:`toplevel.window` declines (nothing is changed then)."""
    old_text, old_spans = cache.text, cache.spans
    if old_text is None or old_spans is None:
        return None
    win = toplevel.window(st, src.data)
    if win is None:
        return None
    text = src.text
    start = src.cp(win.start)
    delta = len(text) - len(old_text)
    new_end = src.cp(win.new_end)
    old_end = new_end - delta
    wsrc = Source(text[start:new_end])
    inside, contexts = _spans(text, _assignments(wsrc, win.tree.root_node, start), _no_reuse)
    if any(span.raw_end > new_end for span in inside):
        return None  # bash reads a value past the window (``$'...\\'``): parse it all
    before = [s for s in old_spans if s.name_start < start]
    if before and max(s.raw_end for s in before) >= start:
        return None  # a value read up to the window (an open backtick to the end): parse it all
    after = [s.moved(delta) for s in old_spans if s.name_start >= old_end]
    for span in before:
        contexts[span.name_start] = cache.context_of(span.name_start)
    for span in after:
        contexts[span.name_start] = cache.context_of(span.name_start - delta)
    spans = before + inside + after
    toplevel.apply(st, src.data, win)
    cache.reused = len(before) + len(after)
    cache.computed = len(inside)
    cache.store(text, spans, st, contexts)
    return spans


def _no_reuse(item: Found) -> None:
    return None


_ASSIGNMENT = re.compile(r"(?:[ \t]|\\\n)*([A-Za-z_][A-Za-z0-9_]*)=")


def _following_assignments(text: str, pos: int, seen: set[int]) -> list[tuple[str, int, int]]:
    """Assignments that follow the value ending at ``pos`` in the same command prefix:
    (variable, name start, value start)."""
    found: list[tuple[str, int, int]] = []
    while (m := _ASSIGNMENT.match(text, pos)) is not None:
        name_start, value_start = m.start(1), m.end()
        if m.group(1) in FAMILY and name_start not in seen:
            seen.add(name_start)
            found.append((m.group(1), name_start, value_start))
        end = scan_word(text, value_start, len(text)).end
        if end <= pos:
            break
        pos = end
    return found


_SHELL_PLAIN = re.compile(r"[\w+\-.,/:@%=^]")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a part quoted with ``quote``: unquoted words escape with
    ``\\`` everything but letters, digits and ``_+-.,/:@%=^`` (``None`` for a newline,
    which would be a line continuation); ``"..."`` escapes ``$ ` " \\``; ``'...'``
    writes ``'`` as ``'\\''``."""
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


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """``unset VAR`` for a statement, or dropping ``VAR=`` before a command."""
    ls, le, _ = line_bounds(text, span.name_start, span.raw_end)
    nxt = _NEXT_WORD.match(text, span.raw_end, le)
    if nxt is not None:  # a command prefix: VAR= cmd -> cmd (it inherits the variable)
        title = f"Remove `{span.variable}=` (the command inherits {span.variable})"
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
