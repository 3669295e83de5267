"""What the ``set_logs`` fixes need to know of a Python module (:func:`set_logs_source`):
how it spells ``logging``, ``os.environ``, torch's ``set_logs`` and ``_init_logs``, where
an import may be added, and which ``set_logs`` calls and ``TORCH_LOGS`` writes are whole
statements alone on their lines.

A name counts only under the rule of :mod:`.python_set_logs` (every occurrence is an
import, a call or the object of an attribute) and only when every import binding it is a
statement of the module itself (an import inside a function binds a local name). Offsets
are code points into the document.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.python.order import _key_node, _torch_import, _writes_environ
from torch_logs_lsp.hosts.python.set_logs import _MODULES, _TARGETS, _certain, _imports
from torch_logs_lsp.set_logs.call import LOGGING_LEVELS, SetLogsCall
from torch_logs_lsp.set_logs.source import SetLogsSource, Statement

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

_IMPORTS = ("import_statement", "import_from_statement", "future_import_statement")
_RERUNS = re.compile(rb"\b(?:set_logs|_init_logs)\b")
_STRINGS = ("string", "concatenated_string", "parenthesized_expression")


def _import_of(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type not in _IMPORTS:
        node = node.parent
    return node


def _top_level(src: Source, root: tree_sitter.Node, name: str, own: set[int]) -> bool:
    """Whether every import binding ``name`` (identifier starts in ``own``) is a statement
    of the module itself."""
    pattern = re.compile(rb"(?<![\w.])" + re.escape(name.encode()) + rb"\b")
    for m in pattern.finditer(src.data):
        if m.start() not in own:
            continue
        stmt = _import_of(root.named_descendant_for_byte_range(m.start(), m.end()))
        if stmt is None or stmt.parent is None or stmt.parent.type != "module":
            return False
    return True


def _free(src: Source, root: tree_sitter.Node, name: str) -> bool:
    """Whether no code of the module uses ``name`` as a name (strings, comments, attributes
    ``x.name`` and module paths of imports do not count; names imports bind are the
    caller's), so ``import name`` may be added."""
    pattern = re.compile(rb"(?<![\w.])" + re.escape(name.encode()) + rb"\b")
    for m in pattern.finditer(src.data):
        node = root.named_descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start():
            continue
        in_path = node.parent is not None and node.parent.type == "dotted_name"
        if not (in_path and _import_of(node) is not None):
            return False
    return True


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _line_end(text: str, offset: int) -> int:
    """The start of the line after ``offset``'s line (``len(text)`` on the last line)."""
    m = _LINE_BREAK.search(text, offset)  # LF, CRLF or a lone CR (Python's tokenizer)
    return len(text) if m is None else m.end()


def _imports_at(src: Source, root: tree_sitter.Node) -> int:
    """After the docstring, ``from __future__`` imports and comments that open the module."""
    at = 0
    for i, node in enumerate(root.children):
        if node.type == "comment" or node.type == "future_import_statement":
            pass
        elif i == 0 or all(c.type == "comment" for c in root.children[:i]):
            first = node.named_children[0] if node.named_children else None
            if node.type != "expression_statement" or first is None or first.type != "string":
                break
        else:
            break
        at = _line_end(src.text, src.cp(node.end_byte))
    return at


def _alone(src: Source, stmt: tree_sitter.Node) -> Statement | None:
    """``stmt`` as a :class:`Statement` when it is alone on its lines (blanks before it,
    nothing or a comment after it) in a module or a block, and parsed without error."""
    if stmt.has_error or stmt.parent is None or stmt.parent.type not in ("module", "block"):
        return None
    text = src.text
    start, end = src.cp(stmt.start_byte), src.cp(stmt.end_byte)
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    indent = text[line_start:start]
    rest_end = len(text)
    for brk in ("\n", "\r"):
        n = text.find(brk, end)
        if n >= 0:
            rest_end = min(rest_end, n)
    rest = text[end:rest_end].strip(" \t")
    if indent.strip(" \t") or (rest and not rest.startswith("#")):
        return None
    return Statement(start, end, indent)


def _reruns(src: Source, root: tree_sitter.Node) -> list[int]:
    """The start bytes of the names ``set_logs`` / ``_init_logs`` in code (imports aside)."""
    out = []
    for m in _RERUNS.finditer(src.data):
        node = root.named_descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start():
            continue
        if _import_of(node) is None:
            out.append(m.start())
    return out


def _call_statement(
    src: Source, root: tree_sitter.Node, call: SetLogsCall, reruns: list[int]
) -> tuple[int, Statement] | None:
    """The call's statement; ``reruns``: :func:`_reruns` (sorted)."""
    node = root.named_descendant_for_byte_range(src.byte(call.start), src.byte(call.end))
    if node is None or node.type != "call" or node.parent is None:
        return None
    stmt = node.parent
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    found = _alone(src, stmt)
    if found is None:
        return None
    inside = bisect_left(reruns, stmt.end_byte) - bisect_left(reruns, stmt.start_byte)
    later = len(reruns) > inside
    return call.start, Statement(found.start, found.end, found.indent, later)


def _write_statement(
    src: Source, root: tree_sitter.Node, span: ValueSpan, environ: frozenset[str]
) -> Statement | None:
    """The statement of a ``TORCH_LOGS`` write to this process's environment that is only
    that write: ``E[K] = v``, ``E.setdefault(K, v)``, ``E.update(K=v)``, ``E.update({K:
    v})``."""
    key = _key_node(src, root, span)
    if key is None or not _writes_environ(src.data, key, environ):
        return None
    parent = key.parent
    if parent is None:
        return None
    if parent.type == "subscript":
        stmt = parent.parent
        right = stmt.child_by_field_name("right") if stmt is not None else None
        if stmt is None or stmt.type != "assignment" or right is None or right.type not in _STRINGS:
            return None
    elif parent.type == "pair":  # E.update({K: v}) with that one entry
        display = parent.parent
        args = display.parent if display is not None else None
        if display is None or args is None or args.type != "argument_list":
            return None
        if len([c for c in display.named_children if c.type != "comment"]) != 1:
            return None
        if len([c for c in args.named_children if c.type != "comment"]) != 1:
            return None
        stmt = args.parent
    else:
        args = parent.parent if parent.type == "keyword_argument" else parent
        if args is None or args.type != "argument_list":
            return None
        count = len([c for c in args.named_children if c.type != "comment"])
        if count != (1 if parent.type == "keyword_argument" else 2):
            return None
        stmt = args.parent
    outer = stmt.parent if stmt is not None else None
    if outer is None or outer.type != "expression_statement" or outer.named_child_count != 1:
        return None
    return _alone(src, outer)


def set_logs_source(
    text: str, tree: tree_sitter.Tree, calls: list[SetLogsCall], spans: list[ValueSpan]
) -> SetLogsSource:
    """The spellings of ``text`` (its ``tree``, its ``set_logs`` ``calls`` and its value
    ``spans``) for the fixes; see :class:`~..set_logs_source.SetLogsSource`."""
    src = Source(text, lone_cr_is_lf=True)
    root = tree.root_node
    bound, own = _imports(src, root, (*_MODULES, "os"))
    names = {
        n: what
        for n, what in _certain(src, root, bound, own).items()
        if _top_level(src, root, n, own)
    }
    by_what: dict[str, str] = {}
    for n, what in sorted(names.items()):
        by_what.setdefault(what, n)
    levels = {
        what.split(".", 1)[1]: n
        for n, what in sorted(names.items())
        if what.startswith("logging.") and what.split(".", 1)[1] in LOGGING_LEVELS
    }
    set_logs = next((by_what[t] for t in sorted(_TARGETS) if t in by_what), None)
    init_logs = None
    for what, tail_set, tail_init in (
        ("torch", "._logging.set_logs", "._logging._internal._init_logs"),
        ("torch._logging", ".set_logs", "._internal._init_logs"),
        ("torch._logging._internal", ".set_logs", "._init_logs"),
    ):
        if what in by_what:
            set_logs = set_logs or by_what[what] + tail_set
            init_logs = init_logs or by_what[what] + tail_init
    free = frozenset(
        m for m in ("logging", "os", "torch") if m not in bound and _free(src, root, m)
    )
    imported = _torch_import(src.data, root)
    torch_at = None
    if imported is not None and "torch" in free:
        torch_at = _line_end(text, src.cp(imported.end_byte))
    environ = frozenset(f"{n}.environ" for n, what in names.items() if what == "os")
    reruns = _reruns(src, root) if calls else []
    statements = dict(s for c in calls if (s := _call_statement(src, root, c, reruns)) is not None)
    writes = {
        span.name_start: stmt
        for span in spans
        if span.variable == "TORCH_LOGS"
        and (stmt := _write_statement(src, root, span, environ)) is not None
    }
    return SetLogsSource(
        logging=by_what.get("logging"),
        level_names=levels,
        set_logs=set_logs,
        init_logs=init_logs,
        environ=min(environ) if environ else None,
        imports_at=_imports_at(src, root),
        free=free,
        torch_at=torch_at,
        calls=statements,
        writes=writes,
    )


__all__ = ["set_logs_source"]
