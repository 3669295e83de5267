"""pytest-env's reading (hosts/pytest_env.py, the INI and TOML hosts, where pytest
stops: TL504) against real pytest runs with the installed pytest-env
(:mod:`tests.support.pytest_oracle`: one driver process, ``pytest.main`` per case).

The hosts follow pytest-env 1.8.7. The lock installs 1.8.7 on Python >= 3.11 and 1.7.1
on Python 3.10; where an older release behaves differently (read in 1.8.5 and 1.7.1,
and checked here against real runs of both), the expectation says so and the test
checks the older behaviour, so a release that changes any of it fails with a message
that names the behaviour."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.pytest_oracle import PYTEST_ENV, USAGE_ERROR, Run, pytest_run
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import pytest_env
from torch_logs_lsp.hosts.ini import host as ini
from torch_logs_lsp.hosts.ini import pytest_env as ini_pytest_env
from torch_logs_lsp.hosts.ini.lines import iniconfig_options
from torch_logs_lsp.hosts.ini.pytest_env import SECTIONS
from torch_logs_lsp.hosts.toml import host as toml
from torch_logs_lsp.model.spans import FAMILY_ORDER

pytestmark = pytest.mark.oracle

#: The installed pytest-env is older than the release the hosts follow.
LEGACY = PYTEST_ENV < (1, 8, 7)
#: What the test file sees besides the configuration's variables.
_PYTEST_OWN = frozenset({"PYTEST_CURRENT_TEST"})


@cache
def base_env() -> dict[str, str]:
    """The environment a test sees with no configuration file."""
    run = pytest_run({})
    assert run.env is not None, run.describe()
    return {k: v for k, v in run.env.items() if k not in _PYTEST_OWN}


def seen(run: Run) -> dict[str, str]:
    assert run.env is not None
    return {k: v for k, v in run.env.items() if k not in _PYTEST_OWN}


def applies(stop: pytest_env.Stop | None) -> bool:
    """Whether the installed pytest-env stops at ``stop`` (an older release only where
    it stopped too: an empty :attr:`~pytest_env.Stop.before`)."""
    return stop is not None and (not LEGACY or not stop.before)


#: The words of pytest-env 1.8.7's ``UsageError`` for each kind of stop (the start of
#: our reason -> a phrase of its message).
_KINDS = {
    "pytest-env 1.8.7 rejects the flag": "unknown flag",
    "pytest-env 1.8.7 rejects an empty flag": "unknown flag ''",
    "pytest-env 1.8.7 rejects an entry with no variable name": "missing variable name",
    "pytest-env cannot expand": "invalid {VAR} template",
    "pytest-env cannot set": "cannot set environment variable",
}


def oracle_words(stop: pytest_env.Stop) -> str | None:
    return next((w for k, w in _KINDS.items() if stop.reason.startswith(k)), None)


# --- entries, one by one and in order ------------------------------------------------------

_UNKNOWN = object()


@dataclass
class Model:
    """What pytest-env does with a list of entries, predicted from :func:`parse_entry`:
    ``stop`` the entry it certainly stops at (``None``: it runs, unless ``maybe``, an
    entry whose template reads the environment, may raise); ``env`` each touched
    variable's value (``None`` removed, :data:`_UNKNOWN` not known)."""

    stop: tuple[int, pytest_env.Stop] | None = None
    maybe: bool = False
    env: dict[str, object] = field(default_factory=dict)


def model(entries: list[str]) -> Model:
    out = Model()
    base = base_env()
    for i, entry in enumerate(entries):
        read = pytest_env.parse_entry(entry)
        if applies(read.stop):
            assert read.stop is not None
            out.stop = (i, read.stop)
            return out
        name = read.name
        now = out.env.get(name, base.get(name))
        if read.unset and (LEGACY or not read.skip_if_set):
            out.env[name] = None  # 1.8.5 and earlier: U before D
            continue
        if read.skip_if_set and now is _UNKNOWN:
            out.env[name] = _UNKNOWN
            continue
        if read.skip_if_set and now is not None:
            continue
        if read.unset:
            out.env[name] = None
        elif read.value is None:  # a template that reads the environment
            out.maybe = True
            out.env[name] = _UNKNOWN
        else:
            out.env[name] = read.value
    return out


def toml_list(entries: list[str]) -> str:
    """A pyproject.toml whose ``env`` list holds ``entries`` exactly (JSON's escapes are
    TOML's)."""
    items = ", ".join(json.dumps(e, ensure_ascii=False) for e in entries)
    return f"[tool.pytest.ini_options]\nenv = [{items}]\n"


