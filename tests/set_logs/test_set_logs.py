"""``set_logs(...)`` checks, keywords and conversions (set_logs/): unit tests, and
oracle tests that measure each fact on the installed torch 2.13.0 in a subprocess."""

from __future__ import annotations

import ast
import json
import os
import random
import sys

import pytest

from tests.support.set_logs_oracle import run_cases, signature_of_installed
from torch_logs_lsp.knowledge.registry import load_registry, releases
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.diagnostic import Severity
from torch_logs_lsp.set_logs.call import (
    LOGGING_LEVELS,
    BoolValue,
    DictEntry,
    DictValue,
    IntValue,
    Keyword,
    KeywordValue,
    LevelName,
    NoneValue,
    NotStatic,
    OtherLiteral,
    SetLogsCall,
    StrValue,
)
from torch_logs_lsp.set_logs.checks import (
    IGNORED_CALL,
    check_set_logs,
    env_hint,
)
from torch_logs_lsp.set_logs.convert import set_logs_to_torch_logs, torch_logs_to_set_logs
from torch_logs_lsp.set_logs.keywords import (
    keyword_history,
    keyword_infos,
    keyword_releases,
    packaged_keywords,
    read_set_logs,
    read_set_logs_source,
    set_logs_signature,
)
from torch_logs_lsp.torch_env.context import TorchResolver

R213 = load_registry("2.13")


# -- a stand-in for the Python host: ``ast`` over ``f(<source>)`` ------------------------
def _value(node: ast.expr, base: int) -> KeywordValue:
    start, end = base + node.col_offset, base + (node.end_col_offset or 0)
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return BoolValue(v, start, end)
        if isinstance(v, int):
            return IntValue(v, start, end)
        if isinstance(v, str):
            return StrValue(v, start, end)
        if v is None:
            return NoneValue(start, end)
    if not isinstance(node, ast.Dict):
        try:
            other = ast.literal_eval(node)
        except ValueError:
            other = None
        if isinstance(other, float | complex | bytes | tuple | list | set):
            return OtherLiteral(other, start, end)
    if isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == "logging":
        return LevelName(node.attr, start, end)
    if isinstance(node, ast.Dict):
        entries = []
        for k, v in zip(node.keys, node.values, strict=True):
            key = k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None
            ks = base + (k.col_offset if k else 0)
            ke = base + ((k.end_col_offset or 0) if k else 0)
            entries.append(DictEntry(key, ks, ke, _value(v, base)))
        return DictValue(tuple(entries), start, end)
    return NotStatic(start, end)


def call_of(source: str) -> SetLogsCall:
    """The call ``set_logs(<source>)``; offsets are into ``source``."""
    base = -len("f(")
    node = ast.parse(f"f({source})", mode="eval").body
    assert isinstance(node, ast.Call)
    kws = []
    unpacked = any(isinstance(a, ast.Starred) for a in node.args)
    for kw in node.keywords:
        if kw.arg is None:  # **kwargs
            unpacked = True
            continue
        name_start = base + kw.col_offset
        kws.append(Keyword(kw.arg, name_start, name_start + len(kw.arg), _value(kw.value, base)))
    positional = tuple(
        (base + a.col_offset, base + (a.end_col_offset or 0))
        for a in node.args
        if not isinstance(a, ast.Starred)
    )
    return SetLogsCall(tuple(kws), 0, len(source), positional, unpacked)


def codes(source: str, registry=R213, **kw) -> list[str]:
    return [d.code for d in check_set_logs(call_of(source), registry, **kw)]


# -- keywords --------------------------------------------------------------------------
def test_packaged_keywords_cover_every_release():
    assert keyword_releases() == releases()
    assert len(packaged_keywords("2.1")) == 24
    assert len(packaged_keywords("2.13")) == 54
    assert len(packaged_keywords("2.15.0")) == 56
    assert keyword_history("dist_ddp") == ("2.3", "2.4")
    assert keyword_history("loop_ordering") is None
    # 16 registered names of 2.13 are no keyword (+ `torch`, spelled `all=`)
    names = set(R213.components) | set(R213.artifacts)
    missing = names - set(packaged_keywords("2.13")) - {"torch"}
    assert len(missing) == 16 and "loop_ordering" in missing


