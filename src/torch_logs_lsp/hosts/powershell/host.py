"""The PowerShell host: ``*.ps1`` and ``*.psm1`` scripts (Windows PowerShell 5.1 and
PowerShell 7 on Windows, Linux and macOS).

Read with tree-sitter-powershell for the statements (:mod:`.powershell.reader`: ``$env:NAME =
...``, ``${env:NAME} = ...``, ``Set-Item``/``New-Item`` on the ``Env:`` drive,
``[Environment]::SetEnvironmentVariable(...)``) and the tokenizer's own string rules for
the values (:mod:`.powershell_strings`; tree-sitter does not know typographic quotes,
which PowerShell takes as quotes).

Names: the ``env:`` drive is case-insensitive everywhere; the variable name is matched in
any case and reported as the family's name (on Windows environment names are
case-insensitive; pwsh on Linux and macOS keeps the case, so there ``$env:torch_logs``
sets another variable: scripts are judged as on Windows, where PowerShell mostly runs).

An empty value (``$env:TORCH_LOGS = ''``): "Beginning in PowerShell 7.5, you can set an
environment variable to an empty string. Setting an environment variable to ``$null``
removes it" (about_Environment_Variables, PowerShell 7.5:
https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_environment_variables,
changed by MicrosoftDocs/PowerShell-Docs#12316); before 7.5 (Windows PowerShell 5.1,
PowerShell 7.0-7.4) an empty string removes the variable, as ``$null`` does. The change
came with .NET 9 (https://learn.microsoft.com/dotnet/core/compatibility/core-libraries/9.0/empty-env-variable,
PowerShell/PowerShell#21186). So an empty value is a span with value ``""`` whose TL001
says which versions set it empty (torch then crashes) and which remove it
(:func:`notes`). ``$null`` and ``Remove-Item`` remove it: no span.

All offsets are **code points into the document**.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import ParsedState, Source
from torch_logs_lsp.hosts.embedded import PWSH
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Note, Overwrite, line_before, line_bounds
from torch_logs_lsp.hosts.powershell.reader import NAME, Found, read
from torch_logs_lsp.hosts.powershell.strings import DOUBLE_QUOTES, SINGLE_QUOTES
from torch_logs_lsp.hosts.powershell.strings import encode_part as encode_part
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import QuoteFinding, kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "powershell",
    ("*.ps1", "*.psm1"),  # *.psd1 data files set no environment variable
    ("powershell",),
    block_comments=(("<#", "#>"),),
    vscode_languages=("powershell",),
)
HOST: HostKind = "powershell"
DESCRIPTION = "PowerShell scripts"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
#: PowerShell parses the whole script before running any of it: a string never closed is
#: a parse error ("The string is missing the terminator"), so nothing runs.
NEVER_SET: str | None = "PowerShell cannot parse the script, so none of it runs"
STRIPS_TRAILING_BLANKS = False
RUNS_ON = "any"
COMMENT_GRAMMAR: str | None = "powershell"
LINE_COMMENTS = False

_kept = kept_findings(False)


def quote_findings(text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
    """TL109 for the typographic quotes a value keeps: PowerShell's own (U+2018-U+201E
    but U+201F) delimit strings and reach a value only doubled or escaped (U+2019 twice,
    or after a backtick), which is no typographic-quote mistake (torch's own finding, TL106, stays);
    the others (« », primes, fullwidth) are characters of the value (removed by the fix).
    Never raises."""
    plain = [
        s
        for s in spans
        if s.value is None
        or not any(
            c in PS_QUOTES and e - b > 1
            for c, b, e in zip(s.value, s.char_starts, s.char_ends, strict=True)
        )
    ]
    return _kept(text, plain)


PS_QUOTES = SINGLE_QUOTES + DOUBLE_QUOTES
_SHEBANG = re.compile(r"#!.*?(?:^|[/\s])(?:pwsh|powershell)(?:\.exe)?(?:\s|$)", re.I)


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """A file without an extension whose shebang runs ``pwsh`` (``#!/usr/bin/env pwsh``)."""
    if "." in name.lstrip("."):
        return False
    first = head.lstrip("\ufeff").split("\n", 1)[0]
    return _SHEBANG.match(first) is not None


def may_hold_values(text: str) -> bool:
    """Whether ``text`` names a family variable in any case (one regex search)."""
    return NAME.search(text) is not None


#: The last few documents' readings (``notes``, ``overwritten`` and ``removal`` come after
#: ``extract`` with the same text).
_RECENT: dict[str, tuple[Found, ...]] = {}
#: The last parse of :func:`_read`: where stderr goes (:func:`stderr_captured`) reads that
#: tree instead of parsing the text again.
_last_tree: list[tuple[str, tree_sitter.Tree]] = []


def _read(text: str, old: ParsedState | None = None) -> tuple[tuple[Found, ...], ParsedState]:
    src = Source(text)
    _last_tree.clear()  # the tree kept may be ``old``'s, edited in place now
    tree = src.parse("powershell", old)  # (``old`` is consumed: tree-sitter reuses it)
    found = tuple(read(src, tree.root_node))
    _last_tree[:] = [(text, tree)]
    if len(_RECENT) >= 4:
        _RECENT.pop(next(iter(_RECENT)))
    _RECENT[text] = found
    return found, (src.data, tree)


def _found(text: str) -> tuple[Found, ...]:
    hit = _RECENT.get(text)
    if hit is not None:
        return hit
    try:
        return _read(text)[0]
    except Exception:  # bad input never crashes the server
        log.exception("powershell: extraction failed")
        return ()


def found_statements(text: str) -> tuple[Found, ...]:
    """Every span of ``text`` (as :func:`extract` finds them) with its statement (document
    offsets, code points). Never raises."""
    return _found(text)


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured`: see :mod:`.powershell.capture`."""
    from torch_logs_lsp.hosts.powershell.capture import stderr_captured as captured

    tree = next((t for seen, t in _last_tree if seen is text or seen == text), None)
    return captured(text, spans, tree)


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of a PowerShell script in document order (see the module
    docstring). With ``cache`` (one per open document) tree-sitter re-parses only around
    the edit (the same tree as a fresh parse); the spans are read again from it. Never
    raises: a failure is logged and gives ``[]``."""
    if not may_hold_values(text):
        if cache is not None:
            cache.reset()
        return []
    if cache is None:
        return [f.span for f in _found(text)]
    edit = cache.edit_for(HOST, text)
    old = cache.state if edit is not None else None
    try:
        found, parsed = _read(text, old)
    except Exception:
        log.exception("powershell: extraction failed")
        cache.reset()
        return []
    spans = [f.span for f in found]
    cache.computed = len(spans)
    cache.store(text, spans, parsed, {})
    return spans


def empty_message(variable: str) -> str:
    """What an empty value does in each PowerShell version (see the module docstring)."""
    return (
        f"empty {variable}: PowerShell 7.5 and later set it to the empty string, and an "
        f"empty {variable} makes `import torch` crash with AttributeError; Windows "
        "PowerShell 5.1 and PowerShell 7.0-7.4 remove the variable instead "
        "(about_Environment_Variables); to remove it in every version write "
        f"`$env:{variable} = $null` or `Remove-Item Env:{variable}`"
    )


_PERSISTENT_NOTE = (
    "SetEnvironmentVariable with a User or Machine target writes {name} to the stored "
    "environment for processes started later: this script and its commands do not see it "
    "(the Process target, or $env:{name}, sets it here)"
)


def notes(text: str, spans: list[ValueSpan]) -> list[Note]:
    """TL001 for an empty ``TORCH_LOGS``, naming the PowerShell versions that set it
    empty (7.5+) and those that remove it (5.1, 7.0-7.4); it replaces the analysis's own
    TL001 message. TL503 for ``SetEnvironmentVariable`` with a ``User``/``Machine``
    target (as for a batch file's ``setx``)."""
    out = [
        Note(i, "TL001", empty_message(s.variable))
        for i, s in enumerate(spans)
        if s.value == "" and s.variable == "TORCH_LOGS"
    ]
    if spans and "etEnvironmentVariable" in text:
        stored = {f.span.name_start for f in _found(text) if f.persistent}
        out += [
            Note(i, "TL503", _PERSISTENT_NOTE.format(name=s.variable))
            for i, s in enumerate(spans)
            if s.name_start in stored
        ]
    return out


def embedded_notes(text: str, spans: list[ValueSpan]) -> list[Note]:
    """:func:`notes` for the PowerShell code inside another host's document (a
    ``shell: pwsh`` step of a workflow: spans whose quote's inner layer is PowerShell,
    :data:`~.embedded.PWSH`)."""
    return [
        Note(i, "TL001", empty_message(s.variable))
        for i, s in enumerate(spans)
        if s.value == "" and s.variable == "TORCH_LOGS" and (s.quote or "").startswith(PWSH)
    ]


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """A top-level assignment followed by another of the same variable with a static
    value, when every statement between them is a family assignment too (nothing can
    read the first; comments do not count). ``SetEnvironmentVariable`` with a
    ``User``/``Machine`` target is never part of one, nor is ``New-Item`` (it fails on an
    existing variable). Never raises."""
    found = {f.span.name_start: f for f in _found(text)}
    out: list[Overwrite] = []
    last: dict[str, int] = {}
    previous: Found | None = None  # the found statement before, when they are adjacent
    for i, span in enumerate(spans):
        f = found.get(span.name_start)
        adjacent = f is not None and previous is not None and f.top >= 0
        adjacent = adjacent and f is not None and previous is not None and f.prev == previous.top
        previous = f if f is not None and f.top >= 0 else None
        if not adjacent:
            last.clear()  # something else runs between: nothing before is certainly dead
        if f is None or f.top < 0 or f.persistent or f.unsure:
            last.pop(span.variable, None)
            continue
        before = last.get(span.variable)
        last[span.variable] = i
        if before is not None and span.value is not None:
            out.append(Overwrite(before, i, "set again before any command runs"))
    return out


_LINE_REST = re.compile(r"[ \t]*;?[ \t]*(?:#.*)?")


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The statement's whole line(s), when they hold only this statement (and a
    comment)."""
    f = next((f for f in _found(text) if f.span.name_start == span.name_start), None)
    if f is None:
        return None
    ls, le, after = line_bounds(text, f.start, f.end)
    if text[ls : f.start].strip(" \t") or _LINE_REST.fullmatch(text, f.end, le) is None:
        return None
    return f"Remove the `{span.variable}` statement", TextEdit(ls, after, "")


_TYPED = re.compile(r"(?:\$\{?env:|(?<![\w$])env:[\\/]?)(\w*)$", re.I)


def typed_name(text: str, offset: int) -> str | None:
    """After ``$env:``, ``${env:`` or an ``Env:`` path (``Set-Item Env:``)."""
    m = _TYPED.search(line_before(text, offset))
    return None if m is None else m.group(1)
