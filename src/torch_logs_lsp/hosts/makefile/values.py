"""Variable assignments, values and recipe code as GNU make 4.3 reads them (for
:mod:`.host`; the lines come from :mod:`.lines`).

- an assignment (``parse_var_assignment``/``parse_variable_definition`` in ``read.c``):
  modifiers (``export``, ``unexport``, ``override``, ``private``), the name, blanks, an
  operator (``=``, ``:=``, ``::=``, ``:::=``, ``?=``, ``+=``, ``!=``); the value starts after
  the white space (CR, VT, FF too) that follows the operator and runs to the end of the
  (comment-free) line, its trailing blanks included (make keeps them: ``X = a # c`` is
  ``"a "``).
- a value's ``$$`` is ``$``; any other ``$`` is a reference (``$(X)``, ``${X}``, ``$X``),
  which makes the value not static.
- recipe code: make expands it (``$$`` -> ``$``, references: not static) and removes the
  ``@``/``-``/``+`` prefixes and blanks at its start, then ``/bin/sh -c`` runs it.

All offsets are indexes into a :class:`~.chars.Chars` unless said otherwise.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from torch_logs_lsp.hosts.embedded import EmbeddedCode
from torch_logs_lsp.hosts.makefile.chars import Chars, ref_end

_BLANK = " \t"
#: What make skips before a value (``next_token``: C's ``isspace``, CR and FF included).
_SPACE = " \t\r\v\f"
_MODIFIER = re.compile(r"(export|unexport|override|private)[ \t]+")
#: The characters of a name up to one that may end it or start a reference.
_NAME_RUN = re.compile(r"[^ \t=:#$+?!]*")
_OPS = (":::=", "::=", ":=", "?=", "+=", "!=", "=")
#: Operators whose value is the text written (``$$`` -> ``$``): ``=``, ``:=``, ``::=`` and
#: ``?=`` (the default when the environment does not set the variable). ``+=`` appends to
#: a value not known here, ``!=`` runs a shell command; ``:::=`` is GNU make 4.4's.
STATIC_OPS = frozenset({"=", ":=", "::=", "?="})
#: The quote of a ``define`` body (a span's :attr:`~.base.ValueSpan.quote`) and of recipe
#: code (the outer layer of a recipe value's layered quote).
DEFINE = "define"
RECIPE = "\t"


class Assign(NamedTuple):
    """An assignment found in a line: the modifiers before it, the name's range, the
    operator and where the value starts (after the white space that follows the
    operator)."""

    modifiers: tuple[str, ...]
    name_start: int
    name_end: int
    op: str
    value_start: int


def _plain(text: str, i: int) -> Assign | None:
    """``NAME op value`` at ``i`` (no modifiers), or ``None``."""
    start = i
    n = len(text)
    while i < n:
        i = _NAME_RUN.match(text, i).end()  # type: ignore[union-attr]  # always matches
        c = text[i : i + 1]
        if c == "$":
            i = ref_end(text, i)
            continue
        if not c or c in _BLANK or c in "=:#" or text[i + 1 : i + 2] == "=":
            break
        i += 1  # a `+`, `?` or `!` not before `=`
    end = i
    while i < n and text[i] in _BLANK:
        i += 1
    op = next((o for o in _OPS if text.startswith(o, i)), None)
    if op is None or end == start:
        return None
    j = i + len(op)
    while j < n and text[j] in _SPACE:
        j += 1
    return Assign((), start, end, op, j)


def assignment(text: str, i: int = 0) -> Assign | None:
    """The assignment of ``text`` from ``i`` (blanks and modifiers first), or ``None``.
    A modifier word counts only when an assignment follows it (``export = 1`` assigns the
    variable ``export``)."""
    while i < len(text) and text[i] in _BLANK:
        i += 1
    mods: list[str] = []
    while (m := _MODIFIER.match(text, i)) is not None and _rest_assigns(text, m.end()):
        mods.append(m.group(1))
        i = m.end()
    found = _plain(text, i)
    return found._replace(modifiers=tuple(mods)) if found is not None else None


def _rest_assigns(text: str, i: int) -> bool:
    while (m := _MODIFIER.match(text, i)) is not None:
        i = m.end()
    return _plain(text, i) is not None


def rule_colon(text: str) -> int | None:
    """The index just after a rule line's target colon(s) (``a: b``, ``a:: b``), or
    ``None`` when the line has no colon outside a reference."""
    i = 0
    while i < len(text):
        if text[i] == "$":
            i = ref_end(text, i)
            continue
        if text[i] == ":":
            return i + 2 if text[i + 1 : i + 2] == ":" else i + 1
        i += 1
    return None


@lru_cache(maxsize=16384)
def line_kind(text: str) -> str:
    """``"assign"``, ``"target-var"`` (``target: [export] NAME = v``), ``"rule"`` or
    ``"other"`` (directives, ``export NAME``, junk) for a comment-free line. Remembered:
    a document read again after an edit has mostly the same lines."""
    if assignment(text) is not None:
        return "assign"
    colon = rule_colon(text)
    if colon is None:
        return "other"
    return "target-var" if assignment(text, colon) is not None else "rule"


def recipe_prefix(text: str) -> str | None:
    """The new recipe prefix when ``text`` assigns ``.RECIPEPREFIX`` (its first character;
    a tab when empty), else ``None``."""
    a = assignment(text)
    if a is None or text[a.name_start : a.name_end] != ".RECIPEPREFIX" or a.op not in STATIC_OPS:
        return None
    value = text[a.value_start :]
    return value[0] if value and value[0] != "$" else "\t"


_POSIX_SHELLS = frozenset({"sh", "bash", "dash", "ash", "ksh", "zsh", "mksh", "busybox"})


def posix_shell(text: str) -> bool | None:
    """Whether ``text``, an assignment of ``SHELL``, keeps recipes in a POSIX shell
    (``SHELL := /bin/bash``); ``None`` when it is not one (or ``?=``: make defines
    ``SHELL`` itself, so it changes nothing). A value make expands is not known: ``False``."""
    a = assignment(text)
    if a is None or text[a.name_start : a.name_end] != "SHELL" or a.op == "?=":
        return None
    words = text[a.value_start :].split()
    if a.op not in STATIC_OPS or "$" in text[a.value_start :] or not words:
        return False
    return words[0].rsplit("/", 1)[-1] in _POSIX_SHELLS


def decode(chars: Chars, start: int, end: int) -> tuple[str | None, list[int], list[int]]:
    """The value of ``chars[start:end]`` once make expands it: ``$$`` -> ``$`` (its source
    is both characters), with each code point's document range; ``None`` (and empty maps)
    when it holds a reference."""
    text = chars.text
    if "$" not in text[start:end]:
        return text[start:end], chars.starts[start:end], chars.ends[start:end]
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = start
    while i < end:
        at = text.find("$", i, end)
        stop = end if at < 0 else at
        out.append(text[i:stop])
        starts.extend(chars.starts[i:stop])
        ends.extend(chars.ends[i:stop])
        if at < 0:
            break
        if text[at + 1 : at + 2] != "$" or at + 1 >= end:
            return None, [], []
        out.append("$")
        starts.append(chars.starts[at])
        ends.append(chars.ends[at + 1])
        i = at + 2
    return "".join(out), starts, ends


def recipe_code(chars: Chars, end: int) -> tuple[EmbeddedCode, list[tuple[int, int]]]:
    """The shell code of a recipe line (``chars``: the recipe prefix removed; ``end``:
    the document offset after the line) and the document ranges of its make references
    (kept in the code as written: the shell reads ``$(X)``/``${X}``/``$X`` as an expansion
    too; a value that overlaps one is not static)."""
    text = chars.text
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    refs: list[tuple[int, int]] = []
    i = 0
    while i < len(text) and text[i] in " \t@-+":
        i += 1
    while i < len(text):
        at = text.find("$", i)
        stop = len(text) if at < 0 else at
        out.append(text[i:stop])
        starts.extend(chars.starts[i:stop])
        ends.extend(chars.ends[i:stop])
        if at < 0:
            break
        if text[at + 1 : at + 2] == "$":
            out.append("$")
            starts.append(chars.starts[at])
            ends.append(chars.ends[at + 1])
            i = at + 2
            continue
        stop = ref_end(text, at)
        if stop > at + 1:
            refs.append((chars.starts[at], chars.ends[stop - 1]))
        out.append(text[at:stop])
        starts.extend(chars.starts[at:stop])
        ends.extend(chars.ends[at:stop])
        i = stop
    return EmbeddedCode("".join(out), starts, ends, end, RECIPE), refs


def bash_quotes(code: str) -> list[int]:
    """The indexes of the ``$`` of each ``$'...'`` and ``$"..."`` of shell ``code``
    (outside other quotes): bash's quoting, which dash (``/bin/sh`` on Debian and Ubuntu)
    does not have."""
    if "$'" not in code and '$"' not in code:
        return []
    out: list[int] = []
    state = ""
    i = 0
    while i < len(code):
        c = code[i]
        if state == "'":
            state = "" if c == "'" else state
        elif state == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                state = ""
        elif c == "\\":
            i += 1
        elif c in "'\"":
            state = c
        elif c == "$" and code[i + 1 : i + 2] in ("'", '"'):
            out.append(i)
            state = code[i + 1]
            i += 1
        i += 1
    return out


def _escape_hashes(value: str) -> str:
    """``value`` with each ``#`` written ``\\#`` and the backslashes before it doubled
    (``remove_comments`` halves them)."""
    return re.sub(r"(\\*)#", lambda m: m.group(1) * 2 + "\\#", value)


def encode_part(quote: str, value: str) -> str | None:
    """``value`` written for make: ``$`` as ``$$``; in a variable's value (``quote`` ``""``)
    also ``#`` as ``\\#``; ``None`` when make cannot read it back: a line break, a leading
    blank (make drops it), an odd run of backslashes at the end (a continuation) or a
    trailing CR (dropped before LF). In a ``define`` body (:data:`DEFINE`) a line that
    starts with ``endef``/``define`` cannot be written; recipe code (:data:`RECIPE`) takes
    no line break."""
    dollars = value.replace("$", "$$")
    if quote == RECIPE:
        return None if "\n" in value or "\r" in value else dollars
    if quote == DEFINE:
        lines = value.split("\n")
        if any(line.endswith("\r") for line in lines):
            return None  # make drops a CR before LF
        if any(line.split()[:1] in (["endef"], ["define"]) for line in lines):
            return None
        if any(re.search(r"(?<!\\)(\\\\)*\\$", line) for line in lines):
            return None
        return dollars
    if quote != "":
        return None
    if "\n" in value or value[:1] in _SPACE or value.endswith("\r"):
        return None
    if re.search(r"(?<!\\)(\\\\)*\\$", value):
        return None
    return _escape_hashes(dollars)


__all__ = [
    "DEFINE",
    "RECIPE",
    "STATIC_OPS",
    "Assign",
    "assignment",
    "bash_quotes",
    "decode",
    "encode_part",
    "line_kind",
    "posix_shell",
    "recipe_code",
    "recipe_prefix",
    "rule_colon",
]
