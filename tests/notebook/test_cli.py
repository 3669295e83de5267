"""``torch-logs check`` on Jupyter notebooks: the cells read from the JSON with
positions, ``PATH:cell N:ROW:COL`` output, the cell order's TL501, ``--format json`` and
``--fix`` inside the source strings with every other byte kept."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import EXAMPLES
from torch_logs_lsp import hosts
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.notebook.edits import apply_byte_edits, source_edits
from torch_logs_lsp.notebook.order import cell_order_notes, imports_torch
from torch_logs_lsp.notebook.reader import CELL_HOST, NOTEBOOK, NotNotebook, read_notebook
from torch_logs_lsp.project.walk import iter_files

PY = ["--python", sys.executable]  # torch 2.13.0 of the test environment


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def code(source: Any, **extra: Any) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source, **extra}  # fmt: skip


def markdown(source: Any) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(cells: list[dict[str, Any]], language: str | None = "python") -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if language is not None:
        meta["kernelspec"] = {"display_name": language, "language": language, "name": language}
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def write(path: Path, nb: dict[str, Any], indent: int = 1) -> Path:
    path.write_text(json.dumps(nb, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def rows(proc: subprocess.CompletedProcess[str], path: Path) -> list[str]:
    """The output lines without the path and the message's tail: ``cell N:R:C: CODE``."""
    return [
        " ".join(r.removeprefix(f"{path}:").split(" ", 3)[:3]) for r in proc.stdout.splitlines()
    ]


LATE_CELL = 'import os\nos.environ["TORCH_LOGS"] = "aot_g"\n'


def test_done_when_python_cells_value_and_import_order(tmp_path: Path) -> None:
    """Cell 1 imports torch, cell 2 is markdown, cell 3 sets a wrong value in-process."""
    path = write(
        tmp_path / "nb.ipynb",
        notebook([code(["import torch\n"]), markdown("# Logs\n"), code(LATE_CELL)]),
    )
    proc = run("check", *PY, str(path))
    assert proc.returncode == 1, proc.stderr
    assert rows(proc, path) == ["cell 3:2:29: TL201", "cell 3:2:29: TL501"]
    late = proc.stdout.splitlines()[1]
    assert "TORCH_LOGS is set after `import torch` in cell 1: torch reads it once" in late
    assert "1 file(s) checked: 1 error(s), 1 warning(s)" in proc.stderr


@pytest.mark.skipif(hosts.host_module("ipython") is None, reason="the IPython cell host")
def test_done_when_env_magics(tmp_path: Path) -> None:
    """A notebook with ``%env TORCH_LOGS=`` in cell 3 (empty: ``import torch``
    crashes), ``%env TORCH_LOGS="+dynamo"`` in cell 4 (IPython keeps the quotes), both
    after ``import torch`` in cell 1; a ``!`` line in cell 5."""
    cells = [
        code("import torch\n"),
        markdown("Configure the logs\n"),
        code("%env TORCH_LOGS=\n"),
        code('%env TORCH_LOGS="+dynamo"\n'),
        code("!TORCH_LOGS=aot_g python x.py\n"),
    ]
    path = write(tmp_path / "done.ipynb", notebook(cells))
    proc = run("check", *PY, str(path))
    assert proc.returncode == 1, proc.stderr
    got = rows(proc, path)
    assert any(r.startswith("cell 3:1:") and r.endswith("TL001") for r in got), got
    assert any(r.startswith("cell 4:1:") and "TL501" not in r for r in got), got
    assert any(r.startswith("cell 5:1:") and "TL201" in r for r in got), got
    late = [r for r in proc.stdout.splitlines() if "TL501" in r]
    assert late and all("in cell 1" in r for r in late), late


def test_list_and_string_sources_read_alike(tmp_path: Path) -> None:
    text = 'import torch\nimport os\nos.environ["TORCH_LOGS"] = "+dynamo,aot_g"\n'
    listed = write(tmp_path / "listed.ipynb", notebook([code(text.splitlines(keepends=True))]))
    single = write(tmp_path / "single.ipynb", notebook([code(text)]))
    out = [rows(run("check", *PY, str(p)), p) for p in (listed, single)]
    assert out[0] == out[1] == ["cell 1:3:29: TL501", "cell 1:3:37: TL201"]


