"""The Python host: where family values are found in Python source, and how string
literals decode (differential against ``ast.literal_eval``, the oracle)."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
import warnings

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.edits import apply_text_edits, value_edit
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.hosts.python.strings import decode_literal


def spans(text: str) -> list[tuple[str, str | None]]:
    found = extract("python", text)
    check_spans(text, found)
    return [(s.variable, s.value) for s in found]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('os.environ["TORCH_LOGS"] = "+dynamo"', [("TORCH_LOGS", "+dynamo")]),
        ("environ['TORCH_LOGS'] = 'guards'", [("TORCH_LOGS", "guards")]),
        ('env["TORCH_TRACE"] = "/tmp/t"', [("TORCH_TRACE", "/tmp/t")]),
        ('a = os.environ["TORCH_LOGS"] = "x"', [("TORCH_LOGS", "x")]),
        ('os.environ.setdefault("TORCH_LOGS", "+dynamo")', [("TORCH_LOGS", "+dynamo")]),
        ('os.putenv("TORCH_LOGS", "aot")', [("TORCH_LOGS", "aot")]),
        ('putenv("TORCH_LOGS", "aot")', [("TORCH_LOGS", "aot")]),
        ('monkeypatch.setenv("TORCH_LOGS", "recompiles")', [("TORCH_LOGS", "recompiles")]),
        # keywords (pytest's MonkeyPatch.setenv(name, value), MutableMapping.setdefault)
        ('monkeypatch.setenv(name="TORCH_LOGS", value="a")', [("TORCH_LOGS", "a")]),
        # the value before the name: not taken (a span's name precedes its value)
        ('monkeypatch.setenv(value="a", name="TORCH_LOGS")', []),
        ('monkeypatch.setenv("TORCH_LOGS", value="a")', [("TORCH_LOGS", "a")]),
        ('monkeypatch.setenv("TORCH_LOGS", "a", prepend=":")', [("TORCH_LOGS", "a")]),
        ('os.environ.setdefault(key="TORCH_LOGS", default="a")', [("TORCH_LOGS", "a")]),
        ('os.environ.setdefault("TORCH_LOGS", default="a")', [("TORCH_LOGS", "a")]),
        ('monkeypatch.setenv(name="TORCH_LOGS")', []),  # a TypeError, no value
        ('monkeypatch.setenv(key="TORCH_LOGS", value="a")', []),  # not setenv's name
        ('os.putenv(key="TORCH_LOGS", value="a")', []),  # putenv takes no keywords
        ('monkeypatch.setenv("TORCH_LOGS", *v)', []),
        ('f(name="TORCH_LOGS", value="a")', []),
        ('os.environ.update({"TORCH_LOGS": "a"})', [("TORCH_LOGS", "a")]),
        (
            'os.environ.update(TORCH_LOGS="a", TORCH_LOGS_OUT="o")',
            [("TORCH_LOGS", "a"), ("TORCH_LOGS_OUT", "o")],
        ),
        ('mock.patch.dict(os.environ, {"TORCH_LOGS": "a"})', [("TORCH_LOGS", "a")]),
        ('mock.patch.dict(os.environ, values={"TORCH_LOGS": "a"})', [("TORCH_LOGS", "a")]),
        ('patch.dict(os.environ, TORCH_LOGS="a")', [("TORCH_LOGS", "a")]),
        (
            '@mock.patch.dict(os.environ, {"TORCH_LOGS": "+dynamo"})\ndef test(): pass',
            [("TORCH_LOGS", "+dynamo")],
        ),
        ('subprocess.run(cmd, env={**os.environ, "TORCH_LOGS": ""})', [("TORCH_LOGS", "")]),
        ('subprocess.run(cmd, env=dict(os.environ, TORCH_LOGS="a"))', [("TORCH_LOGS", "a")]),
        ('os.execve(p, args, {"TORCH_LOGS": "a"})', [("TORCH_LOGS", "a")]),
        ('env = {"TORCH_LOGS": "a", "OTHER": 1}\nrun(c, env=env)', [("TORCH_LOGS", "a")]),
        # a mapping keyed by a family name that is no environment: not a value
        ('HELP = {"TORCH_LOGS": "comma-separated names, e.g. +dynamo"}', []),
        ('RENAMES = {"TORCH_LOGS": "PT_LOGS"}\nshow(RENAMES)', []),
        ('print({"TORCH_LOGS": "x"})', []),
        # not static: no value
        ('os.environ["TORCH_LOGS"] = f"+{name}"', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = level', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = ",".join(names)', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = "+%s" % name', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = "+{}".format(name)', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = "+" + name', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = "a" "b" f"{c}"', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = b"+dynamo"', [("TORCH_LOGS", None)]),
        ('os.environ["TORCH_LOGS"] = "\\x4"', [("TORCH_LOGS", None)]),  # a SyntaxError
        ('os.environ["TORCH_LOGS"] = "\\N{NO SUCH NAME}"', [("TORCH_LOGS", None)]),
        # reads, comments, docstrings, other names: nothing
        ('level = os.environ["TORCH_LOGS"]', []),
        ('level = os.environ.get("TORCH_LOGS", "+dynamo")', []),
        ('level = os.getenv("TORCH_LOGS", "+dynamo")', []),
        ('# os.environ["TORCH_LOGS"] = "bad"', []),
        ('"""Run with TORCH_LOGS=+dynamo."""', []),
        ('def f():\n    """os.environ["TORCH_LOGS"] = "x"."""', []),
        ('os.environ["MY_TORCH_LOGS"] = "x"', []),
        ('os.environ[f"TORCH_LOGS"] = "x"', []),
        ('os.environ[b"TORCH_LOGS"] = b"x"', []),
        ('os.environ["TORCH_LOGS"] += ",guards"', []),
        ('print("TORCH_LOGS", "x")', []),
        ("TORCH_LOGS = 'x'", []),
        ('f(TORCH_LOGS="x")', []),
    ],
)
def test_forms(source: str, expected: list[tuple[str, str | None]]) -> None:
    assert spans(source) == expected


def test_no_needle_no_parse() -> None:
    assert extract("python", "import os\nos.environ['X'] = 'y'\n" * 100) == []


def test_offsets_through_escapes_and_concatenation() -> None:
    text = 'os.environ["TORCH_LOGS"] = (\n    "\\x2bdyn" r"amo,\\q"\n    "\\N{PLUS SIGN}g"\n)\n'
    (span,) = extract("python", text)
    assert span.value == "+dynamo,\\q+g"
    pieces = [text[a:b] for a, b in zip(span.char_starts, span.char_ends, strict=True)]
    assert pieces == ["\\x2b", *"dynamo,\\q", "\\N{PLUS SIGN}", "g"]
    assert span.quote is None
    assert (
        text[span.raw_start : span.raw_end].startswith('"\\x2b') and text[span.raw_end - 1] == '"'
    )
    assert text[span.name_start : span.name_end] == "TORCH_LOGS"


def test_half_typed_code_reads_what_is_complete() -> None:
    first = 'os.environ["TORCH_LOGS"] = "+dynamo"\n'
    texts = [
        first + 'subprocess.run(x, env={"TORCH_LOGS": "a",\n',
        first + 'def f(:\n    os.environ.setdefault("TORCH_LOGS", "a")\n',
        'os.environ["TORCH_LOGS"] = "+dynamo"\nos.environ["TORCH_LOGS"] = "+dyn',
        'os.environ["TORCH_LOGS"] = "+dynamo"\nx = """TORCH_LOGS\n',
        'os.environ["TORCH_LOGS"] = "+dynamo"\nos.environ.update({"TORCH_LOGS": ',
        'os.environ["TORCH_LOGS"] = "+dynamo"\n((((\n',
    ]
    for text in texts:
        found = spans(text)
        assert found[0] == ("TORCH_LOGS", "+dynamo"), text
    assert ("TORCH_LOGS", "a") in spans(texts[0])
    assert ("TORCH_LOGS", "a") in spans(texts[1])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "(",
        '"',
        '"""',
        "os.environ[",
        'os.environ["TORCH_LOGS"',
        'os.environ["TORCH_LOGS"] =',
        '{"TORCH_LOGS": ',
        "dict(TORCH_LOGS=",
        "\x00TORCH_LOGS\ud800",
        'r"TORCH_LOGS\\',
        'os.environ["TORCH_LOGS"] = "\\',
        "TORCH_LOGS" * 1000,
        # a lone surrogate in a \N{...} name: unicodedata.lookup raised UnicodeEncodeError
        'os.environ["TORCH_LOGS"] = "\\N{\ud800PLUS SIGN}g"',
    ],
)
def test_bad_input_never_crashes(text: str) -> None:
    extract("python", text)
    extract("python", text + "\n" + 'os.environ["TORCH_LOGS"] = "a"')


