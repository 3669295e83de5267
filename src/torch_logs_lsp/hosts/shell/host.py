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

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.shell import toplevel
from torch_logs_lsp.hosts.shell.bash_parse import parse_bash
from torch_logs_lsp.hosts.shell.capture import stderr_captured as captured
from torch_logs_lsp.hosts.shell.edits import encode_part as encode_part
from torch_logs_lsp.hosts.shell.edits import removal as removal
from torch_logs_lsp.hosts.shell.edits import typed_name as typed_name
from torch_logs_lsp.hosts.shell.heredocs import bodies as heredoc_bodies
from torch_logs_lsp.hosts.shell.heredocs import inside as in_regions
from torch_logs_lsp.hosts.shell.operands import path_facts as path_facts
from torch_logs_lsp.hosts.shell.overwrites import overwritten as overwritten
from torch_logs_lsp.hosts.shell.words import scan_word
from torch_logs_lsp.hosts.shell.wrappers import command_items, wrapped
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.ts_index import TreeIndex
from torch_logs_lsp.hosts.typographic import shell_findings
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan, names_family

if TYPE_CHECKING:
    import tree_sitter

SPEC = HostSpec(
    "shell",
    # .envrc: direnv runs it with bash
    (
        ".envrc",
        "*.sh",
        "*.bash",
        "*.zsh",
        "*.ksh",
        ".bashrc",
        ".bash_profile",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
    ),
    ("shellscript", "sh", "bash", "zsh"),
    vscode_languages=("shellscript",),
    posix_only=True,
)
HOST: HostKind = "shell"
DESCRIPTION = "shell scripts"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = "bash stops with a syntax error (unexpected end of file)"
STRIPS_TRAILING_BLANKS = False
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "bash"
LINE_COMMENTS = False
_SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "mksh", "ash"})
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")
_TRANSFORMING = frozenset("aAilnuc")  # declare attributes that change or reinterpret a value


detect_name = SPEC.claims


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
quote_findings = shell_findings  # bash: characters of the word; a `(` then ends it


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


def _nodes(
    src: Source, root: tree_sitter.Node, tree: TreeIndex | None = None
) -> list[tuple[str, tree_sitter.Node]]:
    """In document order: ``("var", variable_name node)`` for each variable name that is
    a family name; ``("env", command node)`` for each command whose name is ``env`` (or
    ``/usr/bin/env``, ``/bin/env``); ``("wrap", command node)`` for a command that runs
    another with a family name among its words (:func:`.shell_wrappers.wrapped`);
    ``("prefix", command node)`` for a command with
    assignments before it whose words include ``FAMILY_NAME=``, which tree-sitter-bash
    does not take for an assignment after a line continuation (``A=0\\<newline>
    TORCH_LOGS=x cmd``: bash does)."""
    tree = tree if tree is not None else TreeIndex(root)  # (``root``'s)
    found: list[tuple[str, tree_sitter.Node]] = []
    prefixed: set[int] = set()
    commands: set[int] = set()  # env and wrapper commands found
    for m in _NAMES.finditer(src.data):
        start, end = m.span()
        node = tree.descendant(start, end)
        word = m.group().decode()
        if node is None or node.start_byte != start:
            if word in FAMILY:  # --env=TORCH_LOGS=, bash -c 'TORCH_LOGS=...'
                wrapped(node, found, commands, tree)
            continue
        if node.end_byte != end:
            if word in FAMILY and node.type != "variable_name":
                wrapped(node, found, commands, tree)  # exec env TORCH_LOGS=x, docker run -e ...
            if word in FAMILY and node.type == "word" and src.data[end : end + 1] == b"=":
                command = tree.parent(node)
                if command is not None and command.type == "command_name":
                    command = tree.parent(command)
                if command is not None and command.type == "command" and command.id not in prefixed:
                    prefixed.add(command.id)
                    found.append(("prefix", command))
            continue
        if node.type == "variable_name":
            if word in FAMILY:
                found.append(("var", node))
            continue
        name = tree.parent(node) if node.type == "word" and word in _ENV_NAMES else None
        if name is None or name.type != "command_name":
            continue
        if name.start_byte != start or name.end_byte != end:
            continue
        command = tree.parent(name)
        if (
            command is not None
            and command.child_by_field_name("name") == name
            and command.id not in commands
        ):
            commands.add(command.id)
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


def _assignments(
    src: Source, root: tree_sitter.Node, base: int = 0
) -> tuple[list[Found], list[ValueSpan]]:
    """The family assignments under ``root``, in tree order, and the spans found inside
    commands' words (containers, ``bash -c``: :mod:`.shell_wrappers`); ``src`` is the text
    ``root`` was parsed from and ``base`` the code point offset of that text in the
    document."""
    found: list[Found] = []
    inside: list[ValueSpan] = []
    if _NAMES.search(src.data) is None:
        return found, inside
    skip = heredoc_bodies(src, root)  # `<<EOF cmd`: a body tree-sitter reads as code
    tree = TreeIndex(root)  # parents and siblings without a walk down per lookup
    for kind, node in _nodes(src, root, tree):
        if skip and in_regions(skip, src.cp(node.start_byte)):
            continue
        if kind in ("env", "wrap"):
            items = command_items(src, node, base)
            found.extend(items.found)
            inside.extend(items.spans)
            continue
        if kind == "prefix":
            for var, name_start, value_start in _after_prefix(src, node):
                found.append((var, base + name_start, base + value_start, True, False))
            continue
        parent = tree.parent(node)
        if parent is None or parent.type == "subscript":
            continue
        op = tree.next_sibling(node)
        if op is None or op.type not in ("=", "+=") or op.start_byte != node.end_byte:
            continue
        static = op.type == "="
        decl = tree.parent(parent) if parent.type == "variable_assignment" else None
        if decl is not None and decl.type == "declaration_command":
            static = static and not _declaration_transforms(src, decl)
        var = src.data[node.start_byte : node.end_byte].decode()
        name_start, value_start = src.cp(node.start_byte), src.cp(op.end_byte)
        found.append((var, base + name_start, base + value_start, static, False))
    return found, inside


def _spans(
    text: str,
    assigned: tuple[list[Found], list[ValueSpan]],
    reuse: Callable[[Found], ValueSpan | None],
) -> tuple[list[ValueSpan], dict[int, object]]:
    """Spans of the ``found`` assignments (``reuse`` may offer a previous one), plus the
    assignments tree-sitter misses after a line continuation, plus the spans found in
    commands' words; and each span's context."""
    found, inside = assigned
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
    for span in inside:
        if span.name_start not in contexts:
            contexts[span.name_start] = "inside"
            spans.append(span)
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
    # errors (tests/hosts/test_incremental.py has such edits), so it is not
    # used; spans away from the edit are still reused.
    tree = parse_bash(src.data)
    _last_tree[:] = [(text, tree)] if len(text) <= KEPT_TREE_CHARS else []

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


#: The last whole-document parse of :func:`extract`: where stderr goes
#: (:func:`stderr_captured`) reads that tree instead of parsing the text again (kept for
#: a text of at most :data:`KEPT_TREE_CHARS` code points: a tree takes many times its text).
_last_tree: list[tuple[str, tree_sitter.Tree]] = []
KEPT_TREE_CHARS = 1 << 20


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured`: see :mod:`.shell.capture`."""
    tree = next((t for seen, t in _last_tree if seen is text or seen == text), None)
    return captured(text, spans, tree=tree)


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
