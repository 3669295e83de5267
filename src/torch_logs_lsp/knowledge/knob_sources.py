"""torch's compile knobs (``TORCHINDUCTOR_*``, ``TORCHDYNAMO_*``, ``TORCH_COMPILE_*`` ...)
as one release's sources state them, found statically with ``ast``.

Used to build ``data/knobs-by-version.json`` (``scripts/knobs.py``) and by the test that
checks the packaged 2.13 entry against the installed torch. Nothing is imported or run.

A *knob* is an environment variable whose name starts with ``TORCH`` or ``INDUCTOR_``
(not a TORCH_LOGS family name) read in one of :data:`DOC_FILES` by

- ``os.environ.get(K[, default])``, ``os.getenv(K[, default])``, ``os.environ[K]``, ``K in
  os.environ`` (a key being a string literal or a name bound to one in the same file), or
- ``Config(env_name_force=K, env_name_default=K, default=...)`` of
  ``torch/utils/_config_module.py`` (a string or a list of them), which maps ``"1"`` to
  ``True``, ``"0"`` to ``False`` and keeps any other text as it is (``_read_env_variable``),
  or ``get_tristate_env(K[, default])`` (``"1"``/``"0"``, else the default).

For each knob: the config entry the read feeds (``fx_graph_cache``, ``triton.cudagraphs``,
``get_worker_start_method()`` for a read inside a function), the file, torch's documentation
of it (the comment lines directly above the statement, and the docstring directly below an
assignment: torch's config modules document entries both ways), the default (source text)
and the *value form*: how torch compares the value, for every read of the name anywhere in
torch's Python code (:class:`Form`). Only forms that hold at every read let a value be judged.
"""

from __future__ import annotations

import ast
import re
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from torch_logs_lsp.knowledge.env_reads import func_name, is_environ
from torch_logs_lsp.model.spans import FAMILY

#: The files whose reads are documented knobs (paths inside the wheel; a trailing ``/``
#: is every ``.py`` file directly in that folder).
DOC_FILES: tuple[str, ...] = (
    "torch/_inductor/config.py",
    "torch/_dynamo/config.py",
    "torch/compiler/config.py",
    "torch/_functorch/config.py",
    "torch/_logging/_internal.py",
    "torch/_inductor/runtime/",
)
#: Knob names: an environment variable name starting with one of these.
KNOB_NAME = re.compile(r"(?:TORCH|INDUCTOR_)[A-Z0-9_]*\Z")
#: String methods torch applies to a value before comparing it (applied the same way
#: when a value is judged).
_STR_METHODS = frozenset({"lower", "upper", "strip", "casefold"})
_SKIP_COMMENT = re.compile(r"#\s*(?:fmt:|noqa|type:|pyre|mypy|ruff:|isort:|pragma)")


@dataclass
class Form:
    """How torch reads a value at one place.

    ``kind``: ``"eq"`` (compared with the strings ``values``: ``==``, ``!=``, ``in``, ``not
    in``), ``"config"`` (a ``Config(env_name_...)`` entry: ``"1"``/``"0"`` become
    ``True``/``False``, other text is kept as the entry's value; ``boolean`` when the
    entry is a ``bool``), ``"nonempty"`` (``bool(value)``: any non-empty text is true),
    ``"tristate"`` (``"1"``/``"0"``, else the default), ``"int"`` /
    ``"float"`` (``int(value)``, ``float(value)``), ``"present"`` (only ``K in
    os.environ``: any value counts), ``"text"`` (anything else: not judged).
    ``methods``: the string methods applied before comparing (``["lower"]``).
    ``result``: for an ``eq`` read whose comparison is the whole value of its entry, what
    a value matching none of ``values`` gives (``"off"`` for ``== "1"``, ``"on"`` for
    ``!= "0"``), else ``None``."""

    kind: str
    values: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    result: str | None = None
    boolean: bool = False

    def as_json(self) -> dict[str, object]:
        """The form as packaged (empty fields left out)."""
        out: dict[str, object] = {"kind": self.kind}
        if self.values:
            out["values"] = self.values
        if self.methods:
            out["methods"] = self.methods
        if self.result:
            out["result"] = self.result
        if self.boolean:
            out["boolean"] = True
        return out


