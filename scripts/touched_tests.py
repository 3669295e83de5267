"""Print the test files of the touched area, one per line, for ``./dev test --quick``
(``scripts/touched_tests.py [PATHS]``: the area of the files and folders named instead).

The touched files are those git shows as changed against ``HEAD`` (staged, unstaged and
untracked); with none, those of the last commit (none in a clone without its parent).
A test file belongs to the area when it is touched itself, imports (``import``/``from
... import``, read with ``ast``, never run) a touched module of the package
(``src/torch_logs_lsp/...``) or a touched helper module under ``tests/`` (``tests/support/``),
is named after a touched module or lies in a folder named after one (``tests/`` mirrors the
package: ``.../hosts/toml/host.py`` selects every file of ``tests/hosts/toml/`` and
``tests/server/test_toml_lsp.py``), or lies under a touched ``conftest.py``. A touched
``tests/conftest.py``, ``pyproject.toml`` or lock selects every test file. Prints nothing
when no test file belongs to the area.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Folders whose files are modules, and the import path of the folder itself.
PACKAGES = {"src": None, "tests": "tests"}
#: Touching one of these can change any test.
EVERYTHING = ("tests/conftest.py", "pyproject.toml", "requirements/", "tests/support/budget.py")


def _git(*args: str) -> list[str]:
    out = subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [line for line in out.splitlines() if line]


def touched() -> list[str]:
    """Paths relative to the repository root, changed against HEAD (or in HEAD)."""
    paths = _git("diff", "--name-only", "HEAD") + _git("ls-files", "--others", "--exclude-standard")
    if paths:
        return paths
    try:  # a shallow clone has no parent commit: then nothing is touched
        return _git("diff", "--name-only", "HEAD~1", "HEAD")
    except subprocess.CalledProcessError:
        return []


def module_of(path: str) -> str | None:
    """``src/torch_logs_lsp/hosts/toml/host.py`` -> ``torch_logs_lsp.hosts.toml.host``;
    None outside a package."""
    p = Path(path)
    if p.suffix != ".py" or p.parts[0] not in PACKAGES:
        return None
    top = PACKAGES[p.parts[0]]
    parts = [*([top] if top else []), *p.parts[1:-1]]
    if p.stem != "__init__":
        parts.append(p.stem)
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every module a file names in an import, and ``module.name`` for each imported name."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def area(paths: list[str]) -> list[str]:
    """The test files (relative paths, sorted) that belong to the touched ``paths``."""
    tests = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))
    if any(p.startswith(EVERYTHING) for p in paths):
        return tests
    modules = {m for m in map(module_of, paths) if m}
    # a module is named by its last part; a host's host.py by its host's package (toml)
    names = {m.split(".")[-2] if m.endswith(".host") else m.split(".")[-1] for m in modules}
    names -= {"tests"}
    named = re.compile(rf"(^|_)({'|'.join(map(re.escape, sorted(names)))})(_|$)") if names else None
    # a conftest.py applies to the tests at and under its folder
    scopes = tuple(p.removesuffix("conftest.py") for p in paths if Path(p).name == "conftest.py")
    chosen = {p for p in paths if p in tests}
    for test in tests:
        subject = Path(test).stem.removeprefix("test_")
        folders = Path(test).parts[1:-1]  # under tests/: hosts, toml
        if (
            modules & imports(ROOT / test)
            or (named and named.search(subject))
            or names.intersection(folders)
            or (scopes and test.startswith(scopes))
        ):
            chosen.add(test)
    return sorted(chosen)


def named(paths: list[str]) -> list[str]:
    """``paths`` (files or folders, relative to the repository root or absolute) as the
    touched files: a folder stands for every file git knows under it."""
    out: list[str] = []
    for raw in paths:
        path = Path(raw).resolve()
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else raw
        out += _git("ls-files", "--", rel) if path.is_dir() else [rel]
    return out


def main(argv: list[str]) -> int:
    """Print the area of the touched files, or of the files and folders named."""
    for test in area(named(argv) if argv else touched()):
        print(test)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
