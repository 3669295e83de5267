"""The TORCH_LOGS value parser: text -> items and syntax problems, exactly as torch sees it.

torch (``torch/_logging/_internal.py``, same in 2.1-2.15) accepts a value when it
fullmatches ``((\\+|-)?[\\w\\.]+,\\s*)*(\\+|-)?[\\w\\.]+?``: comma-separated items, each an
optional ``+``/``-`` prefix and a name of Unicode word characters and dots; whitespace only
*after* a comma. It then removes all whitespace and splits on commas.

:func:`parse_value` splits the value into items and reports every way it breaks that
grammar with the precise range of the offending characters. ``ParsedValue.valid`` is the
torch verdict itself (the regex above), and the problems are consistent with it: a value
is valid exactly when it has no syntax problem (tested against the regex on generated
values). All offsets are **code points into the decoded value** (indexes into the ``str``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch_logs_lsp.model.limits import quote

#: The grammar torch validates the value with (``_gen_settings_regex``, torch 2.1-2.15).
TORCH_SETTINGS_RE = re.compile(r"((\+|-)?[\w\.]+,\s*)*(\+|-)?[\w\.]+?")

_NAME_CHAR = re.compile(r"[\w.]")
_NAME_RUN = re.compile(r"[\w.]+")
_SPACE = re.compile(r"\s")
PREFIXES = "+-"
QUOTES = "\"'"

# Syntax problem codes (documented in docs/codes.md).
LEADING_TRAILING_WHITESPACE = "TL101"
WHITESPACE_BEFORE_COMMA = "TL102"
EMPTY_ITEM = "TL103"
TRAILING_COMMA = "TL104"
DOUBLED_PREFIX = "TL105"
ILLEGAL_CHARACTER = "TL106"
QUOTED_VALUE = "TL107"


@dataclass(frozen=True)
class Item:
    """One comma-separated entry: ``prefix`` + ``name``.

    ``start``/``end``: the item without surrounding whitespace (prefix included);
    ``name_start``: where the name begins (after the prefix and any extra prefix
    characters). ``name`` is the text from ``name_start`` to ``end``; it may contain
    illegal characters when ``valid`` is false. ``prefix`` is ``""``, ``"+"`` or ``"-"``.
    """

    index: int
    start: int
    end: int
    prefix: str
    name_start: int
    name: str
    valid: bool

    @property
    def text(self) -> str:
        """The item as written: prefix and name (extra prefixes not included)."""
        return self.prefix + self.name


@dataclass(frozen=True)
class SyntaxProblem:
    """A way the value breaks torch's grammar: ``code`` (``TL1xx``), a one-line message and
    the range ``[start, end)`` of the offending characters in the decoded value."""

    code: str
    message: str
    start: int
    end: int
    item: int | None = None


@dataclass(frozen=True)
class ParsedValue:
    """Result of :func:`parse_value`.

    ``valid``: whether torch's regex accepts the value (the empty value is not valid here;
    torch handles it separately, see ``analysis``). ``inner_start``/``inner_end``: the
    part of the value that was split into items (the whole value, or inside a pair of
    outer quotes).
    """

    text: str
    items: tuple[Item, ...]
    problems: tuple[SyntaxProblem, ...]
    valid: bool
    inner_start: int
    inner_end: int


def is_torch_valid(text: str) -> bool:
    """torch's own verdict on the syntax (``_validate_settings``): a regex fullmatch."""
    return TORCH_SETTINGS_RE.fullmatch(text) is not None


def _illegal_message(ch: str, name: str) -> str:
    if ch in PREFIXES:
        return (
            f"{quote(ch)} is not allowed inside a name ({quote(name)}); "
            "a prefix goes only before it"
        )
    if ch in QUOTES:
        return "quotes are not part of the value's syntax; remove them"
    if _SPACE.match(ch):
        return "whitespace inside an item; separate items with a comma"
    if ch in ";|:":
        return f"{quote(ch)} is not a separator; separate items with a comma"
    if ch == "=":
        return "`=` inside the value; the value is only a comma-separated list of names"
    shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
    return f"character {quote(shown)} is not allowed in a name (only letters, digits, `_` and `.`)"


