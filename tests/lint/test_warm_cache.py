"""TL431 through the one pipeline (:func:`.pipeline.check_document`): a TORCH_LOGS item that
enables a name swallowed on a warm compile cache (measured on torch 2.13,
``knowledge/data/warm-cache-2.13.json``) gets a hint in every host, unless the file mentions
a cache switch."""

from __future__ import annotations

import subprocess

import pytest

from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.knowledge.warm_cache import swallowed
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.lint.warm_cache import WARM_CACHE, caches_mentioned, warm_cache_hints
from torch_logs_lsp.model.diagnostic import Severity
from torch_logs_lsp.value.analysis import analyse

R213 = load_registry("2.13")


def hints(text: str, host: str, release: str = "2.13") -> list[tuple[int, str]]:
    """(line, text under the squiggle) of each TL431 finding."""
    lines = text.splitlines()
    out = []
    for f in findings(text, host, registry=load_registry(release)):
        if f.diagnostic.code == WARM_CACHE:
            assert f.diagnostic.severity == Severity.HINT
            assert f.line == f.end_line
            out.append((f.line, lines[f.line][f.column : f.end_column]))
    return out


HOSTS = [
    ("dotenv", "TORCH_LOGS=+dynamo,post_grad_graphs\n", 0),
    ("shell", "#!/bin/sh\nexport TORCH_LOGS=post_grad_graphs\npython train.py\n", 1),
    ("shell", "TORCH_LOGS=post_grad_graphs python train.py\n", 0),
    (
        "python",
        'import os\nos.environ["TORCH_LOGS"] = "post_grad_graphs"\nimport torch\n',
        1,
    ),
    (
        "yaml",
        "on: push\njobs:\n  t:\n    runs-on: x\n    env:\n      TORCH_LOGS: post_grad_graphs\n"
        "    steps:\n      - run: python a.py\n",
        5,
    ),
    (
        "jsonc",
        '{"configurations": [{"type": "debugpy", "request": "launch", "program": "a.py",\n'
        ' "env": {"TORCH_LOGS": "post_grad_graphs"}}]}\n',
        1,
    ),
]


@pytest.mark.parametrize(("host", "text", "line"), HOSTS)
def test_hint_in_each_host(host: str, text: str, line: int) -> None:
    assert hints(text, host) == [(line, "post_grad_graphs")]


SWITCHED = [
    ("dotenv", "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1\nTORCH_LOGS=post_grad_graphs\n"),
    ("dotenv", "TORCH_LOGS=post_grad_graphs\nTORCH_COMPILE_FORCE_DISABLE_CACHES=1\n"),
    ("dotenv", "TORCHINDUCTOR_FX_GRAPH_CACHE=0\nTORCH_LOGS=post_grad_graphs\n"),
    ("dotenv", "TORCHINDUCTOR_FREEZING=1\nTORCH_LOGS=post_grad_graphs\n"),
    (
        "shell",
        'export TORCHINDUCTOR_CACHE_DIR="$(mktemp -d)"\nTORCH_LOGS=post_grad_graphs python a.py\n',
    ),
    (
        "python",
        'import os\nos.environ["TORCH_LOGS"] = "post_grad_graphs"\nimport torch\n'
        "torch._inductor.config.post_grad_custom_post_pass = my_pass\n",
    ),
    ("shell", "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 TORCH_LOGS=post_grad_graphs python a.py\n"),
    (
        "python",
        'import os\nos.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"\n'
        'os.environ["TORCH_LOGS"] = "post_grad_graphs"\nimport torch\n',
    ),
    (
        "python",
        'import os\nos.environ["TORCH_LOGS"] = "post_grad_graphs"\nimport torch\n'
        "torch._inductor.config.force_disable_caches = True\n",
    ),
    (
        "yaml",
        "on: push\njobs:\n  t:\n    runs-on: x\n    env:\n      TORCH_LOGS: post_grad_graphs\n"
        '      TORCHINDUCTOR_FORCE_DISABLE_CACHES: "1"\n    steps:\n      - run: python a.py\n',
    ),
    (
        "jsonc",
        '{"configurations": [{"type": "debugpy", "request": "launch", "program": "a.py",\n'
        ' "env": {"TORCH_LOGS": "post_grad_graphs",\n'
        '  "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}}]}\n',
    ),
]


@pytest.mark.parametrize(("host", "text"), SWITCHED)
def test_no_hint_when_the_file_turns_the_caches_off(host: str, text: str) -> None:
    assert hints(text, host) == []
    assert caches_mentioned(text)


def test_names_printed_on_a_warm_cache_get_none() -> None:
    # measured on torch 2.13: output_code and aot_graphs print from the cache
    assert hints("TORCH_LOGS=output_code,aot_graphs,+inductor,all\n", "dotenv") == []


def test_each_item_that_names_it() -> None:
    text = "TORCH_LOGS=post_grad_graphs,+dynamo,post_grad_graphs\n"
    assert hints(text, "dotenv") == [(0, "post_grad_graphs"), (0, "post_grad_graphs")]


def test_a_dead_value_gets_none() -> None:
    text = "export TORCH_LOGS=post_grad_graphs\nexport TORCH_LOGS=dynamo\npython a.py\n"
    assert hints(text, "shell") == []


def test_a_release_without_the_rule_gets_none() -> None:
    # 2.1 is not in warm-cache-by-version.json: nothing measured or carried, nothing said
    assert swallowed("2.1") == frozenset()
    assert hints("TORCH_LOGS=post_grad_graphs\n", "dotenv", "2.1") == []