# --- the differential test -------------------------------------------------------------

_PLAIN = st.sampled_from([*"abz+-,._ 09éß😀'\"", "\t", "\u2028"])
_ESCAPES = st.sampled_from(
    [
        "\\n",
        "\\t",
        "\\x2b",
        "\\u002b",
        "\\U0001F600",
        "\\N{PLUS SIGN}",
        "\\N{plus sign}",
        "\\053",
        "\\7",
        "\\0",
        "\\777",
        "\\\\",
        "\\'",
        '\\"',
        "\\q",
        "\\8",
        "\\\n",
        "\\\r\n",
        "\\\r",
    ]
)
_NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def _literal(draw: st.DrawFn) -> tuple[str, bool]:
    prefix = draw(st.sampled_from(["", "r", "R", "u", "U"]))
    quote = draw(st.sampled_from(['"', "'", '"""', "'''"]))
    pieces = _PLAIN | _ESCAPES | (_NEWLINES if len(quote) == 3 else _PLAIN)
    body = "".join(draw(st.lists(pieces, max_size=8)))
    return prefix + quote + body + quote, "r" in prefix.lower()


@st.composite
def _document(draw: st.DrawFn) -> tuple[str, str, list[tuple[int, int, bool]]]:
    """(document, the value expression, each literal's (start, end, raw) in the document)."""
    lits = draw(st.lists(_literal(), min_size=1, max_size=3))
    head = draw(
        st.sampled_from(['os.environ["TORCH_LOGS"] = (', 'child = {**os.environ, "TORCH_LOGS": ('])
    )
    tail = ")" if head.startswith("os") else ")}"
    pos = len("# 😀 emoji before\n" + head)
    doc, places, expr = "# 😀 emoji before\n" + head, [], ""
    for i, (lit, raw) in enumerate(lits):
        sep = draw(st.sampled_from([" ", "\n  ", " \\\n"])) if i else ""
        expr += sep + lit
        places.append((pos + len(expr) - len(lit), pos + len(expr), raw))
    return doc + expr + tail + "\n", expr, places


