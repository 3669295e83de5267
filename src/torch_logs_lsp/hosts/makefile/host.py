"""The Makefile host: ``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``, ``*.mak``.

Read as GNU make 4.3 reads it (:mod:`.makefile_lines`, :mod:`.makefile_values`; GNU make
is the oracle of ``tests/hosts/makefile/test_oracle.py``):

- a variable assignment of a family name, with any modifiers and operator
  (``export TORCH_LOGS = v``, ``TORCH_LOGS := v``, ``override TORCH_LOGS ?= v``), the
  target-specific ``target: export TORCH_LOGS = v`` and ``define TORCH_LOGS ... endef``:
  the value make stores (trailing blanks kept, ``$$`` -> ``$``, ``\\#`` -> ``#``, a
  continuation -> one space). Not static: a reference (``$(X)``), ``+=`` (appends to a
  value not known here), ``!=`` (a shell command), ``:::=`` (make 4.4).
- recipe lines (after a rule, starting with a tab or the ``.RECIPEPREFIX`` character):
  make's expansion first (``$$`` -> ``$``; a value overlapping a make reference is not
  static), the ``@``/``-``/``+`` prefixes removed, then the shell host reads the code
  (:func:`~.embedded.shell_spans`): ``TORCH_LOGS=$$EXTRA python x.py`` is ``$EXTRA`` to
  the shell, not static. ``/bin/sh`` is dash on Debian and Ubuntu and bash elsewhere:
  a value quoted ``$'...'`` or ``$"..."`` (bash only) is not static.

Which assignments reach a process: make puts an exported variable in every recipe's
environment, and also a variable that is not exported when it came from make's own
environment (the makefile's value replaces it; oracle-tested), and ``$(TORCH_LOGS)`` in a
recipe reads it either way. Every static assignment is therefore diagnosed, exported or
not: the value is written for torch. ``?=`` is the value used when the environment does
not set the variable, and is diagnosed as such.

Under ``.ONESHELL`` a rule's recipe lines are one script. Not read: an inline recipe
(``target: ; cmd``) continued on the next line, conditionals (both branches are read),
``include``.
All offsets are **code points into the document**.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import NamedTuple

from torch_logs_lsp.hosts.embedded import (
    LAYER,
    EmbeddedCode,
    embedded_captured,
    encode_layers,
    shell_spans,
)
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Overwrite, line_before
from torch_logs_lsp.hosts.makefile.lines import Line, read
from torch_logs_lsp.hosts.makefile.values import (
    DEFINE,
    STATIC_OPS,
    assignment,
    bash_quotes,
    decode,
    recipe_code,
    rule_colon,
)
from torch_logs_lsp.hosts.makefile.values import encode_part as _encode
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan, names_family, set_again

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "makefile",
    ("Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"),
    ("makefile",),
    vscode_languages=("makefile",),
)
HOST: HostKind = "makefile"
DESCRIPTION = "Makefiles"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
#: Only a recipe line can leave a quote open (make itself has no quotes): /bin/sh then
#: stops with a syntax error and runs nothing of the line.
NEVER_SET: str | None = "the recipe line fails (/bin/sh cannot read it)"
STRIPS_TRAILING_BLANKS = False  # make keeps the blanks after a value
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = None
LINE_COMMENTS = True

may_hold_values = names_family
# make keeps every quote of a value as a character (it has no quoting).
quote_findings = kept_findings(False)
# TL411: a value read from its shell code whose command keeps stderr
stderr_captured = embedded_captured


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: a makefile is known by its name."""
    return False


class Found(NamedTuple):
    """A span with where it was found: ``kind`` (``"var"``, ``"target"``, ``"define"``,
    ``"recipe"``), the document range of its logical line (with the line break after it),
    its conditional depth, operator and modifiers."""

    span: ValueSpan
    kind: str
    start: int
    end: int
    depth: int
    op: str = ""
    modifiers: tuple[str, ...] = ()


def _line_end(text: str, end: int) -> int:
    """``end`` (a line's end before its break) moved past the line break."""
    if text.startswith("\r\n", end):
        return end + 2
    return end + 1 if text.startswith("\n", end) else end


def _span(
    name: tuple[int, int, str],
    value: tuple[str | None, list[int], list[int]],
    content: tuple[int, int],
    quote: str,
) -> ValueSpan:
    (v, starts, ends), (a, b) = value, content
    if v is None:
        starts, ends = [], []
    return ValueSpan(
        name[2], HOST, name[0], name[1], v, tuple(starts), tuple(ends), a, b, a, b, quote
    )


