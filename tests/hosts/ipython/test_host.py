"""The IPython host (hosts/ipython*.py): one notebook code cell, with IPython 9 as the
oracle (``tests/support/ipython_oracle.py``: a real ``InteractiveShell`` and its
``TransformerManager`` in one subprocess per batch of cells)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.ipython_oracle import FAMILY, run_cells, transform_cells
from tests.support.paths import ROOT
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import detect_host, extract, host_for_language
from torch_logs_lsp.hosts.edits import apply_text_edits, removal_edit, value_edit
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.ipython import host as ipython
from torch_logs_lsp.hosts.ipython.values import EXPANDS
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.checker import call_diagnostics
from torch_logs_lsp.lint.pipeline import check_text
from torch_logs_lsp.value.analysis import Diagnostic

SLOW = settings(
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking costs a subprocess a step
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def read(text: str) -> list[tuple[str, str | None]]:
    spans = extract("ipython", text)
    check_spans(text, spans)
    return [(s.variable, s.value) for s in spans]


def own(text: str) -> list[tuple[str, str | None, str]]:
    """(variable, value, raw text) of the host's own spans (``%env``, shell)."""
    found = ipython.read(text).own
    check_spans(text, found)
    return [(s.variable, s.value, text[s.raw_start : s.raw_end]) for s in found]


# -- IPython's rules for a cell, each also run through IPython below ------------------

FACTS = [
    ("%env TORCH_LOGS=+dynamo,guards", "+dynamo,guards"),
    ("%env TORCH_LOGS +dynamo, guards", "+dynamo, guards"),
    ('%env TORCH_LOGS="+dynamo"', '"+dynamo"'),
    ("%env TORCH_LOGS=", ""),
    ("%set_env TORCH_LOGS=+dynamo", "+dynamo"),
    ("%env TORCH_LOGS =  +dynamo  ", "+dynamo"),
    ("%env  TORCH_LOGS=a=b", "a=b"),
    ("%env TORCH_LOGS=a b", "a b"),
    ("x = %env TORCH_LOGS=+guards", "+guards"),
    ("if True:\n    %env TORCH_LOGS=+aot", "+aot"),
    ("%env TORCH_LOGS=a\\\nb", "a b"),
    ("%env TORCH_LOGS=$$", "$$"),
    ("%env TORCH_LOGS=a$", "a$"),
]
NOT_SET = [
    "%env TORCH_LOGS",  # a read
    "%env TORCH_LOGS ",
    "%env TORCH_LOGS +dynamo=x",  # splits at `=`: a name with a blank is refused
    "%env\tTORCH_LOGS=a",  # the magic is named `env\tTORCH_LOGS=a`
    "%env TORCH_LOGS=a?",  # help about `a`
    "# %env TORCH_LOGS=a",
    "s = '''\n%env TORCH_LOGS=a\n'''",
    "%%writefile x.sh\n%env TORCH_LOGS=a",
    "%%html\n!TORCH_LOGS=a true",
]


@pytest.mark.parametrize(("cell", "value"), FACTS)
def test_env_facts(cell: str, value: str) -> None:
    assert [v for _, v in read(cell)] == [value]


@pytest.mark.parametrize("cell", NOT_SET)
def test_env_not_set(cell: str) -> None:
    assert read(cell) == []


def test_facts_against_ipython() -> None:
    cells = [c for c, _ in FACTS] + NOT_SET
    for cell, got in zip(cells, run_cells(cells), strict=True):
        expected = dict(FACTS).get(cell)
        assert got["env"]["TORCH_LOGS"] == expected, (cell, got)


def test_expansion_is_not_static() -> None:
    cells = [
        "%env TORCH_LOGS=$x",
        "%env TORCH_LOGS={x}",
        "%env TORCH_LOGS=a$x.y",
        "%env TORCH_LOGS=}",
    ]
    assert [read(c) for c in cells] == [[("TORCH_LOGS", None)]] * 4
    assert read("%env TORCH_LOGS $x") == []  # the split may move: `x` may hold `=`
    x = "x = '+dynamo'\n"
    got = run_cells([x + cells[0], x + cells[1]])
    assert [g["env"]["TORCH_LOGS"] for g in got] == ["+dynamo", "+dynamo"]