def _scan_item(text: str, index: int, start: int, end: int, problems: list[SyntaxProblem]) -> Item:
    """Parse a non-empty item ``text[start:end]`` (no surrounding whitespace)."""
    prefix = text[start] if text[start] in PREFIXES else ""
    pos = start + len(prefix)
    valid = True
    run = pos
    while run < end and text[run] in PREFIXES:
        run += 1
    if run > pos:
        problems.append(
            SyntaxProblem(
                DOUBLED_PREFIX,
                f"only one `+` or `-` prefix is allowed; remove {quote(text[pos:run])}",
                pos,
                run,
                index,
            )
        )
        valid = False
    name_start = run
    name = text[name_start:end]
    if not name:
        problems.append(
            SyntaxProblem(EMPTY_ITEM, f"{quote(prefix)} has no name after it", start, end, index)
        )
        return Item(index, start, end, prefix, name_start, name, False)
    i = name_start
    while i < end:
        chars = _NAME_RUN.match(text, i, end)
        if chars is not None:
            i = chars.end()
            continue
        j = i + 1
        while j < end and not _NAME_CHAR.match(text[j]) and text[j] == text[i]:
            j += 1
        problems.append(
            SyntaxProblem(ILLEGAL_CHARACTER, _illegal_message(text[i], name), i, j, index)
        )
        valid = False
        i = j
    return Item(index, start, end, prefix, name_start, name, valid)


def _outer_quotes(text: str) -> bool:
    return len(text) >= 2 and text[0] in QUOTES and text[-1] == text[0]


def outer_quotes(text: str) -> bool:
    """Whether ``text`` is wrapped in one pair of matching ``"`` or ``'`` quotes (at least
    two characters): what torch 2.9+ strips on Windows (``remove_outer_quotes`` in
    ``process_env_var_string_for_windows``, ``torch/_logging/_internal.py``)."""
    return _outer_quotes(text)


def parse_value(text: str, strip_outer: bool = False) -> ParsedValue:
    """Split a decoded TORCH_LOGS value into items and syntax problems.

    ``text`` is the value as the process sees it (host quoting already removed). With
    ``strip_outer`` (torch 2.9+ on Windows), one pair of outer quotes is not part of the
    value torch parses: the items are read between them and the quotes are no problem.
    Never raises. Offsets in the result are code points into ``text``.
    """
    problems: list[SyntaxProblem] = []
    items: list[Item] = []
    lo, hi = 0, len(text)
    stripped = strip_outer and _outer_quotes(text)
    if stripped:
        lo, hi = 1, hi - 1
    elif _outer_quotes(text):
        msg = (
            f"the value is wrapped in {text[0]} quotes that are part of the value: "
            "torch rejects it on Linux and macOS (Windows strips one pair from 2.9)"
        )
        problems.append(SyntaxProblem(QUOTED_VALUE, msg, 0, hi))  # one mistake: the pair
        lo, hi = 1, hi - 1

    bounds: list[tuple[int, int]] = []
    seg_start = lo
    for i in range(lo, hi):
        if text[i] == ",":
            bounds.append((seg_start, i))
            seg_start = i + 1
    bounds.append((seg_start, hi))
    count = len(bounds)

    for k, (s, e) in enumerate(bounds):
        last = k == count - 1
        cs = s
        while cs < e and _SPACE.match(text[cs]):
            cs += 1
        ce = e
        while ce > cs and _SPACE.match(text[ce - 1]):
            ce -= 1
        if cs == ce:  # nothing but whitespace
            if count == 1:
                if e > s:
                    problems.append(
                        SyntaxProblem(
                            LEADING_TRAILING_WHITESPACE, "the value is only whitespace", s, e
                        )
                    )
            elif last:
                problems.append(
                    SyntaxProblem(TRAILING_COMMA, "trailing comma; remove it", s - 1, e)
                )
            else:
                problems.append(
                    SyntaxProblem(
                        EMPTY_ITEM, "empty item between commas; remove the comma", s, e + 1
                    )
                )
            continue
        if k == 0 and cs > s:
            problems.append(
                SyntaxProblem(
                    LEADING_TRAILING_WHITESPACE,
                    "leading whitespace; torch allows whitespace only after a comma",
                    s,
                    cs,
                    k,
                )
            )
        if ce < e:
            if last:
                message = "trailing whitespace; torch allows whitespace only after a comma"
                if "\r" in text[ce:e]:
                    message = (
                        "a carriage return (\\r) ends the value: the file has Windows (CRLF) "
                        "line endings, and the shell keeps the \\r; save it with LF endings"
                    )
                problems.append(SyntaxProblem(LEADING_TRAILING_WHITESPACE, message, ce, e, k))
            else:
                problems.append(
                    SyntaxProblem(
                        WHITESPACE_BEFORE_COMMA,
                        "whitespace before a comma; torch allows it only after a comma",
                        ce,
                        e,
                        k,
                    )
                )
        items.append(_scan_item(text, len(items), cs, ce, problems))

    problems.sort(key=lambda p: (p.start, p.end))
    valid = is_torch_valid(text[1:-1] if stripped else text)
    return ParsedValue(text, tuple(items), tuple(problems), valid, lo, hi)
