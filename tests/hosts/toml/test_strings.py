"""TOML string decoding (hosts/toml/strings.py) against ``tomllib.loads`` (strings of
every style, generated and hand-written, including invalid ones). pytest-env's reading of
the entries is checked against real pytest runs in
``tests/hosts/test_pytest_env_oracle.py``."""

from __future__ import annotations

import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.hosts.toml import strings as toml_strings
from torch_logs_lsp.hosts.toml.strings import STYLES, decode, encode_part

#: Characters that exercise every rule: quotes, backslashes, escapes' letters, line
#: breaks, control characters, braces, astral and BMP non-ASCII.
ALPHABET = st.sampled_from(list("ab \t\"'\\nuU0{}=:\n\r\x00\x1f\x7fé😀\u2028"))
TEXT = st.text(ALPHABET, max_size=12) | st.text(max_size=8)


def oracle(literal: str) -> str | None:
    """tomllib's value of ``k = <literal>``, or ``None`` when it rejects it."""
    try:
        value = tomllib.loads("k = " + literal + "\n")["k"]
    except tomllib.TOMLDecodeError:
        return None
    return value if isinstance(value, str) else None


def check_map(text: str, s: toml_strings.TomlString) -> None:
    assert len(s.starts) == len(s.ends) == len(s.value)
    prev = s.content_start
    for ch, a, b in zip(s.value, s.starts, s.ends, strict=True):
        assert prev <= a < b <= s.content_end
        if b - a == 1:
            assert text[a] == ch
        prev = b


@settings(max_examples=examples(400), deadline=None)
@given(style=st.sampled_from(STYLES), body=TEXT, prefix=st.sampled_from(["", "😀 é "]))
def test_decode_matches_tomllib_on_any_body(style: str, body: str, prefix: str) -> None:
    """Arbitrary bodies (many invalid): valid and terminated exactly when tomllib reads
    the string, and then the same value."""
    literal = style + body + style
    text = f"{prefix}k = {literal}\n"
    s = decode(text, text.index(style, len(prefix) + 3))
    assert s is not None
    expected = oracle(literal)
    if s.valid and s.terminated and s.end == len(text) - 1:
        assert s.value == expected, (literal, s)
        check_map(text, s)
    if expected is not None:
        assert s.valid and s.terminated and s.value == expected, (literal, s)


@settings(max_examples=examples(400), deadline=None)
@given(style=st.sampled_from(STYLES), value=st.text(max_size=10) | TEXT)
def test_encode_part_round_trips(style: str, value: str) -> None:
    body = encode_part(style, value)
    if body is None:
        return
    literal = style + body + style
    assert oracle(literal) == value
    text = f"# 😀\nk = {literal}\n"
    s = decode(text, text.index("= ") + 2)
    assert s is not None and s.valid and s.terminated and s.value == value
    check_map(text, s)


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('"a\\u00e9\\U0001F600\\t"', "aé😀\t"),
        ('"""\na\\\n   \n  b"""', "ab"),
        ('"""\r\na\r\nb"""', "a\nb"),
        ("'''\nx'''''", "x''"),
        ('"""x"""""', 'x""'),
        ("'C:\\path'", "C:\\path"),
    ],
)
def test_decode_examples(literal: str, value: str) -> None:
    assert oracle(literal) == value
    s = decode("k = " + literal, 4)
    assert s is not None and s.valid and s.value == value


@pytest.mark.parametrize("literal", ['"\\x41"', '"\\e"', '"\\uD800"', "'a\x7f'", '"""a\rb"""'])
def test_invalid_strings(literal: str) -> None:
    assert oracle(literal) is None
    s = decode("k = " + literal, 4)
    assert s is not None and not s.valid


def test_unterminated_runs_to_line_end() -> None:
    text = 'k = "TORCH_LOGS=dyn\nx = 1\n'
    s = decode(text, 4)
    assert s is not None and not s.terminated and s.value == "TORCH_LOGS=dyn"
    assert s.end == text.index("\n")