@dataclass
class Knob:
    """One knob as one file of a release documents it (see the module docstring):
    ``default`` is the source text of the default (``'"1"'``, ``"60 * 5"``, ``"False"``),
    ``None`` when torch gives none; ``doc`` torch's comment/docstring text; ``line`` the
    1-based line of the statement."""

    name: str
    file: str
    entry: str
    line: int
    doc: str
    default: str | None
    forms: list[Form]


def _parse(source: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _constants(tree: ast.AST) -> dict[str, str]:
    consts: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                consts[target.id] = value.value
    return consts


class _Parents(ast.NodeVisitor):
    def __init__(self) -> None:
        self.parent: dict[int, ast.AST] = {}

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.parent[id(child)] = node
        super().generic_visit(node)


@dataclass
class _Read:
    name: str
    node: ast.AST  # the read expression (or the Config call)
    default: ast.expr | None
    form: Form


def _keys(node: ast.expr | None, consts: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in consts:
        return [consts[node.id]]
    if isinstance(node, ast.List | ast.Tuple):
        return [k for elt in node.elts for k in _keys(elt, consts)]
    return []


def _strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        out = []
        for elt in node.elts:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                return None
            out.append(elt.value)
        return out
    return None


def _classify(read: ast.expr, parents: dict[int, ast.AST]) -> Form:
    """The form of the value read by ``read`` (an environ.get/getenv/subscript node)."""
    node: ast.AST = read
    methods: list[str] = []
    while True:  # value.lower().strip() ...
        up = parents.get(id(node))
        if (
            isinstance(up, ast.Attribute)
            and up.attr in _STR_METHODS
            and isinstance(parents.get(id(up)), ast.Call)
        ):
            call = parents[id(up)]
            assert isinstance(call, ast.Call)
            if call.args or call.keywords:
                return Form("text")
            methods.append(up.attr)
            node = call
            continue
        break
    up = parents.get(id(node))
    if isinstance(up, ast.Compare) and len(up.ops) == 1:
        op = up.ops[0]
        other = up.comparators[0] if up.left is node else up.left
        values = _strings(other)
        if values is not None and isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
            if isinstance(op, ast.In | ast.NotIn) and up.left is not node:
                return Form("text")  # `"x" in value`: a substring test
            negated = isinstance(op, ast.NotEq | ast.NotIn)
            return Form("eq", values, methods, _result(up, parents, negated))
        return Form("text")
    if isinstance(up, ast.Call) and not methods and up.args and up.args[0] is node:
        name = func_name(up.func)
        if name in ("int", "float") and len(up.args) == 1 and not up.keywords:
            return Form("text") if _in_try(up, parents) else Form(name)
        if name == "bool" and len(up.args) == 1 and not up.keywords:
            return Form("nonempty")
    return Form("text")


def _in_try(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` runs inside a ``try`` with handlers (an error may be caught)."""
    while id(node) in parents:
        up = parents[id(node)]
        if isinstance(up, ast.Try) and up.handlers and node in up.body:
            return True
        node = up
    return False


def _result(compare: ast.Compare, parents: dict[int, ast.AST], negated: bool) -> str | None:
    """``"off"``/``"on"`` for what a value matching nothing gives, when the comparison is
    the whole value of an assignment or a ``return``."""
    up = parents.get(id(compare))
    if isinstance(up, ast.Assign | ast.AnnAssign | ast.Return) and up.value is compare:
        return "on" if negated else "off"
    return None


def _config_boolean(call: ast.Call, annotation: ast.expr | None) -> bool:
    for kw in call.keywords:
        if (
            kw.arg == "default"
            and isinstance(kw.value, ast.Constant)
            and isinstance(kw.value.value, bool)
        ):
            return True
        if kw.arg == "value_type" and isinstance(kw.value, ast.Name):
            return kw.value.id == "bool"
    if annotation is not None:
        text = ast.unparse(annotation)
        return text in ("bool", "Optional[bool]", "bool | None", "None | bool")
    return False


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _reads(tree: ast.Module) -> tuple[list[_Read], dict[int, ast.AST]]:
    consts = _constants(tree)
    visitor = _Parents()
    visitor.visit(tree)
    parents = visitor.parent
    out: list[_Read] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = func_name(node.func)
            first = node.args[0] if node.args else None
            on_environ = isinstance(node.func, ast.Attribute) and is_environ(node.func.value)
            is_getenv = name == "getenv" and isinstance(node.func, ast.Attribute)
            if (on_environ and name == "get") or is_getenv:
                default = node.args[1] if len(node.args) > 1 else _keyword(node, "default")
                for key in _keys(first, consts):
                    out.append(_Read(key, node, default, _classify(node, parents)))
            elif on_environ and name in ("pop", "setdefault"):
                for key in _keys(first, consts):  # torch writes it: not judged
                    out.append(_Read(key, node, None, Form("text")))
            elif name == "get_tristate_env":
                default = node.args[1] if len(node.args) > 1 else _keyword(node, "default")
                for key in _keys(first, consts):
                    out.append(_Read(key, node, default, Form("tristate")))
            elif name == "Config":
                default = _keyword(node, "default")
                up = parents.get(id(node))
                annotation = up.annotation if isinstance(up, ast.AnnAssign) else None
                boolean = _config_boolean(node, annotation)
                for kw in node.keywords:
                    if kw.arg in ("env_name_force", "env_name_default"):
                        for key in _keys(kw.value, consts):
                            form = Form("config", ["1", "0"], boolean=boolean)
                            out.append(_Read(key, node, default, form))
            elif name in ("environ_get", "parse_env") or (
                "env" in name.lower() and name not in ("getenv",)
            ):
                for key in _keys(first, consts):  # torch's own helpers: not judged
                    out.append(_Read(key, node, None, Form("text")))
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            for key in _keys(node.slice, consts):
                ctx_store = isinstance(node.ctx, ast.Store | ast.Del)
                form = Form("text") if ctx_store else _classify(node, parents)
                out.append(_Read(key, node, None, form))
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn) and is_environ(right):
                    for key in _keys(node.left, consts):
                        out.append(_Read(key, node, None, Form("present")))
    return out, parents


def _statement(node: ast.AST, parents: dict[int, ast.AST]) -> ast.stmt:
    while not isinstance(node, ast.stmt):
        node = parents[id(node)]
    return node


def _scope(stmt: ast.stmt, parents: dict[int, ast.AST]) -> tuple[list[str], ast.stmt | None]:
    """The class names around ``stmt`` and the outermost function holding it."""
    names: list[str] = []
    func: ast.stmt | None = None
    node: ast.AST = stmt
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.clear()
            func = node
    names.reverse()
    return names, func


def _target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _comments_above(lines: list[str], line: int) -> list[str]:
    """The comment lines directly above the 1-based ``line`` (no blank line between)."""
    out: list[str] = []
    i = line - 2
    while i >= 0:
        text = lines[i].strip()
        if not text.startswith("#"):
            break
        if not _SKIP_COMMENT.match(text):
            out.append(text[1:].strip())
        i -= 1
    out.reverse()
    return out


def _docstring_below(stmt: ast.stmt, parents: dict[int, ast.AST]) -> str | None:
    up = parents.get(id(stmt))
    body = getattr(up, "body", None)
    if not isinstance(body, list) or stmt not in body:
        return None
    index = body.index(stmt)
    if index + 1 < len(body):
        nxt = body[index + 1]
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            return nxt.value.value
    return None


_MARKER = re.compile(r"\[@compile_ignored:[^\]]*\]\s*")


def _join(paragraphs: list[str]) -> str:
    return _MARKER.sub("", "\n".join(p for p in paragraphs if p)).strip()


def _doc(
    stmt: ast.stmt, func: ast.stmt | None, lines: list[str], parents: dict[int, ast.AST]
) -> str:
    parts = [" ".join(_comments_above(lines, stmt.lineno))]
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        below = _docstring_below(stmt, parents)
        if below:
            parts.append(" ".join(below.split()))
    if not any(parts) and func is not None:
        parts.append(" ".join(_comments_above(lines, func.lineno)))
        below = ast.get_docstring(func) if isinstance(func, ast.FunctionDef) else None
        if below:
            parts.append(" ".join(below.split()))
    return _join(parts)


def is_knob(name: str) -> bool:
    """Whether ``name`` is a knob name (:data:`KNOB_NAME`, not a family variable)."""
    return KNOB_NAME.match(name) is not None and name not in FAMILY


def file_knobs(path: str, source: str) -> list[Knob]:
    """The knobs ``source`` (the file ``path``, e.g. ``"torch/_inductor/config.py"``)
    documents, one per (name, statement), in source order; ``[]`` when it does not
    parse. Never raises."""
    tree = _parse(source)
    if tree is None:
        return []
    try:
        reads, parents = _reads(tree)
    except RecursionError:
        return []
    lines = source.splitlines()
    out: dict[tuple[str, int], Knob] = {}
    for read in reads:
        if not is_knob(read.name):
            continue
        stmt = _statement(read.node, parents)
        classes, func = _scope(stmt, parents)
        target = _target(stmt) if func is None else None
        if func is not None:
            assert isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
            entry = func.name + "()"
        else:
            entry = ".".join([*classes, target]) if target else ".".join(classes)
        key = (read.name, stmt.lineno)
        knob = out.get(key)
        if knob is None:
            default = ast.unparse(read.default) if read.default is not None else None
            knob = Knob(
                read.name, path, entry, stmt.lineno, _doc(stmt, func, lines, parents), default, []
            )
            out[key] = knob
        elif knob.default is None and read.default is not None:
            knob.default = ast.unparse(read.default)
        knob.forms.append(read.form)
    return sorted(out.values(), key=lambda k: (k.line, k.name))


def file_forms(source: str) -> dict[str, list[Form]]:
    """Every knob name ``source`` reads, with the form of each read (see :class:`Form`);
    ``{}`` for a file that does not parse. Never raises."""
    tree = _parse(source)
    if tree is None:
        return {}
    try:
        reads, _ = _reads(tree)
    except RecursionError:
        return {}
    out: dict[str, list[Form]] = {}
    for read in reads:
        if is_knob(read.name):
            out.setdefault(read.name, []).append(read.form)
    return out


def documented(path: str) -> bool:
    """Whether the wheel path ``path`` is one of :data:`DOC_FILES`."""
    for doc in DOC_FILES:
        if doc.endswith("/"):
            if path.startswith(doc) and "/" not in path[len(doc) :]:
                return True
        elif path == doc:
            return True
    return False


def torch_sources(where: Path) -> Iterator[tuple[str, str]]:
    """``(path inside the wheel, text)`` of every ``.py`` file of a torch package:
    ``where`` is a torch wheel (read with ``zipfile``, never installed) or the ``torch``
    directory of an installation. Raises ``OSError`` for a path that cannot be read."""
    if where.suffix == ".whl":
        with zipfile.ZipFile(where) as zf:
            for name in sorted(zf.namelist()):
                if name.startswith("torch/") and name.endswith(".py"):
                    yield name, zf.read(name).decode("utf-8", "replace")
        return
    for path in sorted(where.rglob("*.py")):
        rel = "torch/" + path.relative_to(where).as_posix()
        try:
            yield rel, path.read_text("utf-8", "replace")
        except OSError:
            continue


@dataclass
class ReleaseKnobs:
    """One release's knobs: ``knobs`` by name (the first statement documenting it, in
    :data:`DOC_FILES` order), ``forms`` every read of each knob name in the whole tree."""

    knobs: dict[str, Knob]
    forms: dict[str, list[Form]]


def release_knobs(where: Path) -> ReleaseKnobs:
    """The knobs of the torch at ``where`` (see :func:`torch_sources`)."""
    found: dict[str, list[Knob]] = {}
    forms: dict[str, list[Form]] = {}
    for path, source in torch_sources(where):
        if "/test" in path or path.startswith("torch/testing/"):
            continue
        if documented(path):
            for knob in file_knobs(path, source):
                found.setdefault(knob.name, []).append(knob)
        if "env" not in source and "Config(" not in source:
            continue  # reads nothing (a cheap test before parsing)
        for name, fs in file_forms(source).items():
            forms.setdefault(name, []).extend(fs)
    order = {d: i for i, d in enumerate(DOC_FILES)}

    def rank(knob: Knob) -> tuple[int, int]:
        folder = knob.file.rsplit("/", 1)[0] + "/"
        return (order.get(knob.file, order.get(folder, len(order))), knob.line)

    knobs = {}
    for name, items in found.items():
        items.sort(key=rank)
        best = items[0]
        if not best.doc:  # a later statement that documents it
            best.doc = next((k.doc for k in items if k.doc), "")
        knobs[name] = best
    return ReleaseKnobs(knobs, {n: forms.get(n, []) for n in knobs})


__all__ = [
    "DOC_FILES",
    "KNOB_NAME",
    "Form",
    "Knob",
    "ReleaseKnobs",
    "documented",
    "file_forms",
    "file_knobs",
    "is_knob",
    "release_knobs",
    "torch_sources",
]
