"""The INI host against the real readers (differential, on generated files):

- the file structure: iniconfig 2.3.1 as pytest 9.2 calls it
  (``_pytest/config/findpaths.py`` ``_parse_ini_config``) and configparser as tox 4.67
  reads it (``tox/config/source/ini.py`` ``IniSource``) give the same raw values as
  :func:`.ini_lines.iniconfig_options` / :func:`.ini_lines.configparser_options`;
- tox's factor prefixes and ``set_env`` line split (``factor.expand_factors``,
  ``SetEnv``) in-process;
- pytest-env end to end: generated projects run by real pytest (``pytest.main`` in one
  subprocess with a clean environment, once per project), the test writing the family
  variables it sees;
- tox end to end: ``tox config -e ... -k set_env --format json`` on a generated
  ``tox.ini`` with many environments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.budget import examples
from torch_logs_lsp.core.hosts import ini
from torch_logs_lsp.core.hosts.base import FAMILY_ORDER
from torch_logs_lsp.core.hosts.ini_lines import configparser_options, iniconfig_options
from torch_logs_lsp.core.hosts.ini_tox import _comment_cut

from .spancheck import check_spans

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
    from _pytest.config.exceptions import UsageError
    from _pytest.config.findpaths import _parse_ini_config

    path = _write(tmp_path / "pytest.ini", text)
    try:
        sections = _parse_ini_config(path).sections
    except UsageError:
        return  # pytest stops: nothing is read
    mine = _mine(text, iniconfig_options(text))
    want = {k: dict(v) for k, v in sections.items() if v}
    assert {k: v for k, v in mine.items() if v} == want


@_SETTINGS
@given(_DOCS)
def test_configparser_structure(tmp_path: Path, text: str) -> None:
    from tox.config.source.ini import IniSource

    path = _write(tmp_path / "tox.ini", text)
    try:
        parser = IniSource(path)._parser
    except ValueError:
        return  # tox stops: nothing is read
    want = {s: dict(parser._sections[s]) for s in parser.sections()}  # type: ignore[attr-defined]
    mine = _mine(text, configparser_options(text))
    assert {k: v for k, v in mine.items() if v} == {k: v for k, v in want.items() if v}


_LINE_CHARS = st.sampled_from([*"py310,{}!-_.*?[]= a:#;'\"\\", "😀", "TORCH_LOGS"])


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(_LINE_CHARS, max_size=12).map("".join), st.lists(_LINE_CHARS, max_size=8).map("".join)
)
def test_tox_line_against_tox(prefix: str, value: str) -> None:
    from tox.config.loader.ini.factor import expand_factors
    from tox.config.set_env import SetEnv

    line = f"{prefix}: TORCH_LOGS={value}".strip()
    text = f"[testenv]\nset_env =\n  {line}\n"
    spans = ini.extract(text)
    check_spans(text, spans)
    # tox: comments cut (process_raw), then the factor prefix, then SetEnv's split
    cut = _comment_cut(line, 0, len(line))
    raw = line[:cut].rstrip().replace("\\#", "#")
    if line.startswith("#") or "\\" in line:
        return  # a dropped line, a joined or escaped one: not compared
    ((factors, content),) = list(expand_factors(raw))
    if factors == []:
        assert spans == []
        return
    try:
        env = SetEnv(content, "set_env", None, Path("."))
    except ValueError:
        return  # an invalid marker or line: tox stops with an error, nothing is set
    found = "TORCH_LOGS" in env._raw
    tox_value = env.load("TORCH_LOGS") if found else None
    if not found or content.startswith("file|"):
        assert [s for s in spans if s.value is not None] == []
        return
    (span,) = spans
    if span.value is not None:
        assert span.value == tox_value


# --- end to end: real pytest with pytest-env ------------------------------------------

_VALUE = st.lists(
    st.sampled_from([*"abz+-,.=:/ #;'\"{}", "😀", "𝄞", "dynamo", "+guards"]),
    min_size=0,
    max_size=10,
).map("".join)
_FLAGS = st.sampled_from(["", "D:", "R:", "r : ", " d:R:"])
_SEP = st.sampled_from(["=", " = ", "= ", " ="])
_BREAK = st.sampled_from(["\n", "\r\n", "\r"])
_FILE = st.sampled_from(
    [("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")]
)


@st.composite
def _pytest_project(draw: st.DrawFn) -> tuple[str, str]:
    name, section = draw(_FILE)
    nl = draw(_BREAK)
    # a variable may come twice: the overwrite claims (TL502) are checked too
    names = draw(st.lists(st.sampled_from(FAMILY_ORDER), min_size=1, max_size=7))
    lines = []
    for var in names:
        if draw(st.booleans()):
            lines.append(f"   # {var}=ignored")
        lines.append(f"  {draw(_FLAGS)}{var}{draw(_SEP)}{draw(_VALUE)}")
    first = "" if draw(st.booleans()) else lines.pop(0).strip()
    head = f"[{section}]{nl}# 😀 emoji before{nl}env = {first}{nl}"
    return name, head + nl.join(lines) + nl + f"addopts = -q{nl}"


_PROBE = """
import json, os
def test_probe():
    names = {names!r}
    with open("seen.json", "w", encoding="utf-8") as f:
        json.dump({{n: os.environ.get(n) for n in names}}, f)
"""
_DRIVER = """
import json, os, sys
import pytest
names = {names!r}
for i, d in enumerate(json.loads(sys.argv[1])):
    for n in names:
        os.environ.pop(n, None)
    os.chdir(d)
    try:  # a module name of its own: one process imports every project's test
        pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:asyncio", f"test_probe{{i}}.py"])
    except BaseException as e:  # pytest-env's str.format raising out of pytest.main
        print(d, repr(e))
"""


def _clean_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}


#: No shrinking: each example runs real programs (a failure prints its documents).
_END_TO_END = settings(
    max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate]
)


@_END_TO_END
@given(st.lists(_pytest_project(), min_size=10, max_size=15))
def test_pytest_env_end_to_end(
    tmp_path_factory: pytest.TempPathFactory, projects: list[tuple[str, str]]
) -> None:
    root = tmp_path_factory.mktemp("pytest-env")
    dirs = []
    for i, (name, text) in enumerate(projects):
        d = root / f"p{i}"
        d.mkdir()
        _write(d / name, text)
        (d / f"test_probe{i}.py").write_text(
            _PROBE.format(names=list(FAMILY_ORDER)), encoding="utf-8"
        )
        dirs.append(str(d))
    subprocess.run(
        [sys.executable, "-c", _DRIVER.format(names=list(FAMILY_ORDER)), json.dumps(dirs)],
        env=_clean_env(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    compared = 0
    for where, (_name, text) in zip(dirs, projects, strict=True):
        spans = ini.extract(text)
        check_spans(text, spans)
        if not (Path(where) / "seen.json").exists():
            # str.format(**os.environ) failed on a brace: pytest-env stops the session
            assert any(s.value is None for s in spans), text
            continue
        seen = json.loads((Path(where) / "seen.json").read_text(encoding="utf-8"))
        dead = {o.dead for o in ini.overwritten(text, spans)}
        for var, value in seen.items():
            mine = [s for s in spans if s.variable == var]
            if value is None:
                assert all(s.value is None for s in mine), (text, var)
                continue
            assert mine, (text, var, value)
            live = [s.value for k, s in enumerate(spans) if s.variable == var and k not in dead]
            if None not in live:  # the value pytest-env left is one of the live ones
                assert value in live, (text, var)
                compared += 1
    assert compared > 0


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
