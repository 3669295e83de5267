"""The Dockerfile host against BuildKit's own parser (the ``dockerfile`` package wraps
moby/buildkit v0.12.5's ``frontend/dockerfile/parser``): generated Dockerfiles with
line continuations, comment and blank lines inside them, CRLF, an emoji before the
values and the ``# escape=`` directive must split into the same instructions and
``ENV`` words. The package does not decode the values (BuildKit does that later with
``shell/lex.go``'s ``ProcessWord``): each value is generated as a known string and
encoded by lex.go's rules, and the host must decode it back."""

from __future__ import annotations

import re

import dockerfile
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.dockerfile import host as host
from torch_logs_lsp.hosts.dockerfile import lines, words

pytestmark = pytest.mark.oracle

NAMES = ["TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE", "OTHER"]
CHARS = st.sampled_from([*list("ab+-,.=#/ \t\"'$🙂é"), "\\", "`"])


@st.composite
def encoded(draw: st.DrawFn, escape: str) -> tuple[str, str]:
    """A value and its text in an ENV word, in chunks each unquoted, "..." or '...'
    (lex.go: processDoubleQuote escapes only `"`, `$` and the escape token; single quotes
    are literal; an unquoted escape token makes any next character literal)."""
    value = "".join(draw(st.lists(CHARS, max_size=8)))
    out: list[str] = []
    i = 0
    while i < len(value):
        n = draw(st.integers(1, len(value) - i))
        chunk = value[i : i + n]
        i += n
        style = draw(st.sampled_from(["", '"', "'"]))
        if style == "'" and "'" not in chunk:
            out.append("'" + chunk + "'")
        elif style == '"':
            body = "".join(escape + c if c in ('"', "$", escape) else c for c in chunk)
            out.append('"' + body + '"')
        else:
            special = " \t\"'$" + escape
            out.append(
                "".join(
                    escape + c if c in special or (c.isalpha() and draw(st.booleans())) else c
                    for c in chunk
                )
            )
    if not value:
        out.append(draw(st.sampled_from(["", '""', "''"])))
    return value, "".join(out)


def _continue(draw: st.DrawFn, text: str, start: int, escape: str) -> str:
    """Insert line continuations into ``text`` after index ``start`` (never after an
    escape token, never at the end, never inside a family name: the host does not report
    a name written in two pieces), each maybe with blanks before the line break and
    comment or blank lines after it."""
    names = [(m.start(), m.end()) for m in re.finditer(r"TORCH_\w+", text)]
    cuts = sorted(
        set(draw(st.lists(st.integers(start + 1, max(start + 1, len(text) - 1)), max_size=3)))
    )
    out, last = [], 0
    for cut in cuts:
        if cut >= len(text) or text[cut - 1] == escape or any(a < cut < b for a, b in names):
            continue
        if text[cut] in " \t#":  # BuildKit drops a continued line that is blank or a comment
            continue
        extra = draw(st.sampled_from(["", "  # a comment 🙂\n", "\n", "   \n"]))
        out.append(text[last:cut] + escape + draw(st.sampled_from(["", " ", "\t "])) + "\n")
        out.append(extra)
        last = cut
    out.append(text[last:])
    return "".join(out)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """A Dockerfile and the (name, value) of every ENV pair in order."""
    escape = draw(st.sampled_from(["\\", "`"]))
    head = "# escape=`\n" if escape == "`" else ""
    body = ["# 🙂 a comment\n", "FROM python:3.12\n"]
    expected: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 4))):
        pairs = draw(
            st.lists(st.tuples(st.sampled_from(NAMES), encoded(escape)), min_size=1, max_size=3)
        )
        legacy = len(pairs) == 1 and pairs[0][1][1] != "" and draw(st.booleans())
        if legacy:
            name, (_value, enc) = pairs[0]
            line = f"ENV {name} {enc}"
            if enc[:1] in " \t" or enc[-1:] in " \t" or enc.endswith(escape):
                continue  # the rest of the line is trimmed
        else:
            line = "ENV " + " ".join(f"{n}={enc}" for n, (_, enc) in pairs)
        if line.rstrip(" \t").endswith(escape):
            continue  # an escaped blank at the end is a line continuation
        expected += [(n, v) for n, (v, _) in pairs]
        body.append(_continue(draw, line, 4, escape) + "\n")
        if draw(st.booleans()):
            body.append("RUN echo 🙂 \\\n  done\n")
    text = head + "".join(body)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text, expected


def _env_words(text: str) -> list[tuple[str, ...]]:
    """What this host reads as the ENV words: (name, raw value, ...) per instruction."""
    doc = lines.read(text)
    assert doc is not None
    out = []
    for ins in doc.instructions:
        if ins.keyword != "env":
            continue
        assert ins.args is not None
        found, _ = words.pairs("env", ins.line.text, ins.args, doc.escape)
        flat: list[str] = []
        for p in found:
            t = ins.line.text
            name_end = p.value_start - 1 if t[p.value_start - 1] == "=" else None
            if name_end is None:
                name_end = lines.WHITESPACE.search(t, p.name_start).start()  # type: ignore[union-attr]
            flat += [t[p.name_start : name_end], t[p.value_start : p.value_end]]
        out.append(tuple(flat))
    return out


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_env_words_and_values_match_buildkit(case: tuple[str, list[tuple[str, str]]]) -> None:
    text, expected = case
    commands = dockerfile.parse_string(text)
    ours = lines.read(text)
    assert ours is not None
    assert [c.cmd.lower() for c in commands] == [i.keyword for i in ours.instructions]
    for c, ins in zip(commands, ours.instructions, strict=True):
        assert c.original == ins.line.text  # continuations, comments, blank lines removed
        assert c.start_line == text.count("\n", 0, ins.start) + 1
    theirs = [c.value for c in commands if c.cmd.lower() == "env"]
    assert _env_words(text) == theirs
    spans = host.extract(text)
    check_spans(text, spans)
    family = [(n, v) for n, v in expected if n != "OTHER"]
    assert [(s.variable, s.value) for s in spans] == family


