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

Two more sources, both supersets, so the list errs further on the safe side:

- every word of a torch-owned prefix (:data:`OWNED`: ``TORCHINDUCTOR_...``, ``TORCH_LOGS...``)
  anywhere in a ``.py`` file, string literals and comments (:func:`literal_names`): a name
  built or listed in a way the patterns above miss is still found;
- the names read in C++: every word starting ``TORCH``/``PYTORCH`` in the string tables of
  the release's native libraries (``torch/lib/*.so``/``*.dylib``, ``torch/_C*``;
  :func:`native_names`, like ``strings``). In 2.13.0+cpu they include
  ``TORCH_SHOW_CPP_STACKTRACES``, ``TORCH_CPP_LOG_LEVEL`` and ``TORCH_NCCL_BLOCKING_WAIT``
  (a CUDA build reads more ``TORCH_NCCL_*`` names in ``libtorch_cuda``, which no CPU wheel
  has: such names are not :data:`OWNED`).

The list errs on the side of too many names (a write such as ``putenv`` counts too, and a
native string need not be a read): it is used only to *not* report a name.
"""

from __future__ import annotations

import ast
import re
import warnings
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path

_VALID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: Environment names whose prefix belongs to torch's compiler and logging: a name of this
#: shape that no release reads is a mistake (TL421). ``TORCH_NCCL_*``, ``PYTORCH_*`` and
#: ``TORCHELASTIC_*`` are not here: CUDA builds and torch's test and launcher tools read
#: names this package cannot list.
OWNED = re.compile(
    r"(?:TORCH_LOGS|TORCH_D?TRACE|TORCH_COMPILE|TORCHDYNAMO|TORCHINDUCTOR)(?:_[A-Z0-9]+)*"
)
#: Words of :data:`OWNED` shape inside a string (``f"TORCHINDUCTOR_{x}"`` gives none).
_OWNED_WORD = re.compile(rf"(?<![A-Za-z0-9_]){OWNED.pattern}(?![A-Za-z0-9_{{])")
#: Words of a native string table that may be environment names.
_NATIVE_WORD = re.compile(
    rb"(?<![A-Za-z0-9_])(?:PYTORCH|TORCH)[A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])"
)
_ENV_METHODS = frozenset({"get", "pop", "setdefault"})


def is_environ(node: ast.expr) -> bool:
    """Whether ``node`` is ``os.environ`` or a bare ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def func_name(node: ast.expr) -> str:
    """The called name of a call's ``func`` (``os.getenv`` -> ``getenv``), else ``""``."""
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
            self.names |= self.consts.get(func_name(node), set())
        elif isinstance(node, ast.List | ast.Tuple):
            for elt in node.elts:
                self.key(elt)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func_name(func)
        first = node.args[0] if node.args else None
        on_environ = isinstance(func, ast.Attribute) and is_environ(func.value)
        if (on_environ and name in _ENV_METHODS) or "env" in name.lower():
            self.key(first)
        for kw in node.keywords:
            if kw.arg and "env" in kw.arg.lower():
                self.key(kw.value)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if is_environ(node.value):
            self.key(node.slice)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn) and is_environ(right):
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
                        consts.setdefault(func_name(target), set()).add(value.value)
    return consts


