"""Where a cursor stands in torch's ``set_logs(...)`` call in Python source, in half-typed
code too (``torch._logging.set_logs(dyn`` with no closing parenthesis), for completion.

tree-sitter's recovery of an unclosed call is not reliable (it may swallow the next
lines as arguments, or see an open string as a name), so the call around the cursor is
found lexically: a small Python tokenizer (strings of every quoting, with escapes and
line continuations; comments; brackets; commas; ``=``) runs from the start of the
top-level statement holding the cursor (tree-sitter gives that start) to the cursor and
keeps the stack of open brackets. The innermost one must be the ``(`` of a call whose
callee is torch's ``set_logs`` by the file's imports, with the same rule as the checked
calls (:mod:`.python_set_logs`); a cursor in a string or a comment, in a nested call
(``set_logs(dynamo=f(|``), after a ``def set_logs(`` or in another ``set_logs`` gets
``None``.

Offsets are code points into the document.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.python.set_logs import _TARGETS, _certain, _imports
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.set_logs.site import LEVEL_ORDER, SetLogsSite, Spelling
from torch_logs_lsp.set_logs.source import SetLogsSource, import_edit

if TYPE_CHECKING:
    import tree_sitter

_Q1, _Q2 = "'", '"'
_TOKEN = re.compile(
    r"(?P<c>#[^\r\n]*)"
    r"|(?P<s>'''(?:[^'\\]|\\[\s\S]|\\\Z|'(?!''))*(?P<q3>''')?"
    r'|"""(?:[^"\\]|\\[\s\S]|\\\Z|"(?!""))*(?P<q4>""")?'
    r"|'(?:[^'\\\r\n]|\\\r\n|\\[\s\S]|\\\Z)*(?P<q1>')?"
    r'|"(?:[^"\\\r\n]|\\\r\n|\\[\s\S]|\\\Z)*(?P<q2>")?)'
    r"|(?P<o>[(\[{])"
    r"|(?P<x>[)\]}])"
    r"|(?P<k>,)"
    r"|(?P<e>(?<![=!<>:+\-*/%&|^@])=(?!=))"
    r"|(?P<n>:(?!=))"
)
#: Tokens after the cursor also see line breaks (to stop at the next statement of an
#: unclosed call).
_TOKEN_NL = re.compile(_TOKEN.pattern + r"|(?P<l>(?:\r\n|\r|\n)[ \t]*)")
_CALLEE = re.compile(r"([^\W\d]\w*(?:[ \t]*\.[ \t]*[^\W\d]\w*)*)[ \t]*\Z")
_DEF = re.compile(r"\b(?:def|class)[ \t]+\Z")
_NAME = re.compile(r"[^\W\d]\w*")
_NAME_BEFORE = re.compile(r"(?:[^\W\d]\w*)?\Z")
_VALUE_BEFORE = re.compile(r"[\w.]*\Z")
_WORD_AFTER = re.compile(r"\w*")
_KEY = re.compile(r"(?:[ \t\r\n\f]|\\\r?\n|#[^\r\n]*)*(?:'([\w.]+)'|\"([\w.]+)\")[ \t]*")
_BLANKS = re.compile(r"(?:[ \t\r\n\f]|\\\r?\n|#[^\r\n]*)*")
_INDENT = re.compile(r"[ \t]*")
_KEYWORD_HEAD = re.compile(r"(?:[ \t\r\n\f]|\\\r?\n|#[^\r\n]*)*([^\W\d]\w*)[ \t]*\Z")
#: How far past the cursor the rest of an argument list is read for its keywords.
_LOOK_AHEAD = 20_000


#: How a module spells what a set_logs fix writes (the Python host's ``set_logs_source``).
SourceOf = Callable[[str], SetLogsSource | None]


@dataclass
class _Frame:
    """An open bracket: ``char`` at ``pos``; ``commas``, ``equals`` and ``colons``:
    offsets of the top-level ``,``, ``=`` and ``:`` inside it; ``other``: offsets of
    argument starts whose argument holds a string or a bracket."""

    char: str
    pos: int
    commas: list[int] = field(default_factory=list)
    equals: list[int] = field(default_factory=list)
    other: list[int] = field(default_factory=list)
    colons: list[int] = field(default_factory=list)


#: The last document parsed here (one that was not extracted: no family name): the
#: server asks for its ``set_logs`` calls, then completion and hover ask again.
_parsed: list[tuple[str, tree_sitter.Tree]] = []


def tree_for(text: str, known: tree_sitter.Tree | None) -> tree_sitter.Tree:
    """``known`` (the tree of ``text``'s last extraction), else the tree of the last parse
    of the same ``text`` here, else a new parse (remembered for the next request)."""
    if known is not None:
        return known
    if _parsed and _parsed[0][0] == text:
        return _parsed[0][1]
    tree = Source(text, lone_cr_is_lf=True).parse("python")
    _parsed[:] = [(text, tree)]
    return tree


def _seg_start(frame: _Frame) -> int:
    return frame.commas[-1] + 1 if frame.commas else frame.pos + 1


def _lex(text: str, start: int, offset: int) -> list[_Frame] | None:
    """The open brackets at ``offset`` lexing from ``start``; ``None`` when ``offset`` is
    inside a string or a comment."""
    stack: list[_Frame] = []
    for m in _TOKEN.finditer(text, start):
        if m.start() >= offset:
            break
        kind = m.lastgroup
        if m.group("c") is not None:
            if m.end() >= offset:
                return None  # typing in a comment
            continue
        if m.group("s") is not None:
            closed = m.group("q1") or m.group("q2") or m.group("q3") or m.group("q4")
            if m.end() > offset or (m.end() == offset and not closed):
                return None  # typing in a string
            if stack:
                stack[-1].other.append(_seg_start(stack[-1]))
            continue
        if kind == "o":
            if stack:
                stack[-1].other.append(_seg_start(stack[-1]))
            stack.append(_Frame(m.group(), m.start()))
        elif kind == "x":
            if stack:
                stack.pop()
        elif kind == "k":
            if stack:
                stack[-1].commas.append(m.start())
        elif kind == "e" and stack:
            stack[-1].equals.append(m.start())
        elif kind == "n" and stack:
            stack[-1].colons.append(m.start())
    return stack


def _given_after(text: str, offset: int, frame: _Frame, indent: int) -> list[int]:
    """Offsets of the ``=`` of the keywords written after ``offset`` in the argument list
    of ``frame`` (read until it closes, or a line indented as the call's line or less: an
    unclosed call stops at the next statement); also the commas, as ``-1 - offset``."""
    out: list[int] = []
    depth = 0
    limit = min(len(text), offset + _LOOK_AHEAD)
    for m in _TOKEN_NL.finditer(text, offset, limit):
        kind = m.lastgroup
        if kind == "l":
            nxt = text[m.end() : m.end() + 1]
            if nxt and nxt not in ")]}#\r\n" and len(m.group().lstrip("\r\n")) <= indent:
                break
        elif kind == "o":
            depth += 1
        elif kind == "x":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and kind == "k":
            out.append(-1 - m.start())
        elif depth == 0 and kind == "e":
            out.append(m.start())
    return out


def _keyword_of(text: str, seg_start: int, equals: int) -> str | None:
    m = _KEYWORD_HEAD.fullmatch(text, seg_start, equals)
    return m.group(1) if m else None


def _keywords(text: str, offset: int, frame: _Frame, indent: int) -> tuple[str, ...]:
    """Keyword names written in the call's arguments other than the one at ``offset``."""
    starts = [frame.pos + 1] + [c + 1 for c in frame.commas]
    names: list[str] = []
    for e in frame.equals:
        seg = starts[bisect_right(starts, e) - 1]
        if seg == _seg_start(frame):
            continue  # the argument being typed
        name = _keyword_of(text, seg, e)
        if name is not None and name not in names:
            names.append(name)
    seg = offset
    after = _given_after(text, offset, frame, indent)
    seen_comma = False
    for mark in after:
        if mark < 0:
            seg, seen_comma = -1 - mark + 1, True
        elif seen_comma:
            name = _keyword_of(text, seg, mark)
            if name is not None and name not in names:
                names.append(name)
    return tuple(names)


def _statement_start(root: tree_sitter.Node, src: Source, offset: int) -> int:
    """The start (code points) of the last top-level statement starting before
    ``offset``: a token boundary outside any bracket, where lexing can begin."""
    children = root.children
    starts = [c.start_byte for c in children]
    i = bisect_right(starts, src.byte(offset)) - 1
    # a statement after a broken one may be its continuation (tree-sitter's recovery of
    # ``set_logs(\n    dynamo=10,\n`` can start a new statement at ``dynamo``)
    floor = max(0, i - 50)
    while i > floor and children[i - 1].has_error:
        i -= 1
    return src.cp(starts[i]) if i >= 0 else 0


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _more_follows(text: str, end: int) -> bool:
    """Whether more of a value follows the word at the cursor (ending at ``end``):
    ``dynamo=|"info"``, ``guards=|not x``, ``guards=|f(x)``: a completion there would be
    inserted before it (a SyntaxError or another value), so none is offered."""
    at = end
    while at < len(text) and text[at] in " \t":
        at += 1
    return at < len(text) and text[at] not in ",)}#\r\n\\"


def _spellings(text: str, source_of: SourceOf | None) -> dict[str, Spelling]:
    """Each offered level name as this document can certainly write it (see
    :class:`Spelling`), from the same reading of the module as the quick fixes
    (``source_of``: the Python host's ``set_logs_source``: a name rebound anywhere, or
    imported only in a function, is not trusted); a level with no certain spelling is not
    offered (none without ``source_of``)."""
    source = source_of(text) if source_of is not None else None
    if source is None:
        return {}
    out: dict[str, Spelling] = {}
    edit: TextEdit | None = None
    for level in LEVEL_ORDER:
        bare = source.level_names.get(level)
        if bare:
            out[level] = Spelling(bare)
        elif source.logging:
            out[level] = Spelling(f"{source.logging}.{level}")
        elif "logging" in source.free:
            edit = edit or import_edit(text, source.imports_at, "logging")
            out[level] = Spelling(f"logging.{level}", edit)
    return out


def _entry_value(
    text: str, offset: int, entry: _Frame, frame: _Frame, equals: list[int]
) -> tuple[str, re.Match[str]] | None:
    """In ``modules={"key": |``: the key and the value typed before ``offset``, when the
    dict display is the whole value of ``modules=`` and the key a plain str literal."""
    if len(equals) != 1 or _keyword_of(text, _seg_start(frame), equals[0]) != "modules":
        return None
    if _BLANKS.fullmatch(text, equals[0] + 1, entry.pos) is None:
        return None
    seg = _seg_start(entry)
    colons = [c for c in entry.colons if c >= seg]
    if len(colons) != 1:
        return None  # typing the key, or a lambda / slice
    key = _KEY.fullmatch(text, seg, colons[0])
    value = _VALUE_BEFORE.search(text, colons[0] + 1, offset)
    if (
        key is None
        or value is None
        or _BLANKS.fullmatch(text, colons[0] + 1, value.start()) is None
    ):
        return None
    return key.group(1) or key.group(2), value


def set_logs_site(
    text: str,
    offset: int,
    tree: tree_sitter.Tree | None = None,
    source_of: SourceOf | None = None,
) -> SetLogsSite | None:
    """Where ``offset`` (code points) stands in torch's ``set_logs(...)`` call (see the
    module docstring): at a keyword position, or typing the value after ``keyword=``;
    ``None`` anywhere else. ``tree``: ``text`` parsed by tree-sitter-python, if at hand;
    ``source_of``: how the module spells names (the host's ``set_logs_source``), for the
    level names offered. Never raises on any text."""
    if "set_logs" not in text or not 0 <= offset <= len(text):
        return None
    src = Source(text, lone_cr_is_lf=True)
    root = (tree or src.parse("python")).root_node
    stack = _lex(text, _statement_start(root, src, offset), offset)
    entry: _Frame | None = None  # the dict display of ``modules={...}`` holding the cursor
    if stack and len(stack) >= 2 and stack[-1].char == "{" and stack[-2].char == "(":
        entry = stack.pop()
    if not stack or stack[-1].char != "(":
        return None
    frame = stack[-1]
    callee = _CALLEE.search(text, max(0, frame.pos - 300), frame.pos)
    if callee is None:
        return None
    head = text[max(0, callee.start() - 40) : callee.start()]
    if head[-1:] in (".", ")", "]", "}", "'", '"') or _DEF.search(head) or head[-1:].isalnum():
        return None
    parts = [p.strip() for p in callee.group(1).split(".")]
    bound, own = _imports(src, root)
    own.add(src.byte(callee.start()))  # the callee's name (in an ERROR node while typed)
    names = _certain(src, root, bound, own)
    if parts[0] not in names or ".".join([names[parts[0]], *parts[1:]]) not in _TARGETS:
        return None
    seg = _seg_start(frame)
    lead = _INDENT.match(text, _line_start(text, callee.start()))
    indent = len(lead.group()) if lead else 0
    given = _keywords(text, offset, frame, indent)
    equals = [e for e in frame.equals if e >= seg]
    after = _WORD_AFTER.match(text, offset)
    end = after.end() if after else offset
    if entry is not None:
        found = _entry_value(text, offset, entry, frame, equals)
        if found is None:
            return None
        key, entry_value = found
        if _more_follows(text, end):
            return None
        levels = _spellings(text, source_of)
        return SetLogsSite(
            "value",
            callee.start(),
            entry_value.start(),
            end,
            entry_value.group(),
            "modules",
            given,
            levels=levels,
            entry_key=key,
        )
    if not equals:
        if frame.other and frame.other[-1] == seg:
            return None  # a string or a bracket in this argument: no keyword
        typed = _NAME_BEFORE.search(text, seg, offset)
        if typed is None or _BLANKS.fullmatch(text, seg, typed.start()) is None:
            return None  # `set_logs(1 dyn`, `set_logs(x.dyn`
        rest = _BLANKS.match(text, end)
        nxt = rest.end() if rest else end
        has_equals = text[nxt : nxt + 1] == "=" and text[nxt + 1 : nxt + 2] != "="
        return SetLogsSite(
            "keyword", callee.start(), typed.start(), end, typed.group(), "", given, has_equals
        )
    keyword = _keyword_of(text, seg, equals[0])
    if keyword is None or len(equals) > 1 or (frame.other and frame.other[-1] == seg):
        return None
    value = _VALUE_BEFORE.search(text, equals[0] + 1, offset)
    if value is None or _BLANKS.fullmatch(text, equals[0] + 1, value.start()) is None:
        return None  # `dynamo=1 + ` and the like: not a name being typed
    if _more_follows(text, end):
        return None
    levels = _spellings(text, source_of)
    return SetLogsSite(
        "value", callee.start(), value.start(), end, value.group(), keyword, given, False, levels
    )


__all__ = ["set_logs_site", "tree_for"]
