"""The PowerShell host: where values are set, their decoded values and offsets, values that
are not static, removal, empty values, overwrites, encode_part round trips, robustness.

PowerShell itself cannot be installed here; expectations follow the PowerShell Language
Specification 3.0 §2.3.5.2 (string literals,
https://learn.microsoft.com/powershell/scripting/lang-spec/chapter-02#2352-string-literals),
about_Quoting_Rules
(https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_quoting_rules),
about_Special_Characters
(https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_special_characters)
and about_Environment_Variables
(https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_environment_variables).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.powershell import host as ps


def _spans(text: str) -> list[tuple[str, str | None]]:
    spans = ps.extract(text)
    check_spans(text, spans, exact_name=False)
    return [(s.variable, s.value) for s in spans]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('$env:TORCH_LOGS = "+dynamo,guards"\n', "+dynamo,guards"),
        ("$Env:TORCH_LOGS = 'aot_g'\n", "aot_g"),  # the drive in any case
        ("$ENV:torch_logs='x'\n", "x"),  # the name in any case (Windows)
        ("${env:TORCH_LOGS} = 'x'\n", "x"),
        ("$env:TORCH_LOGS = 'it''s'\n", "it's"),  # '' is one quote (about_Quoting_Rules)
        ('$env:TORCH_LOGS = "say ""hi"""\n', 'say "hi"'),  # "" is one quote
        ('$env:TORCH_LOGS = "a`tb`$c`"d``"\n', 'a\tb$c"d`'),  # backtick escapes
        ('$env:TORCH_LOGS = "`0`a`b`f`n`r`v`q"\n', "\0\a\b\f\n\r\vq"),
        ('$env:TORCH_LOGS = "cost: $ 5"\n', "cost: $ 5"),  # a $ before a blank is literal
        ("$env:TORCH_LOGS = 'no $x `n here'\n", "no $x `n here"),  # verbatim
        ("$env:TORCH_LOGS = @'\n+dynamo\n'@\n", "+dynamo"),  # here-string: no last newline
        ("$env:TORCH_LOGS = @'  \r\na\r\nb\r\n'@\r\n", "a\r\nb"),  # blanks after the header
        ('$env:TORCH_LOGS = @"\nsay "hi" `$x\n"@\n', 'say "hi" $x'),  # quotes are literal
        ("$env:TORCH_LOGS = @'\n'@\n", ""),  # an empty here-string
        ("$env:TORCH_LOGS = \u201c+dynamo\u201d\n", "+dynamo"),  # typographic quotes
        ("$env:TORCH_LOGS = \u2018a\u2019'b\u201a\n", "a'b"),  # any of the class closes
        ("$env:TORCH_LOGS = \u201ea\u201c\u201cb\u201d\n", "a\u201cb"),  # doubled: the second
        ("$env:TORCH_COMPILE_DEBUG = 1\n", "1"),
        ("$env:TORCH_LOGS = 'x' # comment\n", "x"),
        ("if ($a) { $env:TORCH_LOGS = 'x' }\n", "x"),
        ("Set-Item -Path Env:TORCH_LOGS -Value +dynamo\n", "+dynamo"),
        ("Set-Item Env:TORCH_LOGS 'x'\n", "x"),  # positional Path, Value
        ("set-item -path env:\\TORCH_LOGS -value 'x'\n", "x"),
        ("si Env:/TORCH_LOGS -Force 'x'\n", "x"),
        ("Set-Item -Pat 'Env:TORCH_LOGS' -Val 'x'\n", "x"),  # unique prefixes, a quoted path
        ("Set-Item Env:TORCH_LOGS -ErrorAction Stop 'x'\n", "x"),
        ("Set-Item -LiteralPath Env:TORCH_LOGS x\n", "x"),  # then x is the Value
        ("Set-Item Env:TORCH_LOGS -Value:'x'\n", "x"),
        ("Set-Item -Path Env:TORCH_LOGS `\n    -Value 'x'\n", "x"),  # a line continuation
        ("$env:TORCH_LOGS = `\n  'x'\n", "x"),
        ("function f { $env:TORCH_LOGS = 'x' }\n", "x"),
        ("New-Item -Path Env:\\TORCH_LOGS -Value 'x'\n", "x"),
        ("New-Item -Path Env: -Name TORCH_TRACE -Value '/tmp/t'\n", "/tmp/t"),
        ("ni env:TORCH_LOGS -Value dynamo\n", "dynamo"),
        ("Set-Item Env:TORCH_COMPILE_DEBUG 1\n", "1"),
        ("[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'x')\n", "x"),
        ('[System.Environment]::SetEnvironmentVariable("TORCH_LOGS", "x")\n', "x"),
        ("[environment]::setenvironmentvariable('torch_logs', 'x', 'Process')\n", "x"),
        ("[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'x', 'User')\n", "x"),
    ],
)
def test_static_values(text: str, expected: str) -> None:
    spans = ps.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value) for s in spans][:1] == [
        (
            "TORCH_TRACE"
            if "TRACE" in text
            else "TORCH_COMPILE_DEBUG"
            if "DEBUG" in text
            else "TORCH_LOGS",
            expected,
        )
    ]


