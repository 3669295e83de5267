"""Names a Python document registers with torch itself (register_log/register_artifact):
its values are checked with them. Oracle: torch 2.13 reading the value again after the
registration."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support.oracles import run_python
from torch_logs_lsp.hosts.python.registrations import Registered, registered
from torch_logs_lsp.lint.pipeline import findings

_REGISTER = (
    "import os\nimport torch\nimport torch._logging._internal as I\n"
    'I.register_artifact("mylib_hello", "demo artifact", off_by_default=True)\n'
    'I.register_log("mylib", ["mylib.core"])\n'
)


def codes(text: str, host: str = "python") -> list[str]:
    return [f.diagnostic.code for f in findings(text, host)]  # type: ignore[arg-type]


def test_registered_names_are_read() -> None:
    text = (
        'register_artifact("a1", "d")\nregister_artifact(\n    "a2",\n    "d",\n'
        "    visible=True,\n    off_by_default=True,\n)\n"
        'register_log(\'c1\', \'c1.x\')\nregister_log("c2", ["c2.a", "c2.b"])  # two\n'
        "register_artifact(name, 'd')\n"  # not a literal: not known
        "_init_logs()\n"
        "register_artifact('a3', 'registered after the last read: not known')\n"
    )
    assert registered(text) == Registered(
        (("c1", ("c1.x",)), ("c2", ("c2.a", "c2.b"))),
        (("a1", False, False), ("a2", True, True)),
    )
    assert registered("x = 1\n") == Registered((), ())
    assert registered("register_artifact('a1', 'never read again')\n") == Registered((), ())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("mylib_hello", []),
        ("+mylib,mylib_hello", []),
        ("mylib_helo", ["TL201"]),  # a typo of it is still unknown
        ("+dynamo,mylib_hello", []),
    ],
)
def test_values_in_the_document_know_them(value: str, expected: list[str]) -> None:
    text = _REGISTER + f'os.environ["TORCH_LOGS"] = "{value}"\ntorch._logging._init_logs()\n'
    assert codes(text) == expected


def test_other_documents_do_not() -> None:
    assert codes('TORCH_LOGS="mylib_hello" python x.py\n', "shell") == ["TL201"]
    assert codes('import os\nos.environ["TORCH_LOGS"] = "mylib_hello"\nimport torch\n') == ["TL201"]


def test_a_notebook_cell_knows_them() -> None:
    cell = _REGISTER + "%env TORCH_LOGS=mylib_hello\ntorch._logging._init_logs()\n"
    assert "TL201" not in codes(cell, "ipython")


@pytest.mark.oracle
def test_torch_accepts_a_registered_name_read_again() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_")}
    good = _REGISTER + 'os.environ["TORCH_LOGS"] = "mylib_hello"\ntorch._logging._init_logs()\n'
    proc: subprocess.CompletedProcess[str] = run_python(good, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    bad = good.replace('"mylib_hello"\n', '"mylib_helo"\n')
    proc = run_python(bad, env=env)
    assert proc.returncode != 0 and "Invalid log settings" in proc.stderr, proc.stderr[-2000:]


def test_a_read_before_the_registration_rejects_the_name() -> None:
    text = (
        "import os\nimport torch\nimport torch._logging._internal as I\n"
        'os.environ["TORCH_LOGS"] = "mylib_hello"\ntorch._logging._init_logs()\n'
    )
    late = text + 'I.register_artifact("mylib_hello", "too late")\n'
    assert "TL201" in codes(late)
