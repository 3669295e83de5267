"""Typographic quotes (``“+dynamo”``, copied from a web page): TL109, shared by every host.

A typographic quote (:data:`DOUBLE`: the curly, low, angle and fullwidth forms of ``"`` and
the double prime; :data:`SINGLE`: those of ``'`` and the prime) is a quote to no host we
read; what it does depends on the host:

- shell: bash takes it as an ordinary character of the word (``X=“+dynamo” cmd`` sets
  ``X`` to ``“+dynamo”``); a ``(`` or ``)`` the user meant to quote then ends the word and
  is a syntax error: bash stops the script at that line (``bash -n`` fails) and the
  command never runs;
- ``.env``: python-dotenv keeps it as part of an unquoted value;
- JSON (launch.json): inside a string it is a character of the value; outside a string
  the file is not valid JSON;
- Python: inside a ``str`` literal a character of the value; outside one a SyntaxError
  (``invalid character '“' (U+201C)``, ``ast.parse``).

torch 2.13 then rejects the characters in ``TORCH_LOGS`` (``import torch`` raises
``ValueError: Invalid log settings``: ``_validate_settings`` in
``torch/_logging/_internal.py`` allows only ``[\\w.]`` names after a ``+``/``-``) and keeps
them in every other variable (printed in each log line, part of a path).

Each host answers :meth:`~.interface.Host.quote_findings` with one of the functions here;
:func:`apply` turns their findings into document diagnostics and silences the value
diagnostics of a value the host would never produce (a line bash cannot parse). The fix
replaces each typographic quote with its straight form (or removes it inside a straight
quoted string, or a lone one in a value); a lone opening quote where the value should start
gets none (a straight one would stay open). It is *safe* (``--fix``) only for one pair
around the whole value when the edited document then reads exactly the text between them
(:func:`verified`). Every replacement is one code point for one, so no offset moves. All
offsets are code points into the document.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.interface import line_bounds
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.model.spans import ValueSpan

if TYPE_CHECKING:
    from torch_logs_lsp.value.analysis import Analysis

log = logging.getLogger(__name__)

CODE = "TL109"
#: Typographic forms of ``"`` and of ``'``.
DOUBLE = "\u201c\u201d\u201e\u201f\u00ab\u00bb\uff02\u2033"
SINGLE = "\u2018\u2019\u201a\u201b\u2039\u203a\uff07\u2032"
TYPOGRAPHIC = DOUBLE + SINGLE
_ANY = re.compile(f"[{TYPOGRAPHIC}]")

#: What torch does with the characters, per variable (torch 2.13.0, ``_internal.py``).
_EFFECT = {
    "TORCH_LOGS": "torch rejects it: `import torch` raises ValueError (Invalid log settings)",
    "TORCH_LOGS_FORMAT": "torch prints the characters in every log line",
    "TORCH_LOGS_OUT": "the characters become part of the file name",
    "TORCH_TRACE": "the characters become part of the directory name",
}
_OTHER_EFFECT = "torch reads the characters as part of the value"


def straight(ch: str) -> str:
    """The straight quote (``"`` or ``'``) a typographic quote ``ch`` stands for."""
    return '"' if ch in DOUBLE else "'"


def named(chars: str) -> str:
    """The subject of a message about ``chars`` (typographic quotes, each named once):
    ``typographic quotes `“` (U+201C LEFT DOUBLE QUOTATION MARK), ... are not quotes``."""
    seen = list(dict.fromkeys(chars))
    names = ", ".join(f"`{c}` (U+{ord(c):04X} {unicodedata.name(c, '?')})" for c in seen)
    if len(chars) > 1:
        return f"typographic quotes {names} are not quotes"
    return f"typographic quote {names} is not a quote"


@dataclass(frozen=True)
class QuoteFinding:
    """One TL109: the document range ``[start, end)`` from the first to the last
    typographic quote of one value, its ``severity`` and ``message``; the fix (``title``,
    ``edits``: one-code-point replacements or removals), the assignment it is about
    (``variable``, ``name_start``: document offset of the name) and ``intended``: the
    value the fix should give (``None``: no pair, the fix is never safe; see
    :func:`verified`). ``silenced``: a span whose value diagnostics are dropped because
    the host never produces its value; ``span`` and ``hidden``: the span whose value holds
    the quotes and their indexes in it (code points of the value), whose own value
    diagnostics (TL106 on `“`) this finding explains. ``message == ""``: a finding that
    only silences (another value on a line bash cannot parse), never shown."""

    start: int
    end: int
    severity: Severity
    message: str
    title: str
    edits: tuple[TextEdit, ...]
    variable: str
    name_start: int
    intended: str | None
    silenced: ValueSpan | None = None
    span: ValueSpan | None = None
    hidden: frozenset[int] = frozenset()

    def diagnostic(self) -> Diagnostic:
        """The finding as a diagnostic whose offsets are document offsets."""
        return Diagnostic(CODE, self.severity, self.message, self.start, self.end)


def has_any(text: str) -> bool:
    """Whether ``text`` holds a typographic quote at all (one regex search)."""
    return _ANY.search(text) is not None


def _effect(variable: str) -> str:
    return _EFFECT.get(variable, _OTHER_EFFECT)


def _severity(variable: str) -> Severity:
    return Severity.ERROR if variable == "TORCH_LOGS" else Severity.WARNING


def _replace(positions: list[int], text: str) -> tuple[TextEdit, ...]:
    return tuple(TextEdit(p, p + 1, straight(text[p])) for p in positions)


def _closing(text: str, after: int, line_end: int, kind: str) -> int | None:
    """The next typographic quote of ``kind`` (DOUBLE or SINGLE) after ``after`` on the
    line, or ``None``."""
    for i in range(after + 1, line_end):
        if text[i] in kind:
            return i
    return None


def in_value(text: str, span: ValueSpan, quoted_host: bool) -> QuoteFinding | None:
    """TL109 for typographic quotes the host keeps in ``span``'s static value.

    ``quoted_host``: an unquoted value may be put in straight quotes (shell, ``.env``);
    otherwise (and inside straight quotes) the fix removes the characters. A pair at the
    value's two ends has an intended value (the text between)."""
    value = span.value
    if value is None or not span.terminated:
        return None
    idx = [i for i, c in enumerate(value) if c in TYPOGRAPHIC]
    if not idx:
        return None
    chars = "".join(value[i] for i in idx)
    pair = len(idx) == 2 and idx == [0, len(value) - 1]
    pair = pair and (value[0] in DOUBLE) == (value[-1] in DOUBLE)
    starts, ends = span.char_starts, span.char_ends
    positions = [starts[i] for i in idx]
    literal = all(ends[i] == starts[i] + 1 and text[starts[i]] == value[i] for i in idx)
    if quoted_host and span.quote == "" and pair and literal:
        edits = _replace(positions, text)
        title = "Change the typographic quotes to straight quotes"
    else:
        edits = tuple(TextEdit(starts[i], ends[i], "") for i in idx)
        title = "Remove the typographic quotes"
    message = (
        f"{named(chars)} here: the value keeps the characters "
        f"({span.variable} gets {quote(value)}) and {_effect(span.variable)}; "
        "use straight quotes"
    )
    return QuoteFinding(
        positions[0],
        ends[idx[-1]],
        _severity(span.variable),
        message,
        title,
        edits,
        span.variable,
        span.name_start,
        value[1:-1] if pair else None,
        span=span,
        hidden=frozenset(idx),
    )


def shell_findings(text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
    """The shell host's TL109s (see the module docstring). bash's own word rules
    (``shell_words.scan_word``, not tree-sitter's) decide where an unquoted word that starts
    with a typographic quote ends: a ``(`` or ``)`` there is a syntax error, reported
    alone (every value of the line is silenced); a word cut at a blank is reported with
    the value bash gives; otherwise the quotes are in the value (:func:`in_value`)."""
    from torch_logs_lsp.hosts.shell.words import scan_word

    out: list[QuoteFinding] = []
    broken: set[int] = set()  # starts of lines bash cannot parse
    for span in spans:
        start = span.raw_start
        if not (span.quote == "" and has_any(text[start : start + 1])):
            found = in_value(text, span, True)
            if found is not None:
                out.append(found)
            continue
        line_start, line_end, _ = line_bounds(text, start, start)
        word = scan_word(text, start, line_end)
        kind = DOUBLE if text[start] in DOUBLE else SINGLE
        close = _closing(text, start, line_end, kind)
        stop = text[word.end : word.end + 1]
        positions = [start] if close is None else [start, close]
        chars = "".join(text[p] for p in positions)
        inner = text[start + 1 : close] if close is not None else None
        if inner is not None and (re.search(r'["\\$`!]', inner) or has_any(inner)):
            inner = None  # straight double quotes would read it differently
        # a lone opening quote made straight would stay open: no fix then
        edits = _replace(positions, text) if close is not None else ()
        end = (close if close is not None else start) + 1
        if stop in ("(", ")"):
            message = (
                f"{named(chars)} to bash: the `{stop}` after "
                f"{quote(text[start : word.end])} is then a syntax error, bash stops the script "
                "at this line and this command never runs; use straight quotes"
            )
            broken.add(line_start)
        elif close is not None and close >= word.end:
            where = "the blank" if stop in (" ", "\t") else f"`{stop}`"
            message = (
                f"{named(chars)} to bash: the word ends at "
                f"{where}, so {span.variable} gets "
                f"{quote(text[start : word.end])} and the rest is another word (before a command: "
                "the command bash runs); use straight quotes"
            )
        else:
            found = in_value(text, span, True)
            if found is not None:
                out.append(found)
            continue
        out.append(
            QuoteFinding(
                start,
                end,
                Severity.ERROR,
                message,
                "Change the typographic quotes to straight quotes",
                edits,
                span.variable,
                span.name_start,
                inner,
                span,
            )
        )
    for span in spans:
        if line_bounds(text, span.name_start, span.name_start)[0] not in broken:
            continue
        if not any(f.silenced is span for f in out):
            out.append(
                QuoteFinding(
                    span.raw_start,
                    span.raw_start,
                    Severity.HINT,
                    "",
                    "",
                    (),
                    span.variable,
                    span.name_start,
                    None,
                    span,
                )
            )
    return out


def kept_findings(quoted_host: bool) -> Callable[[str, list[ValueSpan]], list[QuoteFinding]]:
    """The hook of a host that keeps typographic quotes in the value (``.env``, with
    ``quoted_host``: an unquoted value can be put in straight quotes)."""

    def findings(text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
        return [f for s in spans if (f := in_value(text, s, quoted_host)) is not None]

    return findings


#: A family name, its closing quote or bracket, an assignment operator and a typographic
#: quote where the value should start (JSON ``"X": “v”``, Python ``["X"] = “v”``).
_OUTSIDE = re.compile(
    r"(?P<name>TORCH_LOGS(?:_OUT|_FORMAT|_TRACE_ID_FILTER)?|TORCH_TRACE|TORCH_COMPILE_DEBUG)"
    rf"[\"']\]?[ \t]*[:=,][ \t]*(?P<open>[{TYPOGRAPHIC}])"
)


def outside_findings(why: str) -> Callable[[str, list[ValueSpan]], list[QuoteFinding]]:
    """The hook of a host where a typographic quote outside a string is a syntax error
    (JSON, Python; ``why`` says what the host does): each value opened with one, plus the
    quotes kept inside strings (:func:`in_value`)."""

    def findings(text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
        out = [f for s in spans if (f := in_value(text, s, False)) is not None]
        for m in _OUTSIDE.finditer(text):
            start = m.start("open")
            _, line_end, _ = line_bounds(text, start, start)
            kind = DOUBLE if text[start] in DOUBLE else SINGLE
            close = _closing(text, start, line_end, kind)
            positions = [start] if close is None else [start, close]
            chars = "".join(text[p] for p in positions)
            inner = text[start + 1 : close] if close is not None else None
            if inner is not None and (re.search(r"[\"'\\]", inner) or has_any(inner)):
                inner = None
            message = (
                f"{named(chars)}: {why}, so {m.group('name')} is never set; use straight quotes"
            )
            end = (close if close is not None else start) + 1
            edits = tuple(TextEdit(p, p + 1, '"') for p in positions) if close is not None else ()
            title = "Change the typographic quotes to straight quotes"
            name = m.group("name")
            out.append(
                QuoteFinding(
                    start, end, Severity.ERROR, message, title, edits, name, m.start(), inner
                )
            )
        return out

    return findings


def verified(host: HostKind, text: str, finding: QuoteFinding) -> bool:
    """Whether the fix of ``finding`` is safe: it has a non-empty intended value, and the edited
    document reads exactly that value for the assignment at ``finding.name_start`` and
    every other assignment as before (read by the host's own extractor), with the
    document's line-end style kept (:func:`.edits.keeps_line_ends`)."""
    from torch_logs_lsp.hosts import extract
    from torch_logs_lsp.hosts.edits import apply_text_edits, keeps_line_ends

    if not finding.intended or not finding.edits:
        return False  # (`“”` -> `""`: an empty TORCH_LOGS crashes `import torch`, TL001)
    if not keeps_line_ends(text, finding.edits):
        return False

    def reading(spans: list[ValueSpan]) -> list[tuple[str, str | None, bool]]:
        return [
            (s.variable, s.value, s.terminated) for s in spans if s.name_start != finding.name_start
        ]

    after = extract(host, apply_text_edits(text, finding.edits))
    mine = [
        s for s in after if s.name_start == finding.name_start and s.variable == finding.variable
    ]
    if len(mine) != 1 or mine[0].value != finding.intended or not mine[0].terminated:
        return False
    return reading(after) == reading(extract(host, text))


def apply(
    host: HostKind, text: str, entries: list[tuple[ValueSpan, Analysis | None]]
) -> tuple[list[tuple[ValueSpan, Analysis | None]], list[QuoteFinding]]:
    """The host's TL109 findings for ``text`` (:meth:`~.interface.Host.quote_findings`
    over the spans of ``entries``, a whole document's in order) and ``entries`` with the
    analysis of each silenced span removed, and in a span whose value holds the quotes
    the value diagnostics that touch them (TL106 on `“`, which the finding explains).
    Only shown findings (with a message) are returned. Never raises: a failing hook is
    logged and gives no findings."""
    from torch_logs_lsp.hosts import host_module

    module = host_module(host)
    if not entries and "TORCH" not in text:
        return entries, []  # no family variable at all (a C-speed substring test)
    if module is None or not (has_any(text) or any(has_any(s.value or "") for s, _ in entries)):
        return entries, []  # (a JSON or Python escape such as \\u201c writes one too)
    try:
        found = module.quote_findings(text, [span for span, _ in entries])
    except Exception:  # a bug here must not hide the rest of the document
        log.exception("finding typographic quotes in a %s document failed", host)
        return entries, []
    # an overwritten value (TL502, :mod:`..dead_values`) reaches nothing: what the host
    # or torch would do with its characters is not said (a line bash cannot parse is)
    dead = {
        id(s) for s, a in entries if a is not None and any(d.code == "TL502" for d in a.diagnostics)
    }
    quiet = {
        id(f) for f in found if f.silenced is None and f.span is not None and id(f.span) in dead
    }
    silenced = {id(f.silenced) for f in found if f.silenced is not None}
    hidden = {id(f.span): f.hidden for f in found if f.span is not None and f.hidden}
    out: list[tuple[ValueSpan, Analysis | None]] = []
    for span, analysis in entries:
        if id(span) in silenced:
            analysis = None
        elif analysis is not None and id(span) in hidden:
            analysis = _without(analysis, hidden[id(span)])
        out.append((span, analysis))
    return out, [f for f in found if f.message and id(f) not in quiet]


def _without(analysis: Analysis, hidden: frozenset[int]) -> Analysis:
    """``analysis`` without the diagnostics of the items (or ranges) that hold a value
    index in ``hidden``."""
    items = [(i.start, i.end) for i in analysis.parsed.items]

    def touches(d: Diagnostic) -> bool:
        lo, hi = d.start, d.end
        for a, b in items:
            if a <= d.start < b or (d.start == d.end == a):
                lo, hi = min(lo, a), max(hi, b)
        return any(lo <= i < max(hi, lo + 1) for i in hidden)

    kept = tuple(d for d in analysis.diagnostics if d.code == "TL502" or not touches(d))
    return replace(analysis, diagnostics=kept, hidden=())