def _assign_span(line: Line, text: str, at: int, kind: str) -> Found | None:
    chars = line.chars
    a = assignment(chars.text, at)
    if a is None:
        return None
    name = chars.text[a.name_start : a.name_end]
    if name not in FAMILY:
        return None
    n = len(chars.text)
    value = decode(chars, a.value_start, n) if a.op in STATIC_OPS else (None, [], [])
    start = chars.starts[a.value_start] if a.value_start < n else chars.ends[a.value_start - 1]
    end = chars.ends[n - 1] if a.value_start < n else start
    span = _span(
        (chars.starts[a.name_start], chars.ends[a.name_end - 1], name), value, (start, end), ""
    )
    return Found(span, kind, line.start, _line_end(text, line.end), line.depth, a.op, a.modifiers)


_DEFINE = re.compile(r"[ \t]*(?:(?:export|unexport|override|private)[ \t]+)*define[ \t]+")


#: The name and operator after ``define`` (``define NAME``, ``define NAME :=``, ``NAME=``).
_DEFINE_HEAD = re.compile(r"([^ \t=:?+!]+)[ \t]*(:::=|::=|:=|\?=|\+=|!=|=)?[ \t]*")


def _define_span(line: Line, text: str) -> Found | None:
    chars = line.chars
    m = _DEFINE.match(chars.text)
    if m is None:
        return None
    head = _DEFINE_HEAD.fullmatch(chars.text, m.end())
    if head is None or head.group(1) not in FAMILY:
        return None
    op = head.group(2) or "="
    name = (chars.starts[head.start(1)], chars.ends[head.end(1) - 1], head.group(1))
    body = line.body
    if body is None:  # no endef: make stops with "missing 'endef'"
        after = chars.ends[-1]
        return Found(_span(name, (None, [], []), (after, after), DEFINE), "define", line.start,
                     _line_end(text, line.end), line.depth, op)  # fmt: skip
    if body.text:
        a, b = body.starts[0], body.ends[-1]
    else:
        a = b = _line_end(text, chars.ends[-1]) if chars.ends else line.start
    value = decode(body, 0, len(body.text)) if op in STATIC_OPS else (None, [], [])
    mods = tuple(chars.text[: m.end()].split()[:-1])
    return Found(_span(name, value, (a, b), DEFINE), "define", line.start,
                 _line_end(text, line.end), line.depth, op, mods)  # fmt: skip


def _unread(s: ValueSpan) -> ValueSpan:
    """``s`` with no value (not static)."""
    return ValueSpan(s.variable, s.host, s.name_start, s.name_end, None, (), (),
                     s.content_start, s.content_end, s.raw_start, s.raw_end, s.quote)  # fmt: skip


def _recipe_spans(group: list[Line], text: str) -> list[Found]:
    """The spans of recipe lines run as one script (one line, or a rule's lines joined by
    line breaks under ``.ONESHELL``)."""
    first, last = group[0], group[-1]
    code, refs = recipe_code(first.chars, first.end)
    for line in group[1:]:
        more, more_refs = recipe_code(line.chars, line.end)
        brk = (code.end, _line_end(text, code.end))
        code = EmbeddedCode(
            code.text + "\n" + more.text,
            [*code.starts, brk[0], *more.starts],
            [*code.ends, brk[1], *more.ends],
            more.end,
            code.quote,
        )
        refs += more_refs
    out = []
    bash_only = [code.starts[i] for i in bash_quotes(code.text)]
    for s in shell_spans(HOST, code):
        end = max(s.content_end, s.content_start + 1)
        if any(a < end and s.content_start < b for a, b in refs):
            s = _unread(s)  # make expands a reference there first
        elif any(s.raw_start <= i < max(s.raw_end, s.content_end) for i in bash_only):
            s = _unread(s)  # /bin/sh: dash (Debian, Ubuntu) has no $'...' or $"...", bash has
        out.append(Found(s, "recipe", first.start, _line_end(text, last.end), first.depth))
    return out


#: ``.ONESHELL:`` anywhere: each rule's recipe is one script (GNU make 4.3 manual,
#: "Using One Shell"; the prefixes ``@-+`` of every line are removed for a POSIX shell).
_ONESHELL = re.compile(r"^\.ONESHELL[ \t]*:", re.MULTILINE)


