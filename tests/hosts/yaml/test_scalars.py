"""YAML scalar decoding (hosts/yaml/scalars.py) against PyYAML as the oracle.

Scalars of every style are embedded as ``k: <scalar>`` (and under a nested mapping),
found with tree-sitter-yaml like the YAML host does, decoded, and compared with
``yaml.safe_load``; every decoded code point's source range is checked.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from tests.support.budget import examples
from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.yaml.scalars import (
    Scalar,
    core_schema_string,
    decode_scalar,
    encode_part,
    plain_is_string,
)

KINDS = {"plain_scalar", "single_quote_scalar", "double_quote_scalar", "block_scalar"}


def value_range(text: str, key: str = "k") -> tuple[str, int, int, int] | None:
    """The node type, code point range and parent indentation of ``key``'s value scalar
    (found as the YAML host finds it), or ``None``."""
    src = Source(text)
    tree = src.parse("yaml")
    found: list[tuple[str, int, int, int]] = []

    def walk(node: Any, indent: int) -> None:
        if node.type == "block_mapping":  # its column (tree-sitter's ignores a lone CR)
            at = src.cp(node.start_byte)
            indent = at - max(src.text.rfind("\n", 0, at), src.text.rfind("\r", 0, at)) - 1
        if node.type == "block_mapping_pair":
            k = node.child_by_field_name("key")
            v = node.child_by_field_name("value")
            if (
                k is not None
                and v is not None
                and src.text[src.cp(k.start_byte) : src.cp(k.end_byte)] == key
            ):
                items = list(v.children)
                if len(items) == 1 and items[0].type == "flow_sequence":  # k: [<scalar>]
                    items = [
                        c for n in items[0].children if n.type == "flow_node" for c in n.children
                    ]
                for c in items:
                    if c.type in KINDS:
                        found.append((c.type, src.cp(c.start_byte), src.cp(c.end_byte), indent))
        for c in node.children:
            walk(c, indent)

    walk(tree.root_node, -1)
    return found[0] if len(found) == 1 else None


def check_offsets(text: str, sc: Scalar) -> None:
    """Each decoded code point's source range: ascending, inside the content, and the
    right source (a character itself, an escape of it, ``''``, or a run of whitespace
    with line breaks for a (folded) line break)."""
    assert 0 <= sc.content_start <= sc.content_end <= len(text), sc
    if sc.value is None:
        assert sc.starts == sc.ends == ()
        return
    assert len(sc.starts) == len(sc.ends) == len(sc.value)
    prev = sc.content_start
    for i, (s, e) in enumerate(zip(sc.starts, sc.ends, strict=True)):
        assert prev <= s < e <= sc.content_end, (i, sc)
        prev = e
        c, src = sc.value[i], text[s:e]
        if src == c:
            continue
        if c in " \n" and src.strip(" \t") and not src.strip(" \t\r\n"):
            if e - s == 1:  # documented exception: a lone break read as " " or "\n"
                assert src in "\r\n"
            continue
        if src == "''":
            assert c == "'" and sc.quote == "'"
            continue
        assert sc.quote == '"' and src[0] == "\\", (i, src, c)
        assert yaml.safe_load('"' + src + '"') == c, (i, src, c)


def loaded(text: str, path: tuple[str | int, ...] = ("k",)) -> object:
    """What PyYAML reads at ``path``, or ``Exception`` when it fails."""
    try:
        data: Any = yaml.safe_load(text)
        for p in path:
            data = data[p]
        return data
    except Exception:
        return Exception


def _event(what: str) -> None:
    """Count ``what`` in hypothesis's statistics (outside a hypothesis test: nothing)."""
    with contextlib.suppress(InvalidArgument):
        event(what)


