"""TL501: a TORCH_LOGS-family value set in this process after `import torch` has no
effect. Oracle: torch 2.13 itself, run in a subprocess."""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.oracles import run_python
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.diagnostic import Severity


def codes(text: str) -> list[tuple[str, int]]:
    """(code, 1-based line) of every TL501 finding."""
    return [
        (f.diagnostic.code, f.line + 1)
        for f in findings(text, "python")
        if f.diagnostic.code == "TL501"
    ]


_SETUP = 'import os\nimport torch\ndef setup():\n    os.environ["TORCH_LOGS"] = "+dynamo"\n'
#: A function defined before the import: late only when called after it.
_BEFORE = 'import os\ndef setup():\n    os.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 3)]),
        # torch not the first name of its import
        ('import os, torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 2)]),
        ('import os; import torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 2)]),
        ('import numpy as np, torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 2)]),
        ('from x import torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n', []),
        ('import torch.nn as nn\nos.environ.setdefault("TORCH_LOGS", "+dynamo")\n', [("TL501", 2)]),
        (
            'from torch import nn\nos.environ.update({"TORCH_LOGS_OUT": "/tmp/t.log"})\n',
            [("TL501", 2)],
        ),
        ("import torch, os\nos.environ.update(TORCH_LOGS_FORMAT='short')\n", [("TL501", 2)]),
        (
            "from os import environ\nimport torch\nenviron['TORCH_TRACE'] = '/tmp/tr'\n",
            [("TL501", 3)],
        ),
        (
            'import torch\nif __name__ == "__main__":\n    os.environ["TORCH_LOGS"] = "+dynamo"\n',
            [("TL501", 3)],
        ),
        # fine: before the import, or read again later
        ('import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n', []),
        (
            'import torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
            "torch._logging._internal._init_logs()\n",
            [],
        ),
        (
            'import torch\nos.environ["TORCH_LOGS_OUT"] = "/tmp/x.log"\n'
            "torch._logging.set_logs()\n",
            [],
        ),
        # not this process, not module level, not certain: no finding
        ('import torch\nsubprocess.run(c, env={"TORCH_LOGS": "+dynamo"})\n', []),
        ('import torch\nos.putenv("TORCH_LOGS", "+dynamo")\n', []),
        ('import torch\nenv["TORCH_LOGS"] = "+dynamo"\n', []),
        # a function, method or lambda defined after the import runs after it, whoever
        # calls it (an importer of this module gets it after torch was imported too)
        ('import torch\ndef main():\n    os.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 3)]),
        (_SETUP, [("TL501", 4)]),
        (_SETUP + "callbacks = [setup]\n", [("TL501", 4)]),
        (_SETUP + "obj.setup()\n", [("TL501", 4)]),
        ("import torch\nf = lambda: os.environ.update(TORCH_LOGS='x')\n", [("TL501", 2)]),
        ("import torch\n@dec\ndef f():\n    os.environ['TORCH_TRACE'] = d\n", [("TL501", 4)]),
        # a function defined before the import: only when called after it, at module level
        (_BEFORE + "setup()\n", [("TL501", 3)]),
        (_BEFORE + 'if __name__ == "__main__":\n    setup()\n', [("TL501", 3)]),
        (_BEFORE + "x = setup()\n", [("TL501", 3)]),
        (_BEFORE, []),  # never called here
        (_BEFORE + "def main():\n    setup()\nmain()\n", []),  # called through main: not followed
        (_BEFORE + "callbacks = [setup]\n", []),
        (_BEFORE + "obj.setup()\n", []),  # another `setup`? not guessed
        (_BEFORE + "setup()\n# setup() is called\n", []),  # any other mention: no finding
        (
            'import os\ndef setup():\n    os.environ["TORCH_LOGS"] = "x"\nsetup()\nimport torch\n',
            [],
        ),
        # set_logs returns at once while TORCH_LOGS is set: it re-reads the others only
        (_SETUP + "setup()\ntorch._logging.set_logs()\n", [("TL501", 4)]),
        (_SETUP + "setup()\ntorch._logging._internal._init_logs()\n", []),
        (_BEFORE + "setup()\ntorch._logging._internal._init_logs()\n", []),
        (
            'import torch\nos.environ["TORCH_LOGS"] = "+dynamo"\ntorch._logging.set_logs()\n',
            [("TL501", 2)],
        ),
        (
            'import torch\nos.environ["TORCH_LOGS_FORMAT"] = "short"\n'
            "torch._logging.set_logs(dynamo=10)\n",
            [],
        ),
        ("def setup():\n    os.environ['TORCH_LOGS'] = 'x'\nsetup()\nimport torch\n", []),
        (
            "import torch\nclass C:\n    def setup(self):\n        os.environ['TORCH_LOGS'] = 'x'\n"
            "C().setup()\n",
            [("TL501", 4)],
        ),
        # a class body runs when its class statement runs (Python language reference,
        # "Class definitions"): at module level, in place
        ('import torch\nclass C:\n    os.environ["TORCH_LOGS"] = "+dynamo"\n', [("TL501", 3)]),
        ('class C:\n    os.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n', []),
        (
            'import torch\nclass C:\n    class D:\n        os.environ["TORCH_LOGS"] = "x"\n',
            [("TL501", 4)],
        ),
        (
            'import torch\ndef f():\n    class C:\n        os.environ["TORCH_LOGS"] = "x"\n',
            [("TL501", 4)],
        ),
        (
            _SETUP + "class C:\n    setup()\n",  # a call in a class body runs in place too
            [("TL501", 4)],
        ),
        # test helpers put the value in this process's os.environ (torch 2.13: no logs)
        ('import torch\nmonkeypatch.setenv("TORCH_LOGS", "+dynamo")\n', [("TL501", 2)]),
        (
            "import torch\ndef test():\n    with patch.dict(os.environ, {'TORCH_LOGS': 'x'}):\n"
            "        f()\n",
            [("TL501", 3)],
        ),
        (
            "import torch\n@mock.patch.dict(os.environ, TORCH_LOGS='x')\ndef test(): ...\n",
            [("TL501", 2)],
        ),
        ("import torch\nwith patch.dict(d, {'TORCH_LOGS': 'x'}):\n    f()\n", []),  # not os.environ
        ("import torch\nmonkeypatch.setenv(name, 'TORCH_LOGS')\n", []),  # the value, not the name
        ("import torch\nmonkeypatch.delenv('TORCH_LOGS')\n", []),
        (
            "try:\n    import torch\nexcept ImportError:\n    pass\n"
            'os.environ["TORCH_LOGS"] = "x"\n',
            [],
        ),
        ('import torchvision\nos.environ["TORCH_LOGS"] = "+dynamo"\n', []),
        ('import torch\nos.environ["TORCH_COMPILE_DEBUG"] = "1"\n', []),
        # where the write is decides, not its value
        ('import torch\nos.environ["TORCH_LOGS"] = f"+{x}"\n', [("TL501", 2)]),
        ('"""\nimport torch\n"""\nos.environ["TORCH_LOGS"] = "+dynamo"\n', []),
        # a local copy named environ is a child's environment
        (
            "import os\nimport torch\nenviron = dict(os.environ)\n"
            'environ["TORCH_LOGS"] = "+dynamo"\nsubprocess.run(c, env=environ)\n',
            [],
        ),
        (
            'from os import environ\nimport torch\nenviron["TORCH_LOGS"] = "+dynamo"\n',
            [("TL501", 3)],
        ),
    ],
)
def test_late_writes(text: str, expected: list[tuple[str, int]]) -> None:
    assert codes(text) == expected


def test_message_names_the_function_and_its_call() -> None:
    (finding,) = findings(_BEFORE + "\nsetup()\n", "python")
    assert "set in `setup`, called at line 6 after `import torch` (line 4)" in (
        finding.diagnostic.message
    )
    (finding,) = findings(_SETUP, "python")
    assert "set in `setup`, which can only run after `import torch` (line 2)" in (
        finding.diagnostic.message
    )
    text = "import torch\nclass C:\n    def f(self):\n        g = lambda: os.environ.update("
    text += "TORCH_LOGS='x')\n"
    (finding,) = [f for f in findings(text, "python") if f.diagnostic.code == "TL501"]
    assert "set in a lambda in `C.f`, which can only run after" in finding.diagnostic.message


def test_message_names_the_import_line() -> None:
    text = '"""Doc."""\nimport os\n\nimport torch\n\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
    (finding,) = [f for f in findings(text, "python") if f.diagnostic.code == "TL501"]
    assert "after `import torch` (line 4)" in finding.diagnostic.message
    assert "reads it once, at import" in finding.diagnostic.message
    assert text[finding.start : finding.end] == "+dynamo"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_")}
    return run_python(code, env=env)


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("variable", "value", "error"),
    [("TORCH_LOGS", "aot_g", "Invalid log settings"), ("TORCH_LOGS_FORMAT", "%(x)", "ValueError")],
)
def test_torch_ignores_a_late_value(variable: str, value: str, error: str) -> None:
    set_it = f"os.environ[{variable!r}] = {value!r}\n"
    early = "import os\n" + set_it + "import torch\n"
    late = "import os\nimport torch\n" + set_it
    reread = late + "torch._logging._internal._init_logs()\n"
    proc = _run(early)
    assert proc.returncode != 0 and error in proc.stderr, proc.stderr[-2000:]
    assert codes(early) == []
    proc = _run(late)
    assert proc.returncode == 0, proc.stderr[-2000:]  # the invalid value had no effect
    assert codes(late) == [("TL501", 3)]
    assert codes(reread) == []  # no finding: _init_logs reads the variables again
    in_function = "import os\nimport torch\ndef setup():\n    " + set_it + "setup()\n"
    proc = _run(in_function)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert codes(in_function) == [("TL501", 4)]
    if variable == "TORCH_LOGS":  # (for TORCH_LOGS_FORMAT a second _init_logs keeps the
        proc = _run(reread)  # formatter made at import: still no error, no finding either)
        assert proc.returncode != 0 and error in proc.stderr, proc.stderr[-2000:]


@pytest.mark.oracle
def test_set_logs_after_a_late_torch_logs_reads_nothing() -> None:
    # the late invalid value is never parsed: set_logs returns before _init_logs
    late = (
        "import logging, os\nimport torch\nos.environ['TORCH_LOGS'] = 'aot_g'\n"
        "torch._logging.set_logs(dynamo=logging.DEBUG)\n"
        "print(logging.getLogger('torch._dynamo').level)\n"
    )
    proc = _run(late)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-1] == "0"  # and the set_logs call was ignored too
    assert "ignoring call to set_logs" in proc.stderr
    assert codes(late) == [("TL501", 3)]


