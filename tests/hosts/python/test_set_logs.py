"""The Python host's ``set_logs(...)`` calls (:mod:`torch_logs_lsp.hosts.python.set_logs`):
however torch's ``set_logs`` is imported, and never a call that may not be torch's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.oracles import scratch_dir
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.set_logs.call import (
    BoolValue,
    DictEntry,
    DictValue,
    IntValue,
    Keyword,
    LevelName,
    NoneValue,
    NotStatic,
    OtherLiteral,
    StrValue,
)
from torch_logs_lsp.set_logs.checks import check_set_logs


def test_values_and_offsets_in_code_points():
    text = (
        's = "😀"\nimport logging, torch\n'
        'torch._logging.set_logs(dynamo=logging.DEBUG, guards=True, aot=None, x=-1, y="a" "b",'
        ' z=f(), modules={"torch._dynamo": 10, k: False})\n'
    )
    (call,) = python.set_logs_calls(text)
    at = text.index
    assert call.start == at("torch._logging.set_logs(") and call.end == at("\n", call.start)
    names = [kw.name for kw in call.keywords]
    assert names == ["dynamo", "guards", "aot", "x", "y", "z", "modules"]
    first = call.keywords[0]
    assert first == Keyword(
        "dynamo",
        at("dynamo"),
        at("dynamo") + 6,
        LevelName("DEBUG", at("logging.DEBUG"), at("logging.DEBUG") + 13),
    )
    values = [kw.value for kw in call.keywords]
    assert isinstance(values[1], BoolValue) and values[1].value is True
    assert isinstance(values[2], NoneValue)
    assert isinstance(values[3], IntValue) and values[3].value == -1
    assert isinstance(values[4], StrValue) and values[4].value == "ab"
    assert isinstance(values[5], NotStatic)
    modules = values[6]
    assert isinstance(modules, DictValue)
    key = at('"torch._dynamo"')
    assert modules.entries[0] == DictEntry(
        "torch._dynamo", key, key + 15, IntValue(10, at("10"), at("10") + 2)
    )
    assert modules.entries[1].key is None
    assert call.positional == () and not call.unpacked


@pytest.mark.parametrize(
    "imports, callee",
    [
        ("import torch", "torch._logging.set_logs"),
        ("import torch._logging", "torch._logging.set_logs"),
        ("import torch as T", "T._logging.set_logs"),
        ("import torch._logging as tl", "tl.set_logs"),
        ("from torch import _logging", "_logging.set_logs"),
        ("from torch._logging import set_logs", "set_logs"),
        ("from torch._logging import set_logs as sl", "sl"),
        ("from torch._logging._internal import set_logs", "set_logs"),
    ],
)
def test_every_import_of_torchs_set_logs(imports: str, callee: str):
    text = f"{imports}\n\n{callee}(1, *a, dynamo=True)\n"
    (call,) = python.set_logs_calls(text)
    assert [kw.name for kw in call.keywords] == ["dynamo"]
    assert call.positional == ((text.index("(1") + 1, text.index("(1") + 2),)
    assert call.unpacked


@pytest.mark.parametrize(
    "text",
    [
        "from mylib import set_logs\nset_logs(dynamo=True)\n",
        "import torch\nlogger.set_logs(dynamo=True)\n",
        "set_logs(dynamo=True)  # torch\n",  # never imported
        "from torch._logging import set_logs\nset_logs = mine\nset_logs(dynamo=True)\n",
        "from torch._logging import set_logs\ndef set_logs(**kw): ...\nset_logs(dynamo=True)\n",
        "import torch\ndef f(torch):\n    torch._logging.set_logs(dynamo=True)\n",
        "import torch\nfrom other import torch\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\ntorch._logging.other.set_logs(dynamo=True)\n",
        "import torch\ntorch._logging.set_logs(dynamo=True\n",  # not closed
        "import torch\nx = 'torch._logging.set_logs(dynamo=True)'\n",
    ],
)
def test_calls_that_may_not_be_torchs_are_not_taken(text: str):
    assert python.set_logs_calls(text) == []


def test_a_level_name_needs_logging_certainly_imported():
    text = "import torch\nfrom logging import DEBUG\nlogging = 1\n"
    text += "torch._logging.set_logs(dynamo=DEBUG, aot=logging.INFO)\n"
    (call,) = python.set_logs_calls(text)
    assert isinstance(call.keywords[0].value, LevelName)
    assert isinstance(call.keywords[1].value, NotStatic)  # `logging` is rebound


@pytest.mark.parametrize(
    "source, static",
    [
        ("10.0", True),
        ("-1.5", True),
        ("1e1", True),
        ("10+0j", True),
        ('b"x"', True),
        ('b"a" b"b"', True),
        ("[10]", True),
        ("(10, 20)", True),
        ("{1, 2}", True),
        ("[10, # a comment\n 20]", True),
        ("[logging.DEBUG]", False),  # a name inside: literal_eval refuses, not static
        ("1 + 2", False),
        ("-x", False),
        ('f"{x}"', False),
        ("[" * 199 + "]" * 199, True),  # with the call's "(": CPython's most (200)
        ("[" + "1," * 2000 + "]", False),  # longer than the cap: not evaluated
    ],
)
def test_other_literals_agree_with_literal_eval(source: str, static: bool):
    import ast

    text = f"import logging, torch\ntorch._logging.set_logs(dynamo={source})\n"
    (call,) = python.set_logs_calls(text)
    (kw,) = call.keywords
    start = text.index(source)
    if static:
        assert kw.value == OtherLiteral(ast.literal_eval(source), start, start + len(source))
    else:
        assert isinstance(kw.value, NotStatic)


def test_deeply_nested_values_do_not_recurse():
    # 199 levels and the call's parenthesis: as deep as CPython reads (MAXLEVEL 200)
    deep = "{'a': " * 199 + "1" + "}" * 199
    text = f"import torch\ntorch._logging.set_logs(modules={deep}, dynamo=((((((1)))))))\n"
    (call,) = python.set_logs_calls(text)
    modules, dynamo = (kw.value for kw in call.keywords)
    assert isinstance(modules, DictValue)
    assert isinstance(modules.entries[0].value, NotStatic)  # a dict in a dict: not static
    assert isinstance(dynamo, IntValue) and dynamo.value == 1
    # deeper is a SyntaxError ("too many nested parentheses"): the module is not read
    deeper = "{'a': " * 5000 + "1" + "}" * 5000
    assert python.set_logs_calls(f"import torch\ntorch._logging.set_logs(modules={deeper})\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "from torch._logging import set_logs\nimport os; from mylib import set_logs\n"
        "set_logs(dynamo=True)\n",
        "import torch\nif x: import mine as torch\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\nfor torch in xs: pass\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\nwith f() as torch: pass\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\n[torch for torch in xs]\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\n(torch := 1)\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\nglobal torch\ntorch._logging.set_logs(dynamo=True)\n",
        "import torch\ndel torch\ntorch._logging.set_logs(dynamo=True)\n",
    ],
)
def test_any_other_binding_of_the_name_leaves_the_call_alone(text: str):
    assert python.set_logs_calls(text) == []


# -- TORCH_LOGS certainly set before the call: torch ignores it (TL631) ----------------

_SET = 'import logging, os\nos.environ["TORCH_LOGS"] = "+dynamo"\nimport torch\n'


@pytest.mark.parametrize(
    ("text", "ignored"),
    [
        (_SET + "torch._logging.set_logs(dynamo=True)\n", True),
        (
            _SET.replace('["TORCH_LOGS"] = "+dynamo"', '.setdefault("TORCH_LOGS", "x")')
            + "torch._logging.set_logs(dynamo=True)\n",
            True,
        ),
        # not certain: the write may not run, may be undone, or the call may run elsewhere
        (_SET.replace("os.environ", "flag and os.environ") + "torch._logging.set_logs()\n", False),
        (
            _SET.replace("os.environ[", "if x:\n    os.environ[") + "torch._logging.set_logs()\n",
            False,
        ),
        (_SET + 'del os.environ["TORCH_LOGS"]\ntorch._logging.set_logs(dynamo=True)\n', False),
        (_SET + 'os.environ.pop("TORCH_LOGS")\ntorch._logging.set_logs(dynamo=True)\n', False),
        (_SET + "def f():\n    torch._logging.set_logs(dynamo=True)\n", False),
        ("import torch, os\ntorch._logging.set_logs()\nos.environ['TORCH_LOGS'] = 'x'\n", False),
        (
            "import torch\nsubprocess.run(c, env={'TORCH_LOGS': 'x'})\ntorch._logging.set_logs()\n",
            False,
        ),
    ],
)
def test_torch_logs_set_before_the_call(text: str, ignored: bool):
    (call,) = python.set_logs_calls(text)
    assert (call.torch_logs_set is not None) is ignored


def test_an_ignored_call_keeps_only_what_python_raises_while_binding():
    text = _SET + "torch._logging.set_logs(loop_ordering=True, dynamo=True, guards=10)\n"
    (call,) = python.set_logs_calls(text)
    codes = [d.code for d in check_set_logs(call, load_registry("2.13"))]
    # the TypeError stays; the ValueErrors do not happen; and no TL631: Python raises while
    # binding the arguments, before torch could log that it ignores the call
    assert codes == ["TL602"]
    fine = _SET + "torch._logging.set_logs(dynamo=True, guards=10)\n"
    (call,) = python.set_logs_calls(fine)
    assert [d.code for d in check_set_logs(call, load_registry("2.13"))] == ["TL631"]


@pytest.mark.oracle
def test_torch_ignores_set_logs_when_torch_logs_is_set():
    """torch 2.13: with TORCH_LOGS set, set_logs(dynamo=True) does not raise (it warns);
    without it, the same call raises ValueError; a bad keyword raises TypeError either way."""
    prog = (
        "import os, sys\n"
        "if sys.argv[1] == 'set': os.environ['TORCH_LOGS'] = '+dynamo'\n"
        "import torch\n"
        "for kw in ({'dynamo': True}, {'loop_ordering': True}):\n"
        "    try:\n"
        "        torch._logging.set_logs(**kw)\n"
        "        print('ok')\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_")}
    got = {
        mode: subprocess.run(
            [sys.executable, "-c", prog, mode],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=scratch_dir(),
        ).stdout.split()
        for mode in ("set", "unset")
    }
    assert got == {"set": ["ok", "TypeError"], "unset": ["ValueError", "TypeError"]}


@pytest.mark.parametrize(
    "text",
    [
        # a local copy named `environ` is not the process's environment
        "import os\nenviron = os.environ.copy()\nenviron['TORCH_LOGS'] = 'x'\nimport torch\n"
        "torch._logging.set_logs(dynamo=True)\n",
        # a call in between may take the variable away again
        _SET + "reset()\ntorch._logging.set_logs(dynamo=True)\n",
        _SET + "mock.patch.dict(os.environ, {}, clear=True).start()\n"
        "torch._logging.set_logs(dynamo=True)\n",
    ],
)
def test_not_certainly_set_when_the_call_runs(text: str):
    """Calls that must not get TL631 (it would hide the ValueError torch raises)."""
    (call,) = python.set_logs_calls(text)
    assert call.torch_logs_set is None
    assert "TL611" in [d.code for d in check_set_logs(call, load_registry("2.13"))]


def test_environ_from_os_is_the_process_environment():
    text = "from os import environ\nenviron['TORCH_LOGS'] = 'x'\nimport torch\n"
    (call,) = python.set_logs_calls(text + "torch._logging.set_logs(dynamo=True)\n")
    assert call.torch_logs_set == "line 2"


def test_many_calls_stay_fast():
    """5,000 module-level calls after one write: each looked up by bisection (the text
    was searched once per call: 22 s). Bounded work, not timed: every call is answered."""
    text = _SET + "torch._logging.set_logs(dynamo=True)\n" * 5000
    calls = python.set_logs_calls(text)
    assert len(calls) == 5000
    assert calls[0].torch_logs_set == "line 2" and calls[1].torch_logs_set is None