def roundtrip(text: str, path: tuple[str | int, ...] = ("k",)) -> Scalar | None:
    """Decode ``path[-1]``'s scalar, check its offsets, compare with PyYAML."""
    r = value_range(text, [p for p in path if isinstance(p, str)][-1])
    if r is None:
        _event("tree-sitter: no single scalar")
        return None
    kind, start, end, indent = r
    sc = decode_scalar(text, start, end, indent)
    check_offsets(text, sc)
    want = loaded(text, path)
    if isinstance(want, str) and sc.value is not None:
        assert sc.value == want, (text, sc)
        _event(f"{kind}: equal")
    else:
        _event(f"{kind}: value {sc.value is not None}, PyYAML str {isinstance(want, str)}")
    return sc


LINE_CHARS = st.sampled_from([*list("ab  xé#:'\"\\-?,[]{}|>\t0.1"), "😀", "\ufeff", "\x85", "\x01"])
CLEAN = st.sampled_from([*list("abcxyz019 _.-é"), "😀"])
BREAK = st.sampled_from(["\n", "\r\n", "\r", "\r\r\n", "\n\n", "\n  \n", " \n", "\n\t\n"])


@st.composite
def flow_body(draw: st.DrawFn, quote: str) -> str:
    """A quoted scalar body (closing quote not included; quotes escaped)."""
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            parts.append(draw(BREAK) + " " * draw(st.integers(1, 4)))
        elif kind == 1 and quote == '"':
            parts.append(draw(st.sampled_from(ESCAPES)))
        elif kind == 1:
            parts.append("''")
        else:
            parts.append(draw(st.text(LINE_CHARS, max_size=5)))
    body = "".join(parts)
    if quote == "'":
        return body.replace("''", "\0").replace("'", "''").replace("\0", "''")
    return body.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\\\\\", "\\")


ESCAPES = [
    "\\\\",
    '\\"',
    "\\n",
    "\\t",
    "\\ ",
    "\\/",
    "\\0",
    "\\e",
    "\\N",
    "\\_",
    "\\L",
    "\\P",
    "\\x41",
    "\\u00e9",
    "\\U0001F600",
    "\\ud800",
    "\\q",
    "\\\n  ",
    "\\\r\n\n ",
    "\\\t",
]


@settings(max_examples=examples(500), deadline=None)
@given(quote=st.sampled_from(["'", '"']), body=st.data())
def test_quoted_scalars_match_pyyaml(quote: str, body: st.DataObject) -> None:
    text = body.draw(flow_body(quote))
    sc = roundtrip(f"k: {quote}{text}{quote}\n")
    if sc is not None:
        assert sc.terminated and sc.quote == quote
    nested = "a:\n  k: " + quote + text.replace("\n", "\n   ") + quote + "\n"
    roundtrip(nested, ("a", "k"))
    roundtrip(f"k: [{quote}{text}{quote}]\n", ("k", 0))


@settings(max_examples=examples(500), deadline=None)
@given(
    first=st.text(CLEAN, min_size=1, max_size=8),
    rest=st.lists(st.tuples(BREAK, st.text(LINE_CHARS, min_size=1, max_size=6)), max_size=3),
    comment=st.booleans(),
    lead=st.sampled_from(["", "-", "?", ":", "!", "&", "*", "%", "@", "`", "|", ">", "'", "#"]),
)
def test_plain_scalars_match_pyyaml(
    first: str, rest: list[tuple[str, str]], comment: bool, lead: str
) -> None:
    body = lead + (first.strip() or "x") + "".join(b + "  " + line for b, line in rest)
    end = " # c\n" if comment else "\n"
    sc = roundtrip("k: " + body + end)
    if sc is not None and sc.value is not None:
        assert sc.quote != "" or sc.value == sc.value.strip(" ")
    roundtrip("a:\n  k: " + body.replace("\n", "\n  ") + end, ("a", "k"))
    roundtrip("k: [" + body + "]" + end, ("k", 0))


