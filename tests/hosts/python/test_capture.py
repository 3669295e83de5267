"""Which values Python code gives to child processes that capture stderr (TL411,
:mod:`.python.capture`), with a differential check: the same code run with a child that
prints to stderr."""

from __future__ import annotations

import sys

import pytest

from tests.support.oracles import run_python
from torch_logs_lsp.hosts.python import host as python

ENV = '{**os.environ, "TORCH_LOGS": "output_code"}'
HEAD = "import os, subprocess, sys\n"
#: (code, kept): the flag of the code's only span.
CASES: list[tuple[str, bool]] = [
    (f"subprocess.run(CMD, env={ENV}, capture_output=True)", True),
    (f"subprocess.run(CMD, env={ENV}, stderr=2)", False),  # the parent's descriptor 2
    (f"subprocess.run(CMD, env={ENV}, stderr=1, stdout=subprocess.PIPE)", False),
    (f"subprocess.run(CMD, env={ENV}, stderr=subprocess.PIPE)", True),
    (f"subprocess.run(CMD, env={ENV}, stderr=subprocess.DEVNULL)", True),
    (f"subprocess.check_call(CMD, env={ENV}, stderr=open('err.log', 'w'))", True),
    (f"subprocess.check_output(CMD, env={ENV}, stderr=subprocess.STDOUT)", True),
    (
        f"with open('run.log', 'w') as f:\n"
        f"    subprocess.run(CMD, env={ENV}, stdout=f, stderr=subprocess.STDOUT)",
        True,
    ),
    (f"subprocess.Popen(CMD, env={ENV}, stderr=subprocess.PIPE).communicate()", True),
    (
        "subprocess.run(CMD, env=dict(os.environ, TORCH_LOGS='output_code'), capture_output=True)",
        True,
    ),
    (
        "env = os.environ.copy()\nenv['TORCH_LOGS'] = 'output_code'\n"
        "subprocess.run(CMD, env=env, capture_output=True)",
        True,
    ),
    (
        "env = dict(os.environ)\nenv.update(TORCH_LOGS='output_code')\n"
        "subprocess.run(CMD, env=env, stderr=subprocess.PIPE)",
        True,
    ),
    (
        "env = os.environ.copy()\nenv.update({'TORCH_LOGS': 'output_code'})\n"
        "subprocess.run(CMD, env=env, capture_output=True)",
        True,
    ),
    (
        "env = os.environ.copy()\nenv.update({'TORCH_LOGS': 'output_code'})\n"
        "subprocess.run(CMD, env=env)",
        False,
    ),
    ("os.environ.update({'TORCH_LOGS': 'output_code'})\nsubprocess.run(CMD)", False),
    (f"subprocess.run(CMD, env={ENV})", False),
    (f"subprocess.run(CMD, env={ENV}, capture_output=False)", False),
    (f"subprocess.run(CMD, env={ENV}, stderr=None)", False),
    (f"subprocess.run(CMD, env={ENV}, stderr=sys.stderr)", False),
    (f"subprocess.run(CMD, env={ENV}, stdout=subprocess.PIPE)", False),  # stdout only
    (f"subprocess.run(CMD, env={ENV}, stderr=subprocess.STDOUT)", False),  # to our stdout
    (
        f"subprocess.run(CMD, env={ENV}, stderr=subprocess.PIPE if len(CMD) > 9 else None)",
        False,
    ),
    (
        "env = os.environ.copy()\nenv['TORCH_LOGS'] = 'output_code'\n"
        "subprocess.run(CMD, env=env, capture_output=True)\nsubprocess.run(CMD, env=env)",
        False,
    ),
    (
        "env = os.environ.copy()\nenv['TORCH_LOGS'] = 'output_code'\nprint(len(env))\n"
        "subprocess.run(CMD, env=env, capture_output=True)",
        False,
    ),  # another use: not followed
    ("os.environ['TORCH_LOGS'] = 'output_code'\nsubprocess.run(CMD, capture_output=True)", False),
]
DOUBT = {CASES[-2][0]}
_CHILD = "import os, sys; sys.stderr.write('MARK' + os.environ['TORCH_LOGS'])"
CMD = f"CMD = [{sys.executable!r}, '-c', {_CHILD!r}]\n"


@pytest.mark.parametrize(("code", "kept"), CASES, ids=[c[0] for c in CASES])
def test_child_stderr(code: str, kept: bool) -> None:
    text = HEAD + code
    spans = python.extract(text)
    assert [s.variable for s in spans] == ["TORCH_LOGS"]
    assert python.stderr_captured(text, spans) == [kept]


def test_import_forms() -> None:
    text = (
        "import os\nimport subprocess as sp\nfrom subprocess import (\n    PIPE,\n"
        "    run as go,\n)\n"
        f"go(CMD, env={ENV}, stderr=PIPE)\nsp.call(CMD, env={ENV}, stderr=PIPE)\n"
        f"other.run(CMD, env={ENV}, stderr=PIPE)\n"
    )
    assert python.stderr_captured(text, python.extract(text)) == [True, True, False]


def test_python_agrees() -> None:
    """Each case run with a child that writes to stderr: what reaches the parent's own
    stdout/stderr is shown, the rest kept."""
    for code, kept in CASES:
        if code.startswith("os.environ") or code in DOUBT:
            continue  # no child reads it; not followed (said not kept, in doubt)
        done = run_python(HEAD + CMD + code, timeout=60)
        assert done.returncode == 0, done.stderr
        shown = "MARKoutput_code" in done.stdout + done.stderr
        assert shown != kept, f"python {'shows' if shown else 'keeps'} the stderr of {code!r}"
