"""``torch-logs check`` on Makefiles: examples/make/Makefile's findings (exact codes,
line:column), two typical lines, a pin comment, and ``check --fix`` changing only
the values' bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import EXAMPLES

EXAMPLE = EXAMPLES / "make" / "Makefile"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _found(*args: str) -> list[tuple[str, int, int, str]]:
    proc = run("check", "--format", "json", *args)
    rows = json.loads(proc.stdout)
    return [(Path(r["path"]).name, r["line"], r["column"], r["code"]) for r in rows]


def test_the_example() -> None:
    proc = run("check", str(EXAMPLE))
    rows = [r.replace(str(EXAMPLE), "Makefile") for r in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert [r.split(";")[0] for r in rows if ": TL" in r] == [
        "Makefile:3:26: TL102 whitespace before a comma",
        "Makefile:16:24: TL201 unknown name `Dynamo`: not a component or artifact of torch"
        f" 2.13, nor a module in {sys.executable}",
    ]


def test_two_typical_lines(tmp_path: Path) -> None:
    path = tmp_path / "Makefile"
    path.write_text("export TORCH_LOGS=+dynamo ,guards\nall:\n\tTORCH_LOGS=$$EXTRA python x.py\n")
    assert _found(str(path)) == [("Makefile", 1, 26, "TL102")]


def test_mk_files_comments_and_trailing_blanks(tmp_path: Path) -> None:
    """make keeps the blanks before a comment in the value (TL101); `\\#` is a `#`."""
    path = tmp_path / "torch.mk"
    path.write_text("TORCH_LOGS := +dynamo  # debug\nTORCH_LOGS_FORMAT = \\#%(message)s\n")
    assert _found(str(path)) == [("torch.mk", 1, 22, "TL101")]


def test_pin_comment(tmp_path: Path) -> None:
    path = tmp_path / "GNUmakefile"
    path.write_text("# torch-logs: torch=2.1\nexport TORCH_LOGS = +dynamo,graph_region_expansion\n")
    assert [code for *_, code in _found(str(path))] == ["TL205"]
    path.write_text("export TORCH_LOGS = +dynamo,graph_region_expansion\n")
    assert _found(str(path)) == []


def test_fix_keeps_every_other_byte(tmp_path: Path) -> None:
    text = (
        "# 🙂 build\r\nexport TORCH_LOGS=+dynamo ,guards  # c\r\n"
        "all:\r\n\t@TORCH_LOGS='aot_graphs ,dynamo' python x.py $$HOME\r\n"
    )
    path = tmp_path / "Makefile"
    path.write_bytes(text.encode())
    run("check", "--fix", str(path))
    assert path.read_bytes().decode() == (
        "# 🙂 build\r\nexport TORCH_LOGS=+dynamo,guards# c\r\n"
        "all:\r\n\t@TORCH_LOGS='aot_graphs,dynamo' python x.py $$HOME\r\n"
    )


def test_open_quote_in_a_recipe(tmp_path: Path) -> None:
    """/bin/sh cannot read the line (make reports the shell's syntax error): TL108."""
    path = tmp_path / "Makefile"
    path.write_text("all:\n\tTORCH_LOGS='+dynamo python x.py\n")
    assert [code for *_, code in _found(str(path))] == ["TL108"]
    proc = subprocess.run(["make", "-s"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "quote" in proc.stderr.lower()