_VALUE = st.text(st.sampled_from(list("ab+,=\"' \t🙂$x{}\\.:-#;?%\u3000\x85")), max_size=12)
_LINE = st.tuples(
    st.sampled_from(["%env ", "%set_env ", "%env  ", "x = %env ", "%set_env\t"]),
    st.sampled_from([*FAMILY, "TORCH_LOG", "torch_logs"]),
    st.sampled_from(["=", " ", " = ", "  ", "= ", "\t", ""]),
    _VALUE,
    st.sampled_from(["", "\n", "\r\n", "\nx = 1\n", "  \n"]),
    st.sampled_from(["", "# 🙂\n", "\n", "import os\n"]),
)


@SLOW
@given(st.lists(_LINE, min_size=30, max_size=40))
def test_env_lines_against_ipython(lines: list[tuple[str, str, str, str, str, str]]) -> None:
    cells = [pre + magic + name + sep + value + end for magic, name, sep, value, end, pre in lines]
    compared = 0
    for cell, got in zip(cells, run_cells(cells), strict=True):
        spans = extract("ipython", cell)
        check_spans(cell, spans)
        set_ = {k: v for k, v in got["env"].items() if v is not None}
        if got["before"]:  # does not compile: read as typed code, like a .py file
            continue
        args = re.split("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]", cell.split("env", 1)[1])[0]
        if not EXPANDS.search(args):
            assert {s.variable: s.value for s in spans} == set_, (cell, got)
            compared += 1
        else:  # what IPython expands: never a value
            assert all(s.value is None for s in spans), cell
            assert {s.variable for s in spans} <= set(set_), cell
    assert compared >= 10


# -- the escapes against IPython's own transform ---------------------------------------

_POOL = [
    "import os",
    "os.environ['TORCH_LOGS'] = '+dynamo'",
    "os.environ['TORCH_TRACE'] = \"/tmp/t\"",
    "!TORCH_LOGS=aot_g python x.py",
    "!!TORCH_LOGS=+guards env",
    "files = !TORCH_LOGS=+graph ls",
    "%env TORCH_LOGS=+dynamo",
    "%env TORCH_LOGS_OUT /tmp/l.txt",
    "y = %env TORCH_LOGS=x",
    "%matplotlib inline",
    "s = '!not a command %env TORCH_LOGS=a'",
    "t = '''\n!TORCH_LOGS=in_string true\n'''",
    "x = (\n  1,\n)",
    "x = dict(\n  TORCH_LOGS='kw',\n)",
    "if True:\n    !TORCH_LOGS=+indented true\n    %env TORCH_COMPILE_DEBUG=1\n"
    "    os.environ['TORCH_LOGS'] = 'block'",
    "!echo a \\\nTORCH_LOGS=continued b",
    "%env TORCH_LOGS=c\\\nd",
    "# !TORCH_LOGS=comment",
    "a = b != !TORCH_LOGS=c true",
    "print('🙂')",
    "",
    "  ",
    "obj?",
    "!TORCH_LOGS=q python a.py?",
    "%env TORCH_LOGS=r\r",
    "if a:\n    if b:\n        !ls\n    %env TORCH_LOGS=n\n!TORCH_LOGS=m x",
    "if a:\n\tif b:\n\t\t!ls\n\t# c\n\t%env TORCH_LOGS=t",
    "def f():\n  x = 1\n  # c\n\n  !ls\n  return !pwd",
    "for i in x:\n    y = [\n  !ls\n]\n    %env TORCH_LOGS=q",
    "class A:\n    def f(self):\n        %env TORCH_LOGS=z\n    x = !ls\n",
    "%env TORCH_LOGS=a?",
    "/f x",
    ",f a b",
]


