"""The cmd/batch host (``*.bat``, ``*.cmd``).

No cmd.exe runs here and no batch grammar exists on PyPI, so every rule is asserted from
its documentation (cited per test):

- [SET] ``set /?`` and https://learn.microsoft.com/windows-server/administration/windows-
  commands/set_1: "set [<variable>=[<string>]]", "If you specify variable and an equal
  sign without a string, the variable is cleared", ``/a`` evaluates an expression, ``/p``
  sets the value "to a line of input entered by the user"; "the ampersand (&), pipe (|),
  ... characters are command separators ... use the escape character (^)";
  "variable names are not case-sensitive".
- [PHASES] jeb's and dbenham's model of the batch line parser, "How does the Windows
  Command Interpreter (CMD.EXE) parse scripts?", https://stackoverflow.com/questions/
  4094699 (answer 4095133): phase 0 reads through the first LF (Ctrl-Z reads as LF);
  phase 1 "A double %% is replaced by a single %", expands %1, %*, %var%; phase 1.5
  removes every CR; phase 2: "If it is a quote toggle the quote flag, if the quote flag
  is active, the following special characters are no longer special: ^ & | < > ( )";
  "If it is a caret (^) the next character has no special meaning, the caret itself is
  removed, if the caret is the last character of the line, the next line is appended,
  the first character of the next line is always handled as escaped character"; phase 4:
  FOR ``%%X`` variables in the body after DO; phase 5: delayed expansion of ``!var!``
  only when enabled; pipes run each side in a new cmd.exe.
- [QUOTED-SET] dbenham (same thread, and https://stackoverflow.com/questions/12902854):
  ``set "var=value"``: the value ends at the last quote; text after it is ignored.
- [SETLOCAL] https://learn.microsoft.com/windows-server/administration/windows-commands/
  setlocal: ``enabledelayedexpansion``/``disabledelayedexpansion``; ``endlocal`` restores.
- [SETX] https://learn.microsoft.com/windows-server/administration/windows-commands/setx:
  "Variables set with setx variables are available in future command windows only and
  not in the current command window."
- [REM] https://learn.microsoft.com/windows-server/administration/windows-commands/rem:
  "Records comments in a script"; ``::`` is a label that is never a target.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_span, check_spans
from torch_logs_lsp.hosts import detect_host
from torch_logs_lsp.hosts.batch import host as batch
from torch_logs_lsp.hosts.edits import apply_text_edits, value_edit
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.pipeline import findings

Expected = list[tuple[str, str | None, str, bool]]

CASES: list[tuple[str, Expected, str]] = [
    # [SET] everything after `=` to the line end: quotes and trailing blanks included
    ("set TORCH_LOGS=dynamo \n", [("TORCH_LOGS", "dynamo ", "", True)], "SET"),
    ('set TORCH_LOGS="+schedule"\r\n', [("TORCH_LOGS", '"+schedule"', "", True)], "SET"),
    ("set TORCH_LOGS=a & echo b\n", [("TORCH_LOGS", "a ", "", True)], "SET separators"),
    ("set TORCH_LOGS=a&&echo b\n", [("TORCH_LOGS", "a", "", True)], "SET separators"),
    ("set TORCH_LOGS=a || echo b\n", [("TORCH_LOGS", "a ", "", True)], "SET separators"),
    ("set TORCH_LOGS=a^&b^|c^^d\n", [("TORCH_LOGS", "a&b|c^d", "", True)], "SET caret"),
    ('set TORCH_LOGS="a&b"^&c\n', [("TORCH_LOGS", '"a&b"&c', "", True)], "PHASES quote flag"),
    ('set TORCH_LOGS="a^&b"\n', [("TORCH_LOGS", '"a^&b"', "", True)], "PHASES ^ in quotes"),
    ("set TORCH_LOGS=a b=c\n", [("TORCH_LOGS", "a b=c", "", True)], "SET first = only"),
    # [QUOTED-SET]
    ('set "TORCH_LOGS=+dynamo" & rem x\n', [("TORCH_LOGS", "+dynamo", '"', True)], "QS"),
    ('set "TORCH_LOGS=a & b" junk\n', [("TORCH_LOGS", "a & b", '"', True)], "QS"),
    ('set "TORCH_LOGS=a"b" c\n', [("TORCH_LOGS", 'a"b', '"', True)], "QS last quote"),
    ('set "TORCH_LOGS=ab\n', [("TORCH_LOGS", "ab", '"', False)], "QS no closing quote"),
    # [SET] names are not case sensitive; command word any case; leading @ and blanks
    ("set torch_logs=x\n", [("TORCH_LOGS", "x", "", True)], "SET case"),
    ("  @SET Torch_Trace=C:\\t\n", [("TORCH_TRACE", "C:\\t", "", True)], "SET case"),
    ("\t@ Set TORCH_LOGS=a\n", [("TORCH_LOGS", "a", "", True)], "SET"),
    # [SET] `set X=` clears X (no value); `set X` lists; a blank before = is in the name
    ("set TORCH_LOGS=\nset TORCH_LOGS\nset TORCH_LOGS =a\n", [], "SET clear/list/name"),
    ('set "TORCH_LOGS="\n', [], "SET clear"),
    # [SET] /a and /p: no static string value
    ("set /a TORCH_COMPILE_DEBUG=1\n", [("TORCH_COMPILE_DEBUG", None, "", True)], "SET /a"),
    ("set/A TORCH_COMPILE_DEBUG+=1\n", [("TORCH_COMPILE_DEBUG", None, "", True)], "SET /a"),
    ("set /p TORCH_LOGS=Logs? \n", [("TORCH_LOGS", None, "", True)], "SET /p"),
    # [PHASES] phase 1: %% is %, the rest expands
    ("set TORCH_LOGS_OUT=50%%.log\n", [("TORCH_LOGS_OUT", "50%.log", "", True)], "PHASES 1"),
    ("set TORCH_LOGS=%A%\n", [("TORCH_LOGS", None, "", True)], "PHASES 1"),
    ("set TORCH_LOGS=%~1\n", [("TORCH_LOGS", None, "", True)], "PHASES 1"),
    ("set TORCH_LOGS=+%1\n", [("TORCH_LOGS", None, "", True)], "PHASES 1"),
    ("set TORCH_LOGS=50%\n", [("TORCH_LOGS", None, "", True)], "PHASES 1 lone %"),
    ('echo "%A%" & set TORCH_LOGS=a\n', [("TORCH_LOGS", None, "", True)], "PHASES 1 then 2"),
    ("echo %A%\nset TORCH_LOGS=a\n", [("TORCH_LOGS", "a", "", True)], "PHASES next line"),
    # [PHASES] phase 5: ! expands unless delayed expansion is certainly off
    ("set TORCH_LOGS=!A!\n", [("TORCH_LOGS", None, "", True)], "PHASES 5"),
    (
        "setlocal DisableDelayedExpansion\nset TORCH_LOGS=a!\nendlocal\nset TORCH_LOGS=b!\n",
        [("TORCH_LOGS", "a!", "", True), ("TORCH_LOGS", None, "", True)],
        "SETLOCAL",
    ),
    (
        "setlocal EnableDelayedExpansion\nset TORCH_LOGS=!A!\n",
        [("TORCH_LOGS", None, "", True)],
        "SETLOCAL",
    ),
    # [PHASES] caret continuation: the next line's first character is escaped
    ("set TORCH_LOGS=+dyn^\namo\n", [("TORCH_LOGS", "+dynamo", "", True)], "PHASES ^ at end"),
    ("set TORCH_LOGS=a^\r\n&b\r\n", [("TORCH_LOGS", "a&b", "", True)], "PHASES ^ at end"),
    ("set TORCH_LOGS=a^\n\nb\n", [("TORCH_LOGS", None, "", True)], "PHASES ^ LF LF"),
    # [PHASES] phase 1.5: CRs are removed; phase 0: Ctrl-Z ends a line
    ("set TORCH_LOGS=a\rb\r\n", [("TORCH_LOGS", "ab", "", True)], "PHASES 1.5"),
    (
        "set TORCH_LOGS=a\x1aset TORCH_TRACE=t",
        [("TORCH_LOGS", "a", "", True)] * 1 + [("TORCH_TRACE", "t", "", True)],
        "PHASES 0",
    ),
    # redirection and pipes: not static
    ("set TORCH_LOGS=a >nul\n", [("TORCH_LOGS", None, "", True)], "PHASES 5.5"),
    ("set TORCH_LOGS=a 2>&1\n", [("TORCH_LOGS", None, "", True)], "PHASES 5.5"),
    ("set TORCH_LOGS=a | more\n", [("TORCH_LOGS", None, "", True)], "PHASES 5.3"),
    ("echo x | set /p TORCH_LOGS=\n", [("TORCH_LOGS", None, "", True)], "PHASES 5.3"),
    ('set TORCH_LOGS="a>b"\n', [("TORCH_LOGS", '"a>b"', "", True)], "quoted >"),
    # [REM] comments and labels
    (
        "rem set TORCH_LOGS=x\nREM set TORCH_LOGS=y ^\nset TORCH_TRACE=t\n",
        [("TORCH_TRACE", "t", "", True)],
        "REM",
    ),
    (":: set TORCH_LOGS=x\n:label set TORCH_LOGS=y\n", [], "REM ::"),
    ("echo set TORCH_LOGS=x\nset TORCH_LOGSX=1\nset OTHER=TORCH_LOGS\n", [], "not a set"),
    # blocks, if, for
    ("(set TORCH_LOGS=dynamo )\n", [("TORCH_LOGS", "dynamo ", "", True)], "PHASES block"),
    (
        'if "%A%"=="1" (\n  set TORCH_LOGS=dynamo\n) else (\n  set TORCH_LOGS=aot\n)\n',
        [("TORCH_LOGS", "dynamo", "", True), ("TORCH_LOGS", "aot", "", True)],
        "if/else blocks",
    ),
    ("if defined X set TORCH_LOGS=a\n", [("TORCH_LOGS", "a", "", True)], "if defined"),
    ("if /i not x EQU b set TORCH_LOGS=a\n", [("TORCH_LOGS", "a", "", True)], "if EQU"),
    # an expansion earlier on the line may hold `&` or `"`: what follows is not certain
    ("if %A% EQU b set TORCH_LOGS=a\n", [("TORCH_LOGS", None, "", True)], "PHASES 1 then 2"),
    (
        "if exist f.txt (set TORCH_LOGS=a) else set TORCH_LOGS=b\n",
        [("TORCH_LOGS", "a", "", True), ("TORCH_LOGS", "b", "", True)],
        "if exist",
    ),
    ("for %%i in (a b) do set TORCH_LOGS=%%i\n", [("TORCH_LOGS", None, "", True)], "for %%i"),
    (
        "for /f \"delims=\" %%i in ('x') do (\n set TORCH_LOGS=+dynamo\n)\n",
        [("TORCH_LOGS", "+dynamo", "", True)],
        "for /f",
    ),
    # setx: argv rules (quotes removed)
    ('setx TORCH_LOGS "+dynamo,guards"\n', [("TORCH_LOGS", "+dynamo,guards", '"', True)], "SETX"),
    ("setx TORCH_LOGS dynamo /m\n", [("TORCH_LOGS", "dynamo", "", True)], "SETX"),
    ('setx TORCH_LOGS "a\\" b\n', [], "SETX backslash-quote not followed"),
    ("setx /s host TORCH_LOGS a\n", [], "SETX options not followed"),
]


@pytest.mark.parametrize(("text", "expected", "source"), CASES)
def test_extract(text: str, expected: Expected, source: str) -> None:
    spans = batch.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value, s.quote, s.terminated) for s in spans] == expected, source


def test_offsets_of_escapes_and_names() -> None:
    text = "set torch_logs=a^&b%%\n"
    (span,) = batch.extract(text)
    check_span(text, span, exact_name=False)
    assert text[span.name_start : span.name_end] == "torch_logs"
    assert span.value == "a&b%"
    # `^&` and `%%` each give one code point from two of the document
    assert [text[s:e] for s, e in zip(span.char_starts, span.char_ends, strict=True)] == [
        "a",
        "^&",
        "b",
        "%%",
    ]
    quoted = 'set "TORCH_LOGS=+dynamo" x\n'
    (span,) = batch.extract(quoted)
    assert quoted[span.content_start : span.content_end] == "+dynamo"
    assert (span.raw_start, span.raw_end) == (span.content_start, span.content_end)


def test_emoji_before_the_value_and_crlf() -> None:
    text = "rem 🙂 é\r\necho 🙂 & set TORCH_LOGS=🙂+dynamo \r\n"
    (span,) = batch.extract(text)
    check_span(text, span)
    assert span.value == "🙂+dynamo "
    assert text[span.content_start] == "🙂"


def test_detect() -> None:
    assert detect_host("C:\\x\\run.BAT", "") == "batch"
    assert detect_host("/w/build.cmd", "") == "batch"
    assert detect_host("/w/.env.bat", "") == "batch"
    assert detect_host("/w/run.batch", "") is None
    assert batch.LANGUAGE_IDS == ("bat",) and batch.RUNS_ON == "windows"
    assert not batch.may_hold_values("set X=1\n")
    assert batch.may_hold_values("set torch_logs=1\n")


# -- encode_part: written values read back ------------------------------------------------

_CHARS = st.sampled_from([*"abz+-,._ :=/\\", *'&|<>()^%"!', "🙂", "é", "\t", "\n"])


@settings(max_examples=examples(300), deadline=None)
@given(value=st.lists(_CHARS, min_size=1, max_size=20).map("".join), tail=st.booleans())
def test_encode_part_round_trip(value: str, tail: bool) -> None:
    for quote in ("", '"'):
        body = batch.encode_part(quote, value)
        if body is None:
            assert "!" in value or "\n" in value or (quote and ('"' in value or value[-1] == "\\"))
            continue
        line = f'set "TORCH_LOGS={body}"' if quote else f"set TORCH_LOGS={body}"
        after = " & echo x" if tail and quote else ""
        text = f"echo 🙂\r\n{line}{after}\r\n"
        spans = batch.extract(text)
        check_spans(text, spans)
        assert [s.value for s in spans] == [value], (quote, body)


def test_encode_part_examples() -> None:
    assert batch.encode_part("", "a&b") == "a^&b"
    assert batch.encode_part("", '"a&b"') == '"a&b"'  # inside cmd's quotes: literal
    assert batch.encode_part("", "50%") == "50%%"
    assert batch.encode_part('"', "a&b^") == "a&b^"
    assert batch.encode_part('"', 'a"b') is None
    assert batch.encode_part("", "a!b") is None  # delayed expansion may be on
    assert batch.encode_part("'", "a") is None


# -- generated lines against a reading built with them --------------------------------


@st.composite
def _set_line(draw: st.DrawFn) -> tuple[str, str]:
    """A ``set TORCH_LOGS=...`` line built from pieces whose reading is known from
    [PHASES] (a plain character, ``^x``, ``%%``, a quoted run with specials), and the
    value cmd gives: built independently of the host's reader."""
    source, value = [], []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["plain", "caret", "percent", "quoted"]))
        if kind == "plain":
            ch = draw(st.sampled_from(list("ab+,._ =🙂")))
            source.append(ch)
            value.append(ch)
        elif kind == "caret":
            ch = draw(st.sampled_from(list('&|<>()^a"')))
            source.append("^" + ch)
            value.append(ch)
        elif kind == "percent":
            source.append("%%")
            value.append("%")
        else:
            inner = draw(st.text(st.sampled_from(list("a &|<>()^")), max_size=5))
            source.append(f'"{inner}"')
            value.append(f'"{inner}"')
    sep = draw(st.sampled_from(["", " & echo x", "&& echo y", " || echo z"]))
    tail = {"": "", " & echo x": " ", "&& echo y": "", " || echo z": " "}[sep]
    return "set TORCH_LOGS=" + "".join(source) + sep, "".join(value) + tail


