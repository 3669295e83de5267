"""The TOML host against the programs that read the files: pytest-env (a real pytest run
with the installed release: :mod:`tests.support.pytest_oracle`) and tox 4 (``tox config``), on
generated values.

pytest-env reads every entry of a list the same way whatever its name, so a generated
document sets ``V0``..``V24`` (one session for all) and each value is compared with
what the host reads from the same entry written as ``TORCH_LOGS=...`` (plus one real
``TORCH_LOGS`` entry). A value the host calls not static (``None``) is only counted."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.pytest_oracle import pytest_run
from torch_logs_lsp.hosts.toml import host as toml
from torch_logs_lsp.hosts.toml.strings import STYLES, encode_part

pytestmark = pytest.mark.oracle

PIECES = ["a", "+dynamo", ",", "guards", " ", "\t", "é", "😀", '"', "'", "=", ":", "-"]
BRACES = ["{{", "}}", "{HOME}"]
FLAGS = ["", "R:", "D:", "D:R:", " r : "]
N = 25


def bodies(seed: int, braces: bool) -> list[str]:
    rng = random.Random(seed)
    pieces = PIECES + (BRACES if braces else [])
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(N)]


def literal(rng: random.Random, text: str) -> str:
    """``text`` as a TOML string in a random style that can hold it."""
    for style in rng.sample(STYLES, len(STYLES)):
        body = encode_part(style, text)
        if body is not None:
            return style + body + style
    raise AssertionError(text)


def run_pytest(pyproject: str) -> dict[str, str]:
    """The environment a test sees under ``pyproject`` (pytest must not stop)."""
    run = pytest_run({"pyproject.toml": pyproject})
    assert run.env is not None, f"pytest stopped on {pyproject!r}: {run.describe()}"
    return run.env


def host_value(doc: str) -> str | None:
    (span,) = toml.extract(doc)
    return span.value


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("form", ["ini_options", "pytest_env_table"])
def test_pytest_env_reads_what_the_host_reads(form: str, seed: int) -> None:
    rng = random.Random(f"{form}{seed or ''}")
    values = bodies((16 if form == "ini_options" else 17) + 100 * seed, braces=True)
    if form == "ini_options":
        flags = [rng.choice(FLAGS) for _ in values]
        pairs = list(zip(flags, values, strict=True))
        items = [literal(rng, f"{f}V{i}={v}") for i, (f, v) in enumerate(pairs)]
        doc = "[tool.pytest.ini_options]\nenv = [\n" + "".join(f"  {x},\n" for x in items)
        doc += '  "TORCH_LOGS=Dynamo",\n]\n'
        twins = [literal(rng, f"{f}TORCH_LOGS={v}") for f, v in zip(flags, values, strict=False)]
        expected = [host_value(f"[tool.pytest.ini_options]\nenv = [{t}]\n") for t in twins]
    else:
        items = []
        for i, v in enumerate(values):
            transform = rng.random() < 0.5
            if transform:
                items.append(f"V{i} = {{value = {literal(rng, v)}, transform = true}}")
            else:
                items.append(f"V{i} = {literal(rng, v)}")
        doc = "[tool.pytest_env]\n" + "".join(x + "\n" for x in items) + 'TORCH_LOGS = "Dynamo"\n'
        expected = [
            host_value("[tool.pytest_env]\n" + x.replace(f"V{i} =", "TORCH_LOGS =", 1) + "\n")
            for i, x in enumerate(items)
        ]
    assert toml.stops(doc) == []
    got = run_pytest(doc)
    assert got["TORCH_LOGS"] == "Dynamo" == toml.extract(doc)[-1].value
    static = 0
    for i, want in enumerate(expected):
        if want is not None:
            static += 1
            assert got.get(f"V{i}") == want, (
                f"pytest-env sets V{i} to {got.get(f'V{i}')!r}, the TOML host reads {want!r} "
                f"from {items[i]}"
            )
    assert static >= N // 3  # the sample is not all "not static"


@pytest.mark.skipif(
    shutil.which("tox", path=str(Path(sys.executable).parent)) is None, reason="tox"
)
def test_tox_config_reads_what_the_host_reads(tmp_path: Path) -> None:
    rng = random.Random(18)
    values = [v.replace("\t", " ") for v in bodies(18, braces=False)]
    items = [f"V{i} = {literal(rng, v)}" for i, v in enumerate(values)]
    doc = (
        'env_list = ["py"]\n[env_run_base]\nskip_install = true\npackage = "skip"\n'
        "[env_run_base.set_env]\n" + "".join(x + "\n" for x in items)
    )
    (tmp_path / "tox.toml").write_text(doc, encoding="utf-8")
    tox = str(Path(sys.executable).parent / "tox")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    out = subprocess.run(
        [tox, "config", "-e", "py", "-k", "set_env"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    ).stdout.decode("utf-8")
    read: dict[str, str] = {}
    for line in out.splitlines():
        name, eq, value = line.strip(" ").partition("=")
        if eq and name.startswith("V"):
            read[name] = value
    for i, x in enumerate(items):
        want = host_value("[env_run_base.set_env]\n" + x.replace(f"V{i} =", "TORCH_LOGS =", 1))
        assert want is not None  # no brace or backslash: static
        # tox prints each line after two blanks; a value's own outer blanks stay
        assert read[f"V{i}"].rstrip(" ") == want.rstrip(" "), (i, x)


def test_pytest_env_keeps_the_value_the_host_keeps_live() -> None:
    doc = (
        "[tool.pytest.ini_options]\n"
        'env = ["TORCH_LOGS=a", "TORCH_LOGS=b", "D:TORCH_LOGS=c", "V0=x", "TORCH_LOGS=d",\n'
        '  "D:TORCH_LOGS=e"]\n'
    )
    spans = toml.extract(doc)
    dead = {o.dead for o in toml.overwritten(doc, spans)}
    live = [s.value for i, s in enumerate(spans) if i not in dead]
    assert run_pytest(doc)["TORCH_LOGS"] == "d"
    assert live[-2:] == ["d", "e"] and "d" in live and not {"a", "b", "c"} & set(live)


def test_both_pytest_tables_stop_pytest_and_the_host_reads_nothing() -> None:
    doc = '[tool.pytest]\naddopts = ["-q"]\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=a"]\n'
    run = pytest_run({"pyproject.toml": doc})
    assert run.stopped and "Cannot use both" in run.output, (
        f"pytest 9 no longer stops on [tool.pytest] with [tool.pytest.ini_options]: "
        f"{run.describe()}"
    )
    assert toml.extract(doc) == []
    ((start, end, message),) = toml.stops(doc)  # TL504
    assert doc[start:end] == "ini_options" and "no test sees TORCH_LOGS" in message
