"""The TOML host (hosts/toml/host.py): where values are read, their offsets, what is not
static, edits (encode_part round trips through extract, removal), typed names, and
hostile input. tomllib checks that every generated document is the TOML it claims."""

from __future__ import annotations

import time

import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import detect_host, pytest_env
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.toml import host as toml
from torch_logs_lsp.hosts.toml.strings import STYLES


def read(text: str) -> list[tuple[str, str | None]]:
    spans = toml.extract(text)
    check_spans(text, spans)
    return [(s.variable, s.value) for s in spans]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("pyproject.toml", "toml"),
        ("tox.toml", "toml"),
        ("pytest.toml", "toml"),
        (".pytest.toml", "toml"),
        ("PyProject.TOML", "toml"),
        ("Cargo.toml", None),
        ("config.toml", None),
    ],
)
def test_detect(name: str, kind: str | None) -> None:
    assert detect_host(f"/p/{name}", "") == kind


def test_pyproject_env_list() -> None:
    text = (
        "[tool.pytest.ini_options]\n"
        'env = ["TORCH_LOGS=Dynamo", "D:TORCH_LOGS_OUT = /tmp/o.log ",\n'
        '  \'R:TORCH_LOGS_FORMAT={x}\', "TORCH_TRACE={HOME}/t", "U:TORCH_LOGS",\n'
        '  "OTHER=1", "TORCH_COMPILE_DEBUG={{1}}"]\n'
    )
    assert read(text) == [
        ("TORCH_LOGS", "Dynamo"),
        ("TORCH_LOGS_OUT", "/tmp/o.log"),
        ("TORCH_LOGS_FORMAT", "{x}"),  # R: raw, no expansion
        ("TORCH_TRACE", None),  # {HOME} reads the environment
        ("TORCH_COMPILE_DEBUG", "{1}"),  # {{ and }} are braces
    ]
    first = toml.extract(text)[0]
    assert text[first.content_start : first.content_end] == "Dynamo"
    assert text[first.name_start : first.name_end] == "TORCH_LOGS"


def test_escapes_map_to_their_source() -> None:
    text = '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=\\u002bdynamo"]\n'
    (span,) = toml.extract(text)
    assert span.value == "+dynamo"
    assert text[span.char_starts[0] : span.char_ends[0]] == "\\u002b"


def test_ini_mode_string_is_split_into_lines() -> None:
    text = '[tool.pytest.ini_options]\nenv = """\n  TORCH_LOGS=+dynamo\n  TORCH_TRACE=/t \n"""\n'
    assert read(text) == [("TORCH_LOGS", "+dynamo"), ("TORCH_TRACE", "/t")]
    # TOML mode ([tool.pytest]) needs a list: pytest raises on a string
    assert read(text.replace(".ini_options", "")) == []


def test_pytest_native_toml_and_pytest_toml() -> None:
    assert read('[tool.pytest]\nenv = ["TORCH_LOGS=a"]\n') == [("TORCH_LOGS", "a")]
    assert read('[pytest]\nenv = ["TORCH_LOGS=b"]\n') == [("TORCH_LOGS", "b")]
    # a pyproject.toml (it has [tool.*]) is not read at the top level
    assert read('[tool.x]\ny = 1\n[pytest]\nenv = ["TORCH_LOGS=b"]\n') == []


def test_pytest_env_table() -> None:
    text = (
        "[tool.pytest_env]\n"
        'TORCH_LOGS = "dyn{x}"\n'
        'TORCH_LOGS_OUT = {value = "a{{b", transform = true}\n'
        'TORCH_TRACE = {value = "/t", unset = true}\n'
        "TORCH_COMPILE_DEBUG = 1\n"
        "[tool.pytest.ini_options]\n"
        'env = ["TORCH_LOGS=ignored"]\n'
        "[tool.pytest_env.TORCH_LOGS_FORMAT]\n"
        'value = "%(message)s"\n'
        "skip_if_set = true\n"
    )
    assert read(text) == [
        ("TORCH_LOGS", "dyn{x}"),  # the table form is raw unless transform = true
        ("TORCH_LOGS_OUT", "a{b"),
        ("TORCH_COMPILE_DEBUG", "1"),
        ("TORCH_LOGS_FORMAT", "%(message)s"),
    ]