def _parse(source: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _reads_in(tree: ast.AST) -> set[str]:
    reads = _Reads(_constants(tree))
    try:
        reads.visit(tree)
    except RecursionError:
        return set()
    return {name for name in reads.names if _VALID.match(name)}


def names_read(source: str) -> set[str]:
    """The environment variable names one Python source file reads (see the module
    docstring); ``set()`` for a file that does not parse. Never raises."""
    tree = _parse(source)
    return set() if tree is None else _reads_in(tree)


def literal_names(source: str) -> set[str]:
    """The :data:`OWNED` words anywhere in one Python source file (its string literals,
    and its comments too: a superset, read as text). Never raises."""
    return set(_OWNED_WORD.findall(source)) if "TORCH" in source else set()


def _source_names(source: str) -> set[str]:
    """:func:`names_read` (parsed only when the file mentions ``env`` in some case) and
    :func:`literal_names` of one file."""
    out = literal_names(source)
    if "env" in source.lower():
        out |= names_read(source)
    return out


def native_names(data: bytes) -> set[str]:
    """The words ``TORCH...``/``PYTORCH...`` with at least one ``_`` (all capitals and
    digits) in the bytes of a native library: its string table, as ``strings`` shows it."""
    return {m.decode("ascii") for m in _NATIVE_WORD.findall(data)}


def _is_native(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith((".so", ".dylib", ".dll", ".pyd")) or ".so." in base


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


def _tree_natives(root: Path) -> Iterator[bytes]:
    for path in sorted(root.rglob("*")):
        if _is_native(path.name) and path.is_file():
            try:
                yield path.read_bytes()
            except OSError:
                continue


def _wheel_natives(wheel: Path) -> Iterator[bytes]:
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.startswith("torch/") and _is_native(name):
                yield zf.read(name)


def torch_names_read(where: Path, native: bool = True) -> set[str]:
    """Every name :func:`names_read` and :func:`literal_names` find in the ``.py`` files
    of a torch package, and with ``native`` every :func:`native_names` word of its native
    libraries: ``where`` is the ``torch`` directory of an installation or a torch wheel
    (``.whl``; read with ``zipfile``, never installed). Raises ``OSError`` for a path that
    cannot be read."""
    wheel = where.suffix == ".whl"
    sources: Iterable[str] = _wheel_sources(where) if wheel else _tree_sources(where)
    out: set[str] = set()
    for source in sources:
        out |= _source_names(source)
    if native:
        for data in _wheel_natives(where) if wheel else _tree_natives(where):
            out |= native_names(data)
    return out


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def encode(by_release: Mapping[str, Iterable[str]]) -> dict[str, object]:
    """The packaged form of ``{release: names}``: ``{"releases": [...], "names": {name:
    "2.1-2.6,2.9"}}``, each name with the runs of consecutive packaged releases that read
    it (a sixth of the size of one list per release)."""
    releases = sorted(by_release, key=_release_key)
    index = {r: i for i, r in enumerate(releases)}
    where: dict[str, list[int]] = {}
    for release in releases:
        for name in by_release[release]:
            where.setdefault(name, []).append(index[release])
    names: dict[str, str] = {}
    for name in sorted(where):
        runs: list[str] = []
        seq = sorted(where[name])
        start = prev = seq[0]
        for i in [*seq[1:], None]:
            if i is not None and i == prev + 1:
                prev = i
                continue
            run = releases[start] if start == prev else f"{releases[start]}-{releases[prev]}"
            runs.append(run)
            if i is not None:
                start = prev = i
        names[name] = ",".join(runs)
    return {"releases": releases, "names": names}


def decode(data: Mapping[str, object]) -> dict[str, frozenset[str]]:
    """``{release: names}`` from :func:`encode`'s form. Raises ``ValueError`` (``KeyError``,
    ``TypeError``) for data of another shape."""
    releases = [str(r) for r in data["releases"]]  # type: ignore[attr-defined]
    index = {r: i for i, r in enumerate(releases)}
    out: dict[str, set[str]] = {r: set() for r in releases}
    names: Mapping[str, str] = data["names"]  # type: ignore[assignment]
    for name, spec in names.items():
        for run in spec.split(","):
            first, _, last = run.partition("-")
            for i in range(index[first], index[last or first] + 1):
                out[releases[i]].add(name)
    return {r: frozenset(v) for r, v in out.items()}


@cache
def packaged_reads() -> dict[str, frozenset[str]]:
    """The packaged ``data/env-reads-by-version.json``: ``{"2.13": names}`` for each
    packaged release 2.1-2.15, in release order."""
    import json

    ref = resources.files("torch_logs_lsp.knowledge.data").joinpath("env-reads-by-version.json")
    return decode(json.loads(ref.read_text("utf-8")))


def releases_reading(name: str) -> list[str]:
    """The packaged releases (``"2.13"``) whose list holds ``name``, in release order."""
    return [r for r, names in packaged_reads().items() if name in names]


__all__ = [
    "OWNED",
    "decode",
    "encode",
    "func_name",
    "is_environ",
    "literal_names",
    "names_read",
    "native_names",
    "packaged_reads",
    "releases_reading",
    "torch_names_read",
]