@pytest.mark.parametrize(
    "text",
    [
        '$env:TORCH_LOGS = "+dynamo,$extra"\n',
        '$env:TORCH_LOGS = "$(Get-Logs)"\n',
        '$env:TORCH_LOGS = "${x}"\n',
        '$env:TORCH_LOGS = "a$b:c"\n',
        '$env:TORCH_LOGS = "`e[0m"\n',  # `e is PowerShell 6+ only
        '$env:TORCH_LOGS = "`u{2b}dynamo"\n',  # so is `u{...}
        "$env:TORCH_LOGS = 'a' + 'b'\n",
        "$env:TORCH_LOGS = 'a'.ToLower()\n",
        "$env:TORCH_LOGS = $other\n",
        "$env:TORCH_LOGS = Get-Value\n",  # a command's output
        "$env:TORCH_LOGS += ',guards'\n",  # appends to what was there
        '$env:TORCH_LOGS = @"\n$x\n"@\n',
        "Set-Item Env:TORCH_LOGS -Value a,b\n",  # an array
        "Set-Item Env:TORCH_LOGS -Value 1kb\n",  # a number: 1024 (about_Numeric_Literals)
        "Set-Item Env:TORCH_LOGS -Value 010\n",  # 10
        "Set-Item Env:TORCH_LOGS -Value +5\n",  # 5
        "Set-Item Env:TORCH_LOGS -Value $v\n",
        "Set-Item Env:TORCH_LOGS 'a'b\n",  # 'a'b is one argument
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', $v)\n",
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'a' + 'b')\n",
    ],
)
def test_values_that_are_not_static(text: str) -> None:
    spans = ps.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value) for s in spans] == [("TORCH_LOGS", None)]


@pytest.mark.parametrize(
    "text",
    [
        "# $env:TORCH_LOGS = 'x'\n",
        "<# $env:TORCH_LOGS = 'x' #>\n",
        "$s = @'\n$env:TORCH_LOGS = 'x'\n'@\n",  # code inside a string
        'Write-Host "$env:TORCH_LOGS"\n',  # a read
        "$x = $env:TORCH_LOGS\n",
        "$env:TORCH_LOGS = $null\n",  # removal (every version)
        "Remove-Item Env:TORCH_LOGS\n",
        "Set-Item Env:TORCH_LOGS $null\n",
        "Set-Item Env:TORCH_LOGS -Value 'x' -WhatIf\n",  # sets nothing
        "Set-Item Env:TORCH_LOGS -Unknown 'x'\n",  # a parameter we do not know
        "Set-Item -Value 'x' -Path Env:TORCH_LOGS\n",  # the value before the name
        "Set-Item Env:OTHER 'TORCH_LOGS'\n",
        "Set-Content Env:TORCH_LOGS 'x'\n",
        "$env:TORCH_LOGSX = 'x'\n",
        "$env:MY_TORCH_LOGS = 'x'\n",
        "[Environment]::GetEnvironmentVariable('TORCH_LOGS')\n",
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', $null)\n",
        "[Other]::SetEnvironmentVariable('TORCH_LOGS', 'x')\n",
    ],
)
def test_no_span(text: str) -> None:
    assert _spans(text) == []


def test_offsets_of_escapes_and_doubled_quotes() -> None:
    text = 'x = 1\n$env:TORCH_LOGS = "a``b""c"\n'
    (span,) = ps.extract(text)
    check_spans(text, [span])
    q = text.index('"')
    assert span.value == 'a`b"c'
    assert span.char_starts == (q + 1, q + 2, q + 4, q + 5, q + 7)
    assert span.char_ends == (q + 2, q + 4, q + 5, q + 7, q + 8)
    assert (span.raw_start, span.raw_end) == (q, q + 9)
    assert span.quote == '"'