def test_reader_takes_kwonlyargs_and_refuses_other_shapes():
    src = "def set_logs(*, all: int | None = None, guards: bool = False) -> None: pass\n"
    assert read_set_logs_source(src).keywords == {"all": "int | None", "guards": "bool"}
    for bad in (
        "def set_logs(x, *, all=None): pass",
        "def set_logs(**kw): pass",
        "set_logs = None",
        "def set_logs(:",
        "x = " + "(" * 500 + ")" * 500,
        "\0",
    ):
        read = read_set_logs_source(bad)
        assert read.problems and not read.keywords, bad


def test_hostile_annotations_never_raise():
    chain = "def set_logs(*, a: " + " + ".join(["x"] * 20_000) + " = None): pass\n"
    read = read_set_logs_source(chain)  # ast.unparse of the chain recurses too deep
    assert read.problems and not read.keywords


def test_unreadable_internal_falls_back_with_a_reason(tmp_path):
    torch_dir = tmp_path / "torch"
    (torch_dir / "_logging").mkdir(parents=True)
    reg = load_registry("2.13")
    user = type(reg)(
        "2.13", reg.components, reg.artifacts, {}, str(torch_dir / "_logging" / "_registrations.py")
    )
    sig = set_logs_signature(user)  # no _internal.py at all
    assert sig.source == "packaged" and sig.notes and "cannot read" in sig.notes[0]
    assert sig.keywords == packaged_keywords("2.13")
    (torch_dir / "_logging" / "_internal.py").write_text("def set_logs(*, dynamo=None): pass\n")
    sig = set_logs_signature(user)  # re-read: its size and mtime changed
    assert sig.keywords == {"dynamo": ""} and sig.source.endswith("_internal.py")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        (torch_dir / "_logging" / "_internal.py").unlink()
        (torch_dir / "_logging" / "_internal.py").symlink_to(fifo)
        assert read_set_logs(str(torch_dir)).problems  # never opened for reading


def test_keyword_infos():
    infos = {i.name: i for i in keyword_infos(set_logs_signature(R213), R213)}
    assert infos["dynamo"].kind == "component" and infos["dynamo"].since == "2.1"
    assert infos["guards"].kind == "artifact" and infos["guards"].annotation == "bool"
    assert infos["guards"].description == R213.description("guards")
    assert infos["all"].kind == "all" and "torch" in infos["all"].description
    assert infos["modules"].kind == "modules"
    assert infos["caching"].since == "2.11" and infos["caching"].until == ""
    r24 = load_registry("2.4")
    i24 = {i.name: i for i in keyword_infos(set_logs_signature(r24), r24)}
    assert i24["dist_ddp"].kind == "unregistered" and i24["dist_ddp"].until == "2.4"


# -- checks (unit) ---------------------------------------------------------------------
def test_unknown_keyword_with_suggestions_and_range():
    (d,) = check_set_logs(call_of("x=1, dynamoo=logging.DEBUG"), R213)[1:]
    assert d.code == "TL601" and d.severity == Severity.ERROR
    assert d.message.startswith("set_logs() got an unexpected keyword argument 'dynamoo'")
    assert "dynamo" in d.suggestions and (d.start, d.end) == (5, 12)


def test_registered_name_that_is_no_keyword():
    (d,) = check_set_logs(call_of("loop_ordering=True"), R213)
    assert d.code == "TL602" and "torch 2.13" in d.message
    assert "`TORCH_LOGS=loop_ordering`" in d.message
    (d,) = check_set_logs(call_of("fake_tensor=logging.DEBUG"), R213)
    assert "`TORCH_LOGS=+fake_tensor`" in d.message
    (d,) = check_set_logs(call_of("torch=10"), R213)
    assert d.suggestions == ("all",)