def test_an_empty_pytest_env_table_disables_env_lists() -> None:
    text = '[tool.pytest_env]\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=x"]\n'
    assert read(text) == []


def test_tox_set_env() -> None:
    text = (
        "[tool.tox.env_run_base]\n"
        'set_env = { TORCH_LOGS = "+dynamo", TORCH_TRACE = {value = "/t", marker = "x"} }\n'
        "[tool.tox.env.py.set_env]\n"
        'TORCH_LOGS = "a\\u00e9"\n'
        "\"TORCH_LOGS_OUT\" = '{env:X}'\n"
        "TORCH_COMPILE_DEBUG = 1\n"
        'TORCH_LOGS_FORMAT = {value = "v"}\n'
    )
    assert read(text) == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_TRACE", None),  # a marker: set only when it holds
        ("TORCH_LOGS", "aé"),
        ("TORCH_LOGS_OUT", None),  # a tox substitution
        ("TORCH_COMPILE_DEBUG", None),  # tox rejects a non-string value
        ("TORCH_LOGS_FORMAT", "v"),
    ]
    tox_toml = text.replace("tool.tox.", "")
    assert [v for _, v in read(tox_toml)] == ["+dynamo", None, "aé", None, None, "v"]


def test_other_toml_tables_are_not_read() -> None:
    assert read('[env]\nTORCH_LOGS = "x"\n[tool.other]\nenv = ["TORCH_LOGS=y"]\n') == []


@settings(max_examples=examples(150), deadline=None)
@given(
    style=st.sampled_from(STYLES),
    value=st.text(st.sampled_from(list("+-dynamo,guards {}é😀\"'\\")), max_size=12),
    prefix=st.sampled_from(["", "# 😀é\n", "a = '😀'\r\n"]),
    place=st.sampled_from(["list", "table", "tox"]),
)
def test_generated_documents(style: str, value: str, prefix: str, place: str) -> None:
    """A value written in each style (after astral characters, with CRLF) is read back
    as tomllib and pytest-env/tox read it, or found not static."""
    quote = style + "\0" + "pytest-env" if place == "list" else style
    body = toml.encode_part(quote, value)
    if body is None:
        return
    if place == "list":
        doc = f"{prefix}[tool.pytest.ini_options]\nenv = [{style}TORCH_LOGS={body}{style}]\n"
    elif place == "table":
        doc = f"{prefix}[tool.pytest_env]\nTORCH_LOGS = {style}{body}{style}\n"
    else:
        doc = f"{prefix}[env_run_base]\nset_env = {{ TORCH_LOGS = {style}{body}{style} }}\n"
    data = tomllib.loads(doc)
    (span,) = toml.extract(doc)
    check_spans(doc, [span])
    if place == "list":
        (entry,) = data["tool"]["pytest"]["ini_options"]["env"]
        assert span.value == pytest_env.parse_entry(entry).value == value
    elif place == "table":
        assert span.value == data["tool"]["pytest_env"]["TORCH_LOGS"] == value
    else:
        read_value = data["env_run_base"]["set_env"]["TORCH_LOGS"]
        assert read_value == value
        assert span.value == (None if any(c in value for c in "{}\\") else value)


def replace_value(text: str, index: int, new: str) -> str:
    span = toml.extract(text)[index]
    assert span.quote is not None
    body = toml.encode_part(span.quote, new)
    assert body is not None
    return text[: span.content_start] + body + text[span.content_end :]


def test_encode_part_round_trip_through_extract() -> None:
    text = "[tool.pytest.ini_options]\nenv = [\"TORCH_LOGS=aot\", 'R:TORCH_TRACE=x']\n"
    table = "[tool.pytest_env]\nTORCH_LOGS_OUT = '''/t'''\n"
    for doc, i, new in [(text, 0, "+dynamo,{x}"), (text, 1, "{y}\\"), (table, 0, "/a b")]:
        edited = replace_value(doc, i, new)
        assert toml.extract(edited)[i].value == new
    # a value pytest-env would strip cannot be written in an entry
    assert toml.encode_part('"\0pytest-env', " x") is None
    assert toml.encode_part("'", "it's") is None
    assert toml.encode_part("", "1") is None