def test_an_open_quote_runs_to_the_end_of_the_line() -> None:
    text = '$env:TORCH_LOGS = "+dyn\nWrite-Host done\n'
    (span,) = ps.extract(text)
    check_spans(text, [span])
    assert not span.terminated and span.value == "+dyn"  # the value typed so far
    assert text[span.content_start : span.content_end] == "+dyn"


def test_empty_value_note_names_the_versions() -> None:
    """about_Environment_Variables (7.5): "Beginning in PowerShell 7.5, you can set an
    environment variable to an empty string. Setting an environment variable to $null
    removes it"; before 7.5 an empty string removed it too."""
    text = "$env:TORCH_LOGS = ''\n$env:TORCH_LOGS_OUT = ''\n"
    spans = ps.extract(text)
    assert [s.value for s in spans] == ["", ""]
    (note,) = ps.notes(text, spans)
    assert note.span_index == 0 and note.code == "TL001"
    assert "PowerShell 7.5 and later set it to the empty string" in note.message
    assert "PowerShell 5.1 and PowerShell 7.0-7.4 remove the variable" in note.message
    assert "$env:TORCH_LOGS = $null" in note.message


def test_overwritten_only_when_nothing_runs_between() -> None:
    text = (
        "$env:TORCH_LOGS = 'a'\n"  # 0: dead
        "$env:TORCH_LOGS_OUT = 'o'\n"
        "$env:TORCH_LOGS = 'b'\n"  # 2: live, then a command
        "python x.py\n"
        "$env:TORCH_LOGS = 'c'\n"  # 3
        "New-Item Env:TORCH_LOGS -Value 'd'\n"  # 4: fails on an existing variable
        "$env:TORCH_LOGS = 'e'\n"  # 5
        "$env:TORCH_LOGS += 'f'\n"  # 6: reads 5
        "if ($x) { $env:TORCH_LOGS = 'g' }\n"  # 7: in a block
        "$env:TORCH_LOGS = 'h'\n"  # 8
        "python x.py\n"
        "$env:TORCH_LOGS = 'i'; $env:TORCH_LOGS = 'j'  # 9 dead, 10 live\n"
        "Set-Item @params Env:TORCH_LOGS 'k'\n"  # splatting: not read, but runs between
        "$env:TORCH_LOGS = 'l'\n"  # 11
    )
    spans = ps.extract(text)
    assert len(spans) == 12
    assert [(o.dead, o.live) for o in ps.overwritten(text, spans)] == [(0, 2), (9, 10)]


def test_removal_removes_the_statement_line() -> None:
    text = "a\r\n  $env:TORCH_LOGS = '' # x\r\nb\r\n"
    (span,) = ps.extract(text)
    title, edit = ps.removal(text, span) or ("", None)
    assert edit is not None and "TORCH_LOGS" in title
    assert apply_text_edits(text, (edit,)) == "a\r\nb\r\n"
    other = "$x = 1; $env:TORCH_LOGS = ''\n"
    assert ps.removal(other, ps.extract(other)[0]) is None


@pytest.mark.parametrize(
    ("before", "typed"),
    [
        ("$env:TORCH_L", "TORCH_L"),
        ("$Env:", ""),
        ("${env:TOR", "TOR"),
        ("Set-Item Env:\\TO", "TO"),
        ("Set-Item -Path env:", ""),
        ("$x = 1", None),
        ("$myenv:TO", None),
    ],
)
def test_typed_name(before: str, typed: str | None) -> None:
    assert ps.typed_name(before, len(before)) == typed


def test_detection() -> None:
    assert hosts.detect_host("C:\\x\\Run.PS1", "") == "powershell"
    assert hosts.detect_host("/x/mod.psm1", "") == "powershell"
    assert hosts.detect_host("/x/data.psd1", "") is None
    assert hosts.detect_host("/x/tool", "#!/usr/bin/env pwsh\n") == "powershell"
    assert hosts.detect_host("/x/tool", "#!/bin/bash\n") == "shell"
    assert hosts.host_for_language("powershell") == "powershell"


