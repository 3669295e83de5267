"""The Makefile host against GNU make 4.3 (``make``): generated makefiles assign a family
variable (every operator and modifier, target-specific, ``define``; values with ``$$``,
references, ``\\#``, comments, continuations, trailing blanks, an emoji before the value,
CRLF) or set it on a recipe line, and a recipe prints the variable as the process sees
it. A static span's value must be exactly what the process saw; a span that is not static
is never compared (no finding is made for it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.makefile import host as host

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed"),
]

UNSET = "<unset>"
PRINT = "\t@printf '%s' \"$${TORCH_LOGS-" + UNSET + '}" > out\n'
#: Pieces of a value as written in a makefile (make decodes them; the oracle says how).
PIECES = st.sampled_from(
    [
        *("a", "+dynamo", ",", " ", "\t", "\\#", "\\\\#", "# c", "$$", "$(X)", "${Y}", "$Z"),
        *("\\\n", " \\\n  ", "\\\\", "\\", "🙂", "é", '"', "'", "x\\\\\\#y", ":", "=", "\r"),
    ]
)
PREFIX = st.sampled_from(["", "# 🙂 émoji\n", "X = 🙂\n", "\n\n"])


def _make(tmp: Path, doc: str, env: dict[str, str] | None = None) -> str | None:
    """What the recipe printed (``None`` when make failed)."""
    (tmp / "F").write_bytes(doc.encode("utf-8"))
    (tmp / "out").unlink(missing_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ("TORCH_LOGS", "MAKEFLAGS")}
    proc = subprocess.run(
        ["make", "-s", "-f", "F"],
        cwd=tmp,
        capture_output=True,
        env={**base, **(env or {})},
        timeout=30,
        check=False,
    )
    out = tmp / "out"
    if proc.returncode != 0 or not out.exists():
        return None
    return out.read_bytes().decode("utf-8")


def _spans(doc: str) -> list[host.ValueSpan]:
    spans = [s for s in host.extract(doc) if s.variable == "TORCH_LOGS"]
    check_spans(doc, host.extract(doc))
    return spans


@st.composite
def assignments(draw: st.DrawFn) -> str:
    """A makefile with one assignment of TORCH_LOGS, exported, and a recipe printing it."""
    mods = draw(st.sampled_from(["", "export ", "override ", "export override ", "private "]))
    op = draw(st.sampled_from(["=", ":=", "::=", "?=", "+=", "!="]))
    if op == "!=":
        value = "echo " + "".join(draw(st.lists(st.sampled_from(["a", "b", " "]), max_size=4)))
    else:
        value = "".join(draw(st.lists(PIECES, max_size=8)))
    blanks = draw(st.sampled_from(["", " ", "\t", "  "]))
    after = draw(st.sampled_from(["", " ", " \t"]))
    line = f"{mods}TORCH_LOGS{blanks}{op}{after}{value}"
    where = draw(st.sampled_from(["global", "target"]))
    if where == "target":
        line = "all: " + line
    doc = draw(PREFIX) + line + "\nexport TORCH_LOGS\n\nall:\n" + PRINT
    return doc.replace("\n", "\r\n") if draw(st.booleans()) else doc


@settings(max_examples=examples(250), deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=assignments())
def test_assignment_values_are_what_make_exports(tmp_path: Path, doc: str) -> None:
    printed = _make(tmp_path, doc)
    spans = _spans(doc)
    if printed is None or printed == UNSET:
        return  # make failed, or a continuation swallowed the `export` line
    assert len(spans) == 1, (doc, spans)
    if spans[0].value is not None:
        assert spans[0].value == printed, doc


@st.composite
def defines(draw: st.DrawFn) -> str:
    mods = draw(st.sampled_from(["", "export ", "override "]))
    op = draw(st.sampled_from(["", " =", " :=", " ?=", "=", ":=  ", " # c"]))
    lines = draw(
        st.lists(
            st.lists(st.sampled_from(["a", " ", "$$", "#", "🙂", "\\", "\t", ","])), max_size=3
        )
    )
    body = "".join("".join(line) + "\n" for line in lines)
    return f"{mods}define TORCH_LOGS{op}\n{body}endef\nexport TORCH_LOGS\nall:\n{PRINT}"


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=defines())
def test_define_values_are_what_make_exports(tmp_path: Path, doc: str) -> None:
    printed = _make(tmp_path, doc)
    spans = _spans(doc)
    assert len(spans) == 1, doc
    if spans[0].value is not None:
        assert spans[0].value == printed, doc


#: Pieces of a shell word on a recipe line, as written in the makefile (where dash and
#: bash agree).
WORD = st.sampled_from(
    [
        *("a", "+dynamo", ",", "$$", "$$X", "'q $$ q'", '"d $$X q"', '"d q"', "\\ ", "x\\\n\t"),
        *("$(EMPTY)", "${EMPTY}", "$E", "🙂", "#", "'#'", "\\$$", "é", "'q\n\t@- q'"),
    ]
)


@st.composite
def recipes(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(["", "@", "-", "@-", "+@", " @ - "]))
    word = "".join(draw(st.lists(WORD, min_size=1, max_size=6)))
    cmd = " sh -c 'printf %s \"$${TORCH_LOGS-" + UNSET + "}\"' > out"
    silent = "" if "@" in prefix else "@"
    line = f"{silent}{prefix}TORCH_LOGS={word}{cmd}"
    rule = draw(st.sampled_from(["all:\n\t", "all: ; ", "all: dep ;"]))
    if rule != "all:\n\t":
        line = line.replace("\\\n\t", "").replace("\n\t@- ", "")  # inline: one line
    oneshell = draw(st.sampled_from(["", ".ONESHELL:\n"]))
    doc = draw(PREFIX) + oneshell + f"{rule}{line}\ndep:\n"
    return doc.replace("\n", "\r\n") if draw(st.booleans()) else doc


@settings(max_examples=examples(250), deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=recipes())
def test_recipe_values_are_what_the_shell_gets(tmp_path: Path, doc: str) -> None:
    printed = _make(tmp_path, doc, {"EXTRA": "x", "X": "xx"})
    spans = _spans(doc)
    static = [s for s in spans if s.value is not None]
    if printed is None:
        return
    assert len(static) <= 1, (doc, spans)
    if static:
        assert static[0].value == printed, doc


@pytest.mark.parametrize(
    ("doc", "env", "printed"),
    [
        # not exported, not in make's environment: the recipe does not see it
        ("TORCH_LOGS = a\nall:\n" + PRINT, {}, UNSET),
        # not exported, but in make's environment: make passes the makefile's value on
        ("TORCH_LOGS = a\nall:\n" + PRINT, {"TORCH_LOGS": "env"}, "a"),
        # ?= keeps the environment's value
        ("export TORCH_LOGS ?= a\nall:\n" + PRINT, {"TORCH_LOGS": "env"}, "env"),
        ("export TORCH_LOGS ?= a\nall:\n" + PRINT, {}, "a"),
        # a bare `export` exports every variable; so does .EXPORT_ALL_VARIABLES
        ("TORCH_LOGS = a\nexport\nall:\n" + PRINT, {}, "a"),
        (".EXPORT_ALL_VARIABLES:\nTORCH_LOGS = a\nall:\n" + PRINT, {}, "a"),
        # the last assignment wins: make reads the whole file before any recipe runs
        ("export TORCH_LOGS = a\nall:\n" + PRINT + "TORCH_LOGS = b\n", {}, "b"),
        # trailing blanks before a comment are part of the value
        ("export TORCH_LOGS = +dynamo  # c\nall:\n" + PRINT, {}, "+dynamo  "),
        # unexport: the recipe does not see it, even from the environment
        ("export TORCH_LOGS = a\nunexport TORCH_LOGS\nall:\n" + PRINT, {"TORCH_LOGS": "e"}, UNSET),
    ],
)
def test_what_reaches_a_recipe(tmp_path: Path, doc: str, env: dict[str, str], printed: str) -> None:
    """The facts the module docstring's reach rules rest on."""
    assert _make(tmp_path, doc, env) == printed
    # each is checked (the value the makefile writes, exported or not: see the module)
    values = [s.value for s in host.extract(doc)]
    assert values[-1] == ("+dynamo  " if "+dynamo" in doc else "b" if "= b" in doc else "a")


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(value=st.text(alphabet="ab+-, \t#$\\\"'🙂=:", max_size=10))
def test_written_values_are_read_back_by_make(tmp_path: Path, value: str) -> None:
    """What a fix writes (encode_part) is what make exports, in a variable and in a
    single-quoted word of a recipe."""
    encoded = host.encode_part("", value)
    if encoded is not None:
        doc = f"export TORCH_LOGS = {encoded}\nall:\n{PRINT}"
        assert _make(tmp_path, doc) == value, encoded
    encoded = host.encode_part("'" + "\0" + "\t", value)
    if encoded is not None:
        cmd = " sh -c 'printf %s \"$${TORCH_LOGS-" + UNSET + "}\"' > out"
        doc = f"all:\n\t@TORCH_LOGS='{encoded}'{cmd}\n"
        assert _make(tmp_path, doc) == value, encoded


@pytest.mark.parametrize(
    ("doc", "printed"),
    [
        # SHELL ?= changes nothing (make defines SHELL itself)
        ("SHELL ?= python3\nall:\n\t@printf '%s' x > out\n", "x"),
        # the last SHELL of the file runs every recipe, also those before it
        ("all:\n\t@printf '%s' \"$${BASH_VERSION:+bash}\" > out\nSHELL = /bin/bash\n", "bash"),
        ("all:\n\t@printf '%s' \"$${BASH_VERSION:+bash}\" > out\n", ""),
    ],
)
def test_which_shell_runs_recipes(tmp_path: Path, doc: str, printed: str) -> None:
    """The facts the host's SHELL rule rests on (/bin/sh is dash here)."""
    assert _make(tmp_path, doc) == printed
