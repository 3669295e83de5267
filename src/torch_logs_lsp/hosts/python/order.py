"""The import-order trap of the Python host: a value set in this process after
``import torch`` has no effect (diagnostic code :data:`LATE`).

torch reads ``TORCH_LOGS``, ``TORCH_LOGS_OUT``, ``TORCH_LOGS_FORMAT``, ``TORCH_TRACE`` and
``TORCH_LOGS_TRACE_ID_FILTER`` once, in ``torch._logging._init_logs()``, which ``import
torch`` runs (torch 2.13 ``torch/__init__.py``; ``_internal.py`` reads them nowhere
else). ``TORCH_COMPILE_DEBUG`` is left out: the compiler's config modules, imported later,
read it too.

A finding needs all of these, so that it is never a guess:

- the write changes this process's environment: ``os.environ[K] = v`` / ``environ[K] =
  v``, ``os.environ.setdefault(K, v)``, ``os.environ.update(...)``, ``os.environ |=
  {K: v}``, and while the code
  under them runs ``patch.dict(os.environ, ...)`` and ``monkeypatch.setenv(K, v)`` (not
  ``os.putenv``, which ``os.environ`` never sees, nor a child process's ``env``);
- it runs at module level (statements in module-level ``if``/``for``/``while``/``try``/
  ``with`` blocks and ``class`` bodies count; not a region tree-sitter could not parse);
  or in a function, method or lambda of a module statement after the import (module code
  after the import, or a module importing this one, can run it only once torch was
  imported); or in a function of the module defined before the import (not a method, not
  nested) whose name the text mentions only in its ``def`` and in calls ``f(...)`` of
  module-level code after the import;
- an unconditional ``import torch`` / ``import torch.x`` / ``from torch... import ...`` (a
  direct statement of the module) comes before it;
- nothing after it can re-read the variable: no ``_init_logs`` in the rest of the text,
  and for the variables other than ``TORCH_LOGS`` no ``set_logs`` either (for a write in a
  function: in the whole text). A ``set_logs`` call returns at once while ``TORCH_LOGS``
  is set, so it never re-reads ``TORCH_LOGS`` itself.

Such a write still reaches the child processes started after it (:data:`_CHILD`): when
the text may start one, the finding is :data:`CHILDREN` (an information) instead.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, query, query_cursor
from torch_logs_lsp.hosts.interface import Note
from torch_logs_lsp.model.diagnostic import Severity

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

#: The code of the finding.
LATE = "TL501"
#: The code of a late write that child processes started after it still see.
CHILDREN = "TL505"
#: The variables torch reads only at import.
READ_AT_IMPORT = frozenset(
    {"TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_LOGS_FORMAT", "TORCH_TRACE"}
    | {"TORCH_LOGS_TRACE_ID_FILTER"}
)
# (a line starts after LF, CRLF or a lone CR, as in Python's tokenizer)
#: At a line start (see :func:`_imports_torch`): ``import torch``, ``import os, torch``,
#: ``import os; import torch``, ``from torch...``; the tree then confirms the statement.
_IMPORT_LINE = re.compile(r"(?:import|from)[ \t]+[^\r\n]*?\btorch\b")
_REREAD = re.compile(r"\b(?:_init_logs|set_logs)\b")
#: What re-reads ``TORCH_LOGS``: only ``_init_logs`` (``set_logs`` returns at once when
#: ``TORCH_LOGS`` is in ``os.environ``, torch 2.13.0 ``_internal.py`` line 491; it runs
#: ``_init_logs``, which reads the other variables again, only without it).
_REREAD_TORCH_LOGS = re.compile(r"\b_init_logs\b")
#: What starts a child process, which inherits ``os.environ`` as it is then and whose
#: own ``import torch`` reads the value: ``subprocess`` (any function, ``Popen``),
#: ``os.system``/``popen``/``exec*``/``spawn*``/``posix_spawn*``, ``pty.spawn``,
#: ``multiprocessing`` and ``torch.multiprocessing`` (``spawn``/``forkserver`` children
#: import torch again; a ``fork``ed one does not), ``ProcessPoolExecutor``,
#: ``asyncio.create_subprocess_*``, torch's launchers (``torchrun``, ``elastic_launch``).
_CHILD = re.compile(
    r"\b(?:subprocess|Popen|check_call|check_output|multiprocessing|ProcessPoolExecutor"
    r"|create_subprocess_\w+|elastic_launch|torchrun|start_processes)\b"
    r"|\bos\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*)\b|\bpty\.spawn\b"
    r"|\bmp\.(?:spawn|Process|Pool|get_context)\b"
)
_FROM_OS_ENVIRON = re.compile(r"from[ \t]+os[ \t]+import[^\r\n]*\benviron\b")  # at a line start
_ENVIRON_BOUND = re.compile(r"\benviron\s*(?::[^=\n]*)?=(?!=)|\bas\s+environ\b|def\s+environ\b")


def _imports_torch(text: str) -> bool:
    """Whether a line of ``text`` starts with an import that names torch (a cheap
    test before any parse; a pattern starting with a literal is searched ~20x faster
    than one anchored with ``^``)."""
    return any(m.start() == 0 or text[m.start() - 1] in "\r\n" for m in _IMPORT_LINE.finditer(text))


#: ``import os as name`` at a line start (the alias's ``name.environ`` is ``os.environ``).
_OS_ALIAS = re.compile(r"^[ \t]*import[ \t]+os[ \t]+as[ \t]+([A-Za-z_]\w*)", re.M)


def _environ_names(text: str) -> frozenset[str]:
    """How the text names this process's ``os.environ``: ``os.environ``, ``name.environ``
    for ``import os as name``, and ``environ`` when ``from os import environ`` is there and
    no other binding of that name is (a local ``environ = os.environ.copy()`` is a copy,
    not the process's environment)."""
    plain = _environ_names_plain(text)
    if " as " not in text:
        return plain
    return plain | {f"{m.group(1)}.environ" for m in _OS_ALIAS.finditer(text)}


def _environ_names_plain(text: str) -> frozenset[str]:
    at_start = (
        m
        for m in _FROM_OS_ENVIRON.finditer(text)
        if m.start() == 0 or text[m.start() - 1] in "\r\n"
    )  # (a pattern starting with the literal is searched ~20x faster than one with `^`)
    if next(at_start, None) is not None and not _ENVIRON_BOUND.search(text):
        return frozenset({"os.environ", "environ"})
    return frozenset({"os.environ"})


#: Nodes whose contents do not run where they stand (a class body does: it runs when its
#: class statement runs, so a class is no scope here).
_SCOPES = frozenset({"function_definition", "lambda", "ERROR"})


def _text(data: bytes, node: tree_sitter.Node | None) -> str:
    """A node's text, from the document's bytes (``node.text`` would be the text of the
    tree's last parse: a tree told about an edit but not parsed again keeps the old)."""
    if node is None:
        return ""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _torch_import(data: bytes, root: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first statement of the module that imports torch unconditionally."""
    for stmt in root.named_children:
        names: list[tree_sitter.Node | None]
        if stmt.type == "import_statement":
            names = [c.child_by_field_name("name") or c for c in stmt.named_children]
        elif stmt.type == "import_from_statement":
            names = [stmt.child_by_field_name("module_name")]
        else:
            continue
        for name in names:
            dotted = name is not None and name.type == "dotted_name"
            if dotted and _text(data, name).split(".")[0].strip() == "torch":
                return stmt
    return None


def _writes_environ(data: bytes, key: tree_sitter.Node, environ: frozenset[str]) -> bool:
    """Whether the family name ``key`` (its string or keyword node) is written to this
    process's ``os.environ`` (named as in ``environ``, see :func:`_environ_names`)."""
    parent = key.parent
    if parent is None:
        return False
    if parent.type == "subscript":
        target = parent.child_by_field_name("value")
        return _text(data, target) in environ and parent.parent is not None
    if parent.type == "pair":  # os.environ.update({K: v}), os.environ |= {K: v}
        merged = parent.parent.parent if parent.parent is not None else None
        if merged is not None and merged.type == "augmented_assignment":
            operator = _text(data, merged.child_by_field_name("operator"))
            return operator == "|=" and _text(data, merged.child_by_field_name("left")) in environ
        args = parent.parent.parent if parent.parent is not None else None
        call = args.parent if args is not None and args.type == "argument_list" else None
        return call is not None and _method(data, call, environ) == "update"
    args = parent.parent if parent.type == "keyword_argument" else parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    if call is None:
        return False
    method = _method(data, call, environ)
    return method == "update" or (method == "setdefault" and parent.type == "argument_list")


def _patches_environ(data: bytes, key: tree_sitter.Node, environ: frozenset[str]) -> bool:
    """Whether the family name ``key`` is put into this process's ``os.environ`` by a
    test helper while the code under it runs: ``patch.dict(os.environ, {K: v})`` or
    ``patch.dict(os.environ, K=v)`` (``unittest.mock``; a ``with`` or a decorator), or
    ``monkeypatch.setenv(K, v)`` (pytest)."""
    parent = key.parent
    if parent is None:
        return False
    if parent.type == "pair":
        display = parent.parent
        args = display.parent if display is not None else None
    elif parent.type == "keyword_argument":
        args = parent.parent
    else:
        args = parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    fn = call.child_by_field_name("function") if call is not None else None
    if args is None or fn is None or fn.type != "attribute":
        return False
    name = _text(data, fn)
    first = args.named_children[0] if args.named_children else None
    if name.split(".")[-2:] == ["patch", "dict"]:  # (the target may be named by a string)
        target = _text(data, first).strip("'\"")
        return parent.type != "argument_list" and (target in environ or target == "os.environ")
    return name == "monkeypatch.setenv" and first == key and parent.type == "argument_list"


def _method(data: bytes, call: tree_sitter.Node, environ: frozenset[str]) -> str | None:
    """``"update"`` for ``os.environ.update(...)`` (any method of ``os.environ``/``environ``)."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "attribute":
        return None
    if _text(data, fn.child_by_field_name("object")) not in environ:
        return None
    return _text(data, fn.child_by_field_name("attribute"))


def _at_module_level(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The statement of the module holding ``node``, or ``None`` when ``node`` is inside a
    function, lambda or a region that did not parse (a class body runs in place)."""
    while node.parent is not None:
        if node.type in _SCOPES:
            return None
        if node.parent.type == "module":
            return node
        node = node.parent
    return None


def _scope(data: bytes, node: tree_sitter.Node) -> tuple[tree_sitter.Node, str] | None:
    """For ``node`` inside a function or lambda: the module's statement holding it and the
    scope's name as code says it (``"Trainer.setup"``, ``"a lambda in `main`"``); ``None``
    at module level or inside a region that did not parse."""
    names: list[str] = []
    in_scope = lambda_first = False
    while node.parent is not None:
        if node.type == "ERROR":
            return None
        if node.type in ("function_definition", "class_definition"):
            in_scope = in_scope or node.type == "function_definition"
            name = node.child_by_field_name("name")
            if name is not None:
                names.append(_text(data, name))
        elif node.type == "lambda":
            in_scope = True
            lambda_first = lambda_first or not names
        if node.parent.type == "module":
            if not in_scope:
                return None
            dotted = ".".join(reversed(names))
            if lambda_first:
                return node, f"a lambda in `{dotted}`" if dotted else "a lambda"
            return node, f"`{dotted}`"
        node = node.parent
    return None


def _children_note(index: int, head: str, child: str) -> Note:
    return Note(
        index,
        CHILDREN,
        f"{head}: torch in this process has read it already, so only child processes "
        f"started after it (`{child}`) see it; checked as their value",
        Severity.INFORMATION,
    )


#: How every :data:`LATE` message goes on after its head (which says where the write is).
_LATE_TAIL = ": torch reads it once, at import"


def seen_by_children(note: Note, child: str) -> Note:
    """``note`` as a child process started after the write sees it: a :data:`LATE` note
    becomes the :data:`CHILDREN` note naming ``child`` (what starts it, as written:
    ``"!python"``); any other note is returned as it is."""
    if note.code != LATE or _LATE_TAIL not in note.message:
        return note
    return _children_note(note.span_index, note.message.split(_LATE_TAIL, 1)[0], child)


def child_in(text: str, variable: str) -> str | None:
    """What may start a child process that inherits ``variable`` anywhere in the Python
    ``text`` (see :func:`_child_starts`), or ``None``."""
    if _CHILD.search(text) is None and _imported_child_names(text) is None:
        return None
    src = Source(text, lone_cr_is_lf=True)
    starts = _child_starts(src, src.parse("python").root_node, variable)
    return starts[0][1] if starts else None


#: Node types whose text is not code: what they mention starts nothing and reads nothing.
_NOT_CODE = frozenset({"comment", "string", "string_content", "concatenated_string"})


def _in_code(src: Source, root: tree_sitter.Node, start: int, end: int) -> bool:
    """Whether the code points ``start``..``end`` of the text are code (not inside a
    comment or a string literal, nor an import statement)."""
    node: tree_sitter.Node | None = root.named_descendant_for_byte_range(
        src.byte(start), src.byte(end)
    )
    while node is not None:
        if node.type in _NOT_CODE or node.type in ("import_statement", "import_from_statement"):
            return False
        node = node.parent
    return True


#: ``from subprocess import run, Popen as P`` / ``from os import system``: the names they
#: bind start children too.
_FROM_CHILD_MODULE = re.compile(r"from[ \t]+(subprocess|os)[ \t]+import[ \t]+([^\r\n#]+)")
_OS_CHILD_NAMES = re.compile(r"(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*)$")


def _imported_child_names(text: str) -> re.Pattern[str] | None:
    """A pattern of the names ``from subprocess import ...`` (any) and ``from os import
    ...`` (``system``, ``exec*``, ...) bind in ``text``, called (``name(``); ``None``
    when there are none."""
    names: set[str] = set()
    for m in _FROM_CHILD_MODULE.finditer(text):
        for part in m.group(2).strip("()\\ \t").split(","):
            words = part.split()
            if not words:
                continue
            real, bound = words[0].strip("()"), words[-1].strip("()")
            if (m.group(1) == "subprocess" or _OS_CHILD_NAMES.match(real)) and bound.isidentifier():
                names.add(bound)
    if not names:
        return None
    alternatives = "|".join(map(re.escape, sorted(names)))
    return re.compile(r"(?<![\w.])(?:" + alternatives + r")(?=[ \t]*\()")


def _child_starts(src: Source, root: tree_sitter.Node, variable: str) -> list[tuple[int, str]]:
    """Where the text may start a child process that inherits this process's
    ``variable`` (:data:`_CHILD`): (code point offset, what, as written), in order. Only
    code counts (not a comment, a string or an import line), and not a call given an
    environment of its own without ``variable`` (:func:`_own_environment`)."""
    out: list[tuple[int, str]] = []
    imported = _imported_child_names(src.text) if "import" in src.text else None
    matches = list(_CHILD.finditer(src.text))
    if imported is not None:
        matches = sorted(matches + list(imported.finditer(src.text)), key=lambda m: m.start())
    for m in matches:
        if _in_code(src, root, m.start(), m.end()) and not _own_environment(src, root, m, variable):
            out.append((m.start(), m.group()))
    return out


def _child_after(starts: list[tuple[int, str]], after: int, anywhere: bool) -> str | None:
    """The first of ``starts`` (:func:`_child_starts`) from code point ``after`` on, or
    (``anywhere``: a write in a function, which may run after any line) the first of
    all; ``None`` when there is none."""
    i = bisect_right(starts, (after, ""))
    if i < len(starts):
        return starts[i][1]
    return starts[0][1] if anywhere and starts else None


def _own_environment(src: Source, root: tree_sitter.Node, m: re.Match[str], variable: str) -> bool:
    """Whether the match ``m`` is the function of a call whose ``env=`` is a dict display
    (``{...}``, ``dict(...)``, or a name the text assigns one to) that does not mention
    ``environ`` or that sets ``variable`` itself: a child that does not inherit this
    process's ``variable``."""
    node = root.named_descendant_for_byte_range(src.byte(m.start()), src.byte(m.end()))
    while node is not None and node.type in ("identifier", "attribute"):
        node = node.parent
    if node is None or node.type != "call":
        return False
    args = node.child_by_field_name("arguments")
    for arg in args.named_children if args is not None else ():
        name = arg.child_by_field_name("name") if arg.type == "keyword_argument" else None
        if name is None or _text(src.data, name) != "env":
            continue
        value = arg.child_by_field_name("value")
        if value is not None and value.type == "identifier":
            value = _assigned_display(src, root, _text(src.data, value))
        shown = _text(src.data, value)
        if value is None or not (value.type == "dictionary" or shown.startswith("dict(")):
            return False
        if "environ" not in shown:
            return True
        return (
            bool(variable)
            and re.search(rf"(?:[\"']{variable}[\"']\s*:|\b{variable}\s*=)", shown) is not None
        )
    return False


def _assigned_display(src: Source, root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """The dict display (``{...}`` or ``dict(...)``) of the text's only assignment
    statement ``name = ...``, or ``None`` (no such assignment, or more than one)."""
    found = list(re.finditer(rf"(?m)^[ \t]*{re.escape(name)}[ \t]*=(?!=)", src.text))
    if len(found) != 1:
        return None
    at = src.byte(found[0].start())
    node = root.named_descendant_for_byte_range(at, at)
    while node is not None and node.type != "assignment":
        node = node.parent
    right = node.child_by_field_name("right") if node is not None else None
    if right is None or not (
        right.type == "dictionary" or _text(src.data, right).startswith("dict(")
    ):
        return None
    return right


def _module_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The ``def`` holding ``node`` when it is a function of the module itself (not a
    method, not nested, not inside a lambda or a region that did not parse)."""
    while node.parent is not None:
        if node.type == "function_definition":
            outer: tree_sitter.Node | None = node.parent
            if outer is not None and outer.type == "decorated_definition":
                outer = outer.parent
            return node if outer is not None and outer.type == "module" else None
        if node.type in _SCOPES:
            return None
        node = node.parent
    return None


#: A run of identifier bytes (ASCII word characters and any UTF-8 lead/continuation byte).
_WORD_RUN = re.compile(rb"[A-Za-z0-9_\x80-\xff]+")


#: Up to this many names are searched one by one; more in one pass over the words.
_FIND_EACH = 200
_ASCII_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _mentions(data: bytes, names: set[str]) -> dict[str, list[int]]:
    r"""The start bytes of every mention of each of ``names`` in ``data`` (code, strings,
    comments alike), in one pass over the text: a name is mentioned where it stands
    between bytes that are not ``\w`` (the ``(?<!\w)name(?!\w)`` of each name; a name with
    non-ASCII characters is searched on its own, like that)."""
    out: dict[str, list[int]] = {name: [] for name in names}
    ascii_names = {n.encode(): n for n in names if n.isascii()}
    if 0 < len(ascii_names) <= _FIND_EACH:  # a C-speed search per name
        for encoded, name in ascii_names.items():
            at = data.find(encoded)
            while at >= 0:
                end = at + len(encoded)
                if (at == 0 or data[at - 1] not in _ASCII_WORD) and (
                    end == len(data) or data[end] not in _ASCII_WORD
                ):
                    out[name].append(at)
                at = data.find(encoded, at + 1)
        ascii_names = {}
    if ascii_names:
        for m in _WORD_RUN.finditer(data):
            found = ascii_names.get(m.group())
            if found is not None:
                out[found].append(m.start())
            elif not m.group().isascii():  # ASCII names inside a run with UTF-8 bytes
                for inner in re.finditer(rb"[A-Za-z0-9_]+", m.group()):
                    found = ascii_names.get(inner.group())
                    if found is not None:
                        out[found].append(m.start() + inner.start())
    for name in names:
        if not name.isascii():
            pattern = rb"(?<!\w)" + re.escape(name.encode()) + rb"(?!\w)"
            out[name] = [m.start() for m in re.finditer(pattern, data)]
    return out


def _called_only_after(
    src: Source,
    root: tree_sitter.Node,
    function: tree_sitter.Node,
    after: int,
    mentions: dict[str, list[int]],
) -> int | None:
    """The line (1-based) of the first call of ``function`` when every mention of its
    name in the text (``mentions``: :func:`_mentions`) is the ``def`` itself or a call
    ``name(...)`` in module-level code after byte ``after``; else ``None``."""
    name_node = function.child_by_field_name("name")
    name = _text(src.data, name_node)
    if name_node is None or not name.isidentifier():
        return None
    size = len(name.encode())
    first: int | None = None
    for start in mentions.get(name, ()):
        if start == name_node.start_byte:
            continue
        node = root.named_descendant_for_byte_range(start, start + size)
        call = node.parent if node is not None and node.type == "identifier" else None
        if (
            call is None
            or call.type != "call"
            or call.child_by_field_name("function") != node
            or start < after
            or _at_module_level(call) is None
        ):
            return None
        row = call.start_point[0] + 1
        first = row if first is None else min(first, row)
    return first


def _key_node(src: Source, root: tree_sitter.Node, span: ValueSpan) -> tree_sitter.Node | None:
    start = src.byte(span.name_start)
    node = root.named_descendant_for_byte_range(start, start)
    while node is not None and node.type not in ("string", "identifier"):
        node = node.parent
    return node


def _read_again(rereads: list[int], span: ValueSpan) -> bool:
    """Whether a re-read (code point offsets, in order) comes after ``span``."""
    return bool(rereads) and rereads[-1] >= span.raw_end


def late_writes(text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None) -> list[Note]:
    """The :data:`LATE` notes of a Python document whose spans are ``spans`` (``tree``:
    its tree, when the caller has it; else it is parsed). Never raises."""
    candidates = [i for i, s in enumerate(spans) if s.variable in READ_AT_IMPORT]
    if not candidates or not _imports_torch(text):
        return []
    src = Source(text, lone_cr_is_lf=True)
    environ = _environ_names(text)
    root = (tree or src.parse("python")).root_node
    imported = _torch_import(src.data, root)
    if imported is None:
        return []
    line = imported.start_point[0] + 1
    any_reread = [
        m.start() for m in _REREAD.finditer(text) if _in_code(src, root, m.start(), m.end())
    ]
    init_logs = [p for p in any_reread if text.startswith("_init_logs", p)]
    children: dict[str, list[tuple[int, str]]] = {}  # per variable, found on first need

    def rereads(variable: str) -> list[int]:
        return init_logs if variable == "TORCH_LOGS" else any_reread

    writes: list[tuple[int, ValueSpan, tree_sitter.Node]] = []
    for i in candidates:
        key = _key_node(src, root, spans[i])
        if key is not None and (
            _writes_environ(src.data, key, environ) or _patches_environ(src.data, key, environ)
        ):
            writes.append((i, spans[i], key))
    # a write in a function defined before the import: its function (whose name's
    # mentions are found in one pass)
    functions: dict[int, tree_sitter.Node] = {}
    for _, span, key in writes:
        if not rereads(span.variable) and _at_module_level(key) is None:
            function = _module_function(key)
            if function is not None and function.start_byte < imported.end_byte:
                functions[key.start_byte] = function  # (defined before the import)
    mentions = _mentions(
        src.data, {_text(src.data, f.child_by_field_name("name")) for f in functions.values()}
    )
    called_at: dict[int, int | None] = {}  # function start byte -> its first call's line
    out: list[Note] = []
    for i, span, key in writes:
        where = ""
        stmt = _at_module_level(key)
        if stmt is None:  # in a function or lambda
            if rereads(span.variable):
                continue
            scope = _scope(src.data, key)
            if scope is None:
                continue
            top, scope_name = scope
            if top.start_byte >= imported.end_byte:  # defined after the import
                where = f"in {scope_name}, which can only run after"
            else:  # defined before it: only when called after it
                function = functions.get(key.start_byte)
                if function is None:
                    continue
                if function.start_byte not in called_at:
                    called_at[function.start_byte] = _called_only_after(
                        src, root, function, imported.end_byte, mentions
                    )
                called = called_at[function.start_byte]
                if called is None:
                    continue
                name = _text(src.data, function.child_by_field_name("name"))
                where = f"in `{name}`, called at line {called} after"
        elif stmt.start_byte < imported.end_byte or _read_again(rereads(span.variable), span):
            continue
        head = f"{span.variable} is set {where or 'after'} `import torch` (line {line})"
        if span.variable not in children:  # (two regex scans when nothing starts one)
            children[span.variable] = _child_starts(src, root, span.variable)
        child = _child_after(children[span.variable], span.raw_end, bool(where))
        if child is not None:
            out.append(_children_note(i, head, child))
            continue
        effect = "this has no effect in this process"
        if span.variable == "TORCH_LOGS" and (
            _read_again(any_reread, span) or (where and any_reread)
        ):  # (only set_logs is left there: an _init_logs after it would re-read it)
            effect = (
                "this configures no logging in this process, and a set_logs(...) call that "
                "runs after it finds it in os.environ and is ignored"
            )
        out.append(
            Note(
                i,
                LATE,
                f"{head}: torch reads it once, at import, so {effect}; set it before the import",
            )
        )
    return out


# -- set_logs() after TORCH_LOGS was set in this process (TL631, set_logs/checks.py) -------

#: Node types a certain write may sit in, from its key up to its module-level statement
#: (anything else, ``a and os.environ.update(...)``, ``x if c else ...``, may not run).
_PLAIN = frozenset(
    {"string", "concatenated_string", "identifier", "subscript", "assignment", "call"}
    | {"argument_list", "keyword_argument", "pair", "dictionary", "attribute"}
)
#: Text between the write and the call that could take the variable away again.
_UNSET = re.compile(r"\bdel\b|\.pop(?:item)?\(|\.clear\(|\bunsetenv\b|\benviron\s*=")


def _unconditional_statement(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The module-level expression statement that always runs ``node``, or ``None``."""
    while node.parent is not None and node.parent.type != "module":
        if node.parent.type == "expression_statement":
            if node.parent.parent is not None and node.parent.parent.type == "module":
                return node.parent
            return None
        if node.type not in _PLAIN:
            return None
        node = node.parent
    return None


def torch_logs_set_before(
    text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None, calls: list[int]
) -> dict[int, int]:
    """For each ``set_logs(...)`` call starting at code point ``calls[i]`` that certainly
    runs with ``TORCH_LOGS`` in this process's ``os.environ``: its start -> the 1-based
    line of the write. Certain means: the call is a module-level expression statement, an
    unconditional module-level statement before it writes ``TORCH_LOGS`` to
    ``os.environ`` (``[K] = v``, ``setdefault``, ``update``; see :func:`_writes_environ`),
    and nothing between them could remove it: no call at all (a function may ``pop`` it, a
    patcher may clear the environment), no ``del``, no rebinding of ``environ``. Then
    torch's ``set_logs`` only logs a warning (torch 2.13.0 ``_internal.py`` line 492).
    Never raises."""
    writes = [s for s in spans if s.variable == "TORCH_LOGS"]
    if not writes or not calls:
        return {}
    src = Source(text, lone_cr_is_lf=True)
    environ = _environ_names(text)
    root = (tree or src.parse("python")).root_node
    set_at: list[tuple[int, int]] = []  # (end of the writing statement, its line)
    for span in writes:
        key = _key_node(src, root, span)
        if key is None or not _writes_environ(src.data, key, environ):
            continue
        stmt = _unconditional_statement(key)
        if stmt is not None:
            set_at.append((src.cp(stmt.end_byte), stmt.start_point[0] + 1))
    if not set_at:
        return {}
    set_at.sort()
    # anything between the write and the call that could undo it: a call (a function may
    # pop the variable, a patcher may clear the environment), `del`, a rebinding
    cursor = query_cursor(query("python", "(call) @c"))
    between = sorted(src.cp(n.start_byte) for n in cursor.captures(root).get("c", []))
    between += [m.start() for m in _UNSET.finditer(text)]
    between.sort()
    out: dict[int, int] = {}
    for start in calls:
        node = root.named_descendant_for_byte_range(src.byte(start), src.byte(start))
        while node is not None and node.type != "call":
            node = node.parent
        if node is None or _unconditional_statement(node) is None:
            continue
        i = bisect_right(set_at, (start, 1 << 62)) - 1
        if i < 0:
            continue
        end, line = set_at[i]
        j = bisect_right(between, end)  # the first thing after the write ...
        if j == len(between) or between[j] >= start:  # ... is the call itself, or later
            out[start] = line
    return out


__all__ = [
    "CHILDREN",
    "LATE",
    "READ_AT_IMPORT",
    "child_in",
    "late_writes",
    "seen_by_children",
    "torch_logs_set_before",
]
