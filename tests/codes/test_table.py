"""The codes table (``codes/table.py``) against what uses it: the generated
``docs/codes.md``, the sections of ``codes/sections.md``, the code literals of the package,
the Fixes section's table and the project's version."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from tests.support.paths import ROOT
from torch_logs_lsp.codes.doc import CODE_HEADING, code_doc, split_sections
from torch_logs_lsp.codes.markdown import COMMAND, DOCS_PATH, docs_markdown
from torch_logs_lsp.codes.table import CODES, RESERVED, all_codes, code_table

SRC = ROOT / "src" / "torch_logs_lsp"
#: Codes a docstring names as an example of an unknown code.
NOT_CODES = {"TL999"}


def test_docs_codes_md_is_the_generated_text():
    committed = (ROOT / DOCS_PATH).read_text(encoding="utf-8")
    assert committed == docs_markdown(), f"{DOCS_PATH} is stale: run {COMMAND}"


def test_gen_docs_check_agrees():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, ""), f"{DOCS_PATH} is stale: run {COMMAND}"


def test_the_table_has_each_code_once_in_order():
    codes = [info.code for info in CODES]
    assert len(set(codes)) == len(codes)
    assert codes == sorted(codes)
    assert all(re.fullmatch(r"TL\d{3}", c) for c in codes)
    assert tuple(codes) == all_codes() == tuple(code_table())
    assert all(info.title and "\n" not in info.title for info in CODES)


def test_every_code_has_one_section_in_the_tables_order():
    _, sections = split_sections()
    headings = [h for h, _ in sections if CODE_HEADING.match(f"## {h}")]
    assert headings == list(all_codes())
    assert all(code_doc(c) for c in all_codes())
    # a heading that looks like a code but is not one exactly (`## TL201 `, `## tl201`)
    others = [h for h, _ in sections if h not in all_codes()]
    assert not [h for h in others if re.match(r"(?i)tl\d", h)], others


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def test_every_code_in_the_package_is_in_the_table_and_each_is_emitted():
    table = set(all_codes())
    outside = [p for p in SRC.rglob("*.py") if SRC / "codes" not in p.parents]
    mentioned: set[str] = set()
    literals: set[str] = set()
    for path in outside:
        mentioned |= set(re.findall(r"\bTL\d{3}\b", path.read_text(encoding="utf-8")))
        literals |= {s for s in _string_constants(path) if re.fullmatch(r"TL\d{3}", s)}
    assert mentioned - NOT_CODES <= table, sorted(mentioned - NOT_CODES - table)
    # each code is a literal ("TL108") somewhere outside the table: the code that emits it
    assert literals == table - RESERVED, (
        f"not in the table: {sorted(literals - table)}; "
        f"never used (reserve them in codes/table.py): {sorted(table - RESERVED - literals)}"
    )
    assert table >= RESERVED


def _codes_of(cell: str) -> list[str]:
    """``TL101-TL104, TL411`` -> the table's codes in those ranges."""
    out: list[str] = []
    for part in cell.split(","):
        lo, _, hi = part.strip().partition("-")
        hi = hi or lo
        assert re.fullmatch(r"TL\d{3}", lo) and re.fullmatch(r"TL\d{3}", hi), cell
        out += [c for c in all_codes() if lo <= c <= hi]
    return out


def test_the_fixes_section_agrees_with_the_tables_fix_column():
    body = dict(split_sections()[1])["Fixes"]
    rows = [line for line in body.splitlines() if re.match(r"^\| TL\d{3}", line)]
    said: dict[str, str] = {}
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        safe = cells[2]
        fix = "none" if safe == "-" else "quick fix" if safe.startswith("no") else "--fix"
        for code in _codes_of(cells[0]):
            assert code not in said, f"{code} is in two rows of the Fixes table"
            said[code] = fix
    assert list(said) != [] and set(said) == set(all_codes()), set(all_codes()) ^ set(said)
    wrong = {c: (said[c], code_table()[c].fix) for c in said if said[c] != code_table()[c].fix}
    assert not wrong, f"Fixes table vs codes/table.py fix: {wrong}"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_since_is_a_release_not_after_this_version():
    version = metadata.version("torch-logs-lsp")  # pyproject.toml's, installed editable
    assert all(_version(info.since) <= _version(version) for info in CODES)