def test_torch_2_4_ddp_and_dist_ddp():
    r24 = load_registry("2.4")
    (d,) = check_set_logs(call_of("ddp=logging.INFO"), r24)
    assert d.code == "TL602" and "`TORCH_LOGS=ddp`" in d.message and "from torch 2.5" in d.message
    (d,) = check_set_logs(call_of("dist_ddp=logging.DEBUG"), r24)
    assert d.code == "TL604" and "names no registered log in torch 2.4" in d.message
    assert check_set_logs(call_of("dist_ddp=None"), r24) == []
    (d,) = check_set_logs(call_of("dist_ddp=10"), R213)
    assert d.code == "TL603" and d.suggestions == ("ddp",) and "(in 2.3 to 2.4)" in d.message
    (d,) = check_set_logs(call_of("autotuning_inputs=True"), R213)
    assert d.code == "TL603" and "(added in 2.14)" in d.message


def test_not_static_values_are_never_judged():
    assert codes("dynamo=level, guards=flag(), modules=mods, all=x.y") == []
    assert codes('modules={"json": lvl, key: 10}') == []
    assert codes("dynamo=logging.NOSUCH") == []


def test_value_ranges_and_severity():
    (d,) = check_set_logs(call_of("dynamo=False"), R213)
    assert d.code == "TL613" and d.severity == Severity.WARNING and (d.start, d.end) == (7, 12)


def test_env_hint_spans_the_call():
    d = env_hint(call_of("dynamo=10"), ".env line 2")
    assert d.code == IGNORED_CALL and (d.start, d.end) == (0, 9)
    assert d.severity == Severity.INFORMATION and ".env line 2" in d.message


def test_repeated_keyword_is_a_syntax_error():
    with pytest.raises(SyntaxError, match="keyword argument repeated: dynamo"):
        compile("f(dynamo=1, dynamo=2)", "<call>", "eval")  # what Python says
    call = SetLogsCall(
        (
            Keyword("dynamo", 0, 6, IntValue(10, 7, 9)),
            Keyword("dynamo", 11, 17, BoolValue(True, 18, 22)),
        )
    )
    (d,) = check_set_logs(call, R213)
    assert d.code == "TL605" and (d.start, d.end) == (11, 17)
    assert "keyword argument repeated: dynamo" in d.message


def test_positional_and_unpacked_arguments():
    (d,) = check_set_logs(call_of("10, logging.DEBUG"), R213)
    assert d.code == "TL606" and (d.start, d.end) == (0, 17)
    assert d.message.startswith("set_logs() takes 0 positional arguments but 2 were given")
    assert codes("*args, **kwargs, dynamo=logging.DEBUG") == []
    assert set_logs_to_torch_logs(call_of("**kw, dynamo=logging.DEBUG"), R213) is None
    assert set_logs_to_torch_logs(call_of("*a, dynamo=logging.DEBUG"), R213) is None


@pytest.mark.oracle
def test_positional_message_is_pythons():
    one, two = run_cases([{"kind": "args", "source": "10"}, {"kind": "args", "source": "1, 2"}])
    assert one["outcome"] == two["outcome"] == "TypeError"
    assert one["message"] in check_set_logs(call_of("10"), R213)[0].message
    assert two["message"] in check_set_logs(call_of("1, 2"), R213)[0].message


def test_ten_thousand_unknown_keywords_stay_cheap():
    call = SetLogsCall(
        tuple(Keyword(f"dynamo{i}", 0, 1, IntValue(10, 0, 0)) for i in range(10_000))
    )
    diags = check_set_logs(call, R213)
    # 100 shown (with suggestions), the rest summed up by one TL901
    assert len(diags) == 101 and diags[0].suggestions and diags[-1].code == "TL901"
    assert "9900 more problems" in diags[-1].message


def test_long_names_are_quoted_short():
    name = "x" * 5000
    (d,) = check_set_logs(call_of(f"{name}=1"), R213)
    assert len(d.message) < 300


