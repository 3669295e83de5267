"""Read an installed torch statically: its version and its TORCH_LOGS registry.

Nothing of the installation is imported or executed: ``torch/version.py`` and
``torch/_logging/_registrations.py`` are parsed with :mod:`ast` and only literal shapes
are evaluated:

- module-level assignments of string lists/tuples (``DYNAMIC = ["torch.fx...", ...]``),
  also built from other such names with ``*NAME`` or ``+``;
- ``register_log(alias, qnames)`` with a string, a list/tuple or such a name;
- ``register_artifact(name, description, visible=..., off_by_default=..., log_format=...)``
  with literal arguments (positional or keyword, as in ``torch/_logging/_internal.py``).

Any other statement that could register a name (a loop, a call with computed arguments, a
conditional) is reported in :attr:`ReadResult.problems` with its line; the caller decides
what to trust (see ``torch_context``: any problem -> the nearest packaged release).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Any

from torch_logs_lsp.files import (
    MAX_REGISTRATIONS_BYTES,
    MAX_VERSION_BYTES,
    SkippedFile,
    read_regular,
    read_text,
)

REGISTRATIONS = os.path.join("_logging", "_registrations.py")

# register_artifact(setting_name, description, visible=False, off_by_default=False,
#                   log_format=None)  -- torch/_logging/_internal.py 2.13.0 line 619
_ARTIFACT_PARAMS = ("name", "description", "visible", "off_by_default", "log_format")
_ARTIFACT_DEFAULTS: dict[str, Any] = {"visible": False, "off_by_default": False}


@dataclass
class ReadResult:
    """What was read. ``logs``: alias -> qualified logger names (registration order);
    ``artifacts``: name -> ``{"off_by_default": bool, "visible": bool}``;
    ``descriptions``: artifact -> torch's own description; ``problems``: human-readable
    notes about shapes that were skipped (``"line 12: for loop not read"``)."""

    version: str | None = None
    logs: dict[str, list[str]] = field(default_factory=dict)
    artifacts: dict[str, dict[str, bool]] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def facts(self) -> dict[str, Any]:
        """The shape of one release in ``names-by-torch-version.json``."""
        return {"logs": dict(self.logs), "artifacts": dict(self.artifacts)}


class _Unreadable(Exception):
    pass


#: Most strings the evaluator materializes for one file, copies and intermediate lists
#: included (torch 2.13.0's ``_registrations.py`` needs 54:
#: ``tests/torch_env/test_resource_bounds.py``).
MAX_ELEMENTS = 100_000

#: Most characters in those strings, in all (torch 2.13.0's file: 1,502).
MAX_CHARS = 1_000_000


class _TooLarge(Exception):
    """The file's string lists need more than :data:`MAX_ELEMENTS` strings or
    :data:`MAX_CHARS` characters (``X1 = [*X0, *X0]`` doubling on every line)."""


class _Budget:
    """What one file may still materialize: ``elements`` strings, ``chars`` characters.
    :meth:`charge` is called before a list is built; raises :class:`_TooLarge`."""

    def __init__(self, elements: int = MAX_ELEMENTS, chars: int = MAX_CHARS) -> None:
        self.elements = elements
        self.chars = chars

    def charge(self, *parts: list[str]) -> None:
        """Account for a new list made of ``parts`` (lists of strings, not copied yet)."""
        self.elements -= sum(len(p) for p in parts)
        if self.elements < 0:
            raise _TooLarge(f"more than {MAX_ELEMENTS:,} strings")
        self.chars -= sum(len(x) for p in parts for x in p)
        if self.chars < 0:
            raise _TooLarge(f"more than {MAX_CHARS:,} characters")


def _strings(node: ast.expr, env: dict[str, list[str]], budget: _Budget) -> list[str]:
    """Evaluate a string / list / tuple of strings / name / ``a + b`` / ``*name`` to a new
    list of strings. Every list built is charged to ``budget`` first. Raises
    :class:`_Unreadable` for any other shape (``["a"] * 3`` included), :class:`_TooLarge`
    when the budget is spent, ``RecursionError`` on a too deep tree."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        budget.charge([node.value])
        return [node.value]
    if isinstance(node, ast.Name) and node.id in env:
        budget.charge(env[node.id])
        return list(env[node.id])
    if isinstance(node, ast.List | ast.Tuple):
        out: list[str] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                part = _strings(elt.value, env, budget)
                budget.charge(part)
                out += part
            elif isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                budget.charge([elt.value])
                out.append(elt.value)
            else:
                raise _Unreadable(type(elt).__name__)
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _strings(node.left, env, budget)
        right = _strings(node.right, env, budget)
        budget.charge(left, right)
        return left + right
    raise _Unreadable(type(node).__name__)


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise _Unreadable(type(node).__name__) from exc


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _register_log(
    call: ast.Call, env: dict[str, list[str]], out: ReadResult, budget: _Budget
) -> None:
    args = {**dict(zip(("setting_name", "log_name"), call.args, strict=False))}
    for kw in call.keywords:
        if kw.arg is not None:
            args[kw.arg] = kw.value
    if "setting_name" not in args or "log_name" not in args:
        raise _Unreadable("missing arguments")
    alias = _literal(args["setting_name"])
    if not isinstance(alias, str):
        raise _Unreadable("alias is not a string")
    out.logs[alias] = _strings(args["log_name"], env, budget)