def test_removal() -> None:
    text = (
        "[tool.pytest.ini_options]\n"
        'env = ["A=1", "TORCH_LOGS=x", "B=2"]\n'
        "[tool.tox.env_run_base.set_env]\n"
        'TORCH_TRACE = "/t"  # trace\n'
        "X = 1\n"
    )
    spans = toml.extract(text)
    got = toml.removal(text, spans[0])
    assert got is not None
    assert apply_text_edits(text, [got[1]]).splitlines()[1] == 'env = ["A=1", "B=2"]'
    got = toml.removal(text, spans[1])
    assert got is not None
    assert apply_text_edits(text, [got[1]]) == text.replace('TORCH_TRACE = "/t"  # trace\n', "")
    multi = '[tool.pytest.ini_options]\nenv = [\n  "TORCH_LOGS=x",\n  "B=2",\n]\n'
    got = toml.removal(multi, toml.extract(multi)[0])
    assert got is not None and apply_text_edits(multi, [got[1]]) == multi.replace(
        '  "TORCH_LOGS=x",\n', ""
    )
    last = '[tool.pytest.ini_options]\nenv = ["B=2", "TORCH_LOGS=x"]\n'
    got = toml.removal(last, toml.extract(last)[0])
    assert got is not None and apply_text_edits(last, [got[1]]).endswith('env = ["B=2"]\n')
    inline = '[env_run_base]\nset_env = { TORCH_LOGS = "x" }\n'
    assert toml.removal(inline, toml.extract(inline)[0]) is None


@pytest.mark.parametrize(
    ("text", "typed"),
    [
        ("[tool.pytest_env]\nTORCH_L", "TORCH_L"),
        ("[env.py.set_env]\n", ""),
        ('[tool.pytest.ini_options]\nenv = ["D:TOR', "TOR"),
        ('[tool.pytest.ini_options]\nenv = ["A=1", "TOR', "TOR"),
        ("[tool.black]\nTOR", None),
        ('[tool.pytest.ini_options]\naddopts = "TOR', None),
    ],
)
def test_typed_name(text: str, typed: str | None) -> None:
    assert toml.typed_name(text, len(text)) == typed


@pytest.mark.parametrize(
    "text",
    [
        '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=dyn\n',
        "[tool.pytest_env]\nTORCH_LOGS = 'x\r\nY = 1\r\n",
        '[tool.pytest_env\nTORCH_LOGS = "x"\n',
        '\x00\xff[[[TORCH_LOGS = "\\u',
        '[tool.pytest_env]\nTORCH_LOGS = """' + "a" * 100_000,
        '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=' + "é" * 100_000 + '"]\n',
        "TORCH_LOGS" + "[" * 5000,
    ],
)
def test_hostile_input_never_crashes(text: str) -> None:
    start = time.monotonic()
    spans = toml.extract(text)
    assert time.monotonic() - start < 5
    check_spans(text, spans)


def test_unterminated_string_while_typing() -> None:
    text = '[tool.pytest_env]\nTORCH_LOGS = "+dyn\n'
    (span,) = toml.extract(text)
    assert not span.terminated and span.value == "+dyn"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=dyn\n', "dyn"),
        ('[tool.pytest.ini_options]\nenv = [\n  "A=1",\n  "D:TORCH_LOGS=+dyn\n[x]\n', "+dyn"),
        ('[env.py.set_env]\nTORCH_LOGS = \'aot\nX = "a"\n', "aot"),
        ('[tool.tox.env_run_base.set_env]\n"TORCH_LOGS" = "aot\n', "aot"),
    ],
)
def test_open_strings_in_every_place(text: str, value: str) -> None:
    spans = toml.extract(text)
    check_spans(text, spans)
    assert [(s.value, s.terminated) for s in spans] == [(value, False)]


def test_open_string_in_other_table_is_not_read() -> None:
    assert toml.extract('[tool.black]\nTORCH_LOGS = "x\n') == []
    assert toml.extract('[env.py]\nTORCH_LOGS = "x\n') == []


def test_overwritten_entries_of_one_env_list() -> None:
    text = (
        "[tool.pytest.ini_options]\n"
        'env = ["TORCH_LOGS=a", "TORCH_TRACE=/t", "TORCH_LOGS=b", "D:TORCH_LOGS=c",\n'
        '  "TORCH_LOGS=d"]\n'
    )
    spans = toml.extract(text)
    assert [s.value for s in spans] == ["a", "/t", "b", "c", "d"]
    # a by b; b not by the D: entry (skipped, the variable being set) but by d; c by d
    assert [(o.dead, o.live) for o in toml.overwritten(text, spans)] == [(0, 2), (2, 4), (3, 4)]