# -- checks against torch 2.13.0 -------------------------------------------------------
#: (source, the code we give or None, torch's outcome)
CASES: list[tuple[str, str | None, str]] = [
    ("dynamo=logging.DEBUG, guards=True, all=logging.ERROR", None, "ok"),
    ("dynamo=True", "TL611", "ValueError"),
    ('dynamo="DEBUG"', "TL611", "ValueError"),
    ("dynamo=15", "TL611", "ValueError"),
    ("dynamo=False", "TL613", "ok"),
    ("dynamo=None, guards=None, modules=None", None, "ok"),
    ("dynamo=0, inductor=logging.CRITICAL, aot=logging.WARN, dynamic=logging.FATAL", None, "ok"),
    ("all=True", "TL611", "ValueError"),
    ("guards=logging.DEBUG", "TL612", "ValueError"),
    ("guards=1", "TL612", "ValueError"),
    ("guards=0", "TL612", "ValueError"),
    ('guards="yes"', "TL612", "ValueError"),
    ("guards=False, recompiles=True", None, "ok"),
    ("loop_ordering=True", "TL602", "TypeError"),
    ("torch=logging.DEBUG", "TL602", "TypeError"),
    ("dynamoo=10", "TL601", "TypeError"),
    ("autotuning_inputs=True", "TL603", "TypeError"),
    ("dist_ddp=10", "TL603", "TypeError"),
    ('modules={"loop_ordering": True, "fake_tensor": logging.DEBUG}', None, "ok"),
    ('modules={"json": logging.DEBUG, "torch": 20}', None, "ok"),
    ('modules={"no_such_pkg_xyz.mod": 10}', "TL621", "ModuleNotFoundError"),
    ('modules={"json.decoder.x": 10}', "TL621", "ModuleNotFoundError"),
    ('modules={"nosuchmod_xyz": 10}', "TL621", "ValueError"),
    ('modules={"json.nothere": 10}', "TL621", "ValueError"),
    ('modules={".json": 10}', "TL621", "ImportError"),
    ('modules={"all": 10}', "TL621", "ValueError"),
    ('modules={"": 10}', "TL621", "ValueError"),
    ('modules={"a/b": 10}', "TL621", "ValueError"),
    ('modules={"json.": 10}', "TL621", "ValueError"),
    ('modules={" json": 10}', "TL621", "ValueError"),
    ('modules={"x\\x00y": 10}', "TL621", "ValueError"),
    ('modules={"..": 10}', "TL621", "ImportError"),
    ('modules={"nosuchmod_xyz": None}', None, "ok"),
    ('modules={"json": "FOO"}', "TL622", "ValueError"),
    ('modules={"json": True}', "TL622", "ok"),
    ('modules={"json": 15}', "TL622", "ok"),
    ('modules={"json": "DEBUG"}', "TL622", "ok"),
    ('modules={"guards": 10}', "TL612", "ValueError"),
    ('modules={"dynamo": True}', "TL611", "ValueError"),
    ("modules=True", "TL614", "AttributeError"),
    ('modules="x"', "TL614", "AttributeError"),
    ("modules=0", None, "ok"),
    # other literals (measured on 2.13.0): 10.0 passes `in logging._levelToName`, then
    # Logger.setLevel raises TypeError; a list is unhashable; bytes and tuples are no level
    ("dynamo=10.0", "TL611", "TypeError"),
    ("all=-10.0", "TL611", "ValueError"),
    ("all=20.0", "TL611", "TypeError"),
    ("dynamo=10+0j", "TL611", "TypeError"),
    ("dynamo=[10]", "TL611", "TypeError"),
    ('dynamo=b"x"', "TL611", "ValueError"),
    ("dynamo=(10,)", "TL611", "ValueError"),
    ("dynamo=1e1", "TL611", "TypeError"),
    ("guards=1.0", "TL612", "ValueError"),
    ("guards=[True]", "TL612", "ValueError"),
    ('modules={"torch._dynamo": 10.0}', "TL622", "TypeError"),
    ('modules={"json": b"DEBUG"}', "TL622", "TypeError"),
    ('modules={"dynamo": 10.0}', "TL611", "TypeError"),
    ('modules=[("json", 10)]', "TL614", "AttributeError"),
    ("modules=[]", None, "ok"),
    ("modules=()", None, "ok"),
]

CTX = TorchResolver().context(python=sys.executable)


@pytest.mark.oracle
def test_installed_signature_equals_packaged_and_static_read():
    names = signature_of_installed()
    assert set(names) == set(packaged_keywords("2.13"))
    sig = set_logs_signature(CTX.registry)
    assert CTX.registry.source != "packaged" and sig.source.endswith("_internal.py")
    assert list(sig.keywords) == names and not sig.notes
    assert sig.keywords == packaged_keywords("2.13")  # names and annotations