@settings(max_examples=examples(300), deadline=None)
@given(case=_set_line(), crlf=st.booleans())
def test_generated_lines(case: tuple[str, str], crlf: bool) -> None:
    line, value = case
    text = line + ("\r\n" if crlf else "\n")
    spans = batch.extract(text)
    check_spans(text, spans)
    assert [s.value for s in spans] == [value]


# -- removal, overwritten, notes, typed names -------------------------------------------


def test_removal() -> None:
    text = "@echo off\r\n  @set TORCH_LOGS=help\r\npython x.py\r\n"
    (span,) = batch.extract(text)
    found = batch.removal(text, span)
    assert found is not None
    assert found[0] == "Remove the `set TORCH_LOGS` line"
    assert apply_text_edits(text, [found[1]]) == "@echo off\r\npython x.py\r\n"
    for kept in (
        "set TORCH_LOGS=a & echo x\n",
        "if 1==1 set TORCH_LOGS=a\n",
        "(\nset TORCH_LOGS=a\n)\n",
        "set TORCH_LOGS=a^\nb\n",
    ):
        (span,) = batch.extract(kept)
        assert batch.removal(kept, span) is None, kept


def test_value_edit_is_verified() -> None:
    text = "set TORCH_LOGS=+dynamo ,aot & python x.py\n"
    (span,) = batch.extract(text)
    assert span.value == "+dynamo ,aot "  # the blank before `&` too
    edits = value_edit("batch", text, span, "+dynamo,aot ")
    assert edits is not None
    assert apply_text_edits(text, edits) == "set TORCH_LOGS=+dynamo,aot & python x.py\n"
    text = 'set TORCH_LOGS="+schedule,+inductor"\n'
    (span,) = batch.extract(text)
    edits = value_edit("batch", text, span, "+schedule,+inductor")
    assert edits is not None
    assert apply_text_edits(text, edits) == "set TORCH_LOGS=+schedule,+inductor\n"


