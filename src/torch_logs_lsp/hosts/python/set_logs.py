"""``torch._logging.set_logs(...)`` calls in Python source, as abstract calls
(:class:`~..set_logs_call.SetLogsCall`) for :func:`~..set_logs.check_set_logs`.

A call is taken only when its callee is certainly torch's ``set_logs`` (no false
positives): ``torch._logging.set_logs`` (also ``._internal.set_logs``) through a name
bound by ``import torch`` (``as T``), ``import torch._logging as tl``, ``from torch import
_logging``, or ``set_logs`` bound by ``from torch._logging import set_logs`` (``as sl``).
Such a name counts only when every occurrence of it in the file is that import, a call of
it or the object of an attribute (``tl.set_logs``): any other use (an assignment, a
parameter, a second import, ``def set_logs``) may rebind it, so its calls are left alone.
``logging.DEBUG`` (and ``DEBUG`` from ``from logging import DEBUG``) is a level name under
the same rule. A call whose arguments do not parse is skipped (half-typed).

Offsets are code points into the document.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.python.values import literal, unwrap
from torch_logs_lsp.set_logs.call import (
    BoolValue,
    DictEntry,
    DictValue,
    IntValue,
    Keyword,
    KeywordValue,
    LevelName,
    NoneValue,
    NotStatic,
    OtherLiteral,
    SetLogsCall,
    StrValue,
)

if TYPE_CHECKING:
    import tree_sitter

#: What a call's callee must resolve to.
_TARGETS = frozenset({"torch._logging.set_logs", "torch._logging._internal.set_logs"})
_MODULES = ("torch", "torch._logging", "torch._logging._internal", "logging")


def _text(src: Source, node: tree_sitter.Node | None) -> str:
    if node is None:
        return ""
    return src.data[node.start_byte : node.end_byte].decode("utf-8", "replace")


_IMPORT_WORD = re.compile(rb"\b(?:import|from)\b")


def _imports(
    src: Source, root: tree_sitter.Node, modules: tuple[str, ...] = _MODULES
) -> tuple[dict[str, str], set[int]]:
    """Names bound by imports of torch / logging (``modules``) anywhere in the file -> what they are
    (``"torch"``, ``"torch._logging.set_logs"``, ``"logging.DEBUG"``), with the start bytes
    of the identifiers those imports bind and of the import statements read. Names bound by
    any other import get ``""``."""
    bound: dict[str, str] = {}
    own: set[int] = set()

    def bind(name_node: tree_sitter.Node | None, what: str) -> None:
        if name_node is None:
            return
        name = _text(src, name_node)
        bound[name] = what if bound.get(name, what) == what else ""
        own.add(name_node.start_byte)

    for m in _IMPORT_WORD.finditer(src.data):
        keyword = root.descendant_for_byte_range(m.start(), m.end())
        node = keyword.parent if keyword is not None else None
        if node is None or keyword is None or keyword.start_byte != node.start_byte:
            continue  # `yield from`, `raise ... from`, a string, a comment
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "aliased_import":
                    module = _text(src, child.child_by_field_name("name"))
                    alias = child.child_by_field_name("alias")
                    bind(alias, module if module in modules else "")
                elif child.type == "dotted_name":
                    first = child.named_children[0] if child.named_children else None
                    name = _text(src, first)
                    bind(first, name if name in modules else "")
        elif node.type == "import_from_statement":
            module_node = node.child_by_field_name("module_name")
            module = _text(src, module_node) if module_node is not None else ""
            if module_node is None or module_node.type != "dotted_name":
                module = ""
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    name = _text(src, child.child_by_field_name("name"))
                    target = child.child_by_field_name("alias")
                else:
                    name, target = _text(src, child), child
                    if target.type == "dotted_name" and target.named_children:
                        target = target.named_children[0]
                full = f"{module}.{name}"
                known = module in _MODULES and (full in _MODULES or full in _TARGETS)
                known = known or module == "logging"
                bind(target, full if known else "")
        else:
            continue
        own.add(node.start_byte)  # the statement: its module paths are no uses
    return bound, own


def _certain(
    src: Source, root: tree_sitter.Node, bound: dict[str, str], own: set[int]
) -> dict[str, str]:
    """The names of ``bound`` whose every occurrence is the import, a call or the object
    of an attribute (see the module docstring)."""
    wanted = sorted(name for name, what in bound.items() if what)
    if not wanted:
        return {}
    # (a name right before a ``.`` is the object of an attribute, or in a string or a
    # comment: never a binding; an import's module path is read by _imports)
    pattern = b"|".join(re.escape(w.encode()) for w in wanted)
    words = re.compile(rb"\b(?:" + pattern + rb")\b(?!\.)")
    bad: set[str] = set()
    for m in words.finditer(src.data):
        word = m.group().decode("utf-8", "replace")
        if word in bad or m.start() in own:
            continue
        node = root.named_descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start():
            continue  # in a string or a comment, or part of a longer name
        parent = node.parent
        if parent is None:
            bad.add(word)
        elif parent.type == "dotted_name":
            statement = parent.parent
            if statement is not None and statement.type == "aliased_import":
                statement = statement.parent
            if statement is None or statement.start_byte not in own:
                bad.add(word)  # an import not read (cannot happen; keep it certain)
        elif parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            continue  # x.set_logs: not the name
        elif parent.type in ("keyword_argument", "argument_list", "pair"):
            continue  # f(k=x), f(x), {k: x}: a keyword or a read, never a binding
        elif parent.type == "call" and parent.child_by_field_name("function") == node:
            continue
        elif parent.type == "attribute" and parent.child_by_field_name("object") == node:
            grand = parent.parent
            assigned = grand is not None and grand.child_by_field_name("left") == parent
            if assigned and grand is not None and grand.type.endswith("assignment"):
                bad.add(word)  # logging.DEBUG = 5
            continue
        else:
            bad.add(word)
    return {name: what for name, what in bound.items() if what and name not in bad}


def _dotted(src: Source, node: tree_sitter.Node) -> tuple[str, str] | None:
    """``a.b.c`` -> (``"a"``, ``".b.c"``) for a chain of plain attributes."""
    rest = ""
    while node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        obj = node.child_by_field_name("object")
        if attr is None or obj is None:
            return None
        rest = "." + _text(src, attr) + rest
        node = obj
    if node.type != "identifier":
        return None
    return _text(src, node), rest


def _resolved(src: Source, node: tree_sitter.Node, names: dict[str, str]) -> str | None:
    found = _dotted(src, node)
    if found is None or found[0] not in names:
        return None
    return names[found[0]] + found[1]


def _value(
    src: Source, node: tree_sitter.Node, names: dict[str, str], nested: bool = False
) -> KeywordValue:
    """A keyword's value (``nested``: an entry's value in a dict display, where another
    dict is not static: only ``modules={...}`` takes a dict, one level deep)."""
    node = unwrap(node) or node
    start, end = src.cp(node.start_byte), src.cp(node.end_byte)
    if node.has_error:
        return NotStatic(start, end)
    kind = node.type
    if kind in ("true", "false"):
        return BoolValue(kind == "true", start, end)
    if kind == "none":
        return NoneValue(start, end)
    if kind == "integer":
        n = _int(_text(src, node))
        return IntValue(n, start, end) if n is not None else NotStatic(start, end)
    if kind == "unary_operator":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if arg is not None and arg.type == "integer" and _text(src, op) in ("-", "+"):
            n = _int(_text(src, arg))
            if n is not None:
                return IntValue(-n if _text(src, op) == "-" else n, start, end)
        return _other_literal(src, node, start, end)
    if kind == "string":
        lit = literal(src, node)
        if lit is not None and lit.kind == "str" and lit.value is not None:
            return StrValue(lit.value, start, end)
        return _other_literal(src, node, start, end)
    if kind == "concatenated_string":
        parts = []
        for part in node.named_children:
            lit = literal(src, part)
            if lit is None or lit.kind != "str" or lit.value is None:
                return _other_literal(src, node, start, end)
            parts.append(lit.value)
        return StrValue("".join(parts), start, end)
    if kind in ("identifier", "attribute"):
        full = _resolved(src, node, names)
        if full is not None and full.startswith("logging.") and full.count(".") == 1:
            return LevelName(full[len("logging.") :], start, end)
        return NotStatic(start, end)
    if kind == "dictionary" and not nested:
        entries = []
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type != "pair":
                return NotStatic(start, end)  # {**other, ...}, a comprehension
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            if key is None or value is None:
                return NotStatic(start, end)
            key = unwrap(key) or key
            lit = literal(src, key) if key.type == "string" else None
            text = lit.value if lit is not None and lit.kind == "str" else None
            if lit is None and key.type not in ("string", "concatenated_string"):
                text = None
            entries.append(
                DictEntry(
                    text,
                    src.cp(key.start_byte),
                    src.cp(key.end_byte),
                    _value(src, value, names, nested=True),
                )
            )
        return DictValue(tuple(entries), start, end)
    return _other_literal(src, node, start, end)


#: Nodes whose text may be another literal (``10.0``, ``-1.5``, ``1+2j``, ``b"x"``,
#: ``[10]``); ``ast.literal_eval`` decides, on at most :data:`_MAX_LITERAL` code points.
_LITERAL_NODES = frozenset(
    {"float", "unary_operator", "binary_operator", "string", "concatenated_string"}
    | {"list", "tuple", "set"}
)
_MAX_LITERAL = 2_000


def _other_literal(src: Source, node: tree_sitter.Node, start: int, end: int) -> KeywordValue:
    """An :class:`OtherLiteral` when ``ast.literal_eval`` (the oracle) evaluates the
    node's text to something that is no str/int/bool/None, else :class:`NotStatic`."""
    if node.type not in _LITERAL_NODES or end - start > _MAX_LITERAL:
        return NotStatic(start, end)
    try:
        value = ast.literal_eval(_text(src, node))
    except Exception:  # anything literal_eval refuses (or cannot hold) is not static
        return NotStatic(start, end)
    if value is None or isinstance(value, str | int | dict):
        return NotStatic(start, end)  # handled above when static; a dict here is nested
    return OtherLiteral(value, start, end)