@pytest.mark.oracle
def test_checks_agree_with_torch():
    results = run_cases([{"kind": "call", "source": s} for s, _, _ in CASES])
    for (source, code, outcome), got in zip(CASES, results, strict=True):
        assert got["outcome"] == outcome, (source, got)
        diags = check_set_logs(call_of(source), CTX.registry, finder=CTX.finder)
        assert [d.code for d in diags] == ([code] if code else []), (source, diags)
        errors = [d for d in diags if d.severity == Severity.ERROR]
        assert bool(errors) == (outcome != "ok"), (source, diags)
        if outcome in ("ValueError", "TypeError", "AttributeError"):
            assert got["message"] in errors[0].message, (got["message"], errors[0].message)


@pytest.mark.oracle
def test_measured_details():
    cases = [
        {"kind": "call", "source": "dynamo=False"},
        {"kind": "twice", "source": 'modules={"json": True}'},
        {"kind": "twice", "source": 'modules={"json": logging.DEBUG}'},
        {"kind": "env", "source": "guards=True, dynamo=logging.DEBUG"},
        {"kind": "call", "source": "all=logging.INFO"},
        {"kind": "twice", "source": 'modules={"json": 15}'},
        {"kind": "twice", "source": 'modules={"json": "DEBUG"}'},
    ]
    false, twice_bool, twice_level, env, all_, *twice_more = run_cases(cases)
    assert [r["outcome"] for r in twice_more] == ["ValueError", "ValueError"]
    assert set(false["logs"].values()) == {0}  # False is level 0, NOTSET
    assert twice_bool["outcome"] == "ValueError"  # what TL622 warns about
    assert twice_level["outcome"] == "ok"
    assert env["logs"] == {} and env["artifacts"] == []
    (warning,) = env["warnings"]
    assert warning in env_hint(call_of("dynamo=10"), "x").message
    assert all_["logs"] == {"torch": 20}


# -- conversions -----------------------------------------------------------------------
def test_conversions_examples():
    call = call_of("dynamo=logging.DEBUG, graph_breaks=True")
    assert set_logs_to_torch_logs(call, R213) == "+dynamo,graph_breaks"
    back = torch_logs_to_set_logs("+dynamo,graph_breaks", R213)
    assert back == "dynamo=logging.DEBUG, graph_breaks=True"
    assert torch_logs_to_set_logs("-all,loop_ordering,+json", R213) == (
        'all=logging.ERROR, modules={"loop_ordering": True, "json": logging.DEBUG}'
    )
    for src in (
        "dynamo=logging.WARNING",
        "dynamo=logging.DEBUG, dynamic=logging.INFO",  # shared loggers, different levels
        "guards=False",  # nothing left: TORCH_LOGS= crashes import torch
        "dynamo=x",
        "loop_ordering=True",
        'modules={"json": 15}',
        "guards=1",
    ):
        assert set_logs_to_torch_logs(call_of(src), R213) is None, src
    assert set_logs_to_torch_logs(call_of("guards=False, dynamo=logging.INFO"), R213) == "dynamo"
    for value in ("", "help", "dynamo,,guards", "+dynamo,dynamic", " dynamo"):
        assert torch_logs_to_set_logs(value, R213) is None, value
    assert torch_logs_to_set_logs("+dynamo,-dynamo", R213) == "dynamo=logging.ERROR"
    assert torch_logs_to_set_logs("all", load_registry("2.1")) is None
    assert torch_logs_to_set_logs("+ddp", load_registry("2.4")) == 'modules={"ddp": logging.DEBUG}'


def _random_call(rng: random.Random, keywords: list[str]) -> str:
    parts = []
    for name in rng.sample(keywords, rng.choice([1, 2, 3, 4])):
        kind = R213.kind(name)
        if kind == "artifact":
            parts.append(f"{name}={rng.choice(['True', 'True', 'False', 'None'])}")
        elif name != "modules":
            level = rng.choice(["DEBUG", "INFO", "ERROR", "DEBUG", "WARNING"])
            parts.append(f"{name}=logging.{level}")
    if rng.random() < 0.3:
        extra = [n for n in R213.known_names() if n not in keywords and n != "all"]
        key = rng.choice([*extra, "json"])
        val = "True" if R213.kind(key) == "artifact" else "logging." + rng.choice(["DEBUG", "INFO"])
        parts.append(f'modules={{"{key}": {val}}}')
    return ", ".join(parts) or "dynamo=logging.INFO"


