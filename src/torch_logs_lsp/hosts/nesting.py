"""How deep a document nests, measured before a tree-sitter grammar reads it.

Deep nesting breaks the grammars in two ways (measured with tree-sitter 0.26.1 and the
grammars of ``requirements/dev.txt``; ``docs/hosts.md`` has the table):

- tree-sitter-yaml 0.7.2 crashes the process (SIGSEGV) past ~253 open block levels of
  its scanner, whatever the width of each (253 nested keys, a 34 KB file; 127 nested
  ``- k:`` items, where a sequence at its key's column is a level of its own);
  tree-sitter-python 0.25 stops reading indentation past ~550 levels;
- every grammar's tree can be deeper than tree-sitter's queries follow: past 65,535
  nodes deep (2^16; 32,768 nested JSON objects, ~22,000 YAML flow mappings) a query
  misses matches and takes minutes (launch.json 60,000 objects deep: > 120 s);
- tree-sitter-bash 0.25.1 parses here-documents pending on one line in quadratic time
  (6,000 ``<<EOF`` on a line, 118 KB: 14 s).

:func:`too_deep` bounds all three, well inside each cliff, with a linear scan that never
builds a tree: open block indentation levels (YAML, Python), open brackets (every
grammar; the brackets of strings and comments that cannot hold code are skipped, and
bash's and PowerShell's double-quoted strings are followed token by token) and
here-documents opened on one line (bash). A document past a bound is not read: the
grammar is given an empty document instead (``_ts.Source.parse``), so it has no values
and no findings, as Python rejects a module indented 100 levels deep.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Bound:
    """The nesting one grammar is given at most: ``brackets`` open brackets (any of
    ``openers``; a closer is any of ``closers``; ``skipped`` matches the strings and
    comments whose brackets do not count), ``indentation`` open block indentation
    levels (``None``: the grammar has no indentation), ``heredocs`` here-documents
    opened on one line (``None``: no here-documents); ``indicators`` see below."""

    brackets: int
    openers: bytes
    closers: bytes
    skipped: re.Pattern[bytes] | None = None
    indentation: int | None = None
    heredocs: int | None = None
    #: YAML: a block indicator (``- ``, ``? ``, ``: ``) at a line's start opens a level.
    indicators: bool = False
    #: Where double-quoted strings hold code: brackets are read token by token (``skipped``
    #: is not used).
    quoting: Quoting | None = None


# The string patterns start with their first character and use unrolled loops
# (``"[^"\\]*(?:\\.[^"\\]*)*"``), which the regular-expression engine scans fast.

#: JSON strings (one line: a line break ends an unterminated one, as in tree-sitter-json)
#: and JSONC comments.
_JSON_SKIPPED = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|/\*[^*]*(?:\*+[^*/][^*]*)*\*+/')
#: YAML quoted scalars where one can start (after a blank, ``[{,:`` or a line start),
#: and comments (``#`` after a blank or a line start).
_YAML_SKIPPED = re.compile(
    rb"""(?:"(?<![^\s\[{,:]")[^"\\]*(?:\\.[^"\\]*)*"|'(?<![^\s\[{,:]')[^']*(?:''[^']*)*')"""
    rb"|\#(?<!\S\#)[^\n]*"
)
#: Python: comments and strings that are not f-strings (an f-string's braces hold code).
_PYTHON_SKIPPED = re.compile(
    rb"#[^\r\n]*"
    rb"""|(?:'''(?<![fF]''')(?<![fF][rR]''')[^\\']*(?:(?:\\.|'(?!''))[^\\']*)*'''"""
    rb'''|"""(?<![fF]""")(?<![fF][rR]""")[^\\"]*(?:(?:\\.|"(?!""))[^\\"]*)*"""'''
    rb"""|'(?<![fF]')(?<![fF][rR]')[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'"""
    rb"""|"(?<![fF]")(?<![fF][rR]")[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*")""",
    re.S,
)
#: TOML strings and comments.
_TOML_SKIPPED = re.compile(
    rb"""#[^\n]*|'''.*?'''|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*'"""
    rb'''|"""[^\\"]*(?:(?:\\.|"(?!""))[^\\"]*)*"""''',
    re.S,
)


