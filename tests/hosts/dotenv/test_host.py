"""The .env host: table-driven cases and a differential test against python-dotenv,
through its public ``dotenv_values``."""

from __future__ import annotations

import codecs
import io

import pytest
from dotenv import dotenv_values
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.dotenv import host as dotenv
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

# (document, [(variable, value, quote, terminated)])
CASES: list[tuple[str, list[tuple[str, str | None, str | None, bool]]]] = [
    ("TORCH_LOGS=+dynamo\n", [("TORCH_LOGS", "+dynamo", "", True)]),
    ("export TORCH_LOGS=+dynamo", [("TORCH_LOGS", "+dynamo", "", True)]),
    ("TORCH_LOGS = dynamo , aot \n", [("TORCH_LOGS", "dynamo , aot", "", True)]),
    ("TORCH_LOGS=dynamo # a comment\n", [("TORCH_LOGS", "dynamo", "", True)]),
    ("TORCH_LOGS=dynamo#not-a-comment\n", [("TORCH_LOGS", "dynamo#not-a-comment", "", True)]),
    ("TORCH_LOGS=#novalue\n", [("TORCH_LOGS", "#novalue", "", True)]),
    ("TORCH_LOGS= # only a comment\n", [("TORCH_LOGS", "", "", True)]),
    ("TORCH_LOGS=\n", [("TORCH_LOGS", "", "", True)]),
    ("TORCH_LOGS", []),
    ("# TORCH_LOGS=dynamo\n", []),
    ("TORCH_LOGS='+dynamo,guards'\n", [("TORCH_LOGS", "+dynamo,guards", "'", True)]),
    ('TORCH_LOGS="+dynamo" # c\r\n', [("TORCH_LOGS", "+dynamo", '"', True)]),
    ('TORCH_LOGS="a\\tb\\nc\\"d\\\\e\\qf"', [("TORCH_LOGS", 'a\tb\nc"d\\e\\qf', '"', True)]),
    ("TORCH_LOGS='a\\'b\\\\c\\n'", [("TORCH_LOGS", "a'b\\c\\n", "'", True)]),
    ('TORCH_LOGS="dynamo,\naot"\n', [("TORCH_LOGS", "dynamo,\naot", '"', True)]),
    ("TORCH_LOGS=${OTHER}\n", [("TORCH_LOGS", None, "", True)]),
    ('TORCH_LOGS="${A:-dynamo}"\n', [("TORCH_LOGS", None, '"', True)]),
    ("TORCH_LOGS='${A}'\n", [("TORCH_LOGS", None, "'", True)]),
    ("TORCH_LOGS=$A\n", [("TORCH_LOGS", "$A", "", True)]),
    ('TORCH_LOGS="+dyn', [("TORCH_LOGS", "+dyn", '"', False)]),
    (
        'TORCH_LOGS="+dyn\r\nTORCH_TRACE=/tmp\n',
        [("TORCH_LOGS", "+dyn", '"', False), ("TORCH_TRACE", "/tmp", "", True)],
    ),
    (
        'TORCH_LOGS="+dyn\nX="y"\nTORCH_TRACE=/t\n',
        [("TORCH_LOGS", "+dyn", '"', False), ("TORCH_TRACE", "/t", "", True)],
    ),
    ("TORCH_LOGS='dyn", [("TORCH_LOGS", "dyn", "'", False)]),
    ('TORCH_LOGS="dynamo" junk\n', []),
    ("\ufeffTORCH_LOGS=dynamo", [("TORCH_LOGS", "dynamo", "", True)]),
    ("'TORCH_LOGS'=dynamo", [("TORCH_LOGS", "dynamo", "", True)]),
    (
        "TORCH_LOGS_OUT=/tmp/x.log\nTORCH_LOGS=a\n",
        [("TORCH_LOGS_OUT", "/tmp/x.log", "", True), ("TORCH_LOGS", "a", "", True)],
    ),
    ("😀́ =1\nTORCH_LOGS=é,dynamo", [("TORCH_LOGS", "é,dynamo", "", True)]),
    ("OTHER=TORCH_LOGS\nexportTORCH_LOGS=1\nTORCH_LOGSX=1\n", []),
    (
        "TORCH_COMPILE_DEBUG=1\rTORCH_TRACE=/t",
        [("TORCH_COMPILE_DEBUG", "1", "", True), ("TORCH_TRACE", "/t", "", True)],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases(text: str, expected: list[tuple[str, str | None, str | None, bool]]) -> None:
    spans = dotenv.extract(text)
    check_spans(text, spans)
    got = [(s.variable, s.value, s.quote, s.terminated) for s in spans]
    assert got == expected


def test_offsets_of_escapes() -> None:
    text = 'export TORCH_LOGS = "+dyn\\tamo"'
    (span,) = dotenv.extract(text)
    assert text[span.name_start : span.name_end] == "TORCH_LOGS"
    assert text[span.raw_start : span.raw_end] == '"+dyn\\tamo"'
    assert text[span.content_start : span.content_end] == "+dyn\\tamo"
    for i, ch in enumerate(span.value or ""):
        src = text[span.char_starts[i] : span.char_ends[i]]
        assert codecs.decode(src, "unicode-escape") == ch if len(src) == 2 else src == ch
    assert span.document_range(4, 5) == (25, 27)


def test_empty_value_insertion_point() -> None:
    (span,) = dotenv.extract("TORCH_LOGS=")
    assert (span.content_start, span.content_end, span.raw_start, span.raw_end) == (11,) * 4
    assert span.value_index(11) == 0


# --- differential test against python-dotenv ------------------------------------------

_KEYS = ["TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE", "'TORCH_LOGS'", "OTHER", "#TORCH_LOGS"]
_ATOMS = [*"ab +-,.#=$'\"\\{}:\t\x0b\x0c", "\n", "\r\n", "\r", "é", "😀", "\u0301", "\u2028"]
_chunk = st.lists(st.sampled_from(_ATOMS), max_size=12).map("".join)


@st.composite
def _line(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(["", "export ", "  ", "export\t", "export"]))
    key = draw(st.sampled_from(_KEYS))
    eq = draw(st.sampled_from(["=", " = ", "=  ", "\t=", "", "= "]))
    kind = draw(st.sampled_from(["plain", "dq", "sq", "raw"]))
    body = draw(_chunk)
    if kind == "dq":
        value = '"' + body.replace('"', draw(st.sampled_from(['\\"', '"']))) + '"'
    elif kind == "sq":
        value = "'" + body + draw(st.sampled_from(["'", ""]))
    elif kind == "plain":
        value = body.replace("\n", "").replace("\r", "")
    else:
        value = body
    tail = draw(st.sampled_from(["", " # c", "#x", "  ", " junk", "${A}", "${B:-x}"]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r", ""]))
    return prefix + key + eq + value + tail + end


_documents = st.one_of(
    st.lists(_line(), max_size=6).map("".join),
    st.lists(st.sampled_from([*_ATOMS, "TORCH_LOGS", "export "]), max_size=40).map("".join),
)


def _renamed(text: str, spans: list[ValueSpan]) -> tuple[str, list[str]]:
    """``text`` with the name of each span replaced by a name of its own of the same
    length (``Q000000001``), so that python-dotenv's ``dotenv_values`` (a dict: the last
    binding of a name wins) shows every binding the host reads; and those names."""
    names = []
    for k, span in enumerate(spans):
        width = span.name_end - span.name_start
        name = f"Q{k:0{width - 1}d}"
        text = text[: span.name_start] + name + text[span.name_end :]
        names.append(name)
    return text, names


def _compare(text: str) -> None:
    """The host's spans of ``text`` are python-dotenv's bindings of the family names:
    each span's name renamed (:func:`_renamed`), ``dotenv_values`` has that binding with
    the span's value (a value with a ``${VAR}`` is not static: ``interpolate=True``
    changes it), an unterminated span has none, and no family name is left bound."""
    spans = dotenv.extract(text)
    check_spans(text, spans, exact_name=True)
    renamed, names = _renamed(text, spans)
    raw = dotenv_values(stream=io.StringIO(renamed), interpolate=False)
    expanded = dotenv_values(stream=io.StringIO(renamed), interpolate=True)
    missed = {k: v for k, v in raw.items() if k in FAMILY and v is not None}
    assert not missed, f"python-dotenv binds {missed} where the .env host reads none: {text!r}"
    for name, span in zip(names, spans, strict=True):
        if not span.terminated:
            assert raw.get(name) is None, (
                f"python-dotenv reads {raw.get(name)!r} from a value the .env host reads as "
                f"unterminated ({span.variable} in {text!r})"
            )
            continue
        value = raw.get(name)
        assert value is not None, (
            f"python-dotenv binds no {span.variable} where the .env host reads "
            f"{span.value!r} ({text!r})"
        )
        static = value if expanded.get(name) == value else None
        assert span.value == static, (
            f"python-dotenv reads {span.variable}={value!r} (static: {static is not None}), "
            f"the .env host {span.value!r} ({text!r})"
        )


@pytest.mark.oracle
@settings(max_examples=examples(400), deadline=None)
@given(_documents)
def test_matches_python_dotenv(text: str) -> None:
    _compare(text)


NASTY = [
    'TORCH_LOGS="a\\\\"b"\n',
    'TORCH_LOGS="a\\\\\\"b"\n',
    "TORCH_LOGS='a\\\\'b'\n",
    'TORCH_LOGS="\\a\\b\\f\\v\\r\\\'"',
    "TORCH_LOGS=  \t\n",
    "TORCH_LOGS\t=\tx\t#\tc",
    "TORCH_LOGS=a\x0b#b",
    "TORCH_LOGS=a \u2028#b",
    "TORCH_LOGS=\u00a0#b",
    "   \n\n\t export   TORCH_LOGS=1",
    'TORCH_LOGS="x"\x0c\n',
    'TORCH_LOGS="x"#c',
    "TORCH_LOGS=\"x\nTORCH_LOGS='y'\n",
    "=x\nTORCH_LOGS=1",
    "'unterminated key\nTORCH_LOGS=1",
    "TORCH_LOGS=${\nTORCH_LOGS=${}",
    "\x00TORCH_LOGS=\x00\n",
    "TORCH_LOGS=\r\nTORCH_TRACE='\r\n'",
    "TORCH_LOGS=" + "x" * 100_000,
]


@pytest.mark.oracle
@pytest.mark.parametrize("text", NASTY)
def test_nasty_cases_match_python_dotenv(text: str) -> None:
    _compare(text)


# --- long whitespace runs: linear time, python-dotenv's result ------------------------

#: python-dotenv 1.2 is itself quadratic on these (``re.sub(r"\s+#.*", ...)``): runs of a
#: few thousand characters keep the oracle fast.
_RUNS = [" " * 3000, "\t" * 3000, " \t\x0b\x0c\u00a0\u2028\x1c\x85" * 400]
LONG_RUNS = [
    text
    for ws in _RUNS
    for text in (
        f"TORCH_LOGS=a,{ws}b\n",
        f"TORCH_LOGS=dynamo{ws}#c\n",
        f"TORCH_LOGS=dynamo{ws}x{ws}#c{ws}#d\n",
        f"TORCH_LOGS=a#b{ws}\n",
        f"TORCH_LOGS=#{ws}#c\n",
        f"TORCH_LOGS={ws}\n",
        f"TORCH_LOGS=x{ws}",
        f"TORCH_LOGS=a{ws}b#c{ws}##\r\nTORCH_TRACE=t{ws}#\n",
        f"export{ws[:1]}TORCH_LOGS{ws}={ws}dynamo{ws}\n",
    )
]


@pytest.mark.oracle
@pytest.mark.parametrize("text", LONG_RUNS)
def test_long_whitespace_runs_match_python_dotenv(text: str) -> None:
    _compare(text)


@pytest.mark.oracle
@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "\x0b", "\u3000", "\x85", "#", "a", "é"])).map("".join))
def test_inline_comments_as_python_dotenv_cuts_them(part: str) -> None:
    """An unquoted value's inline comment (a ``#`` after whitespace) and trailing blanks,
    as ``dotenv_values`` cuts them, after a first character and right after ``=``."""
    for text in (f"TORCH_LOGS=a{part}", f"TORCH_LOGS={part}"):
        want = dotenv_values(stream=io.StringIO(text), interpolate=False)["TORCH_LOGS"]
        got = [s.value for s in dotenv.extract(text)]
        assert got == [want], f"python-dotenv reads {want!r} from {text!r}, the host {got}"