def _register_artifact(call: ast.Call, out: ReadResult) -> None:
    values: dict[str, Any] = dict(_ARTIFACT_DEFAULTS)
    for param, node in zip(_ARTIFACT_PARAMS, call.args, strict=False):
        values[param] = _literal(node)
    for kw in call.keywords:
        key = "name" if kw.arg == "setting_name" else kw.arg
        if key is None:
            raise _Unreadable("**kwargs")
        values[key] = _literal(kw.value)
    name = values.get("name")
    if not isinstance(name, str):
        raise _Unreadable("name is not a string")
    out.artifacts[name] = {
        "off_by_default": bool(values["off_by_default"]),
        "visible": bool(values["visible"]),
    }
    description = values.get("description")
    out.descriptions[name] = description if isinstance(description, str) else ""


def _mentions_register(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and (_call_name(n.func) or "").startswith("register_")
        for n in ast.walk(node)
    )


def read_registrations(source: str) -> ReadResult:
    """Parse the text of ``_registrations.py``; never executes it and never raises.

    Whatever a hostile or broken file does to the parser or to the walk over its tree
    (``SyntaxError``, null bytes, ``RecursionError`` on a 1,500-term ``"a" + "a" + ...``
    chain, ``MemoryError`` on deep nesting) ends up as a line of
    :attr:`ReadResult.problems`, never as an exception. The string lists are evaluated
    within a budget of :data:`MAX_ELEMENTS` strings and :data:`MAX_CHARS` characters per
    file (every list built counts, copies too): a file that needs more (``X1 = [*X0,
    *X0]`` doubling on each of 40 lines would need 2**40) is read no further, with a
    problem saying so.
    """
    out = ReadResult()
    try:
        tree = ast.parse(source)
    except Exception as exc:  # SyntaxError, ValueError, MemoryError, RecursionError, ...
        out.problems.append(f"cannot parse: {type(exc).__name__}")
        return out
    env: dict[str, list[str]] = {}
    budget = _Budget()
    for stmt in tree.body:
        line = getattr(stmt, "lineno", 0)
        try:
            _read_statement(stmt, env, out, budget)
        except _TooLarge as exc:
            out.problems.append(f"line {line}: string lists too large ({exc}); not read further")
            return out
        except _Unreadable as exc:
            out.problems.append(f"line {line}: arguments not literal ({exc})")
        except Exception as exc:  # RecursionError, MemoryError: too deep or too big
            out.problems.append(f"line {line}: not read ({type(exc).__name__})")
    return out


def _read_statement(
    stmt: ast.stmt, env: dict[str, list[str]], out: ReadResult, budget: _Budget
) -> None:
    """Read one module-level statement into ``out`` (and ``env``, the string lists
    assigned so far). Raises :class:`_Unreadable` for arguments that are not literal,
    :class:`_TooLarge` when ``budget`` is spent, and whatever a too deep tree raises
    (``RecursionError``)."""
    line = getattr(stmt, "lineno", 0)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        fn = _call_name(stmt.value.func)
        if fn == "register_log":
            _register_log(stmt.value, env, out, budget)
        elif fn == "register_artifact":
            _register_artifact(stmt.value, out)
        elif _mentions_register(stmt):
            out.problems.append(f"line {line}: call to {fn} not read")
    elif isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        if value is None:
            return
        for t in targets:  # a name that fails below is not left with an older value
            if isinstance(t, ast.Name):
                env.pop(t.id, None)
        try:
            strings = _strings(value, env, budget)
        except _Unreadable:
            return
        for t in targets:
            if isinstance(t, ast.Name):
                env[t.id] = strings
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        return
    elif _mentions_register(stmt):
        kind = type(stmt).__name__
        out.problems.append(f"line {line}: {kind} statement with registrations not read")


def read_version(torch_dir: str) -> str | None:
    """``__version__`` from ``torch/version.py`` (``"2.13.0+cpu"``), parsed, not imported.
    ``None`` when the file is not a readable regular UTF-8 file of at most
    :data:`.files.MAX_VERSION_BYTES` (64 KiB; a FIFO, a link to ``/dev/zero``, a larger
    file: logged with the reason, "larger than 65536 bytes (70000)")."""
    source = read_text(
        os.path.join(torch_dir, "version.py"), "torch's version.py", MAX_VERSION_BYTES
    )
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        for t in targets:
            if isinstance(t, ast.Name) and t.id == "__version__":
                value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    return value.value
    return None


def read_torch(torch_dir: str) -> ReadResult:
    """Version and registry of the torch package in ``torch_dir`` (``.../site-packages/
    torch``). A missing or unreadable ``_registrations.py`` is a problem, not an error: so is
    one that is not a regular file of at most :data:`.files.MAX_REGISTRATIONS_BYTES` (256
    KiB: ast needs ~900 bytes of memory per byte parsed; a FIFO, a link to ``/dev/zero``),
    never opened for reading or read past the cap ("cannot read PATH: larger than 262144
    bytes (4180000)")."""
    path = os.path.join(torch_dir, REGISTRATIONS)
    try:
        source = read_regular(path, MAX_REGISTRATIONS_BYTES).decode("utf-8")
    except SkippedFile as exc:
        result = ReadResult(problems=[f"cannot read {path}: {exc.reason}"])
    except UnicodeDecodeError:
        result = ReadResult(problems=[f"cannot read {path}: not UTF-8"])
    else:
        result = read_registrations(source)
    result.version = read_version(torch_dir)
    if not result.logs and not result.artifacts and not result.problems:
        result.problems.append("no registrations found")
    return result


__all__ = ["REGISTRATIONS", "ReadResult", "read_registrations", "read_torch", "read_version"]
