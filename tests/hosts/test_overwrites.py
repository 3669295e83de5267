"""Overwritten values per host (TL502's host part), each case checked against the host's
real reader: bash runs the script and every command records what it sees; python-dotenv's
``dotenv_values``; json5 (duplicate keys: the last wins, as in VS Code's jsonc-parser);
Python itself (``ast.literal_eval`` of the dict display, ``exec`` of the module-level
writes in a subprocess)."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import json5
import pytest
from dotenv import dotenv_values
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.oracles import BASH, scratch_dir
from torch_logs_lsp import hosts
from torch_logs_lsp.model.spans import ValueSpan


def dead_pairs(host: str, text: str) -> tuple[list[ValueSpan], list[tuple[int, int]]]:
    spans = hosts.extract(host, text)
    module = hosts.overwrites_host(host)
    assert module is not None
    return spans, [(o.dead, o.live) for o in module.overwritten(text, spans)]


# --- shell: bash is the oracle ------------------------------------------------------------

_RECORDER = '#!/bin/sh\nprintf "%s\\n" "${TORCH_LOGS-<unset>}" >> "$SEEN"\n'

# (script, dead pairs, whether every assigned value is seen by some process)
SHELL_CASES: list[tuple[str, list[tuple[int, int]], bool]] = [
    ('export TORCH_LOGS="+recompiles"\nexport TORCH_LOGS="+graph_breaks"\n', [(0, 1)], False),
    ("export TORCH_LOGS=+dynamo\npython a.py\nexport TORCH_LOGS=+guards\n", [], True),
    ("TORCH_LOGS=+dynamo TORCH_LOGS=+guards cmd\n", [(0, 1)], False),
    ("export TORCH_LOGS=+dynamo TORCH_LOGS=+guards\n", [(0, 1)], False),
    ("env TORCH_LOGS=+dynamo TORCH_LOGS=+guards cmd\n", [(0, 1)], False),
    ("/usr/bin/env -u X TORCH_LOGS=+dynamo TORCH_LOGS=+guards cmd\n", [(0, 1)], False),
    ("env TORCH_LOGS=+dynamo cmd\nenv TORCH_LOGS=+guards cmd\n", [], True),
    ("TORCH_LOGS=+dynamo TORCH_LOGS=+guards\nexport TORCH_LOGS\n", [(0, 1)], False),
    (
        "TORCH_LOGS=+dynamo\n# note\nOTHER=1\nexport TORCH_LOGS_OUT=/tmp/x.txt\n"
        "export TORCH_LOGS=+guards\n",
        [(0, 2)],
        False,
    ),
    ("f() { cmd; }\nexport TORCH_LOGS=+dynamo\nf\nexport TORCH_LOGS=+guards\n", [], True),
    ("export TORCH_LOGS=+dynamo\ncmd | cmd\nexport TORCH_LOGS=+guards\n", [], True),
    ("export TORCH_LOGS=+dynamo\nX=$(cmd)\nexport TORCH_LOGS=+guards\n", [], True),
    ("export TORCH_LOGS=+dynamo\nexport TORCH_LOGS=$TORCH_LOGS,+guards\n", [], False),
    ("export TORCH_LOGS=+dynamo && cmd && export TORCH_LOGS=+guards\n", [], True),
    # the second runs in a background subshell: the first is what cmd sees
    ("export TORCH_LOGS=+dynamo; export TORCH_LOGS=+guards &\ncmd\nwait\n", [], False),
    (
        'if [ -n "${1-}" ]; then export TORCH_LOGS=+dynamo; else export TORCH_LOGS=+guards; fi\n',
        [],
        False,
    ),
    ("export TORCH_LOGS=+dynamo\nif true; then export TORCH_LOGS=+guards; fi\n", [], False),
    ('case "${1-}" in a) TORCH_LOGS=+dynamo;; *) TORCH_LOGS=+guards;; esac\n', [], False),
    (
        "for i in 1 2; do\n  export TORCH_LOGS=+dynamo\n  cmd\n  export TORCH_LOGS=+guards\ndone\n",
        [],
        True,
    ),
    (
        "for i in 1 2; do export TORCH_LOGS=+dynamo; export TORCH_LOGS=+guards; cmd; done\n",
        [(0, 1)],
        False,
    ),
    ("f() {\n  export TORCH_LOGS=+dynamo\n  export TORCH_LOGS=+guards\n}\nf\n", [(0, 1)], False),
    ("local_f() { local TORCH_LOGS=+dynamo; TORCH_LOGS=+guards; cmd; }\nlocal_f\n", [], False),
    # bash expands every word of the second export before assigning:
    # `cmd` sees the first value; an append reads it
    ("export TORCH_LOGS=+dynamo\nexport TORCH_LOGS=+guards X=`cmd`\n", [], True),
    ("export TORCH_LOGS=+dynamo\nexport TORCH_LOGS=+guards X=$(cmd)\n", [], True),
    # (a prefix's $(cmd) runs without the prefix values: the first is dead, not claimed)
    ("TORCH_LOGS=+dynamo TORCH_LOGS=+guards X=$(cmd) cmd\n", [], False),
    ("export TORCH_LOGS=aot_g\nexport TORCH_LOGS+=,guards\n", [], False),
    ("TORCH_LOGS=aot_g TORCH_LOGS+=,guards cmd\n", [], False),
]


def seen_by_processes(script: str, tmp: Path) -> list[str]:
    """What each process the script starts sees in TORCH_LOGS, and what one started after
    the script would see (``cmd``, ``python``: recorders on PATH)."""
    assert BASH is not None
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("cmd", "python"):
        (bin_dir / name).write_text(_RECORDER)
        (bin_dir / name).chmod(0o755)
    seen = tmp / "seen"
    seen.write_text("")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SEEN": str(seen), "LC_ALL": "C.UTF-8"}
    subprocess.run(
        [BASH, "--noprofile", "--norc"],
        input=(script + "cmd\n").encode(),
        env=env,
        check=True,
        timeout=60,
        cwd=tmp,
    )
    return seen.read_text().splitlines()


@pytest.mark.parametrize(("script", "expected", "all_seen"), SHELL_CASES)
def test_shell_against_bash(
    script: str, expected: list[tuple[int, int]], all_seen: bool, tmp_path: Path
) -> None:
    spans, pairs = dead_pairs("shell", script)
    assert pairs == expected
    seen = seen_by_processes(script, tmp_path)
    for dead, live in pairs:
        assert spans[dead].value not in seen  # no process ever sees the dead value
        assert spans[live].value in seen
    if all_seen:  # no pair claimed, and bash indeed shows every value to some process
        assert {s.value for s in spans if s.variable == "TORCH_LOGS"} <= set(seen)


# --- .env: python-dotenv is the oracle ----------------------------------------------------

DOTENV_CASES: list[tuple[str, list[tuple[int, int]]]] = [
    ("TORCH_LOGS=+recompiles\nTORCH_LOGS=+graph_breaks\n", [(0, 1)]),
    ("TORCH_LOGS=+dynamo\nTORCH_LOGS=+guards\nTORCH_LOGS=+aot\n", [(0, 1), (1, 2)]),
    ("TORCH_LOGS='+dynamo'\n# comment\nexport TORCH_LOGS=\"+guards\"\n", [(0, 1)]),
    ("TORCH_LOGS=+dynamo\nOTHER=${TORCH_LOGS}\nTORCH_LOGS=+guards\n", []),
    ("TORCH_LOGS=+dynamo\nTORCH_LOGS=${TORCH_LOGS},+guards\n", []),
    ("TORCH_LOGS=+dynamo\nTORCH_LOGS_OUT=/tmp/x.txt\n", []),
    ("TORCH_LOGS=+dynamo\nTORCH_LOGS_OUT=/tmp/a.txt\nTORCH_LOGS=+guards\n", [(0, 2)]),
]


@pytest.mark.parametrize(("text", "expected"), DOTENV_CASES)
def test_dotenv_against_python_dotenv(text: str, expected: list[tuple[int, int]]) -> None:
    spans, pairs = dead_pairs("dotenv", text)
    assert pairs == expected
    read = dotenv_values(stream=io.StringIO(text))
    values = set(read.values())
    for dead, live in pairs:
        if live not in {d for d, _ in pairs}:
            assert read[spans[live].variable] == spans[live].value
        assert spans[dead].value not in values  # not in any variable, not even by ${...}
    if not pairs:  # every static TORCH_LOGS value is read (kept or interpolated)
        static = {s.value for s in spans if s.value is not None and s.variable == "TORCH_LOGS"}
        assert all(any(v and v in str(r) for r in values) for v in static)


# --- launch.json: json5 is the oracle (duplicate keys: the last wins) ----------------------


def _launch(*envs: str) -> str:
    configs = ",\n".join(
        f'{{"name": "c{i}", "type": "debugpy", "request": "launch", "env": {{{env}}}}}'
        for i, env in enumerate(envs)
    )
    return f'{{"version": "0.2.0", "configurations": [\n{configs}\n]}}\n'


JSONC_CASES: list[tuple[str, list[tuple[int, int]]]] = [
    (_launch('"TORCH_LOGS": "+recompiles",\n "TORCH_LOGS": "+graph_breaks"'), [(0, 1)]),
    (_launch('"TORCH_LOGS": "+dynamo"', '"TORCH_LOGS": "+guards"'), []),
    (
        _launch('"TORCH_LOGS": "+dynamo", "TORCH_LOGS": "+aot", "TORCH_LOGS": "+guards"'),
        [(0, 1), (1, 2)],
    ),
    (_launch('"TORCH\\u005fLOGS": "+dynamo", "TORCH_LOGS": "+guards"'), [(0, 1)]),
    (
        _launch('"TORCH_LOGS": "+dynamo", // first\n "OTHER": "1",\n "TORCH_LOGS": "+guards",'),
        [(0, 1)],
    ),
    (_launch('"TORCH_LOGS": "+dynamo", "TORCH_LOGS_OUT": "/tmp/x.txt"'), []),
]


def _envs(doc: Any) -> list[dict[str, Any]]:
    return [c.get("env", {}) for c in doc["configurations"]]


@pytest.mark.parametrize(("text", "expected"), JSONC_CASES)
def test_jsonc_against_json5(text: str, expected: list[tuple[int, int]]) -> None:
    spans, pairs = dead_pairs("jsonc", text)
    assert pairs == expected
    envs = _envs(json5.loads(text))
    read = {v for env in envs for v in env.values()}
    for dead, live in pairs:
        assert spans[dead].value not in read
        assert spans[live].value in read or live in {d for d, _ in pairs}
    if not pairs:
        assert {s.value for s in spans} <= read


# --- Python: Python is the oracle -----------------------------------------------------------

_MODULE_CASES: list[tuple[str, list[tuple[int, int]]]] = [
    (
        'import os\nos.environ["TORCH_LOGS"] = "+recompiles"\nos.environ["TORCH_LOGS"] = '
        '"+graph_breaks"\n',
        [(0, 1)],
    ),
    (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"  # a\n# b\nos.environ["OTHER"] = "x"\n'
        'os.environ["TORCH_LOGS"] = "+guards"\n',
        [(0, 1)],
    ),
    (
        'from os import environ\nenviron["TORCH_LOGS"] = "+dynamo"; environ["TORCH_LOGS"] = '
        '"+guards"\n',
        [(0, 1)],
    ),
    (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nprint(os.environ["TORCH_LOGS"])\n'
        'os.environ["TORCH_LOGS"] = "+guards"\n',
        [],
    ),
    (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nimport json\n'
        'os.environ["TORCH_LOGS"] = "+guards"\n',
        [],
    ),
    (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nos.environ["TORCH_LOGS"] = '
        'os.environ["TORCH_LOGS"] + ",+guards"\n',
        [],
    ),
    (
        'import os\nif os.name:\n    os.environ["TORCH_LOGS"] = "+dynamo"\n'
        'os.environ["TORCH_LOGS"] = "+guards"\n',
        [],
    ),
    (
        'import os\ndef f():\n    os.environ["TORCH_LOGS"] = "+dynamo"\n'
        '    os.environ["TORCH_LOGS"] = "+guards"\nf()\n',
        [],
    ),
    (
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo"\nx = len("a")\n'
        'os.environ["TORCH_LOGS"] = "+guards"\n',
        [],
    ),
]

_PROBE = (
    "import os, builtins\n_seen = []\n_real = os.environ.__class__.__getitem__\n"
    "def _get(self, key):\n    v = _real(self, key)\n    if key == 'TORCH_LOGS': _seen.append(v)\n"
    "    return v\nos.environ.__class__.__getitem__ = _get\n"
)


def _python_reads(text: str) -> tuple[list[str], str]:
    """Run ``text`` (our own test snippet) and record every read of TORCH_LOGS from
    ``os.environ`` and its final value."""
    script = (
        _PROBE
        + text
        + ("\n_reads = list(_seen)\nprint(repr((_reads, os.environ.get('TORCH_LOGS'))))\n")
    )
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
        cwd=scratch_dir(),
    )
    seen, final = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    return seen, final


@pytest.mark.parametrize(("text", "expected"), _MODULE_CASES)
def test_python_writes_against_python(text: str, expected: list[tuple[int, int]]) -> None:
    spans, pairs = dead_pairs("python", text)
    assert pairs == expected
    seen, final = _python_reads(text)
    for dead, live in pairs:
        assert spans[dead].value not in seen and spans[dead].value != final
        assert spans[live].value == final


def test_python_read_between_is_seen() -> None:
    """The oracle agrees that a statement between can read the first value."""
    seen, _ = _python_reads(_MODULE_CASES[3][0])
    assert seen == ["+dynamo"]


_DICT_CASES: list[tuple[str, list[tuple[int, int]]]] = [
    (
        'import subprocess\nsubprocess.run(["x"], env={"TORCH_LOGS": "+dynamo", '
        '"TORCH_LOGS": "+guards"})\n',
        [(0, 1)],
    ),
    (
        'import os\nos.environ.update({"TORCH_LOGS": "+dynamo", "OTHER": "1", '
        '"TORCH_LOGS": "+guards"})\n',
        [(0, 1)],
    ),
    (
        'import subprocess\nsubprocess.run(["x"], env={"TORCH_LOGS": "+dynamo"})\n'
        'subprocess.run(["x"], env={"TORCH_LOGS": "+guards"})\n',
        [],
    ),
    (
        'import subprocess\nsubprocess.run(["x"], env={"TORCH_LOGS": "+dynamo", '
        '"TORCH_LOGS_OUT": "/tmp/a.txt", "TORCH_LOGS": "+aot", "TORCH_LOGS": "+guards"})\n',
        [(0, 2), (2, 3)],
    ),
]


@pytest.mark.parametrize(("text", "expected"), _DICT_CASES)
def test_python_dict_against_ast(text: str, expected: list[tuple[int, int]]) -> None:
    spans, pairs = dead_pairs("python", text)
    assert pairs == expected
    displays = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Dict)]
    values = [ast.literal_eval(d) for d in displays]
    read = {v for d in values for v in d.values()}
    for dead, live in pairs:
        assert spans[dead].value not in read
        assert spans[live].value in read or live in {d for d, _ in pairs}
    if not pairs:
        assert {s.value for s in spans} <= read


def test_bad_input_never_raises() -> None:
    for host in hosts.HOST_KINDS:
        module = hosts.overwrites_host(host)
        if module is None:  # the host never knows a value to be overwritten
            continue
        for text in ("", "TORCH_LOGS=a\nTORCH_LOGS=b\n" * 3, '{"TORCH_LOGS": "a", "TORCH_LOGS"'):
            spans = hosts.extract(host, text)
            module.overwritten(text, spans)
            module.overwritten(text, spans[::-1])  # spans that do not fit: no crash


_LINES = st.sampled_from(
    [
        "export TORCH_LOGS=+dynamo",
        "TORCH_LOGS=+guards",
        "TORCH_LOGS=a TORCH_LOGS=b cmd",
        "export TORCH_LOGS=x OTHER=1",
        "TORCH_LOGS=+aot python t.py",
        "# a comment",
        "",
        "OTHER=1",
        "cmd",
        "export TORCH_LOGS=+dynamo; cmd",
        "if true; then TORCH_LOGS=c; fi",
        "{ TORCH_LOGS=d; TORCH_LOGS=e; }",
        "X=$(cmd) TORCH_LOGS=f",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_LINES, min_size=2, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_the_textual_test_never_hides_what_the_parse_finds(lines: list[str], end: str):
    # the cheap test before the bash parse may only say "maybe": whenever the parse finds
    # an overwritten value, it must have let the parse run
    from torch_logs_lsp.hosts.shell import overwrites as shell_overwrites

    text = end.join(lines) + end
    spans = hosts.extract("shell", text)
    if len(spans) < 2:
        return
    if shell_overwrites._overwritten(text, spans):
        assert shell_overwrites._maybe_overwritten(text, spans)
