"""The import-order rule across notebook cells (notebook/cells.py): which cell's
write is reported, naming which cell, and when nothing is reported."""

from __future__ import annotations

from torch_logs_lsp.notebook.cells import CellText, cross_cell_diagnostics
from torch_logs_lsp.notebook.order import imports_torch

WRITE = 'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\n'


def cells(*texts: str, markdown: tuple[int, ...] = ()) -> list[CellText]:
    return [CellText(i + 1, t, i not in markdown) for i, t in enumerate(texts)]


def test_write_after_the_importing_cell_names_it():
    found = cross_cell_diagnostics(cells("# setup\n", "x = 1\nimport torch\n", "md", WRITE))
    (diag,) = found[3]
    assert diag.code == "TL501"
    assert "`import torch` in cell 2:" in diag.message
    assert WRITE[diag.start : diag.end] == "+dynamo"  # the value, in the cell's offsets
    assert list(found) == [3]


def test_markdown_cells_count_but_are_not_read():
    found = cross_cell_diagnostics(cells("import torch\n", WRITE, markdown=(0,)))
    assert found == {}
    found = cross_cell_diagnostics(cells("import torch\n", "text", WRITE, markdown=(1,)))
    assert "`import torch` in cell 1:" in found[2][0].message


def test_no_finding_before_the_import_or_without_one():
    assert cross_cell_diagnostics(cells(WRITE, "import torch\n")) == {}
    assert cross_cell_diagnostics(cells("import numpy\n", WRITE)) == {}
    # a conditional import is no certain import
    assert cross_cell_diagnostics(cells("if x:\n    import torch\n", WRITE)) == {}


def test_a_cell_with_its_own_import_first_is_reported_once_by_itself():
    own = "import os\nimport torch\nos.environ['TORCH_LOGS'] = 'dynamo'\n"
    assert cross_cell_diagnostics(cells("import torch\n", own)) == {}
    # its own import after the write: the earlier cell's import decides
    late = "import os\nos.environ['TORCH_LOGS'] = 'dynamo'\nimport torch\n"
    assert 1 in cross_cell_diagnostics(cells("import torch\n", late))


def test_a_later_reread_silences_it():
    reread = "torch._logging._init_logs()\n"
    assert cross_cell_diagnostics(cells("import torch\n", WRITE, reread)) == {}
    assert 2 in cross_cell_diagnostics(cells("import torch\n", reread, WRITE))  # before it


def test_magics_and_broken_cells_do_not_crash():
    texts = ("import torch\n", "%env TORCH_LOGS=\n!ls\n", "def (:\n", "%%bash\necho $TORCH_LOGS\n")
    found = cross_cell_diagnostics(cells(*texts))  # only the %env after the import
    # (seen by the child processes of `!ls` and `%%bash`: TL505)
    assert list(found) == [1] and [d.code for d in found[1]] == ["TL505"]
    assert imports_torch("%matplotlib inline\nimport torch\n")
    assert not imports_torch("def f():\n    import torch\n")


def test_only_a_call_in_a_later_cell_may_read_the_variables_again():
    # a mention in a comment or a string is no call (it would silence
    # TL501); a real call may re-read them, so nothing is said then
    for later in ("# TODO: try set_logs later\n", 'print("set_logs")\n'):
        found = cross_cell_diagnostics(cells("import torch\n", WRITE, later))
        assert [d.code for d in found[1]] == ["TL501"], later
    later = "torch._logging.set_logs(dynamo=10)\n"
    assert cross_cell_diagnostics(cells("import torch\n", WRITE, later)) == {}


def test_a_late_write_of_a_value_we_cannot_know_is_reported_over_its_source():
    write = 'import os\nos.environ["TORCH_TRACE"] = str(tmpdir)\n'
    found = cross_cell_diagnostics(cells("import torch\n", write))
    (diag,) = found[1]
    assert diag.code == "TL501" and "`import torch` in cell 1:" in diag.message
    assert write[diag.start : diag.end] == "str(tmpdir)"