def test_overwritten() -> None:
    text = (
        "set TORCH_LOGS=a\nrem c\n:label\nset OTHER=1\nset torch_logs=b\npython x.py\n"
        "set TORCH_LOGS=c\nset Y=%TORCH_LOGS%\nset TORCH_LOGS=d\npython x.py\n"
        "set TORCH_LOGS=e\nif 1==1 set TORCH_LOGS=f\npython x.py\n"
        "set TORCH_LOGS=g\nsetlocal\nset TORCH_LOGS=h\nendlocal\npython x.py\n"
        "set TORCH_LOGS=i & set TORCH_LOGS=j\npython x.py\n"
        "set TORCH_LOGS=k\nset TORCH_LOGS=\nset TORCH_LOGS=l\n"
        "set TORCH_LOGS=m | more\nset TORCH_LOGS=n\n"
    )
    spans = batch.extract(text)
    found = batch.overwritten(text, spans)
    assert [(spans[o.dead].value, spans[o.live].value) for o in found] == [("a", "b"), ("i ", "j")]
    assert found[0].why == "TORCH_LOGS is set again before any command runs"
    assert batch.overwritten(text, spans[::-1]) == []  # spans that do not fit: no crash


def test_setx_note_and_findings() -> None:
    text = 'setx TORCH_LOGS "+dynamo"\nset TORCH_LOGS=+dynamo\n'
    spans = batch.extract(text)
    assert [(n.span_index, n.code) for n in batch.notes(text, spans)] == [(0, "TL503")]
    codes = [f.diagnostic.code for f in findings(text, "batch", load_registry("2.13"))]
    assert codes == ["TL503"]
    # a value we cannot know is stored for later processes all the same
    text = "setx TORCH_LOGS %LEVEL%\n"
    (found,) = findings(text, "batch", load_registry("2.13"))
    assert found.diagnostic.code == "TL503" and text[found.start : found.end] == "%LEVEL%"


