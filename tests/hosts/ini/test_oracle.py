"""The INI host against the real readers, through their public surface (differential, on
generated files):

- the file structure: iniconfig's public ``IniConfig(path)`` (what pytest 9.2 calls,
  ``_pytest/config/findpaths.py``) and the standard library's ``configparser`` set up as
  tox 4.67 sets it up (``ConfigParser(interpolation=None)`` on the file read with
  ``utf-8-sig``: ``tox/config/source/ini.py``) give the same raw values as
  :func:`.ini_lines.iniconfig_options` / :func:`.ini_lines.configparser_options`;
- pytest's own reading of its section: a real pytest run (:mod:`tests.support.pytest_oracle`) with
  every option our reading finds registered (``--strict-config``: an option we miss stops
  pytest) reports each value through ``request.config.getini``;
- tox's ``set_env`` lines (factor prefixes, markers, comments, the ``NAME=value`` split):
  ``tox config -e ... -k set_env --format json`` on one ``tox.ini`` holding many generated
  lines, one ``[testenv:...]`` each, and end to end on generated ``tox.ini`` files.

pytest-env on generated INI files is in ``tests/hosts/test_pytest_env_oracle.py``.
"""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import iniconfig
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.pytest_oracle import USAGE_ERROR, pytest_run
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.ini import host as ini
from torch_logs_lsp.hosts.ini import tox as ini_tox
from torch_logs_lsp.hosts.ini.lines import configparser_options, iniconfig_options
from torch_logs_lsp.model.spans import FAMILY_ORDER

pytestmark = pytest.mark.oracle

_TOKENS = [
    "[pytest]", "[testenv]", "[testenv:a]", "[tool:pytest]", "[x", "[]", "env", "set_env",
    "TORCH_LOGS", " ", "  ", "\t", "=", ":", "#", ";", "\n", "\r\n", "\r", "\v", "\x85",
    "\u2028", "a", "B", "😀", "{", "}", "\\", "D:", "py3: ", "[a]b]",
]  # fmt: skip
_DOCS = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)
_SETTINGS = settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _mine(text: str, options: list[object]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for o in options:
        assert o.section is not None  # type: ignore[attr-defined]
        lines = o.lines  # type: ignore[attr-defined]
        value = "\n".join(text[a:b] for a, b in lines)
        out.setdefault(o.section, {})[o.name] = value  # type: ignore[attr-defined]
    return out


@_SETTINGS
@given(_DOCS)
def test_iniconfig_structure(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path / "pytest.ini", text)
    try:
        ini_file = iniconfig.IniConfig(str(path))
    except iniconfig.ParseError:
        return  # pytest stops (a UsageError): nothing is read
    want = {section.name: dict(section.items()) for section in ini_file}
    mine = _mine(text, iniconfig_options(text))
    assert {k: v for k, v in mine.items() if v} == {k: v for k, v in want.items() if v}, (
        f"iniconfig reads {text!r} as {want}, our reading gives {mine}"
    )


@settings(max_examples=examples(100), deadline=None)
@given(_DOCS)
def test_pytest_reads_its_section(text: str) -> None:
    """pytest's own reading of ``[pytest]`` in a pytest.ini (pytest-env left out with
    ``-p no:env``, so that an ``env`` line it rejects does not stop pytest): every option
    our iniconfig reading finds, registered, has the value ``getini`` gives; an option we
    miss stops pytest (``--strict-config``)."""
    options = [o for o in iniconfig_options(text) if o.section == "pytest"]
    mine = _mine(text, options).get("pytest", {})
    names = tuple(mine)
    run = pytest_run(
        {"pytest.ini": text},
        args=("-p", "no:env", "--strict-config"),
        addini=names,
        getini=names,
    )
    if run.stopped:
        assert run.exit == USAGE_ERROR and "Unknown config option" not in run.output, (
            f"pytest reads an option of [pytest] our reading misses ({text!r}): {run.describe()}"
        )
        return  # iniconfig rejects the file (test_iniconfig_structure)
    assert run.ini == mine, f"pytest reads [pytest] of {text!r} as {run.ini}, we as {mine}"


@_SETTINGS
@given(_DOCS)
def test_configparser_structure(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path / "tox.ini", text)
    parser = configparser.ConfigParser(interpolation=None)
    try:  # tox reads the file so (universal newlines, a BOM dropped)
        parser.read_string(path.read_text(encoding="utf-8-sig"), str(path))
    except configparser.Error:
        return  # tox stops: nothing is read
    want = {section: dict(parser.items(section, raw=True)) for section in parser.sections()}
    mine = _mine(text, configparser_options(text))
    assert {k: v for k, v in mine.items() if v} == {k: v for k, v in want.items() if v}


# --- tox's set_env lines: one real tox run for many ------------------------------------

_VALUE = st.lists(
    st.sampled_from([*"abz+-,.=:/ #;'\"{}", "😀", "𝄞", "dynamo", "+guards"]),
    min_size=0,
    max_size=10,
).map("".join)
_SEP = st.sampled_from(["=", " = ", "= ", " ="])
_BREAK = st.sampled_from(["\n", "\r\n", "\r"])


def _clean_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}