def _ipython_calls(code: str) -> list[tuple[object, ...]] | None:
    """The ``get_ipython()`` calls of transformed code, in order: ``(method, *args)``."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    calls = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython"
        ):
            args = tuple(ast.literal_eval(a) for a in node.args)
            calls.append((node.lineno, node.col_offset, (node.func.attr, *args)))
    calls.sort(key=lambda c: (c[0], c[1]))
    return [c[2] for c in calls if c[2][:2] not in (("run_line_magic", "pinfo"),)]


def _my_calls(cell: str) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for e in ipython.read(cell).escapes:
        if e.kind == "!":
            out.append(("system", e.code.text))
        elif e.kind in ("!!", "=!"):
            out.append(("getoutput", e.code.text))
        elif e.kind in ("%", "=%"):
            name, _, args = e.code.text.partition(" ")
            out.append(("run_line_magic", name, args))
    return out  # (`/f x`, `,f a b`: plain calls; `obj?`: pinfo, left out above)


def _python_values(code: str) -> list[tuple[str, str | None]]:
    return [(s.variable, s.value) for s in python.extract(code)]


@SLOW
@given(
    st.lists(
        st.lists(st.sampled_from(_POOL), min_size=1, max_size=12).map("\n".join),
        min_size=30,
        max_size=30,
    )
)
def test_escapes_against_transform_cell(cells: list[str]) -> None:
    compared = 0
    for cell, code in zip(cells, transform_cells(cells), strict=True):
        reading = ipython.read(cell)
        assert len(reading.view) == len(cell)
        spans = extract("ipython", cell)
        check_spans(cell, spans)
        if code is None:
            continue  # IPython cannot transform it: the cell never runs
        calls = _ipython_calls(code)
        if calls is None:
            continue  # not Python after the transform either: it never runs
        assert _my_calls(cell) == calls, (cell, code)
        mine = set(reading.own)
        assert [(s.variable, s.value) for s in spans if s not in mine] == _python_values(code)
        compared += 1
    assert compared >= 10


# -- shell: ! lines and %%bash cells through IPython and bash --------------------------

_WORD = st.text(st.sampled_from(list("ab+,=\"' 🙂$x{}\\:#?%")), max_size=10)


def _printed(stdout: str | list[str] | None) -> str | None:
    """What the child process printed: ``[value]`` (``None``: unset), then ``END``."""
    lines = stdout.splitlines() if isinstance(stdout, str) else list(stdout or [])
    if "END" not in lines or lines.index("END") == 0:
        return "<failed>"
    line = lines[lines.index("END") - 1]
    if not (line.startswith("[") and line.endswith("]")):
        return "<failed>"  # the value swallowed the command (`TORCH_LOGS=\\ sh`)
    return None if line == "[<unset>]" else line[1:-1]


@SLOW
@given(st.lists(_WORD, min_size=25, max_size=25))
def test_bang_and_bash_cells_against_ipython(words: list[str]) -> None:
    tail = """ sh -c 'printf "[%s]" "${TORCH_LOGS-<unset>}"'; echo; echo END"""
    bang = [f"out = !TORCH_LOGS={w}{tail}" for w in words]
    # (no braces in `export` words: bash brace-expands them, `export TORCH_LOGS=a{x,y}` sets
    # `ay`, and the shell host does not know that yet: a shell-host issue, not a cell's)
    bare = [w.replace("{", "").replace("}", "") for w in words]
    bash = [f"%%bash\nexport TORCH_LOGS={w}\n{tail[1:]}" for w in bare]
    got = run_cells(bang + bash)
    compared = 0
    for cell, result in zip(bang + bash, got, strict=True):
        printed = _printed(result["out"] if cell.startswith("out") else result["stdout"])
        spans = [s for s in extract("ipython", cell) if s.variable == "TORCH_LOGS"]
        check_spans(cell, spans)
        if printed == "<failed>" or not spans or spans[0].value is None:
            continue
        assert spans[0].terminated
        assert printed == spans[0].value, (cell, result)
        compared += 1
    assert compared >= 10


def test_bang_expansion_point() -> None:
    assert own("!TORCH_LOGS=+dynamo python x.py $FILE") == [("TORCH_LOGS", "+dynamo", "+dynamo")]
    assert own("!A=$x TORCH_LOGS=+dynamo python x.py") == []  # `$x` may reopen a quote
    assert own("!TORCH_LOGS={level} python x.py") == []
    assert own("!TORCH_LOGS=+dynamo python x.py &") == []  # system_piped refuses it


@pytest.mark.parametrize(
    ("cell", "values"),
    [
        ("%%bash\nexport TORCH_LOGS=+dynamo\n", ["+dynamo"]),
        ("%%sh\nTORCH_LOGS=a python x.py", ["a"]),
        ("%%script bash\nTORCH_LOGS='+b' python x.py", ["+b"]),
        ("%%script sh --out o\nTORCH_LOGS=c python x.py", ["c"]),
        ("\n  \n%%bash\nTORCH_LOGS=d x\n", ["d"]),  # leading blank lines are dropped
        ("  %%bash\n  TORCH_LOGS=e x\n", ["e"]),  # the cell is dedented
        ("%%bash --bg\nTORCH_LOGS=f x\n", ["f"]),
        ("%%bash -x\nTORCH_LOGS=g x\n", []),  # refused by the magic
        ("%%script python\nTORCH_LOGS=h x\n", []),
        ("%%script bash -c x\nTORCH_LOGS=i x\n", []),
        ("%%capture c\n%%bash\nTORCH_LOGS=j x\n", ["j"]),
        ("%%time\nimport os\nos.environ['TORCH_LOGS'] = 'k'\n%env TORCH_TRACE=/t\n", ["k", "/t"]),
        ("%%writefile run.sh\nTORCH_LOGS=l x\n", []),
        ("%%bash?\nTORCH_LOGS=m x\n", []),
        ("%%bash\nTORCH_LOGS=$n x\n", [None]),  # bash's own expansion (IPython leaves it)
    ],
)
def test_cell_magics(cell: str, values: list[str | None]) -> None:
    assert [v for _, v in read(cell)] == values


def test_cell_magics_against_ipython() -> None:
    cells = [
        "%%bash\nexport TORCH_LOGS=+dynamo\nprintenv TORCH_LOGS\n",
        "  %%bash\n  TORCH_LOGS=e printenv TORCH_LOGS\n",
        "%%capture c\n%%bash\nTORCH_LOGS=j printenv TORCH_LOGS\n",
        "%%time\nimport os\nos.environ['TORCH_LOGS'] = 'k'\n",
        "%%bash\nTORCH_LOGS=$HOME/x printenv TORCH_LOGS\n",
        "HOME = 'user-ns'\n%%bash\n",
    ]
    got = run_cells(cells)
    assert got[0]["stdout"] == "+dynamo\n"
    assert got[1]["stdout"] == "e\n"
    assert got[2]["stdout"] == ""  # captured
    assert got[3]["env"]["TORCH_LOGS"] == "k"
    assert got[4]["stdout"].endswith("/x\n") and "$" not in got[4]["stdout"]


# -- the Python view, notes, edits ------------------------------------------------------


def test_view_keeps_offsets() -> None:
    cell = "import os\n!ls\nos.environ['TORCH_LOGS'] = 'a🙂'\n%env TORCH_TRACE=/t\n"
    reading = ipython.read(cell)
    assert reading.view == "import os\n_()\nos.environ['TORCH_LOGS'] = 'a🙂'\n_()                \n"
    assert read(cell) == [("TORCH_LOGS", "a🙂"), ("TORCH_TRACE", "/t")]


def test_notes_import_order_in_the_cell() -> None:
    cell = (
        "import torch\n"
        "%env TORCH_LOGS=+dynamo\n"
        "import os\n"
        "os.environ['TORCH_TRACE'] = '/t'\n"
        "if x:\n"
        "    %env TORCH_LOGS=+guards\n"
        "!TORCH_LOGS=+aot python x.py\n"
    )
    spans = extract("ipython", cell)
    notes = ipython.notes(cell, spans)
    assert sorted((spans[n.span_index].value, n.code) for n in notes) == [
        ("+dynamo", "TL501"),
        ("/t", "TL505"),  # the `!` command's child sees it (it sets TORCH_LOGS itself)
    ]
    assert "line 1" in notes[0].message
    assert (
        ipython.notes(
            "%env TORCH_LOGS=a\nimport torch\n",
            extract("ipython", "%env TORCH_LOGS=a\nimport torch\n"),
        )
        == []
    )


def test_overwritten_unless_a_command_between() -> None:
    a = "import os\nos.environ['TORCH_LOGS'] = 'a'\nos.environ['TORCH_LOGS'] = 'b'\n"
    assert [(o.dead, o.live) for o in ipython.overwritten(a, extract("ipython", a))] == [(0, 1)]
    b = "import os\nos.environ['TORCH_LOGS'] = 'a'\n!python x.py\nos.environ['TORCH_LOGS'] = 'b'\n"
    assert ipython.overwritten(b, extract("ipython", b)) == []


@pytest.mark.parametrize(
    ("cell", "pairs"),
    [
        ("%env TORCH_LOGS=a\n# c\n%env TORCH_TRACE=/t\n\n%env TORCH_LOGS=b\n", [(0, 2)]),
        ("%env TORCH_LOGS=a\n%set_env TORCH_LOGS b\n%env TORCH_LOGS=$c\n", [(0, 1), (1, 2)]),
        ("%env TORCH_LOGS=a\nx = 1\n%env TORCH_LOGS=b\n", []),
        ("%env TORCH_LOGS=a\n!python x.py\n%env TORCH_LOGS=b\n", []),
        ("if x:\n  %env TORCH_LOGS=a\n%env TORCH_LOGS=b\n", []),
        ("y = %env TORCH_LOGS=a\n%env TORCH_LOGS=b\n", []),
    ],
)
def test_env_overwritten(cell: str, pairs: list[tuple[int, int]]) -> None:
    spans = extract("ipython", cell)
    assert [(o.dead, o.live) for o in ipython.overwritten(cell, spans)] == pairs


def test_env_overwritten_against_ipython() -> None:
    """Only the last of two `%env` lines reaches os.environ (and any later command)."""
    (got,) = run_cells(["%env TORCH_LOGS=a\n# c\n%env TORCH_TRACE=/t\n\n%env TORCH_LOGS=b\n"])
    assert (got["env"]["TORCH_LOGS"], got["env"]["TORCH_TRACE"]) == ("b", "/t")
    cell = "%env TORCH_LOGS=+guards\n%env TORCH_LOGS=+dynamo\n"
    codes = {d.code for _, a in check_text(cell, "ipython") for d in a.diagnostics}
    assert codes == {"TL502"}


def test_check_text_codes() -> None:
    def codes(cell: str) -> list[tuple[str, str]]:
        return [
            (d.code, cell[s.document_offset(d.start) : s.document_offset(d.end)])
            for s, a in check_text(cell, "ipython")
            for d in a.diagnostics
        ]

    assert codes("%env TORCH_LOGS=\n") == [("TL001", "")]
    assert codes('%env TORCH_LOGS="+dynamo"\n') == [("TL107", '"+dynamo"')]
    assert codes("!TORCH_LOGS=aot_g python x.py\n") == [("TL201", "aot_g")]
    assert codes("%%bash\nTORCH_LOGS=aot_g python x.py\n") == [("TL201", "aot_g")]
    assert codes("import torch\n%env TORCH_LOGS=+dynamo\n")[0][0] == "TL501"


@pytest.mark.parametrize(
    ("cell", "new", "after"),
    [
        ("%env TORCH_LOGS=aot_g\n", "aot_graphs", "%env TORCH_LOGS=aot_graphs\n"),
        ("%env TORCH_LOGS +dynamo, guards", "+dynamo,guards", "%env TORCH_LOGS +dynamo,guards"),
        ("%env TORCH_LOGS=a\n", "$x", None),  # IPython would expand it
        ("%env TORCH_LOGS=a\n", "b\nc", None),
        ("!TORCH_LOGS=aot_g python x.py\n", "aot_graphs", "!TORCH_LOGS=aot_graphs python x.py\n"),
        ("!TORCH_LOGS=aot_g python x.py\n", "a b", "!TORCH_LOGS=a\\ b python x.py\n"),
        ("!TORCH_LOGS=a python x.py\n", "{x}", None),
        ("%%bash\nTORCH_LOGS=a python x.py\n", "$b", "%%bash\nTORCH_LOGS=\\$b python x.py\n"),
        ("import os\nos.environ['TORCH_LOGS'] = 'a'\n!ls\n", "b'", None),
        (
            "import os\n!ls\nos.environ['TORCH_LOGS'] = 'a'\n",
            "b",
            "import os\n!ls\nos.environ['TORCH_LOGS'] = 'b'\n",
        ),
    ],
)
def test_value_edit(cell: str, new: str, after: str | None) -> None:
    (span,) = extract("ipython", cell)
    edits = value_edit("ipython", cell, span, new)
    if after is None:
        if edits is not None:  # the Python literal can hold it: check it reads back
            assert [s.value for s in extract("ipython", apply_text_edits(cell, edits))] == [new]
        return
    assert edits is not None
    assert apply_text_edits(cell, edits) == after


def test_removal() -> None:
    cell = "import os\n%env TORCH_LOGS=\r\nx = 1\n"
    (span,) = extract("ipython", cell)
    found = removal_edit("ipython", cell, span)
    assert found is not None and apply_text_edits(cell, [found[1]]) == "import os\nx = 1\n"
    for cell in ["if x:\n    %env TORCH_LOGS=\n", "!TORCH_LOGS= x\n", "%env TORCH_LOGS=a\\\nb\n"]:
        (span,) = extract("ipython", cell)
        assert removal_edit("ipython", cell, span) is None


def test_layered_quotes() -> None:
    (bang,) = extract("ipython", "!TORCH_LOGS='a' x")
    (cell,) = extract("ipython", '%%bash\nTORCH_LOGS="a" x')
    assert (bang.quote, cell.quote) == ("'" + LAYER + "!", '"' + LAYER + "%%")


def test_detection() -> None:
    assert detect_host("/w/nb.ipynb", "") == "ipython"
    assert detect_host("/w/NB.IPYNB", "%env TORCH_LOGS=a") == "ipython"
    assert detect_host("/w/x.py", "") == "python"
    assert host_for_language("python") == "python"  # a cell is known by its URI only
    assert ipython.LANGUAGE_IDS == ()


def test_notebook_json_is_not_a_cell() -> None:
    doc = (
        '{\n "cells": [{"cell_type": "code", "source": ["%env TORCH_LOGS=a\\n"]}],\n "nbformat": 4}'
    )
    assert extract("ipython", doc) == []
    assert extract("ipython", '{"nbformat": 4, "env": {"TORCH_LOGS": "a"}}') == []


@pytest.mark.parametrize(
    ("line", "typed"),
    [
        ("%env TORCH_", "TORCH_"),
        ("%set_env ", ""),
        ("  %env T", "T"),
        ("os.environ['TORCH_", "TORCH_"),
        ("%env TORCH_LOGS=", None),
        ("x = 1", None),
        ("!TORCH_", "TORCH_"),
        ("  !!export TORCH_L", "TORCH_L"),
        ("!python x.py", None),
    ],
)
def test_typed_name(line: str, typed: str | None) -> None:
    assert ipython.typed_name(line, len(line)) == typed


def test_prompts_and_hostile_cells() -> None:
    assert read(">>> import os\n>>> os.environ['TORCH_LOGS'] = 'a'\n") == []  # pasted prompts
    for cell in [
        "%env TORCH_LOGS=a\n" * 600,  # more transforms than IPython's loop allows
        "!" * 5000 + "TORCH_LOGS",
        "%env TORCH_LOGS=\x00",
        "\x00TORCH_LOGS\ud800",
        "if x:\n  a\n b\n%env TORCH_LOGS=a",  # IndentationError in the tokenizer
        "%%bash\n" + "(" * 3000 + "TORCH_LOGS=a",
        "x = '''\n%env TORCH_LOGS=a",
        "\r%env TORCH_LOGS=a\r!TORCH_LOGS=b x\r",
    ]:
        spans = extract("ipython", cell)
        check_spans(cell, spans)
        for name in ("notes", "overwritten", "quote_findings"):
            getattr(ipython, name)(cell, spans)
        ipython.set_logs_calls(cell)
        ipython.set_logs_source(cell)
    assert read("\r%env TORCH_LOGS=a\r!TORCH_LOGS=b x\r") == [
        ("TORCH_LOGS", "a"),
        ("TORCH_LOGS", "b"),
    ]
    assert re.fullmatch(r"_\(\) *", ipython.read("%env TORCH_LOGS=a").view)


def test_cell_order_api() -> None:
    """What the notebook reader asks of a cell for the cross-cell import order."""
    cell = (
        "%env TORCH_LOGS=+dynamo\n"
        "!TORCH_LOGS=a python x.py\n"
        "import os\n"
        "os.environ['TORCH_TRACE'] = '/t'\n"
        "if x:\n"
        "    %env TORCH_LOGS_OUT=/o\n"
        "%env TORCH_COMPILE_DEBUG=1\n"
        "%env TORCH_LOGS_FORMAT=%(message)s\n"
        "torch._logging._internal._init_logs()\n"
    )
    spans = extract("ipython", cell)
    assert [s.variable for s in spans] == [
        "TORCH_LOGS",
        "TORCH_LOGS",
        "TORCH_TRACE",
        "TORCH_LOGS_OUT",
        "TORCH_COMPILE_DEBUG",
        "TORCH_LOGS_FORMAT",
    ]
    # +dynamo: read by the `_init_logs()` below; `!`: a new process; an indented `%env`:
    # may not run; TORCH_COMPILE_DEBUG: not read at import
    assert ipython.late_after_earlier_import(cell, spans) == []
    cell = cell.replace("_init_logs", "other")
    spans = extract("ipython", cell)
    assert ipython.late_after_earlier_import(cell, spans) == [0, 2, 5]
    assert ipython.torch_imported(cell) is None
    assert ipython.torch_imported("x = 1\nimport torch.nn as nn\n") == len(
        "x = 1\nimport torch.nn as nn"
    )
    assert ipython.torch_imported("if x:\n    import torch\n") is None
    assert ipython.torch_imported("%%time\nimport torch\n") == len("%%time\nimport torch")


def test_transform_loop_limit_against_ipython() -> None:
    """IPython gives up after 500 transforms (the cell does not run); 499 are fine."""
    cells = ["%env TORCH_LOGS=a\n" * 499, "%env TORCH_LOGS=a\n" * 500]
    assert [code is not None for code in transform_cells(cells)] == [True, False]
    assert [len(read(c)) for c in cells] == [499, 0]


def test_imports_go_after_a_cell_magic_line() -> None:
    cell = "%%time\nimport torch\ntorch._logging.set_logs(dynamo=10)\n"
    found = ipython.set_logs_source(cell)
    assert found is not None and found.imports_at == len("%%time\n")
    assert [c.start for c in ipython.set_logs_calls(cell)] == [cell.index("torch._logging")]


@pytest.mark.parametrize(
    ("cell", "line"),
    [
        ("import torch\n%env TORCH_LOGS=+dynamo\ntorch._logging.set_logs(dynamo=10)\n", "line 2"),
        ("import torch\n%env TORCH_LOGS=+dynamo\nf()\ntorch._logging.set_logs(dynamo=10)\n", None),
        ("import torch\nif x:\n  %env TORCH_LOGS=a\ntorch._logging.set_logs(dynamo=10)\n", None),
        ("import torch\n%env TORCH_TRACE=/t\ntorch._logging.set_logs(dynamo=10)\n", None),
        ("import torch, os\nos.environ['TORCH_LOGS'] = 'a'\ntorch._logging.set_logs()\n", "line 2"),
    ],
)
def test_set_logs_after_env(cell: str, line: str | None) -> None:
    (call,) = ipython.set_logs_calls(cell)
    assert call.start == cell.index("torch._logging.set_logs")
    assert call.torch_logs_set == line
    codes = {d.code for d in call_diagnostics("ipython", cell, load_registry())}
    assert ("TL631" in codes) == (line is not None)


def test_typographic_quotes() -> None:
    for cell, at in [
        ("%env TORCH_LOGS=“+dynamo”\n", 16),
        ("import os\n!ls\nos.environ['TORCH_LOGS'] = “+dynamo”\n", 41),
        ("!TORCH_LOGS=“+dynamo” python x.py\n", 12),
    ]:
        quotes: list[Diagnostic] = []
        check_text(cell, "ipython", quotes=quotes)
        assert [(d.code, d.start) for d in quotes] == [("TL109", at)]


_HOSTILE = st.text(
    st.sampled_from(list("%!?=$ {}()[]'\"\\#\t\n\r\x0b\x85\u2028aTORCH_LOGS+,:;/🙂“")), max_size=60
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.sampled_from(["", "%%bash\n", "%%time\n", "TORCH_LOGS", "%env ", "  "])), _HOSTILE
)
def test_random_cells_never_raise(heads: list[str], body: str) -> None:
    cell = "".join(heads) + body
    spans = extract("ipython", cell)
    check_spans(cell, spans)
    assert len(ipython.read(cell).view) == len(cell)
    ipython.notes(cell, spans)
    ipython.overwritten(cell, spans)
    ipython.quote_findings(cell, spans)
    ipython.late_after_earlier_import(cell, spans)
    ipython.set_logs_calls(cell)
    ipython.typed_name(cell, len(cell))
    for span in spans:
        removal_edit("ipython", cell, span)
        if span.value is not None and span.terminated:
            value_edit("ipython", cell, span, "+dynamo")


def test_the_oracle_runs_in_an_empty_temporary_folder() -> None:
    """A cell that writes by a relative path (``%%writefile``) writes into the oracle's
    own folder, never into the checkout."""
    root = ROOT
    written, where = run_cells(
        ["%%writefile oracle_probe.sh\necho hi\n", "print(__import__('os').getcwd())"]
    )
    assert written["ok"], written
    cwd = Path(where["stdout"].strip())
    assert root not in (cwd, *cwd.parents), cwd
    assert not (root / "oracle_probe.sh").exists()