def _random_value(rng: random.Random) -> str:
    names = [n for n in R213.known_names() if n != "custom_format_test_artifact"] + ["json"]
    items = [rng.choice(["", "+", "-"]) + rng.choice(names) for _ in range(rng.choice([1, 2, 3]))]
    return ",".join(items)


@pytest.mark.oracle
def test_conversions_are_exact_under_torch():
    rng = random.Random(12)
    keywords = [k for k in packaged_keywords("2.13") if k != "modules"]
    pairs: list[tuple[str, str]] = []  # (set_logs source, TORCH_LOGS value)
    for _ in range(150):
        src = _random_call(rng, keywords)
        value = set_logs_to_torch_logs(call_of(src), R213)
        if value is not None:
            pairs.append((src, value))
    converted_calls = len(pairs)
    for _ in range(150):
        value = _random_value(rng)
        src = torch_logs_to_set_logs(value, R213)
        if src is not None:
            pairs.append((src, value))
    assert converted_calls > 50 and len(pairs) - converted_calls > 50
    cases = []
    for src, value in pairs:
        cases += [{"kind": "call", "source": src}, {"kind": "torch_logs", "source": value}]
    results = run_cases(cases)
    for i, (src, value) in enumerate(pairs):
        by_call, by_env = results[2 * i], results[2 * i + 1]
        assert by_call["outcome"] == by_env["outcome"] == "ok", (src, value, by_call, by_env)
        assert by_call["logs"] == by_env["logs"], (src, value)
        assert by_call["artifacts"] == by_env["artifacts"], (src, value)


def test_levels_table_is_logging():
    import logging

    for name, level in LOGGING_LEVELS.items():
        assert getattr(logging, name) == level
    assert (
        json.dumps(sorted(set(LOGGING_LEVELS.values()), reverse=True)) == "[50, 40, 30, 20, 10, 0]"
    )


def test_suggestions_do_not_run_out_over_many_calls():
    # the difflib budget is per call: a server that has seen 150 other typos in other
    # calls still suggests (a budget shared by all calls once ran out after 100 names)
    for i in range(150):
        check_set_logs(call_of(f"unknown_kw_{i}=1"), R213)
    (d,) = check_set_logs(call_of("graph_braeks=True"), R213)
    assert d.suggestions[:1] == ("graph_breaks",)


def test_no_ignored_call_hint_on_a_call_python_rejects():
    # (TL632 must not say "torch only logs ..." on a call whose TL602
    # TypeError comes first)
    from torch_logs_lsp.model.diagnostic import Diagnostic
    from torch_logs_lsp.set_logs.checks import raising_calls_only_raise

    linked = Diagnostic("TL632", Severity.INFORMATION, "ignored", 10, 60)
    other = Diagnostic("TL632", Severity.INFORMATION, "ignored", 70, 90)
    raising = Diagnostic("TL602", Severity.ERROR, "TypeError", 30, 43)
    assert raising_calls_only_raise([linked, raising, other]) == [raising, other]
    assert raising_calls_only_raise([linked, other]) == [linked, other]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("set_logs(dynamo=True, gaurds=True)", ["TL601"]),
        ("set_logs(10, dynamo=True)", ["TL606"]),
        ("set_logs(torch=10, dynamo=True)", ["TL602"]),
        ("set_logs(dynamo=True)", ["TL611"]),  # binds: torch reads the value
    ],
)
def test_a_binding_error_comes_first(call: str, expected: list[str]) -> None:
    """Python raises TypeError while binding the arguments, before set_logs reads any
    value: only that is reported (the value errors appear once it is fixed)."""
    text = f"import torch\ntorch._logging.{call}\n"
    got = [f.diagnostic.code for f in findings(text, "python", load_registry("2.13"))]
    assert got == expected
    every = findings(text, "python", load_registry("2.13"), binding_first=False)
    assert "TL611" in [f.diagnostic.code for f in every] or expected == ["TL611"]