def _int(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 0) if "_" not in (text[:1], text[-1:]) else None
    except ValueError:
        return None


def _call(src: Source, call: tree_sitter.Node, names: dict[str, str]) -> SetLogsCall | None:
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or args.type != "argument_list" or args.has_error:
        return None
    if _resolved(src, fn, names) not in _TARGETS:
        return None
    keywords: list[Keyword] = []
    positional: list[tuple[int, int]] = []
    unpacked = False
    for arg in args.named_children:
        if arg.type == "comment":
            continue
        if arg.type in ("list_splat", "dictionary_splat"):
            unpacked = True
        elif arg.type == "keyword_argument":
            name = arg.child_by_field_name("name")
            value = arg.child_by_field_name("value")
            if name is None or value is None:
                return None
            keywords.append(
                Keyword(
                    _text(src, name),
                    src.cp(name.start_byte),
                    src.cp(name.end_byte),
                    _value(src, value, names),
                )
            )
        else:
            positional.append((src.cp(arg.start_byte), src.cp(arg.end_byte)))
    return SetLogsCall(
        tuple(keywords),
        src.cp(call.start_byte),
        src.cp(call.end_byte),
        tuple(positional),
        unpacked,
    )


def set_logs_calls(text: str, tree: tree_sitter.Tree | None = None) -> list[SetLogsCall]:
    """The ``set_logs(...)`` calls of ``text`` that are certainly torch's, in document
    order (``tree``: ``text`` already parsed by tree-sitter-python). Never raises."""
    if "set_logs" not in text or "torch" not in text:
        return []
    src = Source(text, lone_cr_is_lf=True)
    if tree is None:
        tree = src.parse("python")
    root = tree.root_node
    bound, own = _imports(src, root)
    names = _certain(src, root, bound, own)
    if not any(what.startswith("torch") for what in names.values()):
        return []
    # a callee ends with the attribute `set_logs`, or is a name bound to the function
    callees = ["set_logs", *(name for name, what in names.items() if what in _TARGETS)]
    words = re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in callees) + rb")\b")
    out: list[SetLogsCall] = []
    for m in words.finditer(src.data):
        node = root.named_descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start():
            continue
        fn = node  # the callee: the name, or the attribute it ends
        if fn.parent is not None and fn.parent.type == "attribute":
            if fn.parent.child_by_field_name("attribute") != fn:
                continue
            fn = fn.parent
        call = fn.parent
        if call is None or call.type != "call" or call.child_by_field_name("function") != fn:
            continue
        found = _call(src, call, names)
        if found is not None:
            out.append(found)
    return out


__all__ = ["set_logs_calls"]