#: No shrinking: each example runs real programs (a failure prints its documents).
_END_TO_END = settings(
    max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate]
)

_LINE_CHARS = st.sampled_from([*"py310,{}!-_.*?[]= a:#;'\"\\", "😀", "TORCH_LOGS"])
_LINE = st.tuples(
    st.none() | st.lists(_LINE_CHARS, max_size=12).map("".join),
    st.lists(_LINE_CHARS, max_size=8).map("".join),
)
#: The factors of every generated environment: a prefix naming them applies.
_FACTORS = "py310-a"


def tox_config(root: Path, envs: list[str]) -> dict[str, Any] | None:
    """``tox config -e envs -k set_env --format json`` in ``root``: per environment its
    ``set_env`` (``{"error": ...}`` when tox cannot load it; tox then exits with 255 but
    still prints every environment); ``None`` when tox stops on the whole file (it prints
    no JSON: an environment name it takes from a factor prefix is not valid)."""
    command = [sys.executable, "-m", "tox", "config", "-e", ",".join(envs), "-k", "set_env"]
    out = subprocess.run(
        [*command, "--format", "json"],
        cwd=root,
        env=_clean_env(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    try:
        result: dict[str, Any] = json.loads(out.stdout)["env"]
    except (ValueError, KeyError):
        assert b"HandledError" in out.stdout + out.stderr, (out.returncode, out.stderr)
        return None
    return {env: result[env]["set_env"] for env in envs}


def _section(env: str, line: str) -> str:
    return f"[testenv:{env}]\nset_env =\n  {line}\n"


def tox_lines(root: Path, lines: list[str]) -> list[dict[str, Any] | None]:
    """What tox sets from each ``set_env`` line, each in its own environment of one
    tox.ini in ``root`` (``None``: tox stops on a file holding that line); a file tox
    stops on is split in halves until each line is asked alone."""
    envs = [f"{_FACTORS}-c{i}" for i in range(len(lines))]
    text = "[tox]\nenv_list = " + ",".join(envs) + "\n"
    text += "".join(_section(env, line) for env, line in zip(envs, lines, strict=True))
    _write(root / "tox.ini", text)
    got = tox_config(root, envs)
    if got is not None:
        return [got[env] for env in envs]
    if len(lines) == 1:
        return [None]
    half = len(lines) // 2
    return tox_lines(root, lines[:half]) + tox_lines(root, lines[half:])


@settings(
    max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate]
)
@given(st.lists(_LINE, min_size=50, max_size=50))
def test_tox_lines_against_tox(
    tmp_path_factory: pytest.TempPathFactory, cases: list[tuple[str | None, str]]
) -> None:
    """Generated ``set_env`` lines (a factor prefix or none, a value), one per environment
    of one tox.ini: a value tox sets is the value the INI host reads from the line; a
    line the host reads as unconditional and static is one tox sets."""
    lines = [
        (f"{prefix}: TORCH_LOGS={value}" if prefix is not None else f"TORCH_LOGS={value}").strip()
        for prefix, value in cases
    ]
    got = tox_lines(tmp_path_factory.mktemp("tox-lines"), lines)
    compared = 0
    for line, tox in zip(lines, got, strict=True):
        text = _section(f"{_FACTORS}-c0", line)
        spans = ini.extract(text)
        check_spans(text, spans)
        mine = ini_tox.lines(text, configparser_options(text), "ini")
        assert [m.span for m in mine] == spans
        if tox is None or "error" in tox:
            continue  # tox cannot load the file or the environment: nothing is set
        where = f"the set_env line {line!r}"
        if not mine and "{" in line.partition("=")[0]:
            # a substitution before the name ({0: TORCH_LOGS=}...): tox expands it first,
            # and what it gives is not known statically, so the host reads no value
            continue
        if "TORCH_LOGS" in tox:
            assert mine, f"tox sets TORCH_LOGS={tox['TORCH_LOGS']!r} from {where}, we read none"
            value = mine[-1].span.value
            assert value is None or value == tox["TORCH_LOGS"], (
                f"tox sets TORCH_LOGS={tox['TORCH_LOGS']!r} from {where}, we read {value!r}"
            )
            compared += value is not None
        else:
            assert all(m.conditional or m.span.value is None for m in mine), (
                f"tox sets no TORCH_LOGS from {where}, we read {[m.span for m in mine]}"
            )
    assert compared > 0


def test_tox_stops_on_a_factor_that_names_no_environment(tmp_path: Path) -> None:
    """tox 4.67.15 takes environment names from factor prefixes and stops on the whole
    file when one is no valid name (4.65.0, the lock's on Python 3.10, does not);
    :func:`tox_lines` then asks the lines in halves."""
    tox = tuple(int(p) for p in metadata.version("tox").split(".")[:3])
    got = tox_lines(tmp_path, [".: TORCH_LOGS=a", "TORCH_LOGS=b"])
    if tox >= (4, 67, 15):
        assert got[0] is None, f"tox {tox} no longer stops on a factor named '.': {got[0]}"
    elif tox <= (4, 65, 0):
        assert got[0] is not None and "TORCH_LOGS" not in got[0], f"tox {tox}: {got[0]}"
    assert got[1] is not None and got[1]["TORCH_LOGS"] == "b"


# --- end to end: real tox -----------------------------------------------------------

_PREFIX = st.sampled_from(["", "", "{env}: ", "!zz: ", "{env},zz: "])
_MARKER = st.sampled_from(["", "", '; sys_platform == "linux"', ";python_version>'1'"])


@st.composite
def _tox_section(draw: st.DrawFn, env: str) -> str:
    key = draw(st.sampled_from(["set_env", "setenv", "SET_ENV"]))
    names = draw(st.lists(st.sampled_from(FAMILY_ORDER), min_size=1, max_size=7))
    lines = []
    for var in names:
        if draw(st.booleans()):
            lines.append(f"  # {var}=ignored")
        # a ``;`` in a value starts a marker; braces are substitutions (tox may fail on them)
        value = draw(_VALUE).replace(";", "").replace("{", "").replace("}", "")
        prefix = draw(_PREFIX).format(env=env)
        lines.append(f"  {prefix}{var}{draw(_SEP)}{value}{draw(_MARKER)}")
    return f"[testenv:{env}]\n{key} =\n" + "\n".join(lines) + "\n"


@_END_TO_END
@given(st.data())
def test_tox_end_to_end(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    envs = [f"e{i}" for i in range(15)]
    sections = [data.draw(_tox_section(env)) for env in envs]
    nl = data.draw(_BREAK)
    text = ("[tox]\nenv_list = " + ",".join(envs) + "\n# 😀\n" + "".join(sections)).replace(
        "\n", nl
    )
    root = tmp_path_factory.mktemp("tox")
    _write(root / "tox.ini", text)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tox",
            "config",
            "-e",
            ",".join(envs),
            "-k",
            "set_env",
            "--format",
            "json",
        ],
        cwd=root,
        env=_clean_env(),
        capture_output=True,
        timeout=300,
        check=True,
    )
    result = json.loads(out.stdout)["env"]
    spans = ini.extract(text)
    check_spans(text, spans)
    starts = [text.index(f"[testenv:{env}]") for env in envs] + [len(text)]
    dead = {o.dead for o in ini.overwritten(text, spans)}
    compared = 0
    for k, env in enumerate(envs):
        got = result[env]["set_env"]
        mine = [(n, s) for n, s in enumerate(spans) if starts[k] <= s.name_start < starts[k + 1]]
        for var in FAMILY_ORDER:
            if var not in got:
                continue
            assert [s for _, s in mine if s.variable == var], (env, var)
            live = [s.value for n, s in mine if s.variable == var and n not in dead]
            if None not in live:  # the value tox keeps is one of the live ones
                assert got[var] in live, (env, var)
                compared += 1
    assert compared > 0