_SEED = (
    'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n'
    'os.environ.setdefault("TORCH_LOGS_OUT", "/tmp/a.log")\n'
    'if x:\n    os.environ["TORCH_TRACE"] = "/tmp/t"\ndef f():\n    environ["TORCH_LOGS"] = "a"\n'
)


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.text(alphabet="abx_+,.:/09 é😀", max_size=3)),
        min_size=1,
        max_size=10,
    )
)
def test_notes_after_edits_equal_fresh(edits: list[tuple[float, str]]) -> None:
    """The notes read the tree the extraction left (edited, not parsed again, when typing
    in a value): the same notes as for a fresh parse after every edit."""
    text = _SEED
    cache = DocumentCache()
    for at, typed in edits:
        i = int(at * len(text))
        text = text[:i] + typed + text[i:]
        spans = hosts.extract("python", text, cache)
        incremental = python.notes(text, spans)
        fresh_spans = hosts.extract("python", text)
        assert spans == fresh_spans
        assert incremental == python.notes(text, fresh_spans)


_ALPHABET = st.sampled_from(["f", "g", "é", "_", "1", " ", "(", ")", "\n", "\xa0", "ß"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(_ALPHABET, max_size=40).map("".join),
    st.sets(st.sampled_from(["f", "g", "fé", "éf", "f1", "_", "ß"]), max_size=4),
)
def test_mentions_in_one_pass_equal_a_search_per_name(text: str, names: set[str]) -> None:
    import re

    from torch_logs_lsp.hosts.python.order import _mentions

    data = text.encode()
    expected = {
        n: [m.start() for m in re.finditer(rb"(?<!\w)" + re.escape(n.encode()) + rb"(?!\w)", data)]
        for n in names
    }
    assert _mentions(data, names) == expected  # a search per name
    from torch_logs_lsp.hosts.python import order as python_order

    saved = python_order._FIND_EACH
    python_order._FIND_EACH = 0  # one pass over the words (used for many names)
    try:
        assert _mentions(data, names) == expected
    finally:
        python_order._FIND_EACH = saved


def test_many_functions_written_after_the_import_are_all_found() -> None:
    # one pass over the text for all function names (a search per function took 12 s
    # for these 4,000; the benchmark times it)
    n = 4000
    parts = ["import os"]
    parts += [f"def f{i}():\n    os.environ['TORCH_LOGS'] = '+dynamo'\n" for i in range(n)]
    parts += ["import torch"] + [f"f{i}()" for i in range(n)] + ["g = f7"]  # f7 also a value
    found = codes("\n".join(parts) + "\n")
    assert len(found) == n - 1
    assert ("TL501", 2 + 7 * 3 + 1) not in found and ("TL501", 2 + 8 * 3 + 1) in found


def test_a_late_write_before_set_logs_says_the_call_is_ignored() -> None:
    # ("no effect in this process" would contradict TL631 on the call: the
    # write does make set_logs return at once)
    text = 'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
    (alone,) = [f for f in findings(text, "python") if f.diagnostic.code == "TL501"]
    assert "so this has no effect in this process" in alone.diagnostic.message
    text += "torch._logging.set_logs(dynamo=10)\n"
    late, ignored = (f.diagnostic for f in findings(text, "python"))
    assert (late.code, ignored.code) == ("TL501", "TL631")
    assert "set_logs(...) call that runs after it finds it in os.environ" in late.message


@pytest.mark.parametrize(
    "written",
    [
        '"+dynamo,graph_breaks" if VERBOSE else "graph_breaks"',
        "trace_dir",
        'f"+{name}"',
        "str(tmpdir)",
        "os.environ.get('X', '+dynamo')",
    ],
)
def test_a_late_write_counts_whatever_its_value(written: str) -> None:
    """Where a write is decides TL501, not the value: a value we cannot know is late all
    the same, and the warning sits over the written expression."""
    for variable in ("TORCH_LOGS", "TORCH_TRACE"):
        text = f'import os\nimport torch\nos.environ["{variable}"] = {written}\n'
        found = [f for f in findings(text, "python") if f.diagnostic.code == "TL501"]
        assert len(found) == 1, text
        assert text[found[0].start : found[0].end] == written
        assert found[0].line == 2 and variable in found[0].diagnostic.message
        before = f'import os\nos.environ["{variable}"] = {written}\nimport torch\n'
        assert codes(before) == []


_TRACE = (
    "import os\n{first}\n{second}\ntorch.compile(lambda x: x + 1, backend='eager')(torch.ones(2))\n"
)


def test_a_late_trace_directory_gets_no_trace(tmp_path) -> None:
    """Oracle: torch 2.13 writes its trace only when TORCH_TRACE (here a directory known
    at run time only) is set before the import; after it, the directory stays empty."""
    set_it = "os.environ['TORCH_TRACE'] = os.environ['TRACE_TO']"
    for name, first, second, written in [
        ("before", set_it, "import torch", True),
        ("after", "import torch", set_it, False),
    ]:
        trace = tmp_path / name
        code = _TRACE.format(first=first, second=second)
        assert codes(code) == ([] if written else [("TL501", 3)])
        env = {**os.environ, "TRACE_TO": str(trace)}
        env.pop("TORCH_TRACE", None)
        run_python(code, env=env, check=True)
        assert (trace.exists() and any(trace.iterdir())) == written, name


def _late(text: str) -> list[tuple[str, int]]:
    """(code, 1-based line) of every TL501 and TL505 finding."""
    return [
        (f.diagnostic.code, f.line + 1)
        for f in findings(text, "python")
        if f.diagnostic.code in ("TL501", "TL505")
    ]


_FUNC = 'import os, subprocess\nimport torch\ndef f():\n    os.environ["TORCH_LOGS"] = "+dynamo"\n'
_TOP = 'import os, subprocess\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a child process started after the write sees it
        (_TOP + "subprocess.run(['python', 'train.py'])\n", [("TL505", 3)]),
        (_TOP + "os.system('python train.py')\n", [("TL505", 3)]),
        (_TOP + "os.execv(sys.executable, argv)\n", [("TL505", 3)]),
        (_TOP + "import torch.multiprocessing as mp\nmp.spawn(main, nprocs=2)\n", [("TL505", 3)]),
        (_TOP + "with ProcessPoolExecutor() as ex:\n    ex.map(g, xs)\n", [("TL505", 3)]),
        (_TOP + "def g():\n    subprocess.check_call(cmd)\n", [("TL505", 3)]),
        # in a function: a child started anywhere in the file (the function may run later)
        (_FUNC + "    subprocess.run(cmd)\n", [("TL505", 4)]),
        ("import os, subprocess\nsubprocess.run(c)\n" + _FUNC[22:], [("TL505", 5)]),
        # only before the write, or only imported: nobody sees it
        (
            "import os, subprocess\nimport torch\nsubprocess.run(c)\n"
            'os.environ["TORCH_LOGS"] = "x"\n',
            [("TL501", 4)],
        ),
        (_TOP, [("TL501", 3)]),
        (_FUNC, [("TL501", 4)]),
        # a child's own environment is not this process's: no finding at all
        ("import torch\nsubprocess.run(c, env={'TORCH_LOGS': '+dynamo'})\n", []),
    ],
)
def test_late_writes_that_children_see(text: str, expected: list[tuple[str, int]]) -> None:
    assert _late(text) == expected