def _oracle(source: str) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(source)


def _expected_char(piece: str, raw: bool) -> str:
    if piece in ("\r\n", "\r"):
        return "\n"
    if raw or piece == "\\":
        return piece
    quote = "'''" if '"' in piece else '"""'
    value = _oracle(quote + piece + quote)
    assert isinstance(value, str)
    return value


@settings(max_examples=examples(400), deadline=None)
@given(_document())
def test_literals_decode_like_python(case: tuple[str, str, list[tuple[int, int, bool]]]) -> None:
    doc, expr, places = case
    try:
        for start, end, _ in places:  # each literal alone, so Python reads the same parts
            _oracle(doc[start:end])
        tokens = tokenize.generate_tokens(io.StringIO(expr).readline)
        strings = [t for t in tokens if t.type == tokenize.STRING]
        assume(len(strings) == len(places))  # (`""\<CR>""` is two literals, not one)
        expected = _oracle("(" + expr + ")")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(doc, "<doc>", "exec")
    except (SyntaxError, ValueError, tokenize.TokenError):
        assume(False)
        return
    assume(isinstance(expected, str))
    (span,) = extract("python", doc)
    assert span.value == expected
    prev = span.content_start
    for k, (start, end) in enumerate(zip(span.char_starts, span.char_ends, strict=True)):
        assert prev <= start < end, (k, span)
        prev = end
        (raw,) = [r for a, b, r in places if a <= start < b]
        assert _expected_char(doc[start:end], raw) == expected[k], (k, doc[start:end])
    assert span.raw_start == places[0][0] and span.raw_end == places[-1][1]