@dataclass(frozen=True)
class Quoting:
    """How code nests in a grammar whose double-quoted strings hold code (bash's and
    PowerShell's ``"$(...)"``): ``code`` matches the tokens of code, ``quoted`` those of a
    double-quoted string. A token ending in ``(``, ``{`` or ``[`` opens a level, ``)``,
    ``}`` and ``]`` close one opened in code, ``"`` starts or ends a string, a backquote
    starts or ends a bash command substitution, a match with group ``delim`` is a bash
    here-document (its body, the lines after the line, is skipped), one with group
    ``case`` opens a bash ``case ... in`` and one with group ``esac`` closes it (between
    them a ``)`` ends a pattern, ``a)``, and closes nothing: the ``case`` is not a level
    of its own); anything else is skipped text (a single-quoted string, a comment, an
    escaped character)."""

    code: re.Pattern[bytes]
    quoted: re.Pattern[bytes]


_BASH_CODE = (
    rb"'[^']*'|\\.|\#(?<![^\s;&|()<>]\#)[^\n]*"
    rb"|<<(?!<)-?[ \t]*(?P<q>['\"]?)(?P<delim>[A-Za-z_][A-Za-z_0-9]*)(?P=q)"
)
_BASH_BRACKETS = rb"|\$[({]|[()\[\]{}\"`]"
_BASH_QUOTED = re.compile(rb"\\.|\$[({]|[\"`]")
_BASH_QUOTING = Quoting(re.compile(_BASH_CODE + _BASH_BRACKETS), _BASH_QUOTED)
#: bash with ``case`` read (slower: used for a document holding ``esac``).
_BASH_CASE_QUOTING = Quoting(
    re.compile(
        _BASH_CODE
        + rb"|(?P<case>(?<![\w$.-])case[ \t]+[^\s;&|()<>]+[ \t]+in(?=[\s;]))"
        + rb"|(?P<esac>(?<![\w$.-])esac(?![\w.-]))"
        + _BASH_BRACKETS
    ),
    _BASH_QUOTED,
)
_POWERSHELL_QUOTING = Quoting(
    re.compile(
        rb"<#[^#]*(?:#+[^#>][^#]*)*#+>|#[^\n]*|'[^']*(?:''[^']*)*'|`.|[$@][({]|[()\[\]{}\"]"
    ),
    re.compile(rb'`.|""|\$\(|"'),
)
_CODE, _QUOTED, _BACKQUOTED, _CASE = 0, 1, 2, 3


def quoted_depth(data: bytes, quoting: Quoting, limit: int) -> int:
    """The most levels open at once in ``data`` read with ``quoting`` (brackets and
    double-quoted strings; a closer with nothing open in code is ignored), or any number
    above ``limit`` once it is passed. Linear: one regular-expression search per token."""
    stack = [_CODE]
    cases = 0  # the _CASE entries of ``stack`` (not levels)
    pos, line_end = 0, -1
    bodies: list[bytes] = []  # here-documents whose bodies start after ``line_end``
    groups = quoting.code.groupindex
    while len(stack) - 1 - cases <= limit:
        m = (quoting.quoted if stack[-1] == _QUOTED else quoting.code).search(data, pos)
        if m is None:
            break
        if bodies and m.start() > line_end:
            pos, bodies = _after_bodies(data, line_end, bodies), []
            continue
        token, pos = m.group(), m.end()
        last = token[-1:]
        if m.re is quoting.code and "case" in groups and m.group("case"):
            stack.append(_CASE)
            cases += 1
        elif m.re is quoting.code and "esac" in groups and m.group("esac"):
            if stack[-1] == _CASE:
                stack.pop()
                cases -= 1
        elif last in (b"(", b"{", b"["):
            stack.append(_CODE)
        elif last in (b")", b"}", b"]") and len(token) == 1:
            if len(stack) > 1 and stack[-1] == _CODE:
                stack.pop()
        elif token == b'"':
            if stack[-1] == _QUOTED:
                stack.pop()
            else:
                stack.append(_QUOTED)
        elif token == b"`":
            if stack[-1] == _BACKQUOTED:
                stack.pop()
            else:
                stack.append(_BACKQUOTED)
        elif "delim" in m.re.groupindex and m.group("delim"):
            bodies.append(m.group("delim"))
            line_end = data.find(b"\n", pos)
            if line_end < 0:
                line_end = len(data)
    return len(stack) - 1 - cases