def test_children_message_names_what_starts_them() -> None:
    (finding,) = [f for f in findings(_FUNC + "    subprocess.run(c)\n", "python")]
    message = finding.diagnostic.message
    assert finding.diagnostic.severity == Severity.INFORMATION
    assert "set in `f`, which can only run after `import torch` (line 2)" in message
    assert "only child processes started after it (`subprocess`) see it" in message


def test_children_value_is_still_checked() -> None:
    text = _FUNC.replace("+dynamo", "dynamo,,gaurds") + "    subprocess.run(c)\n"
    got = {f.diagnostic.code for f in findings(text, "python")}
    assert "TL505" in got and "TL201" in got  # the children reject it: still an error


@pytest.mark.oracle
def test_torch_in_a_child_reads_a_late_write() -> None:
    # the parent imported torch before the write: its value has no effect there, but a
    # child started after it imports torch with it (and rejects an invalid one)
    code = (
        "import os, subprocess, sys\nimport torch\ndef f():\n"
        "    os.environ['TORCH_LOGS'] = 'aot_g'\n"
        "    return subprocess.run([sys.executable, '-c', 'import torch'],"
        " capture_output=True, text=True)\n"
        "child = f()\nprint('child', child.returncode)\n"
        "sys.stderr.write(child.stderr[-2000:])\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr[-2000:]  # the parent: no effect
    assert "child 1" in proc.stdout and "Invalid log settings" in proc.stderr
    assert _late(code) == [("TL505", 4)]


@pytest.mark.parametrize(
    ("child", "expected"),
    [
        ("subprocess.run(c, env={'A': '1'})", "TL501"),  # its own environment
        ("subprocess.run(c, env=dict(A='1'))", "TL501"),
        ("subprocess.run(c, env={**os.environ, 'A': '1'})", "TL505"),  # inherits it
        ("subprocess.run(c, env=dict(os.environ))", "TL505"),
        ("subprocess.run(c, env=env)", "TL505"),  # not known: may be a copy
        ("subprocess.run(c)", "TL505"),
    ],
)
def test_a_child_with_its_own_environment_does_not_see_it(child: str, expected: str) -> None:
    assert _late(_TOP + child + "\n") == [(expected, 3)]


@pytest.mark.oracle
def test_torch_ignores_a_value_patched_in_after_the_import() -> None:
    code = (
        "import os\nfrom unittest.mock import patch\nimport torch\n"
        "with patch.dict(os.environ, {'TORCH_LOGS': 'aot_g'}):\n"
        "    import torch._dynamo\n    print('ran')\n"
    )
    proc = _run(code)
    assert proc.returncode == 0 and "ran" in proc.stdout, proc.stderr[-2000:]  # no effect
    assert codes(code) == [("TL501", 4)]
    early = code.replace("import torch\nwith", "with").replace(
        "import torch._dynamo", "import torch"
    )
    proc = _run(early)
    assert proc.returncode != 0 and "Invalid log settings" in proc.stderr, proc.stderr[-2000:]
    assert codes(early) == []


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        # a mention in a comment or a string starts nothing and reads nothing
        ("# subprocess\n", "TL501"),
        ('print("subprocess.run(x)")\n', "TL501"),
        ('"""Run os.system later."""\n', "TL501"),
        ("# TODO: call _init_logs() here\n", "TL501"),
        ("subprocess.run(x)\n", "TL505"),
        ("torch._logging._internal._init_logs()\n", None),
    ],
)
def test_only_code_starts_children_or_reads_again(tail: str, expected: str | None) -> None:
    text = 'import os, subprocess\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n' + tail
    assert _late(text) == ([(expected, 3)] if expected else [])