def test_decode_literal_kinds() -> None:
    assert decode_literal('b"x"', 0, 4).kind == "bytes"
    assert decode_literal('f"x"', 0, 4).value is None
    assert decode_literal('rb"x"', 0, 5).value is None
    lit = decode_literal("'''a\r\nb'''", 0, 10)
    assert (lit.value, lit.quote, lit.starts, lit.ends) == ("a\nb", "'''", [3, 4, 6], [4, 6, 7])
    unterminated = decode_literal('"abc', 0, 4, terminated=False)
    assert (unterminated.value, unterminated.terminated) == ("abc", False)


# --- writing values back ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "new", "after"),
    [
        ('os.environ["TORCH_LOGS"] = "+dynamo,aot_g"', "+dynamo,aot_graphs", None),
        (
            'os.environ["TORCH_LOGS"] = "\\x2bdynamo,aot_g"',
            "+dynamo,aot_graphs",
            '"\\x2bdynamo,aot_graphs"',
        ),
        (
            "os.environ['TORCH_LOGS'] = r'+dynamo,aot_g'",
            "+dynamo,aot_graphs",
            "r'+dynamo,aot_graphs'",
        ),
        (
            'os.environ["TORCH_LOGS"] = "+dynamo," "aot_g"',
            "+dynamo,aot_graphs",
            '"+dynamo," "aot_graphs"',
        ),
        (
            'os.environ["TORCH_LOGS"] = """+dynamo,aot_g"""',
            "+dynamo,aot_graphs",
            '"""+dynamo,aot_graphs"""',
        ),
        ('os.environ["TORCH_LOGS"] = "a"', 'say "\\hi"\n', '"say \\"\\\\hi\\"\\n"'),
        ("os.environ['TORCH_LOGS'] = r'a'", "a\\b'", None),
    ],
)
def test_value_edit_keeps_the_literal(text: str, new: str, after: str | None) -> None:
    (span,) = extract("python", text)
    edits = value_edit("python", text, span, new)
    assert edits is not None
    result = apply_text_edits(text, edits)
    assert [s.value for s in extract("python", result)] == [new]
    value_src = result.split("= ", 1)[1]
    assert _oracle("(" + value_src + ")") == new
    if after is not None:
        assert value_src == after


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('os.environ["TORCH_LOGS"] = "+dyn', "+dyn"),
        ('os.environ["TORCH_LOGS"] = r"+dyn\nx = 1\n', "+dyn"),
        ('run(c, env={"TORCH_LOGS": "+dynamo,\\x2bgua\n})', "+dynamo,+gua"),
        ('os.environ["TORCH_LOGS"] = "', ""),
    ],
)
def test_a_quote_not_closed_yet(text: str, value: str) -> None:
    (span,) = extract("python", text)
    assert (span.value, span.terminated) == (value, False)
    assert span.content_end == text.find("\n") if "\n" in text else len(text)