@settings(max_examples=examples(500), deadline=None)
@given(
    kind=st.sampled_from(["|", ">"]),
    digit=st.sampled_from(["", "1", "2", "3"]),
    chomp=st.sampled_from(["", "-", "+"]),
    swap=st.booleans(),
    comment=st.booleans(),
    lines=st.lists(
        st.tuples(
            st.integers(0, 6), st.text(st.sampled_from([*list("ab #\t:é😀"), "\x85"]), max_size=5)
        ),
        max_size=6,
    ),
    crlf=st.sampled_from(["\n", "\r\n", "\r"]),
    nested=st.booleans(),
    after=st.sampled_from(["", "j: 1\n", "# end\n", "\n\n"]),
)
def test_block_scalars_match_pyyaml(
    kind: str,
    digit: str,
    chomp: str,
    swap: bool,
    comment: bool,
    lines: list[tuple[int, str]],
    crlf: str,
    nested: bool,
    after: str,
) -> None:
    header = kind + (chomp + digit if swap else digit + chomp) + (" # h" if comment else "")
    base = "  " if nested else ""
    body = "".join(base + " " * sp + s + "\n" for sp, s in lines)
    text = (
        ("a:\n  k: " if nested else "k: ")
        + header
        + "\n"
        + body
        + (base + after if after.strip() else after)
    )
    text = text.replace("\n", crlf)
    sc = roundtrip(text, ("a", "k") if nested else ("k",))
    if sc is not None:
        assert sc.quote == kind


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("k: a b\n  c\n\n  d  \n", "a b c\nd"),
        ("k: a # c\n", "a"),
        ("k: a\n...\n", "a"),
        ("k: 'a''b\n\n   c '\n", "a'b\nc "),
        ('k: "a \\\n  b"\n', "a b"),
        ('k: "a\\\n\n  b"\n', "a\nb"),
        ('k: "\\x41\\u00e9\\U0001F600\\/\\N\\_\\L\\P"\n', "Aé😀/\x85\xa0\u2028\u2029"),
        ('k: " a  \n\n\n  b "\n', " a\n\nb "),
        ("k: |\n  a\n\n   b\n\n", "a\n\n b\n"),
        ("k: |-\n  a\n\n", "a"),
        ("k: |+\n  a\n\n", "a\n\n"),
        ("k: >\n  a\n  b\n\n  c\n   d\n  e\n", "a b\nc\n d\ne\n"),
        ("a:\n  k: |2-\n     x\n    y\n", " x\ny"),
        ("k: >\r\n  a\r\n  b\r\n", "a b\n"),
        ("k: | # note\n  x\n# after\n", "x\n"),
        ("k: |\n\n  x\n", "\nx\n"),
        ("k: >-\n\n  a\n  b\n", "\na b"),
    ],
)
def test_known_values(text: str, value: str) -> None:
    path = ("a", "k") if text.startswith("a:") else ("k",)
    assert loaded(text, path) == value  # the oracle agrees with the table
    sc = roundtrip(text, path)
    assert sc is not None and sc.value == value


@pytest.mark.parametrize(
    "text",
    [
        "k: a\tb\n",  # PyYAML: error; YAML 1.2: "a\tb"
        "k:\t'a'\n",  # PyYAML: a tab between tokens is an error
        'k: "\\ud83d\\ude00"\n',  # PyYAML: two lone surrogates
        "k: 'a\x85b'\n",  # NEL: a line break in YAML 1.1 only
        "k: |\n    \n  x\n",  # spec: error; PyYAML reads another indentation
        'k: "a\\qb"\n',  # an invalid escape
        "k: 'a\x01'\n",  # a control character: both reject the document
        'k: "a\n--- b"\n',  # a document marker inside a quoted scalar
    ],
)
def test_not_decoded_where_loaders_differ_or_fail(text: str) -> None:
    r = value_range(text)  # tree-sitter-yaml finds no scalar for an invalid escape
    sc = decode_scalar(text, 3, len(text) - 1, 0) if r is None else decode_scalar(text, *r[1:])
    assert sc.value is None and sc.starts == ()