def test_crlf_emoji_and_escapes_keep_columns(tmp_path: Path) -> None:
    """Columns count code points of the decoded cell: the emoji is one, ``\\u002b`` one,
    ``\\"`` one; CRLF ends a line."""
    raw = (
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": '
        '["# caf\\u00e9 \\ud83d\\ude42\\r\\n", "x = \\"\U0001f642\\"; '
        'os.environ[\\"TORCH_LOGS\\"] = \\"\\u002bdynamo,aot_g\\"\\r\\n"]}], '
        '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    path = tmp_path / "esc.ipynb"
    path.write_text(raw, encoding="utf-8")
    line = json.loads(raw)["cells"][0]["source"][1]
    assert line.startswith('x = "\U0001f642"; os.environ["TORCH_LOGS"] = "+dynamo')
    proc = run("check", *PY, "--format", "json", str(path))
    (found,) = json.loads(proc.stdout)
    assert (found["code"], found["cell"], found["line"]) == ("TL201", 1, 2)
    assert found["column"] == line.index("aot_g") + 1 == 46
    assert found["end_column"] == found["column"] + 5
    assert found["value"] == "+dynamo,aot_g"


def test_markdown_and_raw_cells_are_ignored(tmp_path: Path) -> None:
    cells = [
        markdown(LATE_CELL),
        {"cell_type": "raw", "metadata": {}, "source": LATE_CELL},
        code("x = 1\n"),
    ]
    path = write(tmp_path / "md.ipynb", notebook(cells))
    proc = run("check", *PY, str(path))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert "1 file(s) checked: no findings" in proc.stderr


@pytest.mark.parametrize("language", ["R", "julia"])
def test_other_kernels_are_skipped(tmp_path: Path, language: str) -> None:
    path = write(tmp_path / "r.ipynb", notebook([code(LATE_CELL)], language))
    proc = run("check", *PY, str(path))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert f"{path}: skipped (a notebook of {language.lower()} cells, not Python)" in proc.stderr
    # language_info.name wins; a notebook without a language is Python
    nb = notebook([code(LATE_CELL)], None)
    nb["metadata"]["language_info"] = {"name": "python"}
    assert run("check", *PY, str(write(path, nb))).returncode == 1
    assert run("check", *PY, str(write(path, notebook([code(LATE_CELL)], None)))).returncode == 1


BROKEN = {
    "truncated": b'{"cells": [{"cell_type": "code", "source": ["x',
    "garbage after": b'{"cells": [], "nbformat": 4} x',
    "no cells": b'{"nbformat": 4, "metadata": {}}',
    "nbformat 3": b'{"worksheets": [], "cells": [], "nbformat": 3}',
    "source a number": b'{"cells": [{"cell_type": "code", "source": 1}], "nbformat": 4}',
    "bad escape": b'{"cells": [{"cell_type": "code", "source": ["\\q"]}], "nbformat": 4}',
    "raw newline": b'{"cells": [{"cell_type": "code", "source": ["a\nb"]}], "nbformat": 4}',
    "not utf-8": b'{"cells": [{"cell_type": "code", "source": ["\xff"]}], "nbformat": 4}',
    "open output": b'{"cells": [{"cell_type": "code", "outputs": [{"a": "]"}, "source": []}]}',
    "unclosed string in output": b'{"cells": [{"outputs": ["abc], "source": []}]}',
    "array top": b'[{"cells": []}]',
    "empty": b"",
    "deep": b'{"cells": [{"outputs": ' + b"[" * 20_000 + b"]" * 20_000 + b"}]}",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_notebooks_are_skipped_never_a_crash(tmp_path: Path, name: str) -> None:
    with pytest.raises(NotNotebook):
        read_notebook(BROKEN[name])
    bad = tmp_path / "bad.ipynb"
    bad.write_bytes(BROKEN[name])
    good = tmp_path / "good.env"
    good.write_text("TORCH_LOGS=aot_g\n")
    for args in ([str(tmp_path)], ["--fix", str(tmp_path)], ["--format", "json", str(bad)]):
        proc = run("check", *PY, *args)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert f"{bad}: skipped (not a notebook we read: " in proc.stderr
    assert run("check", *PY, str(tmp_path)).stdout.startswith(f"{good}:1:12: TL201")


def _differing(old: bytes, new: bytes) -> tuple[int, int, int]:
    """The common prefix length, and the ends of the differing middles of old and new."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while s < min(len(old), len(new)) - p and old[-1 - s] == new[-1 - s]:
        s += 1
    return p, len(old) - s, len(new) - s


@pytest.mark.parametrize("listed", [True, False])
def test_fix_changes_only_the_value_characters(tmp_path: Path, listed: bool) -> None:
    fixed_cell = 'import os\nos.environ["TORCH_LOGS"] = "\\u002bdynamo ,Guards"\nprint(1)\n'
    cells = [
        markdown(["Value: `+dynamo`\n"]),
        code(
            ["import torch\n"],
            outputs=[{"name": "stdout", "output_type": "stream", "text": ['[1] {"a": "]"}\n']}],
        ),
        code(fixed_cell.splitlines(keepends=True) if listed else fixed_cell),
    ]
    path = write(tmp_path / "fix.ipynb", notebook(cells), indent=2)
    before = path.read_bytes()
    proc = run("check", *PY, "--fix", str(path))
    assert f"{path}:cell 3:2: fixed TORCH_LOGS: " in proc.stdout, proc.stdout + proc.stderr
    after = path.read_bytes()
    start, old_end, new_end = _differing(before, after)
    # only the characters " ," -> "," and "G" -> "g" inside the one JSON string changed
    assert before[start:old_end] == b" ,G" and after[start:new_end] == b",g"
    assert b"\\\\u002bdynamo" in after  # the escape before the change is kept as written
    want = json.loads(before)
    source = want["cells"][2]["source"]
    if listed:
        source[1] = source[1].replace(" ,Guards", ",guards")
    else:
        want["cells"][2]["source"] = source.replace(" ,Guards", ",guards")
    assert json.loads(after) == want
    again = run("check", *PY, str(path))
    assert "TL501" in again.stdout and "TL1" not in again.stdout


def test_json_format_fields(tmp_path: Path) -> None:
    path = write(tmp_path / "nb.ipynb", notebook([code("import torch\n"), code(LATE_CELL)]))
    proc = run("check", *PY, "--format", "json", str(path))
    found = json.loads(proc.stdout)
    assert [(f["code"], f["cell"]) for f in found] == [("TL201", 2), ("TL501", 2)]
    first = found[0]
    assert {k: first[k] for k in ("path", "host", "variable", "value")} == {
        "path": str(path), "host": CELL_HOST, "variable": "TORCH_LOGS", "value": "aot_g"
    }  # fmt: skip
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (
        2,
        29,
        2,
        34,
    )


def test_the_example_notebook() -> None:
    path = EXAMPLES / "notebooks" / "train.ipynb"
    proc = run("check", *PY, str(path))
    assert proc.returncode == 1
    assert rows(proc, path) == ["cell 3:2:29: TL501", "cell 3:2:37: TL201"]
    assert "`import torch` in cell 2" in proc.stdout  # cell 1 is markdown
    assert "unknown name `aot_g`" in proc.stdout


def test_the_walk_finds_notebooks(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "a.IPYNB", notebook([]))
    (tmp_path / "notes.txt").write_text("TORCH_LOGS=aot_g\n")
    assert [(p.name, k) for p, k in iter_files([str(tmp_path)])] == [("a.IPYNB", NOTEBOOK)]


def test_outputs_are_skipped_whatever_they_hold() -> None:
    """Outputs with brackets and escaped quotes in strings, nesting and numbers: the cells
    read as ``json.loads`` reads them."""
    rnd = random.Random(15)
    pieces = ["]", "[", "}", "{", '"', "\\", '\\"', "a", "\n", "é", "\U0001f642", ",", ":"]

    def value(depth: int) -> Any:
        kind = rnd.randrange(6 if depth < 4 else 3)
        if kind == 0:
            return "".join(rnd.choice(pieces) for _ in range(rnd.randrange(6)))
        if kind == 1:
            return rnd.choice([0, -1.5e3, True, None, False])
        if kind == 2:
            return rnd.choice(pieces)
        if kind == 3:
            return [value(depth + 1) for _ in range(rnd.randrange(4))]
        return {str(i): value(depth + 1) for i in range(rnd.randrange(4))}

    for _ in range(200):
        cells = [
            code([str(value(9)) for _ in range(rnd.randrange(3))], outputs=[value(0)])
            for _ in range(3)
        ]
        nb = notebook(cells)
        for text in (json.dumps(nb), json.dumps(nb, indent=1, ensure_ascii=False)):
            got = read_notebook(text.encode())
            assert [c.text for c in got.cells] == ["".join(c["source"]) for c in cells]


def test_cell_order_notes_for_the_language_server() -> None:
    cells = ["import torch\n", "x = 1\n", LATE_CELL]
    notes = cell_order_notes(cells, numbers=[1, 3, 7])
    assert list(notes) == [2]
    ((index, code_, message, _),) = notes[2]
    assert (index, code_) == (0, "TL501") and "`import torch` in cell 1:" in message
    # the cell's own import is its own note, not the order's
    assert cell_order_notes(["import torch\n", "import torch\n" + LATE_CELL]) == {}
    # a later cell that may read again, a cell magic, an import under `if`: nothing
    assert cell_order_notes([*cells, "torch._logging._internal._init_logs()\n"]) == {}
    assert not imports_torch("%%bash\nimport torch\n")
    assert not imports_torch("if x:\n    import torch\n")
    assert imports_torch("%matplotlib inline\nfrom torch import nn\n")
    assert cell_order_notes(["if x:\n    import torch\n", LATE_CELL]) == {}
    assert cell_order_notes(["import torch\n", "%%time\n" + LATE_CELL]) == {}
    # the re-read must come later: one in an earlier cell does not help
    reread = "torch._logging._internal._init_logs()\n"
    assert list(cell_order_notes(["import torch\n" + reread, "x = 1\n", LATE_CELL])) == [2]
    # a value set again in the same cell is dead (TL502), not late
    twice = LATE_CELL + 'os.environ["TORCH_LOGS"] = "+dynamo"\n'
    assert [n.span_index for n in cell_order_notes(["import torch\n", twice])[1]] == [1]
    # a write in a function defined after the import cell: late whenever it runs
    func = 'import os\ndef f():\n    os.environ["TORCH_LOGS"] = "+dynamo"\n'
    ((_, _, message, _),) = cell_order_notes(["import torch\n", func])[1]
    assert "set in `f`, which can only run after `import torch` in cell 1:" in message
    # a child process started in a later cell sees it (TL505)
    ((_, code_, _, _),) = cell_order_notes(["import torch\n", func, "subprocess.run(c)\n"])[1]
    assert code_ == "TL505"


def test_mutated_notebooks_read_as_json_loads_or_are_refused() -> None:
    """Random byte changes of a notebook: ``read_notebook`` either refuses the bytes
    (``NotNotebook``, nothing else) or reads the cells ``json.loads`` reads; bytes that
    ``json.loads`` rejects where the reader does not look (an output) may still be read."""
    base = json.dumps(
        notebook(
            [
                markdown(["# T\n"]),
                code(LATE_CELL.splitlines(keepends=True), outputs=[{"text": ['a"]{\\\n']}]),
                code("é = '\U0001f642'\r\n"),
            ]
        ),
        indent=1,
        ensure_ascii=False,
    ).encode()
    rnd = random.Random(1515)
    alphabet = b'{}[]",:\\ \n\r0aetu\xc3\xa9\xff'
    read = refused = 0
    for _ in range(1500):
        data = bytearray(base)
        for _ in range(rnd.randrange(1, 4)):
            at = rnd.randrange(len(data))
            op = rnd.randrange(3)
            if op == 0:
                data[at] = rnd.choice(alphabet)
            elif op == 1:
                del data[at]
            else:
                data.insert(at, rnd.choice(alphabet))
        try:
            got = read_notebook(bytes(data))
        except NotNotebook:
            refused += 1
            continue
        read += 1
        try:
            want = json.loads(bytes(data))
        except ValueError:
            continue  # broken only where the reader skips
        cells = want["cells"]
        assert [c.kind for c in got.cells] == [c.get("cell_type", "") for c in cells]
        assert [c.text for c in got.cells] == [
            "".join(c["source"]) if isinstance(c.get("source"), list) else c.get("source", "")
            for c in cells
        ]
    assert read and refused  # both kinds were met


@pytest.mark.parametrize("listed", [True, False])
def test_source_edits_per_changed_run(listed: bool) -> None:
    """Two changed values on two lines: two edits, each inside its line's string; a new
    line break cannot go into a list of lines (each string one line), only into a string."""
    text = 'a = "\u00e9 x"\nb = "y"\n'
    source: Any = text.splitlines(keepends=True) if listed else text
    data = json.dumps(notebook([code(source)]), indent=1, ensure_ascii=False).encode()
    (cell,) = read_notebook(data).cells
    new_text = text.replace("x", "X1").replace("y", "")
    edits = source_edits(cell, new_text)
    assert edits is not None and [e.new for e in edits] == [b"X1", b""]
    new = apply_byte_edits(data, edits)
    assert [c.text for c in read_notebook(new).cells] == [new_text]
    assert new.replace(b"X1", b"x") == data.replace(b'\\"y\\"', b'\\"\\"')
    broken_line = source_edits(cell, text.replace("x", "x\n"))
    if listed:
        assert broken_line is None
    else:
        assert broken_line is not None
        joined = apply_byte_edits(data, broken_line)
        assert read_notebook(joined).cells[0].text == text.replace("x", "x\n")


def test_fix_counts_a_notebooks_values_and_the_walk_skips_checkpoints(tmp_path: Path) -> None:
    # the summary counts a fixed notebook's values, and a directory walk skips Jupyter's
    # .ipynb_checkpoints copies
    nb = notebook([code(["import os\n", 'os.environ["TORCH_LOGS"] = "+dynamo,"\n'])])
    write(tmp_path / "a.ipynb", nb)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    write(tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb", nb)
    proc = run("check", str(tmp_path), *PY)
    assert ".ipynb_checkpoints" not in proc.stdout and proc.stdout.count("TL104") == 1
    proc = run("check", "--fix", str(tmp_path / "a.ipynb"), *PY)
    assert "1 value(s) fixed" in proc.stderr, proc.stderr
    assert '"+dynamo\\"' in (tmp_path / "a.ipynb").read_text(encoding="utf-8")


def test_code_cells_over_the_file_limit_are_skipped(tmp_path: Path) -> None:
    # outputs may be large (read cheaply); the code itself is capped like a source file
    # (21 MB of code cells read whole would take ~28 s and 650 MB)
    big = "x = 1\n" * (9 * 2**20 // 6) + 'import os\nos.environ["TORCH_LOGS"] = "aot_g"\n'
    path = write(tmp_path / "big.ipynb", notebook([code(big)]))
    proc = run("check", *PY, str(path))
    assert "code cells hold more than 8 MiB" in proc.stderr and "TL201" not in proc.stdout


@pytest.mark.parametrize(
    ("later", "child"),
    [
        ("!python train.py\n", "!python"),
        ("%%bash\npython train.py\n", "%%bash"),
        ("%system python train.py\n", "%system"),
        ("import subprocess\nsubprocess.run(['python', 'train.py'])\n", "subprocess"),
        ("x = 1\n", None),  # nothing starts a child: TL501
        ("import subprocess\n", None),  # an import alone starts nothing
    ],
)
def test_a_later_cell_that_starts_a_child_sees_the_write(later: str, child: str | None) -> None:
    cells = ["import torch\n", LATE_CELL, later]
    ((_, code_, message, _),) = cell_order_notes(cells)[1]
    if child is None:
        assert code_ == "TL501"
    else:
        assert code_ == "TL505" and f"(`{child}`) see it" in message
        assert "after `import torch` in cell 1:" in message


def test_a_shell_escape_in_the_same_cell_sees_the_write() -> None:
    text = 'import os, torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n!python train.py\n'
    got = [(f.diagnostic.code, f.diagnostic.message) for f in findings(text, "ipython")]
    assert [c for c, _ in got] == ["TL505"] and "(`!python`) see it" in got[0][1]
    before = '!python train.py\nimport os, torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
    assert [f.diagnostic.code for f in findings(before, "ipython")] == ["TL501"]


def test_a_pin_at_the_end_of_a_cell_is_its_own_and_only_its_cell_gets_tl902(tmp_path: Path):
    """The pin is read from the code cells one per line (it does not run into the next
    cell), and TL902 is given on the cell that holds it, at that cell's offsets, as the
    server gives it."""
    nb = notebook(
        [
            code("import os\n# torch-logs: torch=2.x"),
            code("import torch\n"),
            code("x = 1\n"),
        ]
    )
    path = write(tmp_path / "pin.ipynb", nb)
    proc = run("check", "--format", "json", "--show-hints", str(path))
    rows = [f for f in json.loads(proc.stdout) if f["code"] == "TL902"]
    assert [(r["cell"], r["line"], r["column"], r["end_column"]) for r in rows] == [(1, 2, 1, 24)]