def test_the_hint_sits_on_the_item() -> None:
    analysis = analyse("+dynamo, post_grad_graphs", R213)
    [diag] = warm_cache_hints(analysis)
    assert (diag.start, diag.end) == (9, 25)
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1" in diag.message


def test_an_invalid_value_gets_none() -> None:
    assert warm_cache_hints(analyse("post_grad_graphs,,", R213)) == []
    assert warm_cache_hints(None) == []


# The fix, read back by the real readers: the process gets the switch, TORCH_LOGS unchanged.
def _real_env(host: str, text: str) -> dict[str, str | None]:
    import io
    import json

    import json5
    import yaml
    from dotenv import dotenv_values

    from tests.support.oracles import run_python, scratch_dir

    names = ("TORCH_LOGS", "TORCHINDUCTOR_FORCE_DISABLE_CACHES")
    if host == "dotenv":
        values = dotenv_values(stream=io.StringIO(text), interpolate=False)
        return {n: values.get(n) for n in names}
    if host == "shell":  # what the command started in place of `python a.py` gets
        script = text.replace("python a.py", "env")
        out = subprocess.run(
            ["bash", "--noprofile", "--norc"],
            input=script,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
            cwd=scratch_dir(),
            check=True,
        )
        pairs = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
        return {n: pairs.get(n) for n in names}
    if host == "python":
        code = text + f"print(json.dumps({{n: os.environ.get(n) for n in {names!r}}}))\n"
        out = run_python("import json\n" + code, env={"PATH": "/usr/bin:/bin"}, check=True)
        return json.loads(out.stdout)
    if host == "yaml":
        env = yaml.safe_load(text)["jobs"]["t"]["env"]
        return {n: None if env.get(n) is None else str(env[n]) for n in names}
    env = json5.loads(text)["configurations"][0]["env"]
    return {n: env.get(n) for n in names}


FIXED = [
    ("dotenv", "A=1\r\nTORCH_LOGS=post_grad_graphs\r\nB=2\r\n"),
    ("shell", "#!/bin/sh\nexport TORCH_LOGS=post_grad_graphs\npython a.py\n"),
    ("shell", "TORCH_LOGS=post_grad_graphs python a.py\n"),
    ("shell", "env TORCH_LOGS=post_grad_graphs python a.py\n"),
    (
        "python",
        "import os\nif True:\n    os.environ['TORCH_LOGS'] = 'post_grad_graphs'\n",
    ),
    (
        "yaml",
        "on: push\njobs:\n  t:\n    runs-on: x\n    env:\n      TORCH_LOGS: post_grad_graphs\n"
        "    steps:\n      - run: python a.py\n",
    ),
    (
        "jsonc",
        '{"configurations": [{"type": "debugpy", "request": "launch", "program": "a.py",\n'
        '  "env": {"A": "1", "TORCH_LOGS": "post_grad_graphs"}}]}\n',
    ),
    (
        "jsonc",
        '{"configurations": [{"type": "debugpy", "request": "launch", "program": "a.py",\n'
        '  "env": {\n    "TORCH_LOGS": "post_grad_graphs"\n  }\n}]}\n',
    ),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("host", "text"), FIXED)
def test_the_fix_sets_the_switch_for_the_same_process(host: str, text: str) -> None:
    from torch_logs_lsp import hosts
    from torch_logs_lsp.hosts.edits import apply_text_edits
    from torch_logs_lsp.lint.warm_cache import switch_edit

    [span] = [s for s in hosts.extract(host, text) if s.variable == "TORCH_LOGS"]
    edit = switch_edit(host, text, span)
    assert edit is not None
    new = apply_text_edits(text, [edit])
    assert _real_env(host, text) == {
        "TORCH_LOGS": "post_grad_graphs",
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES": None,
    }
    assert _real_env(host, new) == {
        "TORCH_LOGS": "post_grad_graphs",
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
    }
    assert hints(text, host) and hints(new, host) == []


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("shell", 'alias t="TORCH_LOGS=post_grad_graphs python a.py"\n'),
        ("python", "import os\nif 1: os.environ['TORCH_LOGS'] = 'post_grad_graphs'\n"),
        ("yaml", "services:\n  a:\n    environment:\n      - TORCH_LOGS=post_grad_graphs\n"),
        ("toml", '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=post_grad_graphs"]\n'),
    ],
)
def test_no_fix_where_the_form_is_not_known(host: str, text: str) -> None:
    from torch_logs_lsp import hosts
    from torch_logs_lsp.lint.warm_cache import switch_edit

    spans = [s for s in hosts.extract(host, text) if s.variable == "TORCH_LOGS"]
    assert all(switch_edit(host, text, s) is None for s in spans)


def test_a_release_the_rule_is_carried_to() -> None:
    # 2.15: post_grad_graphs' logging code is the 2.13 one, fusion's is not
    assert hints("TORCH_LOGS=post_grad_graphs,fusion\n", "dotenv", "2.15") == [
        (0, "post_grad_graphs")
    ]
    assert hints("TORCH_LOGS=post_grad_graphs,fusion\n", "dotenv") == [
        (0, "post_grad_graphs"),
        (0, "fusion"),
    ]
    [f] = [
        f
        for f in findings("TORCH_LOGS=post_grad_graphs\n", "dotenv", registry=load_registry("2.15"))
        if f.diagnostic.code == WARM_CACHE
    ]
    assert (
        "measured on torch 2.13; the code that logs it is the same in 2.15" in f.diagnostic.message
    )