def _after_bodies(data: bytes, start: int, delimiters: list[bytes]) -> int:
    """Where the bodies of here-documents ``delimiters`` (in order) starting after offset
    ``start`` end; ``start`` itself when a delimiter line is missing (then nothing is
    skipped: its text counts)."""
    at = start
    for delimiter in delimiters:
        end = re.compile(rb"^\t*" + re.escape(delimiter) + rb"$", re.M).search(data, at + 1)
        if end is None:
            return start
        at = end.end()
    return at


#: Per grammar (a key of ``_ts.GRAMMARS``). The bracket bounds keep each tree at least
#: 8 times shallower than the query cliff: a level is 1-4 nodes deep in most grammars
#: (a cliff past ~16,000 levels: bash's ``"$(``), 12-15 in PowerShell (past ~4,300
#: levels of ``{``). Python's are CPython's own (``MAXINDENT`` 100 and ``MAXLEVEL``
#: 200, Parser/tokenizer.h: a module past them is a SyntaxError); YAML's indentation
#: bound is half the crash.
BOUNDS: dict[str, Bound] = {
    "yaml": Bound(1000, b"[{", b"]}", _YAML_SKIPPED, indentation=128, indicators=True),
    "json": Bound(1000, b"[{", b"]}", _JSON_SKIPPED),
    "python": Bound(200, b"([{", b")]}", _PYTHON_SKIPPED, indentation=100),
    "bash": Bound(1000, b'([{"`', b")]}", heredocs=64, quoting=_BASH_QUOTING),
    "powershell": Bound(500, b'([{"', b")]}", quoting=_POWERSHELL_QUOTING),
    "make": Bound(1000, b"({", b")}"),
    "toml": Bound(1000, b"[{", b"]}", _TOML_SKIPPED),
}


def too_deep(language: str, data: bytes) -> str | None:
    """Why the UTF-8 document ``data`` nests past the :data:`BOUNDS` of grammar
    ``language`` (a short phrase for a log line), or ``None`` when it does not (also for
    a grammar without bounds). Linear in ``len(data)``; a document with fewer opening
    bytes than the bound is answered by counting them. The answer for the last document
    is remembered (a document is parsed by several features)."""
    global _last
    if _last is not None and _last[0] == language and (_last[1] is data or _last[1] == data):
        return _last[2]
    bound = BOUNDS.get(language)
    found = None if bound is None else _too_deep(bound, data)
    _last = (language, data, found)
    if found is not None:
        log.warning(
            "%s: nested too deeply to read (%s); no value of it is checked", language, found
        )
    return found


_last: tuple[str, bytes, str | None] | None = None


def _too_deep(bound: Bound, data: bytes) -> str | None:
    if bound.indentation is not None:
        levels = indentation_levels(data, bound.indentation, bound.indicators)
        if levels > bound.indentation:
            return f"more than {bound.indentation} indentation levels"
    if sum(data.count(b) for b in bound.openers) > bound.brackets:  # else it cannot be
        if bound.quoting is not None:
            quoting = bound.quoting
            if quoting is _BASH_QUOTING and b"esac" in data:
                quoting = _BASH_CASE_QUOTING
            depth = quoted_depth(data, quoting, bound.brackets)
        else:
            depth = bracket_depth(data, bound.openers, bound.closers, bound.skipped, bound.brackets)
        if depth > bound.brackets:
            return f"more than {bound.brackets} open brackets"
    if bound.heredocs is not None and heredocs_on_a_line(data, bound.heredocs) > bound.heredocs:
        return f"more than {bound.heredocs} here-documents on a line"
    return None


