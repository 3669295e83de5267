"""Inline suppression comments: ``# torch-logs: ignore[TL201]`` silences findings on a line.

A suppression is a comment, in any host's declared comment syntax
(:func:`~torch_logs_lsp.hosts.comments.marker_pattern`: ``#``, ``//``, ``;``, and a batch
file's ``::`` or ``rem``), holding ``torch-logs: ignore[CODES]`` (codes or code prefixes
separated by commas: ``ignore[TL201, TL3]``) or a bare ``torch-logs: ignore`` at the end of
its line (every code; ``ignore TL201`` without brackets is no suppression).
Written after code, it applies to its own line; alone on its line (only blanks, or a
batch file's ``@``, before the comment marker), it applies to the next line (and its own).
A finding is placed on the line of its start. A suppression that silences nothing is
reported as :data:`UNUSED_SUPPRESSION` (a hint), like ruff's ``RUF100``.

Only real comments count: where the host has a tree-sitter grammar
(:attr:`~.hosts.interface.Host.COMMENT_GRAMMAR`) the marker must start a ``comment`` node
of it (so ``"# torch-logs: ignore"`` inside a string never silences), else the comment must
be alone on its line (a ``#`` after an INI value or a batch ``echo`` is text).
Lines are those of :class:`~.checker.LineIndex` (``\\n``,
``\\r\\n`` or a lone ``\\r`` ends one). All offsets are **code points into the document**.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.comments import marker_pattern
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.edits import TextEdit, line_break
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: The code of a suppression comment that silences nothing (shown with ``--show-hints``).
UNUSED_SUPPRESSION = "TL903"

_NEEDLE = "torch-logs:"


@cache
def _comment() -> re.Pattern[str]:
    """A suppression comment: ``marker`` any host's comment marker, ``body`` from
    ``torch-logs:`` to the end of ``ignore[...]`` (or of a bare ``ignore``), ``codes``."""
    return re.compile(
        rf"(?P<marker>{marker_pattern()})[ \t]*"
        r"(?P<body>torch-logs:[ \t]*ignore(?:\[(?P<codes>[^\]\r\n]*)\]|(?=[ \t]*(?:[\r\n]|\Z))))"
    )


_LINE_END = re.compile(r"\r\n|\n|\r")
_CODE = re.compile(r"TL[0-9]{0,3}")


@dataclass(frozen=True)
class Suppression:
    """One suppression comment. ``lines``: the 0-based document lines it applies to.
    ``codes``: the codes and prefixes it names, as written (upper-cased), ``None`` for a
    bare ``ignore`` (every code). ``start``/``end``: the document range of
    ``torch-logs: ignore[...]`` (for the unused hint). ``used``: the entries of ``codes``
    (or ``"*"`` for a bare one) that silenced a finding, filled by :func:`apply`."""

    lines: tuple[int, ...]
    codes: tuple[str, ...] | None
    start: int
    end: int
    #: Document offset of the comment marker (``#``, ``//``, ``rem``...).
    marker: int = 0
    #: Whether the comment is alone on its line.
    alone: bool = False
    used: set[str] = field(default_factory=set, compare=False)

    def silences(self, code: str) -> str | None:
        """The entry of :attr:`codes` that silences ``code`` (a code equal to it or a
        prefix of it; ``"*"`` for a bare suppression), else ``None``."""
        if self.codes is None:
            return "*"
        for entry in self.codes:
            if code.startswith(entry):
                return entry
        return None


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_END.finditer(text))]


def _comments(text: str, host: HostKind | None) -> Callable[[int, bool], bool]:
    """Whether the text at a document offset starts a comment of ``host`` (see
    :attr:`~.hosts.interface.Host.COMMENT_GRAMMAR`); the second argument says the comment
    is alone on its line. Any comment for ``host`` ``None``."""
    module = hosts.host_module(host) if host else None
    if module is None:
        return lambda offset, alone: True
    grammar, line_comments = module.COMMENT_GRAMMAR, module.LINE_COMMENTS
    if grammar is None:
        return lambda offset, alone: alone
    try:
        from torch_logs_lsp.hosts._ts import Source

        src = Source(text)
        root = src.parse(grammar).root_node
    except Exception:  # no grammar: only comment lines count
        log.exception("suppressions: parsing for comments failed")
        return lambda offset, alone: alone

    def comment(offset: int, alone: bool) -> bool:
        if alone and line_comments:
            return True
        byte = src.byte(offset)
        node = root.descendant_for_byte_range(byte, byte + 1)
        found = False
        while node is not None:  # inside any string: no comment, whatever the grammar says
            if any(word in node.type for word in _STRINGS):
                return False
            found = found or "comment" in node.type
            node = node.parent
        return found

    return comment


#: Words in the node types that hold text, not code, in the grammars of ``_ts.GRAMMARS``
#: (``string_literal``, ``expandable_here_string_literal``, ``heredoc_body``, YAML's
#: ``double_quote_scalar``): a ``#`` in them is never a comment, even where a grammar puts a
#: ``comment`` node inside one (tree-sitter-powershell 0.26 does in a here-string).
_STRINGS = ("string", "heredoc", "scalar")


def find_suppressions(text: str, host: HostKind | None = None) -> list[Suppression]:
    """The suppression comments of ``text`` (a document of host kind ``host``; any text
    that looks like one for ``None``) in document order: for a host, only those that are
    comments there (:func:`_comments`). Linear in the length of the text; a text without
    ``torch-logs:`` costs one substring search. Never raises."""
    if _NEEDLE not in text:
        return []
    is_comment: Callable[[int, bool], bool] | None = None
    starts = _line_starts(text)
    out: list[Suppression] = []
    for m in _comment().finditer(text):
        line = bisect_right(starts, m.start()) - 1
        before = text[starts[line] : m.start("marker")]
        alone = before.strip(" \t@") == ""
        if host is not None:
            is_comment = is_comment or _comments(text, host)
            if not is_comment(m.start("marker"), alone):
                continue
        lines = (line, line + 1) if alone else (line,)
        raw = m.group("codes")
        codes: tuple[str, ...] | None = None
        if raw is not None:
            codes = tuple(c.strip().upper() for c in raw.split(",") if c.strip())
        out.append(
            Suppression(lines, codes, m.start("body"), m.end("body"), m.start("marker"), alone)
        )
    return out


def line_of(starts: Sequence[int], offset: int) -> int:
    """The 0-based line of document offset ``offset``, for ``starts`` the offsets where
    lines start (ascending, ``starts[0] == 0``)."""
    return bisect_right(starts, offset) - 1


class Silencer:
    """The suppressions of one document of host kind ``host`` (see
    :func:`find_suppressions`), to filter its findings: :meth:`silenced` for each finding,
    then :meth:`unused` for the hints."""

    def __init__(self, text: str, host: HostKind | None = None) -> None:
        self.text = text
        self.suppressions = find_suppressions(text, host)
        self._starts = _line_starts(text) if self.suppressions else [0]
        self._by_line: dict[int, list[Suppression]] = {}
        for s in self.suppressions:
            for line in s.lines:
                self._by_line.setdefault(line, []).append(s)

    def __bool__(self) -> bool:
        return bool(self.suppressions)

    def silenced(self, code: str, start: int) -> bool:
        """Whether a finding ``code`` starting at document offset ``start`` is silenced
        (and, if so, marks the suppression entry used)."""
        if not self._by_line or code == UNUSED_SUPPRESSION:
            return False
        for s in self._by_line.get(line_of(self._starts, start), ()):
            entry = s.silences(code)
            if entry is not None:
                s.used.add(entry)
                return True
        return False

    def unused(self) -> list[Diagnostic]:
        """A :data:`UNUSED_SUPPRESSION` hint (document offsets) for every suppression,
        or entry of one, that silenced nothing in the findings seen by
        :meth:`silenced`."""
        out: list[Diagnostic] = []
        for s in self.suppressions:
            if s.codes is None:
                if not s.used:
                    msg = "this `torch-logs: ignore` silences no finding; remove it"
                    out.append(Diagnostic(UNUSED_SUPPRESSION, Severity.HINT, msg, s.start, s.end))
                continue
            unused = [c for c in s.codes if c not in s.used]
            if not unused:
                continue
            bad = [c for c in unused if not _CODE.fullmatch(c)]
            shown = ", ".join(f"`{c}`" for c in unused)
            msg = f"unused suppression of {shown}: no such finding on this line"
            if bad:
                msg = f"{msg} ({', '.join(f'`{c}`' for c in bad)} is not a torch-logs code)"
            out.append(Diagnostic(UNUSED_SUPPRESSION, Severity.HINT, msg, s.start, s.end))
        return out


def suppression_line(comment: str, codes: Sequence[str], indent: str, eol: str) -> str:
    """The text of a new comment line that silences ``codes`` on the line after it:
    ``indent`` + ``comment`` (a host's marker) + `` torch-logs: ignore[TL201]`` + ``eol``."""
    return f"{indent}{comment} torch-logs: ignore[{', '.join(codes)}]{eol}"


_CONTINUED = ("\\", "^", "`")  # shell/make/Dockerfile, cmd, PowerShell line continuations


def suppression_edit(
    text: str, comment: str, offset: int, code: str, spans: Sequence[ValueSpan], host: HostKind
) -> TextEdit | None:
    """The edit that silences ``code`` for a finding starting at document offset
    ``offset``: a new comment line (``comment`` is the host's marker) before the
    finding's line, indented like it unless that indentation has a tab, or ``code``
    added to a suppression already applying to that line. ``None`` when that is not
    safe: the line before ends with a line continuation, the line starts inside a value
    that spans lines (``spans``: the document's), or a bare ``ignore`` already applies.
    The caller verifies that the edited document reads the same values."""
    starts = _line_starts(text)
    line = line_of(starts, offset)
    for s in find_suppressions(text, host):
        if line not in s.lines:
            continue
        if s.codes is None or any(code.startswith(c) for c in s.codes):
            return None
        return TextEdit(s.start, s.end, f"torch-logs: ignore[{', '.join((*s.codes, code))}]")
    line_start = starts[line]
    if line > 0 and text[starts[line - 1] : line_start].rstrip("\r\n").endswith(_CONTINUED):
        return None
    if any(s.raw_start < line_start < s.raw_end for s in spans):
        return None
    rest = text[line_start : starts[line + 1] if line + 1 < len(starts) else len(text)]
    indent = rest[: len(rest) - len(rest.lstrip(" \t"))]
    if "\t" in indent:
        indent = ""
    eol = line_break(text)
    return TextEdit(line_start, line_start, suppression_line(comment, (code,), indent, eol))