def test_no_overwrite_across_lists_or_tables() -> None:
    text = (
        '[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=a"]\n'
        '[tool.tox.env_run_base.set_env]\nTORCH_LOGS = "b"\n'
    )
    spans = toml.extract(text)
    assert len(spans) == 2 and toml.overwritten(text, spans) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('[tool.tox]\nenv_run_base = { set_env = { TORCH_LOGS = "x" } }\n', "x"),
        ('[tool]\npytest.ini_options.env = ["TORCH_LOGS=x"]\n', "x"),
        ('[tool."pytest_env"]\n"TORCH_LOGS" = "x"\n', "x"),
        ('[tool.pytest.ini_options]\nenv = [  # c\n  "TORCH_LOGS=x",  # c2\n]\n', "x"),
        ('[[tool.pytest_env]]\nTORCH_LOGS = "x"\n', None),  # an array of tables: not read
    ],
)
def test_key_paths_however_spelled(text: str, value: str | None) -> None:
    assert tomllib.loads(text)
    assert [v for _, v in read(text)] == ([value] if value else [])


def test_pytest_ini_and_native_modes_together_set_nothing() -> None:
    """pytest 9.2 raises UsageError for both tables (``_config_from_tool_pytest``)."""
    both = '[tool.pytest]\naddopts = ["-x"]\n[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=a"]\n'
    assert read(both) == []
    assert read(both.replace("[tool.pytest]\naddopts", "[tool.other]\naddopts")) == [
        ("TORCH_LOGS", "a")
    ]


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ('[tool.pytest.ini_options]\nenv = ["TORCH_LOGS=a", "\\u0058:B=1"]\n', "\\u0058"),
        ('[tool.pytest.ini_options]\nenv = """\nTORCH_LOGS=a\n  x : B=1"""\n', "x"),
        ('[pytest]\nenv = ["TORCH_LOGS={0}"]\n', "{0}"),
        ('[tool.pytest.ini_options]\nenv = ["D:TORCH_LOGS={0}", "TORCH_LOGS={HOME}"]\n', None),
        ('[tool.pytest.ini_options]\nenv = ["X:OTHER=1"]\n', None),  # no family variable
        ('[tool.pytest_env]\n[tool.pytest.ini_options]\nenv = ["X:TORCH_LOGS=1"]\n', None),
        ('[tool.pytest_env]\nTORCH_LOGS = {value = "a", transform = "yes"}\n', '"yes"'),
        ('[tool.pytest_env]\nTORCH_LOGS = {value = "a", skip_if_set = true, x = 1}\n', "x"),
        ("[tool.pytest_env]\nA = {unset = true}\n[tool.pytest_env.TORCH_LOGS]\n", "TORCH_LOGS"),
        (
            '[tool.pytest_env]\nTORCH_LOGS = {value = "}", transform = true, skip_if_set = true}\n',
            None,
        ),
        ('[tool.pytest_env]\nTORCH_LOGS = {value = "}", transform = true}\nX.y = 1\n', "y"),
        ('[tool.pytest_env]\n"" = "a"\nTORCH_LOGS = "b"\n', '""'),
        ("[[tool.pytest_env]]\nTORCH_LOGS = {x = 1}\n", None),
        ('[tool.pytest_env]\nTORCH_LOGS = {value = "a", unset = 1}\n', "1"),
    ],
)
def test_where_pytest_env_stops(text: str, cause: str | None) -> None:
    """TL504's place (:mod:`.usage_errors`): the first cause of a ``UsageError`` of
    pytest-env 1.8.7 in the reading it uses (table checks before any entry is applied),
    only when that reading names a family variable; nothing for what depends on the
    environment. (Each kind is checked against real pytest in
    tests/hosts/test_pytest_env_oracle.py.)"""
    got = toml.stops(text)
    if cause is None:
        assert got == []
        return
    ((start, end, message),) = got
    assert text[start:end] == (cause if cause != '""' else "") or text[start - 1 : end + 1] == cause
    assert "pytest stops before any test runs, so no test sees TORCH_LOGS" in message