def test_parser_examples_agree() -> None:
    """Hand-picked corners, each checked against the package."""
    docs = [
        "FROM x\nENV TORCH_LOGS=a\\\\\nENV B=c\n",  # two escapes: no continuation
        "FROM x\nENV TORCH_LOGS=a \\  \n\n# c\n  TORCH_TRACE=/t\n",
        "FROM x\n\\\nENV TORCH_LOGS=a\n",  # a lone escape line continues
        '\ufeffFROM x\nENV TORCH_LOGS "a b" c\n',
        "# escape=`\nFROM x\nENV TORCH_LOGS=a\\`\nb TORCH_TRACE=`\\\n",
        'FROM x\nENV A=1 TORCH_LOGS=\'x \\\' B="y\\" z"\n',
        "FROM x\nRUN --mount=type=cache,target=/r TORCH_LOGS=a python \\\n  x.py\n",
    ]
    for text in docs:
        commands = dockerfile.parse_string(text)
        ours = lines.read(text)
        assert ours is not None
        assert [c.original for c in commands] == [i.line.text for i in ours.instructions]
        theirs = [c.value for c in commands if c.cmd.lower() == "env"]
        assert _env_words(text) == theirs, text
        check_spans(text, host.extract(text))


def test_heredoc_and_json_form_agree() -> None:
    text = (
        "FROM x\nRUN <<EOF\nTORCH_LOGS=+dynamo python a.py\nEOF\n"
        'RUN ["env", "-i", "TORCH_LOGS=+dynamo", "python", "x.py"]\n'
        "RUN <<-EOT\n\tTORCH_LOGS=aot python b.py\n\tEOT\nENV TORCH_TRACE=/t\n"
        "RUN TORCH_LOGS=+dynamo python3 <<-EOF && cat <<'X'\n\timport torch\n\tEOF\nx\nX\n"
        "RUN cat $HOME <<$E >/x\nENV TORCH_LOGS=no\n$E\n"  # $E: no expansion in the name
    )
    commands = dockerfile.parse_string(text)
    ours = lines.read(text)
    assert ours is not None
    assert [c.cmd.lower() for c in commands] == [i.keyword for i in ours.instructions]
    bodies = [tuple(h.content for h in c.heredocs) for c in commands]
    assert bodies == [tuple(text[h.start : h.end] for h in i.heredocs) for i in ours.instructions]
    assert commands[2].json and commands[2].value[2] == "TORCH_LOGS=+dynamo"
    spans = host.extract(text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS", "aot"),
        ("TORCH_TRACE", "/t"),
        ("TORCH_LOGS", "+dynamo"),
    ]


@st.composite
def run_lines(draw: st.DrawFn) -> str:
    """A Dockerfile of RUN lines (shell form) whose shell words are quoted in random
    ways, with line continuations inside the words."""
    from torch_logs_lsp.hosts.shell import host as shell

    escape = draw(st.sampled_from(["\\", "`"]))
    out = ["# escape=`\n" if escape == "`" else "", "FROM x\n"]
    for _ in range(draw(st.integers(1, 3))):
        value = "".join(draw(st.lists(CHARS.filter(lambda c: c != "\t"), max_size=8)))
        quote = draw(st.sampled_from(["", "'", '"']))
        body = shell.encode_part(quote, value)
        if body is None:
            continue
        flags = draw(st.sampled_from(["", "--mount=type=cache,target=/r ", "--network=none "]))
        name = draw(st.sampled_from(NAMES))
        line = f"RUN {flags}A=🙂 {name}={quote}{body}{quote} python x.py"
        out.append(_continue(draw, line, 4 + len(flags), escape) + "\n")
    return "".join(out)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_lines())
def test_run_code_is_what_buildkit_passes_to_the_shell(text: str) -> None:
    """The code of each RUN is BuildKit's (continuations removed), and its values are
    the shell host's reading of that code, mapped back into the document."""
    from torch_logs_lsp.hosts.shell import host as shell

    commands = [c for c in dockerfile.parse_string(text) if c.cmd.lower() == "run"]
    ours = lines.read(text)
    assert ours is not None
    runs = [i for i in ours.instructions if i.keyword == "run"]
    assert [i.line.text[i.args :] for i in runs] == [c.value[0] for c in commands]
    assert [c.flags for c in commands] == [tuple(i.line.text[4 : i.args].split()) for i in runs]
    spans = host.extract(text)
    check_spans(text, spans)
    expected = [s.value for c in commands for s in shell.extract(c.value[0])]
    assert [s.value for s in spans] == expected
    for span in spans:
        if span.value:  # each code point maps to its own source in the RUN line
            assert all(text[a] not in "\r\n" for a in span.char_starts)