def test_unterminated_quote_is_the_rest_of_its_line() -> None:
    text = "k: 'inductor\nj: 1\n"
    sc = decode_scalar(text, 3, len(text))
    assert sc == Scalar("inductor", tuple(range(4, 12)), tuple(range(5, 13)), 4, 12, "'", False)
    text = 'k: "a\\tb   \nj: "x"\n'
    sc = decode_scalar(text, 3, 12)
    assert sc.value == "a\tb   " and not sc.terminated and sc.content_end == 11
    check_offsets(text, sc)


def test_offsets_of_folds_and_escapes() -> None:
    text = 'k: "a  \n\n  b\\u00e9"\n'
    sc = decode_scalar(text, 3, 19)
    assert sc.value == "a\nbé"
    assert list(zip(sc.starts, sc.ends, strict=True)) == [(4, 5), (5, 11), (11, 12), (12, 18)]
    text = "k: >\n  a\n  b\n"
    sc = decode_scalar(text, 3, len(text), 0)
    assert sc.value == "a b\n" and sc.content_start == 5 and sc.content_end == len(text)
    assert (sc.starts[1], sc.ends[1]) == (8, 9)  # the folded break: width 1, documented


@pytest.mark.parametrize("start_end", [(0, 0), (5, 3), (-4, 99), (3, 4)])
@pytest.mark.parametrize(
    "text", ["", "k: |", "k: >9+\n", "k: '\ud800", 'k: "\\', "k: |\n\t\n", "\ufeffk: \x00"]
)
def test_never_raises(text: str, start_end: tuple[int, int]) -> None:
    sc = decode_scalar(text, *start_end)
    check_offsets(text, sc)
    for start in range(len(text)):
        check_offsets(text, decode_scalar(text, start, len(text), 0))


@settings(max_examples=examples(500), deadline=None)
@given(
    value=st.text(
        st.sampled_from([*list("ab 0.1:#-'\"\\\t\n\r,[]é~"), "😀", "\x00", "\x85", "\u2028"]),
        max_size=8,
    )
)
def test_encode_part_round_trips(value: str) -> None:
    for quote in ("", "'", '"'):
        body = encode_part(quote, value)
        event(f"{quote or 'plain'}: {body is not None}")
        if body is None:
            assert quote != '"'  # double quotes hold every character but surrogates
            continue
        for text, path in (
            (f"k: {quote}{body}{quote}\n", ("k",)),
            (f"a:\n  k: {quote}{body}{quote}\n", ("a", "k")),
            (f"k: [{quote}{body}{quote}]\n", ("k", 0)),
        ):
            assert loaded(text, path) == value, (quote, body, text)
            if path[0] == "k" and len(path) == 1:
                sc = roundtrip(text)
                assert sc is not None and sc.value == value
    for block in ("|", ">"):  # a part of a block scalar's line: literal, one line only
        body = encode_part(block, value)
        if body is not None:
            assert "\n" not in body and body == value
            if value[:1] not in ("", " ", "#"):
                assert loaded(f"k: {block}-\n  {body}\n", ("k",)) == value


def test_encode_part_examples() -> None:
    assert encode_part("", "inductor") == "inductor"
    assert encode_part("", "+dynamo,inductor") is None  # a flow indicator
    assert encode_part("", "-dynamo") == "-dynamo" and encode_part("", "- x") is None
    assert encode_part("", "yes") is None and encode_part("", "1:30") is None
    for number in ("1e3", "1E3", "+1e3", "0o17", "0x1f", ".inf", "-.Inf", ".NAN", "+12"):
        assert encode_part("", number) is None, number  # a YAML 1.2 number: quoted
    assert encode_part("'", "it's") == "it''s"
    assert encode_part('"', 'a"\\\n\t\x01') == 'a\\"\\\\\\n\\t\\x01'


@settings(max_examples=examples(1000), deadline=None)
@given(
    value=st.text(
        st.sampled_from(list("0123456789._-+:eExXbBoOyYnNtTfFlLuUaAsSrR~<=iIZ ")), max_size=10
    )
)
def test_plain_is_string_agrees_with_pyyaml(value: str) -> None:
    value = value.strip(" ")
    want = loaded(f"k: {value}\n")
    if want is Exception or (value.startswith(("-", ":")) and value[1:2] in ("", " ")):
        return
    if not isinstance(want, str):
        assert not plain_is_string(value), (value, want)
    else:  # a YAML 1.1 string: a string here when the 1.2 core schema agrees
        assert plain_is_string(value) == core_schema_string(value), (value, want)