def check_model(entries: list[str], run: Run) -> None:
    """``run`` (pytest on :func:`toml_list` of ``entries``) is what :func:`model` says."""
    want = model(entries)
    where = f"entries {entries!r}, pytest-env {'.'.join(map(str, PYTEST_ENV))}"
    if want.stop is not None:
        i, stop = want.stop
        assert run.stopped, (
            f"pytest-env no longer stops pytest where we report TL504: {stop.reason} "
            f"(entry {i + 1}, {where}); {run.describe()}"
        )
        words = oracle_words(stop)
        if not LEGACY and not want.maybe and words is not None:
            assert words in run.output, (
                f"pytest-env stops for another reason than ours ({stop.reason}, {where}): "
                f"{run.describe()}"
            )
        return
    if run.stopped:
        assert want.maybe, f"pytest-env now stops pytest on {where}: {run.describe()}"
        return
    got = seen(run)
    base = base_env()
    for name in set(got) | set(want.env) | set(base):
        expected = want.env.get(name, base.get(name))
        if expected is _UNKNOWN:
            continue
        assert got.get(name) == expected, (
            f"pytest-env sets {name!r} to {got.get(name)!r} where our reading gives "
            f"{expected!r} ({where})"
        )


ENTRY = st.text(st.sampled_from(list("TORCH_LOGS=:DRUdru +{}é \t!0")), max_size=16)
FIXED = st.sampled_from(
    [
        "D:R:TORCH_LOGS = +dynamo ",
        "u:TORCH_LOGS=x",
        "a=b=c",
        "TORCH_LOGS={{+dynamo}}",
        "D:U:TORCH_LOGS",
        "TORCH_LOGS",
        "X:TORCH_LOGS=a",
        ":TORCH_LOGS=a",
        "=a",
        "U:=",
        "TORCH_LOGS={}",
        "TORCH_LOGS={HOME}",
        "TORCH_LOGS={HOME!x}",
        "TORCH_LOGS={HOME:d}",
        "TORCH_LOGS=a\x00b",
        "R:TORCH_LOGS={",
    ]
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(ENTRY | FIXED, min_size=1, max_size=3))
def test_entries_match_pytest_env(entries: list[str]) -> None:
    """Each entry's name, flags and value (and the map of the value to the entry) as
    pytest-env reads them, applied in order: the variables a test sees, or pytest
    stopping exactly where we report it (TL504)."""
    for line in entries:
        got = pytest_env.parse_entry(line)
        assert line[got.name_start : got.name_end] == got.name
        if got.value is not None:
            for ch, a, b in zip(got.value, got.starts, got.ends, strict=True):
                assert line[a:b] in (ch, ch * 2)
            body = pytest_env.encode_value(got.value, got.transform)
            if body is not None:
                again = pytest_env.parse_entry(f"{line[: got.raw_start]}{body}")
                assert again.value == got.value
    check_model(entries, pytest_run({"pyproject.toml": toml_list(entries)}))


# --- whole INI files: the INI host --------------------------------------------------------

_VALUE = st.lists(
    st.sampled_from([*"abz+-,.=:/ #;'\"{}", "😀", "𝄞", "dynamo", "+guards", "{HOME}"]),
    min_size=0,
    max_size=10,
).map("".join)
_FLAGS = st.sampled_from(["", "", "D:", "R:", "r : ", " d:R:", "U:", "X:", ":", "D:x:"])
_SEP = st.sampled_from(["=", " = ", "= ", " ="])
_BREAK = st.sampled_from(["\n", "\r\n", "\r"])
_FILE = st.sampled_from(
    [("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")]
)


@st.composite
def pytest_project(draw: st.DrawFn) -> tuple[str, str]:
    name, section = draw(_FILE)
    nl = draw(_BREAK)
    # a variable may come twice: the overwrite claims (TL502) are checked too
    names = draw(st.lists(st.sampled_from(FAMILY_ORDER), min_size=1, max_size=6))
    lines = []
    for var in names:
        if draw(st.booleans()):
            lines.append(f"   # {var}=ignored")
        lines.append(f"  {draw(_FLAGS)}{var}{draw(_SEP)}{draw(_VALUE)}")
    first = "" if draw(st.booleans()) else lines.pop(0).strip()
    head = f"[{section}]{nl}# 😀 emoji before{nl}env = {first}{nl}"
    return name, head + nl.join(lines) + nl + f"addopts = -q{nl}"


