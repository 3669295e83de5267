"""The INI host (pytest.ini, .pytest.ini, tox.ini, setup.cfg): pytest-env ``env`` entries
and tox ``set_env`` lines; offsets, values that are not static, edits, robustness.

The readers' rules cited here: iniconfig 2.3.1 ``_parse.py``, pytest 9.2
``_pytest/config/findpaths.py`` and ``config/__init__.py`` (``linelist``), pytest-env 1.8.7
``plugin.py`` ``_load_values``, tox 4.67 ``config/loader/ini/__init__.py``,
``config/set_env.py``, ``config/set_env_line.py``, CPython 3.11 ``configparser.py``.
The differential tests against those libraries are in ``test_oracle.py``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import detect_host, extract, host_for_language
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.ini import host as ini

Want = list[tuple[str, str | None]]

CASES: list[tuple[str, Want]] = [
    # pytest-env: one entry per value line, flags, stripping, inline comments kept
    ("[pytest]\nenv = TORCH_LOGS=+dynamo\n", [("TORCH_LOGS", "+dynamo")]),
    (
        "[pytest]\nenv =\n    TORCH_LOGS=+dynamo\n    TORCH_TRACE=/tmp/t\n",
        [("TORCH_LOGS", "+dynamo"), ("TORCH_TRACE", "/tmp/t")],
    ),
    ("[pytest]\nenv =\n  D:TORCH_LOGS = dynamo , aot  \n", [("TORCH_LOGS", "dynamo , aot")]),
    ("[pytest]\nenv =\n  d : r : TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
    ("[pytest]\nenv = TORCH_LOGS=dynamo # kept\n", [("TORCH_LOGS", "dynamo # kept")]),
    ("[pytest]\nenv = TORCH_LOGS=dynamo ; kept\n", [("TORCH_LOGS", "dynamo ; kept")]),
    ("[pytest]\nenv: TORCH_LOGS=a=b\n", [("TORCH_LOGS", "a=b")]),
    ("[pytest]\nenv =\n  TORCH_LOGS={HOME}\n", [("TORCH_LOGS", None)]),
    # str.format: `}}` is one `}` (pytest-env's own reading, tests/hosts/toml/test_strings.py)
    ("[pytest]\nenv =\n  TORCH_LOGS=a}}\n", [("TORCH_LOGS", "a}")]),
    ("[pytest]\nenv =\n  TORCH_LOGS=a}\n", [("TORCH_LOGS", None)]),  # str.format raises
    ("[pytest]\nenv =\n  R:TORCH_LOGS={HOME}\n", [("TORCH_LOGS", "{HOME}")]),
    ("[pytest]\nenv =\n  U:TORCH_LOGS=x\n", []),
    ("[pytest]\nenv =\n  TORCH_LOGS\n", [("TORCH_LOGS", "")]),  # no `=`: pytest-env sets ""
    ("[pytest]\nenv =\n  TORCH_LOGS=\n", [("TORCH_LOGS", "")]),
    ("[pytest]\nenv =\n  # TORCH_LOGS=a\n  ; TORCH_LOGS=b\n", []),
    ("[pytest]\nenv =\n\n  TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),  # blank lines skipped
    ("[pytest]\nenv =\n  torch_logs=a\n", []),  # names are case-sensitive
    ("[tool:pytest]\nenv = TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
    ("[pytest] # c\nenv = TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
    ("[ pytest ]\nenv = TORCH_LOGS=a\n", []),  # iniconfig keeps the blanks
    ("[other]\nenv = TORCH_LOGS=a\n", []),
    ("[pytest]\nENV = TORCH_LOGS=a\n", []),  # iniconfig names are case-sensitive
    ("[pytest]\naddopts = -q\n  TORCH_LOGS=a\n", []),
    ("TORCH_LOGS=a\n", []),
    # a `[` line that is no header continues the value (iniconfig)
    ("[pytest]\nenv = TORCH_LOGS=a\n[TORCH_TRACE=b\n", [("TORCH_LOGS", "a")]),
    ("\ufeff[pytest]\r\nenv =\r\n  TORCH_LOGS=a\r\n", [("TORCH_LOGS", "a")]),
    # tox set_env
    ("[testenv]\nset_env = TORCH_LOGS=+dynamo\n", [("TORCH_LOGS", "+dynamo")]),
    ("[testenv:py]\nsetenv =\n  TORCH_LOGS = a # c\n", [("TORCH_LOGS", "a")]),
    ("[testenv:{py310,py311}]\nSet_Env =\n  TORCH_LOGS=a#c\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\nset_env =\n  TORCH_LOGS=a\\#b\n", [("TORCH_LOGS", None)]),
    ("[testenv]\nset_env =\n  py310: TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\nset_env =\n  !py310,py311-x: TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\nset_env =\n  a b: TORCH_LOGS=a\n", []),
    ("[testenv]\nset_env =\n  TORCH_LOGS=a: b\n", [("TORCH_LOGS", "a: b")]),
    ("[testenv]\nset_env =\n  TORCH_LOGS=a; sys_platform == 'linux'\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\nset_env =\n  TORCH_LOGS='a;b'\n", [("TORCH_LOGS", "'a;b'")]),
    ("[testenv]\nset_env =\n  TORCH_LOGS={env:X}\n", [("TORCH_LOGS", None)]),
    ("[testenv]\nset_env =\n  TORCH_LOGS=[]\n", [("TORCH_LOGS", None)]),
    ("[testenv]\nset_env =\n  A=b\\\n  TORCH_LOGS=a\n", []),  # joined to the line before
    ("[testenv]\nset_env =\n  file|TORCH_LOGS=a\n", []),
    ("[testenv]\nset_env = TORCH_LOGS=a\nsetenv = TORCH_LOGS=b\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\nsetenv = TORCH_LOGS=b\n", [("TORCH_LOGS", "b")]),
    ("[tox]\nset_env = TORCH_LOGS=a\n", []),
    ("[testenv]\nset_env =\n  ; TORCH_LOGS=a\n", []),
    ("[testenv]\nset_env = # TORCH_LOGS=a\n", []),
    ("[testenv]\r\nset_env =\r\n  TORCH_LOGS=a\r\n", [("TORCH_LOGS", "a")]),
    ("[testenv]\rset_env =\r  TORCH_LOGS=a\r", [("TORCH_LOGS", "a")]),
    ("TORCH_LOGS=a\n[testenv]\nset_env = TORCH_LOGS=a\n", []),  # configparser stops
    # a setup.cfg is read by tox only with a [tox:tox] section
    ("[metadata]\nname = x\n[testenv]\nset_env = TORCH_LOGS=a\n", []),
    ("[metadata]\nname = x\n[tox:tox]\n[testenv]\nset_env = TORCH_LOGS=a\n", [("TORCH_LOGS", "a")]),
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_cases(text: str, want: Want) -> None:
    spans = ini.extract(text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == want
    assert all(s.host == "ini" and s.quote == "" for s in spans)


def test_offsets_point_into_the_document() -> None:
    text = "[pytest]\nenv =\n    D:TORCH_LOGS =  +dynamo,guards  \n"
    (span,) = ini.extract(text)
    assert text[span.name_start : span.name_end] == "TORCH_LOGS"
    assert text[span.content_start : span.content_end] == "+dynamo,guards"
    assert span.char_starts[0] == text.index("+dynamo")


def test_emoji_before_the_value() -> None:
    text = "[pytest]\n# 😀 𝄞\nenv = TORCH_LOGS=😀dynamo\n"
    (span,) = ini.extract(text)
    check_spans(text, [span])
    assert span.value == "😀dynamo"
    assert text[span.content_start] == "😀"


def test_both_readers_in_one_file() -> None:
    text = "[pytest]\nenv = TORCH_LOGS=a\n\n[testenv]\nset_env = TORCH_LOGS=b\n"
    assert [s.value for s in ini.extract(text)] == ["a", "b"]


def test_detection() -> None:
    for name in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"):
        assert detect_host(f"/p/{name}", "") == "ini"
    for name in ("mypy.ini", "Tox.ini", "setup.cfg.bak", "x.cfg"):
        assert detect_host(f"/p/{name}", "") != "ini"
    assert host_for_language("ini") == "ini"
    # an untitled ini document without pytest or tox sections has no spans
    assert extract("ini", "[flake8]\nTORCH_LOGS = dynamo\n") == []


@pytest.mark.parametrize(
    ("text", "dead_live"),
    [
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  TORCH_LOGS=b\n", [(0, 1)]),
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  D:TORCH_LOGS=b\n", []),  # b is skipped
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  D:TORCH_LOGS=b\n  TORCH_LOGS=c\n", [(0, 2)]),
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  U:TORCH_LOGS\n  D:TORCH_LOGS=b\n", []),
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  TORCH_TRACE=b\n", []),
        ("[testenv]\nset_env =\n  TORCH_LOGS=a\n  TORCH_LOGS=b\n", [(0, 1)]),
        ("[testenv]\nset_env =\n  TORCH_LOGS=a\n  py3: TORCH_LOGS=b\n", []),
        ("[testenv]\nset_env = TORCH_LOGS=a\n[testenv:x]\nset_env = TORCH_LOGS=b\n", []),
    ],
)
def test_overwritten(text: str, dead_live: list[tuple[int, int]]) -> None:
    spans = ini.extract(text)
    assert [(o.dead, o.live) for o in ini.overwritten(text, spans)] == dead_live


@pytest.mark.parametrize("value", ["+dynamo", "dynamo , guards", "", "a=b", "😀x", "a:b"])
def test_encode_round_trip(value: str) -> None:
    for text in (
        "[pytest]\nenv =\n  D:TORCH_LOGS=old\n  TORCH_TRACE=x\n",
        "[testenv]\nset_env =\n  py3: TORCH_LOGS = old # c\n",
    ):
        (span, *_) = ini.extract(text)
        body = ini.encode_part("", value)
        assert body is not None
        new = text[: span.content_start] + body + text[span.content_end :]
        assert ini.extract(new)[0].value == value


@pytest.mark.parametrize("value", [" a", "a ", "a\nb", "a#b", "a;b", "{x}", "a\\b", "[]", "a\x85"])
def test_encode_refuses(value: str) -> None:
    assert ini.encode_part("", value) is None
    assert ini.encode_part('"', "a") is None


@pytest.mark.parametrize(
    ("text", "after"),
    [
        (
            "[pytest]\nenv =\n  TORCH_LOGS=a\n  TORCH_TRACE=b\n",
            "[pytest]\nenv =\n  TORCH_TRACE=b\n",
        ),
        ("[pytest]\nenv = TORCH_LOGS=a\naddopts = -q\n", "[pytest]\naddopts = -q\n"),
        ("[pytest]\nenv = TORCH_LOGS=a\n  TORCH_TRACE=b\n", "[pytest]\nenv = \n  TORCH_TRACE=b\n"),
        (
            "[testenv]\r\nset_env =\r\n  py3: TORCH_LOGS=a\r\n  X=1\r\n",
            "[testenv]\r\nset_env =\r\n  X=1\r\n",
        ),
    ],
)
def test_removal(text: str, after: str) -> None:
    span = ini.extract(text)[0]
    found = ini.removal(text, span)
    assert found is not None
    assert apply_text_edits(text, [found[1]]) == after
    assert all(s.variable != span.variable for s in ini.extract(after))


def test_removal_refuses_a_joined_line() -> None:
    text = "[testenv]\nset_env =\n  TORCH_LOGS=a\\\n  B=1\n"
    assert ini.removal(text, ini.extract(text)[0]) is None


@pytest.mark.parametrize(
    ("before", "want"),
    [
        ("[pytest]\nenv =\n    TORCH_", "TORCH_"),
        ("[pytest]\nenv =\n    D:", ""),
        ("[pytest]\nenv = TOR", "TOR"),
        ("[testenv]\nset_env =\n  py310: TORCH", "TORCH"),
        ("[testenv]\nsetenv = ", ""),
        ("[pytest]\naddopts =\n    TORCH_", None),
        ("[pytest]\nTORCH_", None),
    ],
)
def test_typed_name(before: str, want: str | None) -> None:
    assert ini.typed_name(before, len(before)) == want


_WORDS = ["TORCH_LOGS", "env", "set_env", "pytest", "testenv", "D:", "R:", "py3: "]
_ODD = ["😀", "\x85", "\u2028", "\v", "\x00", "\ufeff", "\udc80"]
_CHARS = st.sampled_from([*"[]=:;#{}\\ \t\n\r,+-_!|'\"", *_WORDS, *_ODD])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_CHARS, max_size=60).map("".join))
def test_generated_documents_never_crash(text: str) -> None:
    for doc in (text, "[pytest]\nenv =\n " + text, "[testenv]\nset_env =\n " + text):
        spans = ini.extract(doc)
        check_spans(doc, spans)
        ini.overwritten(doc, spans)
        for span in spans:
            ini.removal(doc, span)


def test_long_line_and_binary_junk() -> None:
    big = "[pytest]\nenv = TORCH_LOGS=" + "a," * 50_000 + "\n"
    (span,) = ini.extract(big)
    assert span.value is not None and len(span.value) == 100_000
    junk = bytes(range(256)).decode("latin-1") * 50
    assert isinstance(ini.extract("[pytest]\nenv = TORCH_LOGS=" + junk), list)
    spaces = "[testenv]\nset_env = TORCH_LOGS=a" + " " * 100_000 + "x\n"
    assert ini.extract(spaces)[0].value == "a" + " " * 100_000 + "x"


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("[pytest]\nenv =\n  TORCH_LOGS=a\n  X:B=1\n  =c\n", "X"),
        ("[pytest]\r\nenv = TORCH_LOGS={HOME!x}\r\n", "{HOME!x}"),
        ("[pytest]\nenv =\n  D::TORCH_LOGS=a\n", ":"),
        ("[tool:pytest]\nenv =\n  U:=\n  TORCH_LOGS=a\n", "U:="),
        ("[pytest]\nenv =\n  D:TORCH_LOGS={\n  TORCH_LOGS={HOME}\n", None),
        ("[pytest]\nenv =\n  X:B=1\n", None),
        ("[testenv]\nset_env =\n  X:TORCH_LOGS=1\n", None),
    ],
)
def test_where_pytest_env_stops(text: str, cause: str | None) -> None:
    """TL504's place: the first entry of an ``env`` option on which pytest-env 1.8.7
    raises, when the option names a family variable (checked against real pytest in
    tests/hosts/test_pytest_env_oracle.py)."""
    got = ini.stops(text)
    if cause is None:
        assert got == []
        return
    ((start, end, message),) = got
    assert text[start:end] == cause
    assert "no test sees TORCH_LOGS" in message
