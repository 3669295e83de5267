"""The environment variables torch's Python code reads, found statically with ``ast``.

Used to build ``data/env-reads-by-version.json`` (``scripts/env_reads.py``) and by the test
that checks the packaged 2.13 list against the installed torch. Nothing is imported or run:
each ``.py`` file of a torch tree (a directory or a wheel) is parsed and these reads are
collected, a key being a string literal or a name bound to one in the same file
(``DEBUG_DIR_VAR_NAME = "TORCH_COMPILE_DEBUG_DIR"`` in ``torch/_dynamo/config.py``):

- ``os.environ.get(K)``, ``.pop(K)``, ``.setdefault(K)``, ``os.environ[K]``, ``K in
  os.environ`` (also a bare ``environ``);
- a call of any function whose name contains ``env`` with ``K`` first (``os.getenv``,
  torch's ``get_tristate_env``, ``parse_env``, ``get_env_val``, ...);
- keyword arguments whose name contains ``env`` (``Config(env_name_default=K)``,
  ``env_name_force=K``, in ``torch/utils/_config_module.py``'s config modules), also lists.

The list errs on the side of too many names (a write such as ``putenv`` counts too): it is
used only to *not* report a name. Names read in C++ are not in it
(:data:`..misspelled.READ_IN_CPP` lists the ones that matter).
"""

from __future__ import annotations

import ast
import re
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

_VALID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ENV_METHODS = frozenset({"get", "pop", "setdefault"})


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _func_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


class _Reads(ast.NodeVisitor):
    def __init__(self, consts: dict[str, set[str]]) -> None:
        self.consts = consts
        self.names: set[str] = set()

    def key(self, node: ast.expr | None) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.names.add(node.value)
        elif isinstance(node, ast.Name | ast.Attribute):
            self.names |= self.consts.get(_func_name(node), set())
        elif isinstance(node, ast.List | ast.Tuple):
            for elt in node.elts:
                self.key(elt)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = _func_name(func)
        first = node.args[0] if node.args else None
        on_environ = isinstance(func, ast.Attribute) and _is_environ(func.value)
        if (on_environ and name in _ENV_METHODS) or "env" in name.lower():
            self.key(first)
        for kw in node.keywords:
            if kw.arg and "env" in kw.arg.lower():
                self.key(kw.value)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_environ(node.value):
            self.key(node.slice)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn) and _is_environ(right):
                self.key(node.left)
        self.generic_visit(node)


def _constants(tree: ast.AST) -> dict[str, set[str]]:
    consts: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name | ast.Attribute):
                        consts.setdefault(_func_name(target), set()).add(value.value)
    return consts


def names_read(source: str) -> set[str]:
    """The environment variable names one Python source file reads (see the module
    docstring); ``set()`` for a file that does not parse. Never raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    reads = _Reads(_constants(tree))
    try:
        reads.visit(tree)
    except RecursionError:
        return set()
    return {name for name in reads.names if _VALID.match(name)}


def _tree_sources(root: Path) -> Iterator[str]:
    for path in sorted(root.rglob("*.py")):
        try:
            yield path.read_text("utf-8", "replace")
        except OSError:
            continue


def _wheel_sources(wheel: Path) -> Iterator[str]:
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.startswith("torch/") and name.endswith(".py"):
                yield zf.read(name).decode("utf-8", "replace")


def torch_names_read(where: Path) -> set[str]:
    """Every name :func:`names_read` finds in the ``.py`` files of a torch package:
    ``where`` is the ``torch`` directory of an installation or a torch wheel (``.whl``;
    read with ``zipfile``, never installed). Raises ``OSError`` for a path that cannot be
    read."""
    sources: Iterable[str] = (
        _wheel_sources(where) if where.suffix == ".whl" else _tree_sources(where)
    )
    out: set[str] = set()
    for source in sources:
        out |= names_read(source)
    return out


__all__ = ["names_read", "torch_names_read"]