_VALUES = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\r\n"),
    max_size=20,
)


@settings(max_examples=examples(300), deadline=None)
@given(value=_VALUES, quote=st.sampled_from(["'", '"', "@'", '@"', ""]))
def test_encode_part_round_trips(value: str, quote: str) -> None:
    """What encode_part writes reads back as exactly the value (or it declines)."""
    body = ps.encode_part(quote, value)
    if body is None:
        return
    close = {"'": "'", '"': '"', "@'": "\n'@", '@"': '\n"@', "": ""}[quote]
    opening = quote + ("\n" if quote.startswith("@") else "")
    if quote == "":
        text = f"Set-Item Env:TORCH_LOGS {body}\n"
    else:
        text = f"$env:TORCH_LOGS = {opening}{body}{close}\n"
    spans = ps.extract(text)
    check_spans(text, spans)
    assert [s.value for s in spans] == [value]


_NOISE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from("🙂𝕏é\r\n\t'\"`$@{}()#<>"),
    max_size=40,
)


@settings(max_examples=examples(200), deadline=None)
@given(before=_NOISE, value=st.sampled_from(["'aot_g'", '"+dynamo"', "'x", '"a`', "@'\nx", ""]))
def test_generated_documents_never_crash(before: str, value: str) -> None:
    for eol in ("\n", "\r\n"):
        text = f"{before}{eol}$env:TORCH_LOGS = {value}{eol}🙂{eol}"
        spans = ps.extract(text)
        check_spans(text, spans, exact_name=False)
        ps.overwritten(text, spans)
        ps.notes(text, spans)
        for span in spans:
            ps.removal(text, span)


def test_emoji_before_the_value_keeps_code_point_offsets() -> None:
    text = "# 🙂🙂\n$e = '𝕏'; $env:TORCH_LOGS = '+dyn🙂amo'\n"
    (span,) = ps.extract(text)
    check_spans(text, [span])
    assert text[span.content_start : span.content_end] == "+dyn🙂amo"


def test_junk_and_a_long_line() -> None:
    junk = "\x00\x01\ufffd$env:TORCH_LOGS = '\x00'\n" + "\x7f" * 50
    check_spans(junk, ps.extract(junk), exact_name=False)
    long = "$env:TORCH_LOGS = '" + "a," * 50_000 + "x'\n"
    (span,) = ps.extract(long)
    assert span.value is not None and len(span.value) == 100_001
    open_long = '$env:TORCH_LOGS = "' + "`" * 100_000
    check_spans(open_long, ps.extract(open_long))


_BASE = (
    "# 🙂\n$env:TORCH_LOGS = 'a'\nSet-Item Env:TORCH_LOGS -Value \"+dynamo\"\n"
    "if ($x) { $env:TORCH_TRACE = '/tmp' }\n$s = @'\n$env:TORCH_LOGS = 'x'\n'@\n"
    "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'g')\n"
)
_EDITS = ["", "'", '"', "\n", "#", "@'\n", "'@", "$env:TORCH_LOGS = 'b'\n", "🙂", "{", "}", "`"]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.sampled_from(_EDITS)),
        min_size=1,
        max_size=6,
    )
)
def test_incremental_extraction_equals_a_fresh_one(edits: list[tuple[int, int, str]]) -> None:
    """Edits through a DocumentCache (tree-sitter re-parses around the edit) read the
    same spans as a fresh parse of each version."""
    cache = DocumentCache()
    text = _BASE
    assert ps.extract(text, cache) == ps.extract(text)
    for at, removed, inserted in edits:
        at %= len(text) + 1
        text = text[:at] + inserted + text[at + removed :]
        ps._RECENT.clear()
        assert ps.extract(text, cache) == ps.extract(text), text


def test_a_stored_target_gets_tl503_and_the_process_target_not() -> None:
    from torch_logs_lsp.lint.pipeline import findings

    text = (
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'dynamo', 'User')\n"
        "[System.Environment]::SetEnvironmentVariable('TORCH_LOGS', 'dynamo', 'Machine')\n"
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'dynamo', 'Process')\n"
        "[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'dynamo')\n"
    )
    got = [(f.line, f.diagnostic.code) for f in findings(text, "powershell")]
    # (line 3 is set again by line 4 with nothing between: TL502)
    assert [g for g in got if g[1] != "TL502"] == [(0, "TL503"), (1, "TL503")]