def test_typed_name() -> None:
    assert batch.typed_name("set TORCH_L", 11) == "TORCH_L"
    assert batch.typed_name('echo x & set "TOR', 17) == "TOR"
    assert batch.typed_name("  @SET ", 7) == ""
    assert batch.typed_name("echo TORCH", 10) is None


def test_typographic_quotes_are_kept() -> None:
    text = "set TORCH_LOGS=\u201c+dynamo\u201d\n"
    (span,) = batch.extract(text)
    assert span.value == "\u201c+dynamo\u201d"
    (found,) = batch.quote_findings(text, [span])
    assert found.title == "Remove the typographic quotes"
    assert apply_text_edits(text, found.edits) == "set TORCH_LOGS=+dynamo\n"


def test_case_of_the_name_is_not_a_misspelling() -> None:
    text = "set torch_logs=+dynamo\nset TORCH_LOG=+dynamo\n"
    codes = [(f.line, f.diagnostic.code) for f in findings(text, "batch", load_registry("2.13"))]
    assert codes == [(1, "TL408")]


# -- torch's reading: quotes and trailing blanks -----------------------------------------


def _codes(text: str, release: str) -> list[tuple[str, int, int]]:
    return [
        (f.diagnostic.code, f.line, f.column)
        for f in findings(text, "batch", load_registry(release))
        if f.diagnostic.code in ("TL101", "TL107")
    ]


def test_quoted_value_is_flagged_before_2_9() -> None:
    text = 'set TORCH_LOGS="+dynamo,guards"\r\n'
    assert _codes(text, "2.8") == [("TL107", 0, 15)]  # one finding over the pair


def test_quoted_value_is_silent_from_2_9() -> None:
    """torch 2.9+ strips one pair of outer quotes on Windows (``RUNS_ON = "windows"``)."""
    assert _codes('set TORCH_LOGS="+dynamo,guards"\r\n', "2.9") == []


def test_trailing_blank_is_flagged() -> None:
    assert _codes("set TORCH_LOGS=dynamo \r\n", "2.13") == [("TL101", 0, 21)]