@pytest.mark.parametrize(
    "text",
    [
        'os.environ["TORCH_LOGS"] == "+dyn',  # a comparison
        'os.environ["TORCH_LOGS"] = """+dyn\n',  # a triple quote runs on: not read
    ],
)
def test_no_open_value(text: str) -> None:
    assert [s.terminated for s in extract("python", text) if s.value is not None] == []


@pytest.mark.parametrize(
    ("line", "typed"),
    [
        ('os.environ["TORCH_', "TORCH_"),
        ("environ['T", "T"),
        ('os.environ.setdefault("TORCH_LO', "TORCH_LO"),
        ('monkeypatch.setenv("TOR', "TOR"),
        ('env = {"TORCH', "TORCH"),
        ('subprocess.run(c, env={**os.environ, "TORCH_', "TORCH_"),
        ('os.environ["', None),  # nothing typed yet: most strings are not family names
        ('print("TORCH_', None),
        ('x = {"TA', None),
        ('os.environ["torch_', None),
        ("# os.environ['TORCH_", None),
    ],
)
def test_typed_name(line: str, typed: str | None) -> None:
    from torch_logs_lsp.hosts.python import host as python

    text = "import os\n" + line
    assert python.typed_name(text, len(text)) == typed


@pytest.mark.parametrize("levels", [101, 600])
def test_a_module_nested_deeper_than_python_allows_is_not_parsed(levels: int) -> None:
    """tree-sitter-python crashed the process (SIGSEGV) on ~550 levels of indentation;
    CPython refuses more than 100. Run in a subprocess: a crash must fail the test."""
    body = "".join(" " * i + "if x:\n" for i in range(levels))
    body += " " * levels + 'os.environ["TORCH_LOGS"] = "aot_g"\n'
    body += "torch._logging.set_logs(dynamo=True)\n"
    prog = (
        "import sys\n"
        "from torch_logs_lsp.hosts import extract\n"
        "from torch_logs_lsp.hosts.python import host as python\n"
        "text = sys.stdin.read()\n"
        "print(len(extract('python', text)), len(python.set_logs_calls(text)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", prog], input=body, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "0"]
    with pytest.raises(SyntaxError, match="too many levels of indentation"):
        compile(body, "<deep>", "exec")


def test_a_module_at_pythons_indentation_limit_is_read() -> None:
    body = "".join(" " * i + "if x:\n" for i in range(99))
    body += " " * 99 + 'os.environ["TORCH_LOGS"] = "aot_g"\n'
    compile(body, "<deep>", "exec")  # Python accepts it
    assert [s.value for s in extract("python", body)] == ["aot_g"]


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_a_lone_cr_ends_a_line_as_in_python(end: str):
    # Python's tokenizer ends a line at a lone CR (old Mac files); tree-sitter-python let
    # a comment run on to the next LF and swallow the assignment after it

    text = end.join(
        [
            "import os",
            "# a comment",
            'os.environ["TORCH_LOGS"] = "+dynamo,guards"',
            "x = '''a",
            "b'''",
            "",
        ]
    )
    tree = ast.parse(text)  # the oracle: two assignments, the string's line end read as LF
    assert [type(n).__name__ for n in tree.body] == ["Import", "Assign", "Assign"]
    assert ast.literal_eval(tree.body[2].value) == "a\nb"
    assert spans(text) == [("TORCH_LOGS", "+dynamo,guards")]
    deep = end.join(f"{' ' * i}if x:" for i in range(150)) + end
    assert python.too_deep(deep)  # more than 100 levels, counted across lone CRs too


def test_a_lone_cr_before_import_torch_still_gives_tl501():
    from torch_logs_lsp.lint.pipeline import findings

    text = 'import os\r# c\rimport torch\ros.environ["TORCH_LOGS"] = "+dynamo"\r'
    assert [(f.diagnostic.code, f.line) for f in findings(text, "python")] == [("TL501", 3)]
