"""Regenerate ``knowledge/data/warm-cache-by-version.json``: for each torch release, the
names of the measured table (``warm-cache-2.13.json``, :mod:`gen_warm_cache`) that are
swallowed on a warm cache *and* whose logging code is the same as in the measured release.

Nothing is imported or installed: each release's ``.py`` files are read with ``ast`` (an
installed ``torch`` directory or a wheel, read with ``zipfile``, any platform, e.g. macOS
arm64). What is compared, per swallowed name:

- the places that log it: in every function (by qualified name, in its file) that
  mentions a module-level logger bound to ``getArtifactLogger(..., "<name>")``, the
  statements that mention the logger, as source text (``ast.unparse``: comments, layout
  and other statements of the function do not count), with the ``if`` conditions around
  each (:func:`log_sites`); the same functions must log it. A component's name is never
  carried to another release;
- the cache-hit path, the same in every name (:data:`CACHE_PATH`): in the functions that
  choose between a cache hit and compiling, the conditions of the ``if`` statements around
  each call that compiles (``fx_codegen_and_compile`` in inductor's ``_compile_fx_inner``;
  ``aot_stage2_compile`` and the late ``pre_grad_passes`` in ``aot_module_simplified``),
  with the branch each call sits in. Other edits of those long functions (an ``assert``
  written as ``if ...: raise``) do not count.

A name whose functions are all equal, with the same set of functions, on a release whose
cache-hit path is equal and which reads ``TORCHINDUCTOR_FORCE_DISABLE_CACHES`` (the quick
fix's variable), is carried to that release; anything else is not (no finding there).
Left out everywhere, the measured release too: a name that is also logged by dynamo
(``torch/_dynamo/``), which runs in every process whatever the caches hold
(``perf_hints``: the probe reached only inductor's).

Run: ``python scripts/warm_cache_sources.py 2.13=<site-packages>/torch
2.12=/tmp/wheels/torch-2.12.0-cp311-cp311-macosx_14_0_arm64.whl ...`` (the measured
release first; releases not named keep their entry).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from torch_logs_lsp.knowledge.env_reads import torch_names_read

DATA = Path(__file__).resolve().parent.parent / "src" / "torch_logs_lsp" / "knowledge" / "data"
TABLE = DATA / "warm-cache-2.13.json"
OUT = DATA / "warm-cache-by-version.json"

#: Where a compile decides between the caches and compiling: (file, function, the calls
#: that compile, run only on a cache miss).
CACHE_PATH = (
    ("torch/_inductor/compile_fx.py", "_compile_fx_inner", ("fx_codegen_and_compile",)),
    (
        "torch/_functorch/aot_autograd.py",
        "aot_module_simplified",
        ("aot_stage2_compile", "pre_grad_passes"),
    ),
)


def guards(fn: ast.AST, targets: tuple[str, ...]) -> list[str]:
    """For each call of one of ``targets`` in ``fn``: the call's name and the conditions of
    the ``if`` statements around it (``if <test>`` or ``else <test>``, innermost last),
    sorted."""
    out: list[str] = []

    def walk(node: ast.AST, path: tuple[str, ...]) -> None:
        if isinstance(node, ast.If):
            test = ast.unparse(node.test)
            walk(node.test, path)
            for child in node.body:
                walk(child, (*path, f"if {test}"))
            for child in node.orelse:
                walk(child, (*path, f"else {test}"))
            return
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if name in targets:
                out.append(" / ".join((*path, str(name))))
        for child in ast.iter_child_nodes(node):
            walk(child, path)

    for stmt in getattr(fn, "body", []):
        walk(stmt, ())
    return sorted(out)


def sources(where: Path) -> Iterator[tuple[str, str]]:
    """``(path under the torch package's parent, text)`` of each ``torch/**.py``."""
    if where.is_dir():
        for p in sorted(where.rglob("*.py")):
            yield "torch/" + p.relative_to(where).as_posix(), p.read_text("utf-8", "replace")
        return
    with zipfile.ZipFile(where) as zf:
        for n in sorted(zf.namelist()):
            if n.startswith("torch/") and n.endswith(".py"):
                yield n, zf.read(n).decode("utf-8", "replace")


def _artifact_of(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
        == "getArtifactLogger"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return None


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    yield name, child
                yield from walk(child, name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def _digest_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _mentions(node: ast.AST, var: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(node))


def log_sites(fn: ast.AST, var: str) -> list[str]:
    """The statements of ``fn`` (not of functions nested in it) that mention the logger
    ``var``, each as its source text after the conditions of the ``if`` statements and the
    kinds of the other blocks around it (``if <test> / with / ...``), sorted."""
    out: list[str] = []

    def walk(body: list[ast.stmt], path: tuple[str, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(stmt, ast.If):
                test = ast.unparse(stmt.test)
                if _mentions(stmt.test, var):
                    out.append(" / ".join((*path, f"if {test}")))
                walk(stmt.body, (*path, f"if {test}"))
                walk(stmt.orelse, (*path, f"else {test}"))
                continue
            blocks = [
                getattr(stmt, field)
                for field in ("body", "orelse", "finalbody")
                if isinstance(getattr(stmt, field, None), list)
            ]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            blocks += [c.body for c in getattr(stmt, "cases", [])]
            if not blocks:
                if _mentions(stmt, var):
                    out.append(" / ".join((*path, ast.unparse(stmt))))
                continue
            kind = type(stmt).__name__.lower()
            for block in blocks:
                walk(block, (*path, kind))

    walk(getattr(fn, "body", []), ())
    return sorted(out)


def fingerprints(where: Path, names: set[str]) -> dict[str, dict[str, str]]:
    """For each of ``names`` (artifacts) and for ``"<cache path>"``: ``{"file::function":
    digest}`` of the functions that log it (see the module doc)."""
    out: dict[str, dict[str, str]] = {n: {} for n in names}
    out["<cache path>"] = {}
    wanted_path = {f: (q, t) for f, q, t in CACHE_PATH}
    for path, text in sources(where):
        if "getArtifactLogger" not in text and path not in wanted_path:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
        loggers: dict[str, str] = {}
        for stmt in tree.body if isinstance(tree, ast.Module) else ():
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                art = _artifact_of(stmt.value)
                if isinstance(target, ast.Name) and art in names:
                    loggers[target.id] = art
        for qual, fn in _functions(tree):
            if path in wanted_path and wanted_path[path][0] == qual:
                found = guards(fn, wanted_path[path][1])
                out["<cache path>"][f"{path}::{qual}"] = " | ".join(found)
            if not loggers:
                continue
            used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} & set(loggers)
            for var in used:
                found = log_sites(fn, var)
                if found:
                    out[loggers[var]][f"{path}::{qual}"] = _digest_text("\n".join(found))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="+", metavar="RELEASE=PATH")
    args = parser.parse_args()
    table = json.loads(TABLE.read_text())
    measured = ".".join(table["torch"].split(".")[:2])
    swallowed = {
        n
        for n, row in table["names"].items()
        if row["verdict"] == "swallowed" and row["kind"] == "artifact"
    }
    data: dict[str, list[str]] = json.loads(OUT.read_text()) if OUT.exists() else {}
    pairs = [item.partition("=")[::2] for item in args.releases]
    if pairs[0][0] != measured:
        parser.error(f"name the measured release {measured} first")
    base = fingerprints(Path(pairs[0][1]), swallowed)
    if len(base["<cache path>"]) != len(CACHE_PATH) or not all(base["<cache path>"].values()):
        parser.error(f"the cache path is not all in {measured}: {sorted(base['<cache path>'])}")
    for key, found in base["<cache path>"].items():
        print(f"{measured} {key}: {found}", file=sys.stderr)
    dynamo = {n for n in swallowed if any(k.startswith("torch/_dynamo/") for k in base[n])}
    swallowed -= dynamo
    print(f"left out (also logged by dynamo): {sorted(dynamo)}", file=sys.stderr)
    data[measured] = sorted(swallowed)
    for release, path in pairs[1:]:
        prints = fingerprints(Path(path), swallowed)
        reads = "TORCHINDUCTOR_FORCE_DISABLE_CACHES" in torch_names_read(Path(path))
        same_path = prints["<cache path>"] == base["<cache path>"]
        data[release] = sorted(
            n for n in swallowed if reads and same_path and base[n] and prints[n] == base[n]
        )
        print(
            f"{release}: cache path {'same' if same_path else 'changed'}, "
            f"reads the switch: {reads}, carried: {data[release]}",
            file=sys.stderr,
        )
    ordered = dict(sorted(data.items(), key=lambda kv: tuple(map(int, kv[0].split(".")))))
    OUT.write_text(json.dumps(ordered, indent=0) + "\n")


if __name__ == "__main__":
    main()