def bracket_depth(
    data: bytes, openers: bytes, closers: bytes, skipped: re.Pattern[bytes] | None, limit: int
) -> int:
    """The most brackets open at once in ``data`` (any opener closed by any closer; a
    closer with none open is ignored; the text ``skipped`` matches counts for nothing),
    or any number above ``limit`` once it is passed. Linear: C-speed counts, then a
    regular expression removes the skipped text and one pass reads the brackets left."""
    if sum(data.count(b) for b in openers) <= limit:
        return 0  # (not the depth: at most ``limit``)
    if skipped is not None:
        data = skipped.sub(b"", data)
    table = bytes.maketrans(openers + closers, b"(" * len(openers) + b")" * len(closers))
    kept = data.translate(table, bytes(set(range(256)) - set(openers + closers)))
    depth = deepest = 0
    for c in kept:
        if c == 0x28:  # (
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif depth:
            depth -= 1
    return deepest


#: A line's indentation and the block indicators that open deeper levels on it (YAML's
#: ``- - x``, ``? a``, a ``-`` alone on its line).
_YAML_LINE = re.compile(rb"^( *)((?:[-?:](?: +|(?=\n|$)))*)(?:(?=[^\s#])|(?<=[-?:])(?=\n|$))", re.M)
_LINE = re.compile(rb"^([ \t]*)()(?=[^\s#])", re.M)
_INDICATOR = re.compile(rb"[-?:] *")


def indentation_levels(data: bytes, limit: int, yaml: bool = False) -> int:
    """The most block indentation levels open at once in ``data`` (counted like Python's
    tokenizer: a line indented deeper than the enclosing level's line opens a level), or
    any number above ``limit`` once it is passed. With ``yaml``, each block indicator
    (``- ``, ``? ``, ``: ``) at a line's start opens a level at its column and the node
    after it one more, and a block sequence opens a level also at its parent key's column
    (``k:`` then ``- k:`` at the same column: tree-sitter-yaml keeps both, and crashes on
    127 such lines). Every line that holds text counts (lines of strings and block
    scalars too: this can only overcount). Linear; a document without a line indented
    ``limit // 2`` columns is answered by one regular-expression search."""
    prefix = rb"^[ \-?:]{%d}" if yaml else rb"^[ \t]{%d}"
    if re.search(prefix % (limit // 2), data, re.M) is None:
        return 0  # (each level is at least half a column deeper than the last)
    if b"\r" in data:  # a lone CR ends a line too (the same length)
        data = data.replace(b"\r", b"\n")
    # open levels, as twice their column (plus one for a block sequence: it nests in a
    # mapping at its own column); a line at column 0 opens none
    stack = [0]
    for m in (_YAML_LINE if yaml else _LINE).finditer(data):
        width = m.end(1) - m.start(1)
        entries = [2 * width]
        if m.group(2):
            entries = [
                2 * (width + i.start()) + (i.group().startswith(b"-"))
                for i in _INDICATOR.finditer(m.group(2))
            ]
            if m.end() < len(data) and data[m.end()] != 0x0A:  # a node after them
                entries.append(2 * (width + len(m.group(2))))
        while entries[0] < stack[-1]:
            stack.pop()
        for entry in entries:
            if entry > stack[-1]:
                stack.append(entry)
        if len(stack) - 1 > limit:
            break
    return len(stack) - 1


def heredocs_on_a_line(data: bytes, limit: int) -> int:
    """The most here-document operators (``<<``, not ``<<<``) on one line of ``data``
    (those in strings and arithmetic too: this can only overcount), or any number above
    ``limit`` once it is passed."""
    if data.count(b"<<") <= limit:
        return 0
    most = 0
    for line in data.splitlines():
        if line.count(b"<<") > limit:
            most = max(most, len(re.findall(rb"(?<!<)<<(?!<)", line)))
            if most > limit:
                break
    return most


__all__ = [
    "BOUNDS",
    "Bound",
    "bracket_depth",
    "heredocs_on_a_line",
    "indentation_levels",
    "too_deep",
]
