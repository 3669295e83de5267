"""The PowerShell string decoder against two independent readings, on generated strings.

No PowerShell binary can be installed here, so each generated string is built from pieces
whose meaning the language specification states (PowerShell Language Specification 3.0,
§2.3.5.2 String literals:
https://learn.microsoft.com/powershell/scripting/lang-spec/chapter-02#2352-string-literals;
about_Quoting_Rules:
https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_quoting_rules;
about_Special_Characters, the escape table:
https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_special_characters):
the expected value is the pieces' meanings joined (reading 1, written here piece by piece,
not by scanning). Reading 2 is tree-sitter-powershell's tree: where the string ends, and
whether it holds a variable or a sub-expression (``variable``/``sub_expression`` nodes),
which must match our "not static" (for strings of straight quotes: tree-sitter does not
know the typographic ones).
"""

from __future__ import annotations

import tree_sitter
import tree_sitter_powershell
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.powershell import host as ps
from torch_logs_lsp.hosts.powershell.strings import read_string

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))

_PLAIN = st.sampled_from([*"abz+,_.:/-=0 ", "é", "🙂", "\u00ab", "\u2033", "{", "}"])
# (source, meaning): about_Special_Characters' table; any other escaped character is itself
_ESCAPES = [
    ("`0", "\0"),
    ("`a", "\a"),
    ("`b", "\b"),
    ("`f", "\f"),
    ("`n", "\n"),
    ("`r", "\r"),
    ("`t", "\t"),
    ("`v", "\v"),
    ("`$", "$"),
    ('`"', '"'),
    ("``", "`"),
    ("`'", "'"),
    ("`x", "x"),
    ("`N", "N"),  # case matters: `n is a newline, `N is N
]
# spec: a double-quote-character doubled inside "..." is one (the second)
_DOUBLED_DQ = [('""', '"'), ("\u201c\u201d", "\u201d"), ('"\u201e', "\u201e")]
_DOLLAR_LITERAL = [("$ ", "$ ")]  # a $ not followed by a variable name is itself
_EXPANSIONS = ["$x", "${a b}", "$(1+2)", "$env:Y", "$_", "$($x)"]


@st.composite
def _expandable(draw: st.DrawFn) -> tuple[str, str | None, bool]:
    """``(source between the quotes, its meaning or None, whether it uses typographic
    quotes)``."""
    parts = draw(
        st.lists(
            st.one_of(
                _PLAIN.map(lambda c: (c, c)),
                st.sampled_from(_ESCAPES),
                st.sampled_from(_DOUBLED_DQ),
                st.sampled_from(_DOLLAR_LITERAL),
                st.sampled_from(_EXPANSIONS).map(lambda e: (e, None)),
            ),
            max_size=12,
        )
    )
    source = "".join(p[0] for p in parts)
    meaning = None if any(p[1] is None for p in parts) else "".join(p[1] or "" for p in parts)
    typographic = any(c in source for c in "\u201c\u201d\u201e")
    return source, meaning, typographic


@st.composite
def _verbatim(draw: st.DrawFn) -> tuple[str, str, bool]:
    parts = draw(
        st.lists(
            st.one_of(
                _PLAIN.map(lambda c: (c, c)),
                st.sampled_from(["$x", "`n", '"', "\u201c", "@"]).map(lambda c: (c, c)),
                # spec: a single-quote-character doubled is one (the second)
                st.sampled_from([("''", "'"), ("\u2018\u2019", "\u2019"), ("'\u201b", "\u201b")]),
            ),
            max_size=12,
        )
    )
    source = "".join(p[0] for p in parts)
    return source, "".join(p[1] for p in parts), any(c in source for c in "\u2018\u2019\u201b")


def _ts_string(text: str) -> tree_sitter.Node | None:
    data = text.encode()
    root = _PARSER.parse(data).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "string_literal":
            return node
        stack.extend(node.children)
    return None


def _holds_expansion(node: tree_sitter.Node) -> bool:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type in ("variable", "sub_expression"):
            return True
        stack.extend(n.children)
    return False


@settings(max_examples=examples(400), deadline=None)
@given(_expandable(), st.sampled_from(['"', "\u201c", "\u201e"]), st.sampled_from(['"', "\u201d"]))
def test_expandable_strings(case: tuple[str, str | None, bool], open_q: str, close_q: str) -> None:
    body, meaning, typographic = case
    text = f"$env:TORCH_LOGS = {open_q}{body}{close_q}\n"
    spans = ps.extract(text)
    check_spans(text, spans)
    assert [s.value for s in spans] == [meaning]
    (span,) = spans
    assert span.raw_end == len(text) - 1 and span.quote == '"'
    if open_q == close_q == '"' and not typographic:
        node = _ts_string(text)
        assert node is not None
        assert len(text[: span.raw_end].encode()) == node.end_byte  # where the string ends
        assert _holds_expansion(node) == (meaning is None)


@settings(max_examples=examples(400), deadline=None)
@given(_verbatim(), st.sampled_from(["'", "\u2018", "\u201a"]), st.sampled_from(["'", "\u2019"]))
def test_verbatim_strings(case: tuple[str, str, bool], open_q: str, close_q: str) -> None:
    body, meaning, typographic = case
    text = f"$env:TORCH_LOGS = {open_q}{body}{close_q} # end\n"
    spans = ps.extract(text)
    check_spans(text, spans)
    assert [s.value for s in spans] == [meaning]
    if open_q == close_q == "'" and not typographic and "\u201c" not in body:
        node = _ts_string(text)
        assert node is not None
        assert len(text[: spans[0].raw_end].encode()) == node.end_byte


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(_verbatim().map(lambda c: c[0].replace("'@", "'x")), min_size=1, max_size=4),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "  ", "\t"]),
)
def test_verbatim_here_strings(lines: list[str], eol: str, blanks: str) -> None:
    """Spec: the body is every line between the header line and the ``'@`` line, the
    line break before ``'@`` not included, the others kept; nothing is escaped."""
    body = eol.join(lines)
    text = f"$env:TORCH_LOGS = @'{blanks}{eol}{body}{eol}'@{eol}"
    d = read_string(text, text.index("@"))
    assert d is not None and d.terminated
    footer_inside = any(
        line[:1] in "'\u2018\u2019\u201a\u201b" and line[1:2] == "@" for line in lines
    )
    if not footer_inside:
        assert d.value == body
        assert d.raw_end == len(text) - len(eol)


def test_here_string_header_needs_a_line_break() -> None:
    """Spec: ``@'`` must be followed by blanks and a new line; text after it is an error."""
    assert read_string("@' x\n'@", 0) is None
    assert read_string('@"x\n"@', 0) is None
    d = read_string('@"\n  "@ not yet\n"@', 0)
    assert d is not None and d.value == '  "@ not yet'  # the footer must start its line