def ini_stops(text: str) -> bool:
    """Whether the installed pytest-env certainly stops on ``text`` (1.8.7: the INI
    host's TL504; older releases: only where they stopped too)."""
    if not LEGACY:
        return bool(ini.stops(text))
    return any(
        applies(pytest_env.parse_entry(text[a:b]).stop)
        for option in iniconfig_options(text)
        if option.name == "env" and option.section in SECTIONS
        for a, b in option.lines
    )


@settings(max_examples=examples(80), deadline=None, suppress_health_check=list(HealthCheck))
@given(pytest_project())
def test_ini_host_reads_what_pytest_env_sets(project: tuple[str, str]) -> None:
    """A generated ``pytest.ini``/``tox.ini``/``setup.cfg``: the INI host's live values
    are what the test sees; TL504 exactly where pytest stops (or a value that is not
    static, whose template may raise)."""
    name, text = project
    run = pytest_run({name: text})
    spans = ini.extract(text)
    check_spans(text, spans)
    where = f"{name}: {text!r}"
    if ini_stops(text):
        assert run.stopped, f"pytest-env no longer stops on {where} ({ini.stops(text)})"
        return
    if run.stopped:
        assert any(s.value is None for s in spans), (
            f"pytest-env now stops pytest on {where}: {run.describe()}"
        )
        return
    got = seen(run)
    dead = {o.dead for o in ini.overwritten(text, spans)}
    final = final_values(text)
    for var in FAMILY_ORDER:
        value = got.get(var)
        if var in final and final[var] is not _UNKNOWN:
            assert value == final[var], (
                f"pytest-env sets {var} to {value!r}, the INI host's entries give "
                f"{final[var]!r} ({where})"
            )
        if value is None:
            continue
        live = [s.value for k, s in enumerate(spans) if s.variable == var and k not in dead]
        assert live, f"pytest-env sets {var}={value!r}, the INI host reads none live ({where})"
        if None not in live:  # the value pytest-env left is one of the live ones (TL502)
            assert value in live, (
                f"pytest-env sets {var}={value!r}, the INI host's live values are {live} ({where})"
            )


def final_values(text: str) -> dict[str, object]:
    """Each family variable's value after pytest-env applied the INI host's entries (their
    spans' values and flags) in order (:data:`_UNKNOWN`: a value that is not static)."""
    state: dict[str, object] = {}
    for entry in ini_pytest_env.entries(text, "ini"):
        var, flags = entry.span.variable, entry.flags
        now = state.get(var)
        if "U" in flags and (LEGACY or "D" not in flags):
            state[var] = None
        elif "D" in flags and now is not None:
            continue
        elif "U" in flags:
            state[var] = None
        else:
            value = entry.span.value
            state[var] = _UNKNOWN if value is None else value
    return state


# --- hand-written cases, with what each release does -------------------------------------