@pytest.mark.parametrize(
    ("value", "is_str"),
    [
        ("yes", False),
        ("On", False),
        ("0x1F", False),
        ("017", False),
        ("1:30", False),
        (".inf", False),
        ("~", False),
        ("", False),
        ("2001-12-14", False),
        ("<<", False),
        ("=", False),
        ("1e5", False),  # YAML 1.2 core schema: a float (PyYAML: a string)
        ("1E3", False),
        ("+1e3", False),
        ("-.5e-3", False),
        ("0o17", False),  # YAML 1.2: octal
        ("-0x1F", False),  # go-yaml v3 (Go's ParseInt): signed hexadecimal
        (".NaN", False),
        ("TRUE", False),
        ("inductor", True),
        ("+dynamo", True),
        ("1.2.3", True),
        ("yess", True),
        ("0o18", True),
        ("1e", True),
        ("1e3x", True),
        ("..5", True),
        (".nAn", True),
    ],
)
def test_plain_is_string_examples(value: str, is_str: bool) -> None:
    assert plain_is_string(value) is is_str


@pytest.mark.parametrize(
    ("text", "path", "indent"),
    [
        ("- |\n a\n", (0,), 0),  # n of a sequence entry: the column of its "-"
        ("k:\n  - >-\n    a\n    b\n", ("k", 0), 2),
        ("k:\n- |+\n  a\n\n", ("k", 0), 0),
        ("|\n a\n", (), -1),
        ("- k: |\n   x\n  j: 1\n", (0, "k"), 2),  # a mapping in a sequence: its column
    ],
)
def test_block_scalar_indent_is_the_parent_column(
    text: str, path: tuple[str | int, ...], indent: int
) -> None:
    want: Any = yaml.safe_load(text)
    for p in path:
        want = want[p]
    sc = decode_scalar(text, text.index("|" if "|" in text else ">"), len(text), indent)
    check_offsets(text, sc)
    assert sc.value == want


def test_keys_and_flow_values() -> None:
    text = "'TORCH_LOGS': [\"+dynamo\", inductor]\n"
    key = decode_scalar(text, 0, 12)
    assert key.value == "TORCH_LOGS" and (key.content_start, key.content_end) == (1, 11)
    assert decode_scalar(text, 15, 24).value == "+dynamo"
    assert decode_scalar(text, 26, 34).value == "inductor"
    # A multi-line scalar cannot be an implicit key: the document is invalid.
    text = "k: a\n  b: c\n"
    assert loaded(text) is Exception
    assert decode_scalar(text, 3, 8, 0).value is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("a: 1\nk: 'induc\nj: 2\n", "induc"), ('k: "a\\tb', "a\tb"), ("k: 'a'\nj: 'b\nl: 'c'\n", "b")],
)
def test_unterminated_quote_from_tree_sitter_error(text: str, value: str) -> None:
    """tree-sitter-yaml gives an open quote as an ERROR node from the quote to the line
    end, its first child the quote token; either range decodes the same."""
    src = Source(text)
    errors: list[Any] = []

    def walk(node: Any) -> None:
        if node.type == "ERROR" and any(c.type in ("'", '"') for c in node.children):
            errors.append(node)
        for c in node.children:
            walk(c)

    walk(src.parse("yaml").root_node)
    (err,) = errors
    (quote,) = [c for c in err.children if c.type in ("'", '"')]
    for start, end in ((quote.start_byte, quote.end_byte), (quote.start_byte, err.end_byte)):
        sc = decode_scalar(text, src.cp(start), src.cp(end))
        assert (sc.value, sc.terminated, sc.quote) == (value, False, quote.type)
        check_offsets(text, sc)
