"""GNU make's reading of a makefile's lines, with document offsets kept (for
:mod:`.makefile`).

This follows ``read.c`` and ``misc.c`` of GNU make 4.3 (the oracle installed here; the
tests run ``make`` on generated makefiles):

- ``readline``: a physical line ends at LF (a CR before it is dropped); a line whose text
  ends with an odd number of backslashes goes on on the next one (a *logical* line).
- a rule line's text after its first ``;`` (outside references, before a comment) is a
  recipe line too (one physical line only).
- a logical line that starts with the recipe prefix (a tab, or the first character of
  ``.RECIPEPREFIX``) while a rule is open is a recipe line: its backslash-newlines are kept
  for the shell, one recipe prefix at the start of each continued line is removed.
- any other line: ``collapse_continuations`` (each backslash-newline, the blanks around
  it and further backslash-newlines become one space; half of the backslashes before it
  stay), then ``remove_comments`` (the first ``#`` outside a ``$(...)``/``${...}``
  reference, unless escaped: the backslashes before a ``#`` are halved, an odd number
  escapes it).
- recipes are shell code only while ``SHELL`` (its last assignment: make reads the whole
  file before running any) names a POSIX shell (``/bin/sh`` by default).
- ``define NAME`` ... ``endef`` (``do_define``): the body's logical lines with their
  continuations collapsed, comments kept, nested ``define``s counted.

tree-sitter-make is not used for this: its 1.1.1 grammar disagrees with GNU make on lines
that matter here (it keeps ``# comment`` in a variable's text, reads
``target: export NAME := v`` as a rule with an ERROR, and takes only ``@`` as a recipe
prefix, not ``-``/``+``); ``tests/hosts/makefile/test_host.py`` pins these differences.

All offsets are **code points into the document**; a :class:`Chars` maps each code point
of a line as make reads it to its document source.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from torch_logs_lsp.hosts.makefile.chars import Chars, ref_end
from torch_logs_lsp.model.spans import names_family


class Line(NamedTuple):
    """A logical line: ``kind`` ``"recipe"`` (``chars``: the recipe prefix removed, the
    backslash-newlines kept), ``"line"`` (``chars``: continuations collapsed, the comment
    removed) or ``"define"`` (``chars``: the ``define`` line; ``body`` the body's text
    joined by LF without the last line break, ``None`` when there is no ``endef``).
    ``start``/``end``: the document range of the whole logical line (through ``endef``
    for a define), without the last line break; ``depth``: open conditionals; ``rule``:
    the number of the rule a recipe line belongs to."""

    kind: str
    chars: Chars
    start: int
    end: int
    depth: int
    body: Chars | None = None
    rule: int = -1


_BLANK = " \t"
_MODIFIERS = ("export", "unexport", "override", "private")
_CONDITIONALS = ("ifeq", "ifneq", "ifdef", "ifndef")
_WORD = re.compile(r"[^ \t]*")


def _physical(text: str, pos: int) -> tuple[int, int, int]:
    """(start, content end without a CR before LF, next line's start) of the physical
    line at ``pos``."""
    nl = text.find("\n", pos)
    if nl < 0:
        return pos, len(text), len(text)
    end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
    return pos, end, nl + 1


def _odd_backslashes(text: str, start: int, end: int) -> bool:
    n = 0
    while end - n > start and text[end - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def collapse(chars: Chars) -> Chars:
    """``collapse_continuations``: each backslash-newline (``\\n`` in ``chars``, after an
    odd number of backslashes) with the blanks around it becomes one space."""
    if "\n" not in chars.text:
        return chars
    text, starts, ends = chars
    out: list[str] = []
    o_s: list[int] = []
    o_e: list[int] = []
    i = 0
    while i < len(text):
        nl = text.find("\n", i)
        if nl < 0:
            nl = len(text)
        out.extend(text[i:nl])
        o_s.extend(starts[i:nl])
        o_e.extend(ends[i:nl])
        i = nl
        if i >= len(text):
            break
        n = 0
        while n < len(out) and out[len(out) - 1 - n] == "\\":
            n += 1
        cut = len(out) - n + n // 2  # half of the backslashes stay
        first = o_s[cut] if cut < len(out) else starts[i]
        del out[cut:], o_s[cut:], o_e[cut:]
        if n % 2 == 0:  # cannot happen from read(): it joins lines after odd counts only
            out.append("\n")
            o_s.append(starts[i])
            o_e.append(ends[i])
            i += 1
            continue
        while out and out[-1] in _BLANK:
            first = o_s[-1]
            out.pop(), o_s.pop(), o_e.pop()
        i += 1
        while i < len(text) and text[i] in _BLANK:
            i += 1
        out.append(" ")
        o_s.append(first)
        o_e.append(starts[i] if i < len(text) else ends[i - 1])
    return Chars("".join(out), o_s, o_e)


def comment_at(text: str) -> int:
    """Where ``remove_comments`` cuts ``text`` (``len(text)`` when it has no comment)."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "$":
            i = ref_end(text, i)
        elif c == "#":
            return i
        else:
            i += 1
    return len(text)


def uncomment(chars: Chars) -> Chars:
    """``remove_comments`` (``find_char_unquote`` with ``MAP_COMMENT|MAP_VARIABLE``): the
    text before the first unescaped ``#``; backslashes before each ``#`` are halved."""
    text, starts, ends = chars
    if "#" not in text:
        return chars
    out = Chars("", [], [])
    parts: list[str] = []
    pos = 0
    while True:
        at = pos + comment_at(text[pos:])
        if at >= len(text):
            parts.append(text[pos:])
            out.starts.extend(starts[pos:])
            out.ends.extend(ends[pos:])
            return Chars("".join(parts), out.starts, out.ends)
        n = 0
        while at - n > pos and text[at - n - 1] == "\\":
            n += 1
        head = at - n
        parts.append(text[pos:head])
        out.starts.extend(starts[pos:head])
        out.ends.extend(ends[pos:head])
        for k in range(n // 2):  # each kept backslash stands for two
            parts.append("\\")
            out.starts.append(starts[head + 2 * k])
            out.ends.append(ends[head + 2 * k + 1])
        if n % 2 == 0:
            return Chars("".join(parts), out.starts, out.ends)
        parts.append("#")  # escaped: `\#` is a `#`
        out.starts.append(starts[at - 1])
        out.ends.append(ends[at])
        pos = at + 1


def first_word(text: str) -> str:
    """The line's first word after blanks."""
    m = _WORD.match(text, len(text) - len(text.lstrip(_BLANK)))
    return m.group() if m else ""


def _chars(text: str, start: int, end: int) -> Chars:
    return Chars(text[start:end], list(range(start, end)), list(range(start + 1, end + 1)))


def _logical(text: str, pos: int) -> tuple[Chars, int, int]:
    """The logical line at ``pos``: its chars (each continuation's line break as ``\\n``),
    its document end (before the last line break) and the next line's start."""
    parts: list[Chars] = []
    while True:
        start, end, nxt = _physical(text, pos)
        parts.append(_chars(text, start, end))
        if nxt >= len(text) or not _odd_backslashes(text, start, end) or end == nxt:
            break
        parts.append(Chars("\n", [end], [nxt]))
        pos = nxt
    return join(parts), end, nxt


def join(parts: list[Chars]) -> Chars:
    """The chars of ``parts`` one after the other."""
    starts: list[int] = []
    ends: list[int] = []
    for p in parts:
        starts.extend(p.starts)
        ends.extend(p.ends)
    return Chars("".join(p.text for p in parts), starts, ends)


def _recipe(chars: Chars, prefix: str) -> Chars:
    """A recipe line without its recipe prefix and the prefix after each continuation."""
    text = chars.text
    if "\n" + prefix not in text:
        return chars.sub(1, len(text))
    keep = [i for i in range(1, len(text)) if not (text[i] == prefix and text[i - 1] == "\n")]
    return Chars(
        "".join(text[i] for i in keep),
        [chars.starts[i] for i in keep],
        [chars.ends[i] for i in keep],
    )


def _define_words(text: str) -> bool:
    """Whether a (comment-free) line opens a ``define`` (after modifiers)."""
    words = text.split()
    while words and words[0] in _MODIFIERS and len(words) > 1:
        words = words[1:]
    return bool(words) and words[0] == "define"


def _inline_recipe(raw: str) -> int | None:
    """The index of the ``;`` that starts a rule line's inline recipe (the first ``;``
    before any comment, outside references; not after a backslash), else ``None``."""
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "$":
            i = ref_end(raw, i)
            continue
        if c == "#":
            return None
        if c == ";":
            return None if i and raw[i - 1] == "\\" else i
        i += 1
    return None


def _directive(text: str, prefix: str) -> str:
    """``"define"``/``"endef"`` when a line of a define's body is one (``do_define``: not
    after the recipe prefix; the word followed by a blank or the end), else ``""``."""
    if text[:1] == prefix:
        return ""
    word = text.lstrip(_BLANK)
    for directive in ("define", "endef"):
        if word.startswith(directive) and word[len(directive) : len(directive) + 1] in (
            "",
            " ",
            "\t",
        ):
            return directive
    return ""


def read(text: str, all_recipes: bool = False) -> list[Line]:
    """The logical lines of a makefile that name a family variable (see the module
    docstring; a ``define`` when its first line does; every recipe line with
    ``all_recipes``), in order. A rule line opens a rule (recipe lines follow it), a
    variable assignment closes it; ``.RECIPEPREFIX`` is followed."""
    # (not at start-up: detection imports every host, and only a makefile needs these)
    from torch_logs_lsp.hosts.makefile.values import line_kind, posix_shell, recipe_prefix

    out: list[Line] = []
    pos = 0
    depth = 0
    prefix = "\t"
    in_rule = False
    rule = -1
    posix = True  # make runs recipes with the last SHELL of the file (not the environment's)
    while pos < len(text):
        start = pos
        _, end, nxt = _physical(text, pos)
        multi = nxt < len(text) and end != nxt and _odd_backslashes(text, start, end)
        chars = None
        if multi:
            chars, end, nxt = _logical(text, pos)
        raw = chars.text if chars is not None else text[start:end]
        pos = nxt
        family = names_family(raw)  # only such lines are kept (and their offsets built)
        if raw[:1] == prefix and in_rule:
            if family or all_recipes:
                whole = chars or _chars(text, start, end)
                out.append(Line("recipe", _recipe(whole, prefix), start, end, depth, None, rule))
            continue
        line = None
        if multi or "#" in raw:
            line = uncomment(collapse(chars or _chars(text, start, end)))
        plain = line.text if line is not None else raw
        word = first_word(plain)
        if not word:
            continue
        if word in _CONDITIONALS:
            depth += 1
            continue
        if word == "endif":
            depth = max(0, depth - 1)
            continue
        if word == "else":
            continue
        if _define_words(plain):
            body: list[Chars] = []
            nesting = 0
            closed = False
            body_end = end
            prev = end
            while pos < len(text):
                b_start = pos
                raw_body, b_end, pos = _logical(text, pos)
                body_line = collapse(raw_body)
                head = _directive(body_line.text, prefix)
                if head == "endef" and nesting == 0:
                    body_end, closed = b_end, True
                    break
                nesting += 1 if head == "define" else -1 if head == "endef" else 0
                if body:
                    body.append(Chars("\n", [prev], [b_start]))
                body.append(body_line)
                body_end, prev = b_end, b_end
            if family:
                joined = join(body) if closed else None
                head_line = line or _chars(text, start, end)
                out.append(Line("define", head_line, start, body_end, depth, joined))
            in_rule = False
            continue
        kind = line_kind(plain)
        if kind == "assign":
            in_rule = False
            new = recipe_prefix(plain)
            if new is not None:
                prefix = new
            shell = posix_shell(plain) if "SHELL" in plain else None
            if shell is not None:
                posix = shell
        elif kind in ("rule", "target-var"):
            in_rule = kind == "rule"
            rule += in_rule
            wanted = family or all_recipes
            semi = _inline_recipe(raw) if in_rule and wanted and not multi else None
            if semi is not None:  # `target: prerequisites ; recipe`
                whole = _chars(text, start, end).sub(semi + 1, len(raw))
                out.append(Line("recipe", whole, start, end, depth, None, rule))
                continue
        if family:
            out.append(Line("line", line or _chars(text, start, end), start, end, depth))
    return out if posix else [line for line in out if line.kind != "recipe"]


__all__ = ["Line", "collapse", "comment_at", "first_word", "read", "uncomment"]