def test_many_writes_and_children_are_linear() -> None:
    # (each write searched the whole text for children: 10,000 took minutes; the
    # benchmark times it, this checks the answers)
    n = 3000
    parts = ["import os, subprocess", "import torch"]
    parts += [
        f"def f{i}():\n    os.environ['TORCH_LOGS'] = '+dynamo'\n    subprocess.run(c)"
        for i in range(n)
    ]
    found = _late("\n".join(parts) + "\n")
    assert len(found) == n and {c for c, _ in found} == {"TL505"}


_W = "import torch\nos.environ['TORCH_LOGS'] = 'x'\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # names bound by from-imports start children too
        ("from subprocess import run\n" + _W + "run(c)\n", "TL505"),
        ("from subprocess import check_call as cc\n" + _W + "cc(c)\n", "TL505"),
        ("from os import system\n" + _W + "system(c)\n", "TL505"),
        # another object's method of the same name does not
        ("from subprocess import run\n" + _W + "x.run(c)\n", "TL501"),
        ("from os import path\n" + _W + "path(c)\n", "TL501"),
        # os under another name
        ("import os as _os\nimport torch\n_os.environ['TORCH_LOGS'] = 'x'\n", "TL501"),
    ],
)
def test_imported_names_and_aliases(text: str, expected: str) -> None:
    assert [c for c, _ in _late(text)] == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # os.environ |= {...} (Python 3.9+) writes this process's environment
        ('import os\nimport torch\nos.environ |= {"TORCH_LOGS": "+dynamo"}\n', [("TL501", 3)]),
        ('import os\nos.environ |= {"TORCH_LOGS": "+dynamo"}\nimport torch\n', []),
        ('import torch\nd = {}\nd |= {"TORCH_LOGS": "+dynamo"}\n', []),  # not an environment
        # patch.dict's target named by a string
        (
            'import torch\n@mock.patch.dict("os.environ", {"TORCH_LOGS": "x"})\ndef test(): ...\n',
            [("TL501", 2)],
        ),
    ],
)
def test_merged_and_string_targeted_writes(text: str, expected: list[tuple[str, int]]) -> None:
    assert _late(text) == expected


def test_a_merged_value_is_checked() -> None:
    text = 'import os\nos.environ |= {"TORCH_LOGS": "aot_g"}\nimport torch\n'
    assert [f.diagnostic.code for f in findings(text, "python")] == ["TL201"]