@lru_cache(maxsize=4)
def _read(text: str) -> tuple[Found, ...]:
    out: list[Found] = []
    oneshell = _ONESHELL.search(text) is not None
    lines = read(text, oneshell)
    for i, line in enumerate(lines):
        if line.kind == "recipe":
            before = lines[i - 1] if i else None
            same_rule = before is not None and (before.kind, before.rule) == ("recipe", line.rule)
            if oneshell and same_rule:
                continue  # read with the rule's first line
            group = [line]
            while (
                oneshell and i + len(group) < len(lines) and lines[i + len(group)].kind == "recipe"
            ):
                if lines[i + len(group)].rule != line.rule:
                    break
                group.append(lines[i + len(group)])
            if any(names_family(g.chars.text) for g in group):
                out.extend(_recipe_spans(group, text))
            continue
        if not names_family(line.chars.text) and not (line.body and names_family(line.body.text)):
            continue
        if line.kind == "define":
            found = _define_span(line, text)
        else:
            found = _assign_span(line, text, 0, "var")
            if found is None and assignment(line.chars.text) is None:
                colon = rule_colon(line.chars.text)
                if colon is not None:
                    found = _assign_span(line, text, colon, "target")
        if found is not None:
            out.append(found)
    return tuple(out)


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The family values of a makefile in document order (see the module docstring);
    ``cache`` is not used (a makefile is read whole). Never raises: a failure is logged
    and gives no spans."""
    try:
        return [f.span for f in _read(text)]
    except Exception:  # bad input never crashes the server
        log.exception("makefile: cannot read the document")
        return []


def encode_part(quote: str, value: str) -> str | None:
    """See :func:`.makefile_values.encode_part`; a value in recipe code (a layered quote)
    goes through the shell's quoting first, then make's ``$`` -> ``$$``."""
    if LAYER in quote:
        return encode_layers(quote, value, _encode)
    return _encode(quote, value)


def _found(text: str, span: ValueSpan) -> Found | None:
    try:
        return next((f for f in _read(text) if f.span == span), None)
    except Exception:
        return None


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """A variable assignment or ``define``: its whole logical line(s) with the line break;
    recipe code: as the shell host removes it (``NAME=value cmd`` -> ``cmd``)."""
    found = _found(text, span)
    if found is None:
        return None
    if found.kind == "recipe":
        from torch_logs_lsp.hosts.shell.edits import removal as shell_removal

        return shell_removal(text, span)
    what = "definition" if found.kind == "define" else "assignment"
    return f"Remove the `{span.variable}` {what}", TextEdit(found.start, found.end, "")


_OVERWRITES = frozenset({"=", ":=", "::="})


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """A global assignment replaced by a later global ``=``/``:=``/``::=`` of the same
    variable outside conditionals: make reads the whole makefile before any recipe runs.
    Not when the name is mentioned between them or in the later line (a reference, an
    ``export``), and not over an ``override`` by a plain assignment."""
    try:
        found = _read(text)
    except Exception:
        return []
    if [f.span for f in found] != list(spans):
        return []
    out = []
    for dead, live in set_again(spans):
        a, b = found[dead], found[live]
        if a.kind not in ("var", "define") or b.kind not in ("var", "define"):
            continue
        if a.depth or b.depth or b.op not in _OVERWRITES:
            continue
        if "override" in a.modifiers and "override" not in b.modifiers:
            continue
        between = text[a.end : b.span.name_start] + text[b.span.name_end : b.end]
        if a.span.variable in between or "$(shell" in between or "${shell" in between:
            continue
        out.append(Overwrite(dead, live, "assigned again before make runs any recipe"))
    return out


_NAME_LINE = re.compile(
    r"^(?:[ \t]*(?:export|override|unexport|private)[ \t]+(?:[^ \t=]*[ \t]+)*|"
    r"[^\t:#=]*:[ \t]*(?:(?:export|override|private)[ \t]+)*|\t[ \t@+-]*|)"
    r"([A-Za-z_][A-Za-z0-9_]*)?$"
)


def typed_name(text: str, offset: int) -> str | None:
    """After ``export``/``override`` (and names before), after a rule's colon (a
    target-specific variable), at the start of a recipe line, or a name typed at the start
    of a line."""
    before = line_before(text, offset)
    m = _NAME_LINE.match(before)
    if m is None:
        return None
    name = m.group(1) or ""
    if before == name and not name:
        return None  # an empty line: nothing typed yet
    return name