#: (files, {release: outcome}): an outcome is a message phrase of pytest's stop
#: (``str``) or the family variables the test sees (``dict``); the outcome of the
#: newest release not newer than the installed one is checked. ``None`` as a release's
#: outcome: pytest stops with an exception of pytest-env's hook (before 1.8.7).
Outcome = str | dict[str, str] | None
P, INI = "pyproject.toml", "pytest.ini"
V187, V185, V171 = (1, 8, 7), (1, 8, 5), (1, 7, 1)
RELEASES: list[tuple[str, dict[str, str], dict[tuple[int, int, int], Outcome]]] = [
    (
        "an unknown flag: UsageError from 1.8.7, ignored before",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=+dynamo\n  X:OTHER=1\n"},
        {V187: "unknown flag 'X'", V171: {"TORCH_LOGS": "+dynamo"}},
    ),
    (
        "an empty flag",
        {P: '[tool.pytest.ini_options]\nenv = [":TORCH_LOGS=a"]\n'},
        {V187: "unknown flag ''", V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "no name: UsageError from 1.8.7, os.environ[''] before",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=a\n  =b\n"},
        {V187: "missing variable name", V171: None},
    ),
    (
        "no name with U: UsageError from 1.8.7, nothing before",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=a\n  U:=\n"},
        {V187: "missing variable name", V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "a lone brace: every release stops",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=a}\n"},
        {V187: "invalid {VAR} template", V171: None},
    ),
    (
        "a positional field",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS={0}\n"},
        {V187: "invalid {VAR} template", V171: None},
    ),
    (
        "a format spec no string takes",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS={HOME:d}\n"},
        {V187: "invalid {VAR} template", V171: None},
    ),
    (
        "D: before U: from 1.8.7 (a set variable is kept)",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=a\n  D:U:TORCH_LOGS\n"},
        {V187: {"TORCH_LOGS": "a"}, V171: {}},
    ),
    (
        "a D: entry with a bad template is skipped when the variable is set",
        {INI: "[pytest]\nenv =\n  TORCH_LOGS=a\n  D:TORCH_LOGS={\n"},
        {V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "a table entry with an unknown key",
        {P: '[tool.pytest_env]\nTORCH_LOGS = {value = "a", skip = true}\n'},
        {V187: "has unknown key 'skip'", V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "a nested table is an unknown key",
        {P: '[tool.pytest_env.TORCH_LOGS]\nvalue = "a"\n[tool.pytest_env.TORCH_LOGS.x]\n'},
        {V187: "has unknown key 'x'", V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "a flag that is not a boolean",
        {P: '[tool.pytest_env]\nTORCH_LOGS = {value = "{{a}}", transform = 1}\n'},
        {V187: "transform must be true or false", V171: {"TORCH_LOGS": "{a}"}},
    ),
    (
        "neither value nor unset = true",
        {P: "[tool.pytest_env]\nTORCH_LOGS = {transform = true}\n"},
        {V187: "needs a value or unset = true", V171: {"TORCH_LOGS": ""}},
    ),
    (
        "unset = false without a value",
        {P: "[tool.pytest_env]\nTORCH_LOGS = {unset = false}\n"},
        {V187: "needs a value or unset = true", V171: {"TORCH_LOGS": ""}},
    ),
    (
        "env_files_skip_if_set that is not a boolean",
        {P: '[tool.pytest_env]\nenv_files_skip_if_set = "x"\nTORCH_LOGS = "a"\n'},
        {V187: "env_files_skip_if_set must be true or false", V171: {"TORCH_LOGS": "a"}},
    ),
    (
        "a transform template that cannot be expanded",
        {P: '[tool.pytest_env]\nTORCH_LOGS = {value = "{", transform = true}\n'},
        {V187: "invalid {VAR} template", V171: None},
    ),
    (
        "a key the environment cannot hold",
        {P: '[tool.pytest_env]\n"A=B" = "a"\nTORCH_LOGS = "x"\n'},
        {V187: "cannot set environment variable", V171: None},
    ),
    (
        "a NUL character in a value",
        {P: '[tool.pytest_env]\nTORCH_LOGS = "a\\u0000b"\n'},
        {V187: "cannot set environment variable", V171: None},
    ),
    (
        "an item of env that is not a string",
        {P: '[tool.pytest.ini_options]\nenv = [1, "TORCH_LOGS=a"]\n'},
        {V171: None},
    ),
    (
        "pytest 9: [tool.pytest] and [tool.pytest.ini_options] together",
        {P: '[tool.pytest]\naddopts = ["-q"]\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=a"]\n'},
        {V171: "Cannot use both"},
    ),
    (
        "an empty [tool.pytest_env] hides the env list from 1.8 on",
        {P: '[tool.pytest_env]\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=x"]\n'},
        {V185: {}, V171: {"TORCH_LOGS": "x"}},
    ),
    (
        "a pytest_env key that is no table: 1.8.7 reads the env list",
        {P: '[tool]\npytest_env = "x"\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=x"]\n'},
        {V187: {"TORCH_LOGS": "x"}, V171: None},
    ),
    (
        "a valid table: flags, raw and transformed values",
        {
            P: "[tool.pytest_env]\n"
            'TORCH_LOGS = "{x}"\n'
            'TORCH_LOGS_OUT = {value = "a{{b", transform = true}\n'
            'TORCH_TRACE = {value = "/t", unset = true}\n'
            "TORCH_COMPILE_DEBUG = 1\n"
        },
        {V171: {"TORCH_LOGS": "{x}", "TORCH_LOGS_OUT": "a{b", "TORCH_COMPILE_DEBUG": "1"}},
    ),
]
#: How pytest-env finds its TOML table (not known from one document: the hosts read each
#: file as if it is the one used; checked here so that a change is noticed).
DISCOVERY: list[tuple[str, dict[str, str], str, dict[tuple[int, int, int], Outcome]]] = [
    (
        "a [tool.pytest_env] of the same folder wins over the INI env lines",
        {INI: "[pytest]\nenv = TORCH_LOGS=ini\n", P: '[tool.pytest_env]\nTORCH_LOGS = "toml"\n'},
        "",
        {V171: {"TORCH_LOGS": "toml"}},
    ),
    (
        "and one of a folder above the ini file",
        {
            f"sub/{INI}": "[pytest]\nenv = TORCH_LOGS=ini\n",
            P: '[tool.pytest_env]\nTORCH_LOGS = "toml"\n',
        },
        "sub",
        {V171: {"TORCH_LOGS": "toml"}},
    ),
    (
        "with no ini file, one of a folder above the rootdir",
        {"sub/.keep": "", P: '[tool.pytest_env]\nTORCH_LOGS = "toml"\n'},
        "sub",
        {V171: {"TORCH_LOGS": "toml"}},
    ),
    (
        "an env list of a pyproject.toml that is not the ini file is not read",
        {
            INI: "[pytest]\nenv = TORCH_LOGS=ini\n",
            P: '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=toml"]\n',
        },
        "",
        {V171: {"TORCH_LOGS": "ini"}},
    ),
    (
        "pytest.toml before pyproject.toml",
        {
            "pytest.toml": '[pytest_env]\nTORCH_LOGS = "ptoml"\n',
            P: '[tool.pytest_env]\nTORCH_LOGS = "p"\n',
        },
        "",
        {V171: {"TORCH_LOGS": "ptoml"}},
    ),
]


def expected(outcomes: dict[tuple[int, int, int], Outcome]) -> Outcome:
    release = max(r for r in outcomes if r <= PYTEST_ENV)
    return outcomes[release]


def check_outcome(what: str, run: Run, outcome: Outcome) -> None:
    version = ".".join(map(str, PYTEST_ENV))
    if isinstance(outcome, dict):
        got = {k: v for k, v in seen(run).items() if k in FAMILY_ORDER} if not run.stopped else None
        assert got == outcome, (
            f"pytest-env {version} changed: {what}: expected the test to see {outcome}, "
            f"{run.describe() if run.stopped else f'it sees {got}'}"
        )
    elif outcome is None:
        assert run.stopped and run.exit is None, (
            f"pytest-env {version} changed: {what}: expected an exception out of its hook, "
            f"{run.describe()}"
        )
    else:
        assert run.exit == USAGE_ERROR and outcome in run.output, (
            f"pytest-env {version} changed: {what}: expected a usage error with "
            f"{outcome!r}, {run.describe()}"
        )


@pytest.mark.parametrize(("what", "files", "outcomes"), RELEASES, ids=[c[0] for c in RELEASES])
def test_releases(what: str, files: dict[str, str], outcomes: dict[tuple[int, int, int], Outcome]):
    """Each case: the installed pytest-env does what the table says for its release, and
    the host of the file reports TL504 exactly when pytest-env 1.8.7 stops (its spans'
    values are what 1.8.7 sets otherwise)."""
    run = pytest_run(files)
    check_outcome(what, run, expected(outcomes))
    ((name, text),) = files.items()
    host = toml if name.endswith(".toml") else ini
    newest = outcomes[max(outcomes)]  # what 1.8.7 does: the hosts' reading
    stops = host.stops(text)
    if isinstance(newest, dict):
        assert stops == [], (what, stops)
        spans = host.extract(text)
        once = [s for s in spans if [t.variable for t in spans].count(s.variable) == 1]
        assert {s.variable: s.value for s in once} == {
            k: v for k, v in newest.items() if k in {s.variable for s in once}
        }, (what, spans)
    else:
        assert stops, f"no TL504 where pytest-env 1.8.7 stops: {what}"
        ours = next((w for phrase, w in _OURS if phrase in (newest or what)), None)
        assert ours is not None and ours in stops[0].message, (what, stops)


#: A phrase of pytest's or pytest-env 1.8.7's message (or of a case's name, for an
#: exception) -> the phrase of our TL504 for the same cause.
_OURS = [
    ("unknown flag ''", "rejects an empty flag"),
    ("unknown flag", "rejects the flag"),
    ("missing variable name", "no variable name"),
    ("invalid {VAR} template", "cannot expand this {VAR} template"),
    ("has unknown key", "rejects the key"),
    ("env_files_skip_if_set must be", "rejects an env_files_skip_if_set"),
    ("must be true or false", "that is not true or false"),
    ("needs a value or unset = true", "neither `value` nor `unset = true`"),
    ("cannot set environment variable", "cannot set a variable"),
    ("Cannot use both", "both [tool.pytest] and [tool.pytest.ini_options]"),
    ("not a string", "is not a string"),
]


@pytest.mark.parametrize(
    ("what", "files", "at", "outcomes"), DISCOVERY, ids=[c[0] for c in DISCOVERY]
)
def test_which_file_pytest_env_reads(
    what: str, files: dict[str, str], at: str, outcomes: dict[tuple[int, int, int], Outcome]
) -> None:
    check_outcome(what, pytest_run(files, at=at), expected(outcomes))
