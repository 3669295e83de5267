"""The ``.env`` host: assignments as python-dotenv reads them.

The scanner mirrors ``dotenv/parser.py`` of python-dotenv 1.2 line by line (same regular
expressions, same order of reads, same error recovery), but keeps document offsets so that
every decoded code point maps back to the text that produced it. Interpolation follows
``dotenv/variables.py``: python-dotenv expands ``${NAME}`` and ``${NAME:-default}`` in every
value after decoding (``$NAME`` without braces stays literal), so a value containing such
an expansion is reported as non-static (``value=None``).
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_left, bisect_right

from torch_logs_lsp.hosts.dotenv.overwrites import overwritten as overwritten
from torch_logs_lsp.hosts.incremental import DocumentCache, Edit, shift_span
from torch_logs_lsp.hosts.interface import line_before, line_bounds
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan, names_family

SPEC = HostSpec(
    "dotenv",
    (".env", "*.env", ".env.*"),  # detect_name: not `.env.<source suffix>`
    ("dotenv",),
    vscode_languages=("dotenv",),  # contributed by the extension (package.json)
    vscode_by_name=True,  # also when another extension names the language
    activation=(
        "onLanguage:dotenv",
        "workspaceContains:**/.env",
        "workspaceContains:**/*.env",
        "workspaceContains:**/.env.*",
    ),
)
HOST: HostKind = "dotenv"
DESCRIPTION = ".env files"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = "python-dotenv cannot read this line and skips it"
STRIPS_TRAILING_BLANKS = True
RUNS_ON = "posix"
# python-dotenv reads `#` as bash does: after a blank outside quotes
COMMENT_GRAMMAR: str | None = "bash"
LINE_COMMENTS = False


# ``.env.<suffix>`` files that are source or data files, not .env files (``.env.py``,
# ``.env.d.ts``, ``.env.json``): their last suffix, lower case.
_SOURCE_WORDS = (
    "py pyi js mjs cjs ts mts cts tsx jsx json jsonc json5 yaml yml toml xml md rst html"
    " htm css go rs java kt rb php c h cc cpp hpp cs swift sql ps1 bat cmd"
)
_SOURCE_SUFFIXES = frozenset(_SOURCE_WORDS.split())


def detect_name(name: str) -> bool:
    """``.env``, ``*.env``, ``.env.*`` (``.env.local``, ``.env.development.local``) except
    a source or data file by its last suffix (``.env.py``, ``.env.d.ts``, ``.env.json``)."""
    lower = name.lower()
    if lower == ".env" or lower.endswith(".env"):
        return True
    return lower.startswith(".env.") and lower.rsplit(".", 1)[1] not in _SOURCE_SUFFIXES


def detect_content(name: str, head: str) -> bool:
    """Never: a ``.env`` file is known by its name."""
    return False


may_hold_values = names_family
quote_findings = kept_findings(True)  # python-dotenv keeps them in an unquoted value

# The regular expressions of dotenv/parser.py (python-dotenv 1.2), unchanged.
_multiline_whitespace = re.compile(r"\s*", re.UNICODE | re.MULTILINE)
_whitespace = re.compile(r"[^\S\r\n]*", re.UNICODE)
_export = re.compile(r"(?:export[^\S\r\n]+)?", re.UNICODE)
_single_quoted_key = re.compile(r"'([^']+)'", re.UNICODE)
_unquoted_key = re.compile(r"([^=\#\s]+)", re.UNICODE)
_equal_sign = re.compile(r"(=[^\S\r\n]*)", re.UNICODE)
_single_quoted_value = re.compile(r"'((?:\\.|[^'\\])*)'", re.UNICODE | re.DOTALL)
_double_quoted_value = re.compile(r'"((?:\\.|[^"\\])*)"', re.UNICODE | re.DOTALL)
_unquoted_value = re.compile(r"([^\r\n]*)", re.UNICODE)
_comment = re.compile(r"(?:[^\S\r\n]*#[^\r\n]*)?", re.UNICODE)
_end_of_line = re.compile(r"[^\S\r\n]*(?:\r\n|\n|\r|$)", re.UNICODE)
_rest_of_line = re.compile(r"[^\r\n]*(?:\r|\n|\r\n)?", re.UNICODE)
#: A line that python-dotenv reads as one binding ending at its LF, with no value it
#: could decode differently: a plain key, ``=`` and a value not opening a quote, or the
#: key alone. One match replaces the six of :func:`_binding` (a 7 MB file of such
#: lines); a key of the family still goes through :func:`_binding` for its span.
_PLAIN = re.compile(r"([A-Za-z0-9_.]+)(?:=(?:[^\s'\"][^\r\n]*)?)?\n")
_double_quote_escapes = re.compile(r"\\[\\'\"abfnrtv]", re.UNICODE)
_single_quote_escapes = re.compile(r"\\[\\']", re.UNICODE)
# dotenv/variables.py: the only expansion python-dotenv performs.
_posix_variable = re.compile(r"\$\{(?P<name>[^\}:]*)(?::-(?P<default>[^\}]*))?\}")
_line_end = re.compile(r"[\r\n]")


def _strip_inline_comment(part: str) -> str:
    """python-dotenv's ``re.sub(r"\\s+#.*", "", part).rstrip()`` for an unquoted value
    ``part`` (no line break in it), in time linear in ``len(part)``.

    The regular expression is quadratic on a long whitespace run not followed by ``#``
    (each start in the run scans the rest of it): 100,000 spaces took ~20 s. Its leftmost
    match starts at the whitespace run before the first ``#`` that follows whitespace
    (``re``'s ``\\s`` is ``str.isspace`` for ``str`` patterns) and ``.*`` runs to the end
    (``part`` holds no ``\\n``), so the result is the text before that ``#``, right-stripped.
    """
    at = part.find("#", 1)
    while at != -1 and not part[at - 1].isspace():
        at = part.find("#", at + 1)
    return (part[:at] if at != -1 else part).rstrip()


class _Error(Exception):
    """A read failed: python-dotenv's ``parser.Error`` (the line is skipped)."""


def _decode(
    text: str, start: int, end: int, escapes: re.Pattern[str]
) -> tuple[str, list[int], list[int]]:
    """Decode ``text[start:end]`` like ``parser.decode_escapes``, keeping offsets."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = start
    for m in escapes.finditer(text, start, end):
        for i in range(pos, m.start()):
            out.append(text[i])
            starts.append(i)
            ends.append(i + 1)
        decoded = codecs.decode(m.group(0), "unicode-escape")
        for ch in decoded:  # always exactly one code point for these escapes
            out.append(ch)
            starts.append(m.start())
            ends.append(m.end())
        pos = m.end()
    for i in range(pos, end):
        out.append(text[i])
        starts.append(i)
        ends.append(i + 1)
    return "".join(out), starts, ends


def _span(
    key: str,
    key_start: int,
    value: str,
    starts: list[int],
    ends: list[int],
    content: tuple[int, int],
    raw: tuple[int, int],
    quote: str,
    terminated: bool = True,
) -> ValueSpan:
    static = _posix_variable.search(value) is None
    return ValueSpan(
        variable=key,
        host=HOST,
        name_start=key_start,
        name_end=key_start + len(key),
        value=value if static else None,
        char_starts=tuple(starts) if static else (),
        char_ends=tuple(ends) if static else (),
        content_start=content[0],
        content_end=content[1],
        raw_start=raw[0],
        raw_end=raw[1],
        quote=quote,
        terminated=terminated,
    )


def _match(regex: re.Pattern[str], text: str, pos: int) -> re.Match[str]:
    m = regex.match(text, pos)
    if m is None:
        raise _Error
    return m


def _unterminated(text: str, key: str, key_start: int, quote_pos: int) -> ValueSpan:
    """A span for an opening quote whose value python-dotenv cannot read: to end of line."""
    m = _line_end.search(text, quote_pos + 1)
    end = m.start() if m else len(text)
    escapes = _double_quote_escapes if text[quote_pos] == '"' else _single_quote_escapes
    value, starts, ends = _decode(text, quote_pos + 1, end, escapes)
    return _span(
        key,
        key_start,
        value,
        starts,
        ends,
        (quote_pos + 1, end),
        (quote_pos, end),
        text[quote_pos],
        terminated=False,
    )


class _Fragile(Exception):
    """Marks a binding whose reading depended on the rest of the document."""


def _binding(text: str, pos: int, spans: list[ValueSpan], fragile: list[int] | None = None) -> int:
    """Read one binding at ``pos`` like ``parser.parse_binding``; return the new position.
    A binding whose result depends on text after its end (a quote that is never closed:
    the regular expression searched the whole rest of the document) appends the quote's
    position to ``fragile``."""
    n = len(text)
    pos = _match(_multiline_whitespace, text, pos).end()
    if pos >= n:
        return n
    pending: ValueSpan | None = None  # span to report if the binding fails after the value
    try:
        pos = _match(_export, text, pos).end()
        key: str | None
        char = text[pos : pos + 1]
        if char == "#":
            key, key_start = None, pos
        else:
            quoted = char == "'"
            if quoted and fragile is not None and _single_quoted_key.match(text, pos) is None:
                fragile.append(pos)  # searched to the end for a closing quote (any line)
            m = _match(_single_quoted_key if quoted else _unquoted_key, text, pos)
            key, key_start, pos = m.group(1), m.start(1), m.end()
        pos = _match(_whitespace, text, pos).end()
        span: ValueSpan | None = None
        if text[pos : pos + 1] == "=":
            m = _match(_equal_sign, text, pos)
            pos = m.end()
            char = text[pos : pos + 1]
            wanted = key is not None and key in FAMILY
            if len(m.group(1)) > 1 and char == "#":
                span = _span(key or "", key_start, "", [], [], (pos, pos), (pos, pos), "")
            elif char in ("'", '"'):
                regex = _single_quoted_value if char == "'" else _double_quoted_value
                qm = regex.match(text, pos)
                if qm is None:
                    if fragile is not None:
                        fragile.append(pos)
                    if wanted:
                        spans.append(_unterminated(text, key or "", key_start, pos))
                    raise _Error
                if wanted:  # another key's value is only skipped over, not decoded
                    escapes = _single_quote_escapes if char == "'" else _double_quote_escapes
                    value, starts, ends = _decode(text, qm.start(1), qm.end(1), escapes)
                    span = _span(
                        key or "",
                        key_start,
                        value,
                        starts,
                        ends,
                        (qm.start(1), qm.end(1)),
                        (qm.start(), qm.end()),
                        char,
                    )
                if wanted and _line_end.search(text, qm.start(1), qm.end(1)):
                    # If the binding fails, the user is probably still typing this value.
                    pending = _unterminated(text, key or "", key_start, pos)
                pos = qm.end()
            elif char in ("", "\n", "\r"):
                span = _span(key or "", key_start, "", [], [], (pos, pos), (pos, pos), "")
            else:
                m = _match(_unquoted_value, text, pos)
                if wanted:
                    part = m.group(1)
                    value = _strip_inline_comment(part)
                    end = pos + len(value)
                    starts = list(range(pos, end))
                    ends = [i + 1 for i in starts]
                    span = _span(
                        key or "", key_start, value, starts, ends, (pos, end), (pos, end), ""
                    )
                pos = m.end()
            if not wanted:
                span = None
        pos = _match(_comment, text, pos).end()
        pos = _match(_end_of_line, text, pos).end()
    except _Error:
        if pending is not None:
            spans.append(pending)
        return _match(_rest_of_line, text, pos).end()
    if span is not None:
        spans.append(span)
    return pos


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """Find the TORCH_LOGS-family assignments in a ``.env`` document.

    Returns one :class:`ValueSpan` per binding of a family variable, in document order,
    with every offset a code point index into ``text``. The decoded value equals what
    python-dotenv 1.2 (``dotenv_values(stream=..., interpolate=False)``) reads; a value that
    python-dotenv would interpolate (``${X}``, ``${X:-y}``) has ``value=None``. A binding
    that python-dotenv skips as invalid is not reported, except an opening quote that has no
    closing quote on its line: that gives a span with ``terminated=False`` running to the
    end of the line (the user is typing). A key without ``=`` sets nothing and is not
    reported. Never raises.

    With ``cache`` (one per open document) only the bindings around an edit are read
    again: reading restarts at the first binding the edit can affect and stops as soon as
    a binding starts where one started before the edit (shifted), since every binding is
    a function of the text from its start on. The result is the same.
    """
    edit = cache.edit_for(HOST, text) if cache is not None else None
    old: _Chain | None = cache.state if cache is not None and edit is not None else None
    first = 1 if text.startswith("\ufeff") else 0  # Reader strips one BOM
    spans: list[ValueSpan] = []
    chain: list[int] = []  # the start of every binding, in order
    fragile: list[int] = []  # bindings that read to the end of the document
    pos, k = first, 0
    if old is not None and edit is not None:
        k = _restart_index(old, edit)
        if k > 0:
            pos = old.chain[k]
            chain = old.chain[:k]
            fragile = [f for f in old.fragile if f < pos]
            spans = [s for s in old.spans if s.name_start < pos]
    kept = len(spans)
    n = len(text)
    while pos < n:
        if old is not None and edit is not None and pos >= edit.new_end:
            j = old.index.get(pos - edit.delta)
            if j is not None and j >= k:  # the rest is the old rest, shifted
                d = edit.delta
                at = old.chain[j]
                chain.extend(start + d for start in old.chain[j:])
                fragile.extend(f + d for f in old.fragile if f >= at)
                tail = [shift_span(s, d) for s in old.spans if s.name_start >= at]
                kept += len(tail)
                spans.extend(tail)
                break
        chain.append(pos)
        plain = _PLAIN.match(text, pos)
        if plain is not None and plain.group(1) not in FAMILY:
            pos = plain.end()  # what _binding reads there, without reading it
            continue
        pos = _binding(text, pos, spans, fragile)
    if cache is not None:
        cache.reused, cache.computed = kept, len(spans) - kept
        cache.store(text, spans, _Chain(chain, fragile, spans), {})
    return spans


class _Chain:
    """A version's binding starts (``index``: start -> position in ``chain``), the starts
    of its fragile bindings, and its spans."""

    def __init__(self, chain: list[int], fragile: list[int], spans: list[ValueSpan]) -> None:
        self.chain = chain
        self.index = {start: i for i, start in enumerate(chain)}
        self.fragile = fragile
        self.spans = spans


def _restart_index(old: _Chain, edit: Edit) -> int:
    """The first binding the edit can change: one whose text, or the character after it,
    is at or after the edit's start, or a fragile one (it read to the document's end)."""
    limit = bisect_left(old.chain, edit.start)  # bindings 0..limit-1 start before the edit
    k = max(0, limit - 1)
    if old.fragile:
        # fragile holds the position of the unclosed quote: find its binding
        k = min(k, max(0, bisect_right(old.chain, old.fragile[0]) - 1))
    # binding k - 1 ends at chain[k] < edit.start: unaffected
    while k > 0 and old.chain[k] >= edit.start:
        k -= 1
    return k


def encode_part(quote: str, value: str) -> str | None:
    """python-dotenv's quoting: unquoted verbatim; ``'...'`` escapes ``\\`` and ``'``;
    ``"..."`` escapes ``\\`` and ``"``."""
    if quote == "'":
        return value.replace("\\", "\\\\").replace("'", "\\'")
    if quote == '"':
        return value.replace("\\", "\\\\").replace('"', '\\"')
    return value


_BEFORE = re.compile(r"[ \t]*(?:export[ \t]+)?'?")
_AFTER = re.compile(r"[ \t]*(?:#.*)?")


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The whole line, when it holds only this binding (and a comment)."""
    ls, le, after = line_bounds(text, span.name_start, span.raw_end)
    if _BEFORE.fullmatch(text, ls, span.name_start) is None:
        return None
    if _AFTER.fullmatch(text, span.raw_end, le) is None:
        return None
    return f"Remove the `{span.variable}` line", TextEdit(ls, after, "")


_NAME_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)?$")


def typed_name(text: str, offset: int) -> str | None:
    """At the start of a line, after ``export``."""
    m = _NAME_LINE.match(line_before(text, offset))
    return None if m is None else m.group(1) or ""
