"""Fixes placed in a document: value fixes (:mod:`.fixes`) written back through the host
(:mod:`.hosts.edits`), the removal of an assignment, and fix-all for a whole document.

Shared by the language server (code actions) and ``torch-logs check --fix``. Offsets in
:class:`DocumentFix` and :class:`Change` are code points into the document text; the
``diagnostics`` of a fix keep their own offsets, code points into the decoded value of
``span``.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from torch_logs_lsp import hosts
from torch_logs_lsp.files import (
    MAX_FILE_BYTES,
    ChangedOnDisk,
    NotWritten,
    SkippedFile,
    read_snapshot,
    replace_file,
)
from torch_logs_lsp.hosts import typographic
from torch_logs_lsp.hosts.edits import (
    TextEdit,
    apply_text_edits,
    keeps_line_ends,
    removal_edit,
    value_edit,
    value_edits,
)
from torch_logs_lsp.hosts.typographic import QuoteFinding
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.checker import LineIndex
from torch_logs_lsp.lint.pipeline import check_text
from torch_logs_lsp.lint.suppressions import Silencer
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.analysis import EMPTY_VALUE, HELP, Analysis, Diagnostic
from torch_logs_lsp.value.fixes import (
    QUICKFIX,
    Fix,
    RenameLookup,
    apply_edits,
    fix_all_value,
    value_fixes,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentFix:
    """A fix of one value span as document edits.

    ``kind`` is ``"quickfix"`` or ``"refactor.rewrite"``; ``diagnostics`` are the core
    diagnostics of ``span`` it resolves (value offsets); ``edits`` are document edits
    (code points, non-overlapping). ``safe`` fixes are the ones fix-all applies.
    ``anchor``: for a refactor, the value range ``[start, end)`` of the item it extends.
    """

    title: str
    kind: str
    span: ValueSpan
    diagnostics: tuple[Diagnostic, ...]
    edits: tuple[TextEdit, ...]
    preferred: bool
    safe: bool
    anchor: tuple[int, int] | None = None  # a refactor's item, value offsets


@dataclass(frozen=True)
class Change:
    """One value changed by :func:`fix_document`: the span (offsets into the *old*
    text), its 0-based ``line``, the old and the new decoded value, and the edits.
    ``span`` is ``None`` for a safe fix of a ``set_logs(...)`` call (:mod:`.set_logs_fixes`:
    ``torch=`` -> ``all=``); ``old``/``new`` are then the replaced and the new source text."""

    span: ValueSpan | None
    line: int
    old: str
    new: str
    edits: tuple[TextEdit, ...]


def span_fixes(
    host: HostKind,
    text: str,
    span: ValueSpan,
    analysis: Analysis,
    registry: Registry,
    renames: RenameLookup | None = None,
    keep: Callable[[Fix], bool] | None = None,
) -> list[DocumentFix]:
    """Every fix of one analysed span of ``text``, with verified document edits.

    A value fix whose edit cannot be written back into the host (see
    :func:`.hosts.edits.value_edit`) is left out. For TL001 (empty value) and TL002
    (``help``) the fix removes the assignment; it is never safe. ``keep``: which value
    fixes are wanted (before their edits are made: each costs a re-read of ``text``).

    A value also read elsewhere (:func:`shared_reasons`: a YAML anchor an alias reuses)
    keeps its fixes, each neither safe nor preferred and titled with what else it
    changes; its assignment is never removed (the alias would name nothing).
    """
    out: list[DocumentFix] = []
    if span.value is None or span.variable != "TORCH_LOGS":
        return out  # the other family variables have no fixes
    elsewhere = shared_reasons(host, text, [span]).get(span.name_start)
    for fix in value_fixes(analysis, registry, renames):
        if keep is not None and not keep(fix):
            continue
        new = kept_line_end(text, span, apply_edits(span.value, fix.edits))
        edits = value_edit(host, text, span, new) if new != span.value else None
        if edits is not None:
            title, preferred, safe = fix.title, fix.preferred, fix.safe
            if elsewhere is not None:
                title, preferred, safe = f"{title} (not only here: {elsewhere})", False, False
            out.append(
                DocumentFix(
                    title, fix.kind, span, fix.diagnostics, edits, preferred, safe, fix.anchor
                )
            )
    if elsewhere is not None:
        return out
    removable = [d for d in analysis.diagnostics if d.code in (EMPTY_VALUE, HELP)]
    removal = Fix("", QUICKFIX, tuple(removable), ())
    if removable and (keep is None or keep(removal)):
        found = removal_edit(host, text, span)
        if found is not None:
            title, edit = found
            out.append(DocumentFix(title, QUICKFIX, span, tuple(removable), (edit,), True, False))
    return out


def shared_reasons(host: HostKind, text: str, spans: list[ValueSpan]) -> dict[int, str]:
    """Why each of ``spans`` (spans of ``text``) whose value is also read elsewhere may
    not be edited unasked (:class:`.hosts.interface.SharedValuesHost`: a YAML anchor
    that an alias or a merge key reuses), by the span's ``name_start``; ``{}`` for a host
    without such values."""
    module = hosts.shared_host(host)
    if module is None or not spans:
        return {}
    reasons = module.shared(text, spans)
    return {s.name_start: r for s, r in zip(spans, reasons, strict=True) if r is not None}


@dataclass(frozen=True)
class Held:
    """A value fix-all would change but leaves alone: its 0-based ``line``, the
    ``variable``, and ``reason`` (:func:`shared_reasons`)."""

    line: int
    variable: str
    reason: str


def kept_line_end(text: str, span: ValueSpan, new: str) -> str:
    """``new``, the new value of ``span``, with the ``\\r`` that ends its old value kept
    when that ``\\r`` is the first half of the CRLF line end the assignment stands on (a
    shell reads a CRLF script's value with its ``\\r``: TL101). Removing it would give
    that one line an LF end in a CRLF file; the ``\\r`` is the file's line-end style,
    not the value's, and TL101 says to save the file with LF endings."""
    old = span.value
    if not old or old[-1] != "\r" or new.endswith("\r"):
        return new
    start, end = span.char_starts[-1], span.char_ends[-1]
    if text[start:end] == "\r" and text.startswith("\n", end):
        return new + "\r"
    return new


def fix_all_edits(
    host: HostKind,
    text: str,
    entries: Iterable[tuple[ValueSpan, Analysis | None]],
    registry: Registry,
    renames: RenameLookup | None = None,
    ignore: frozenset[str] = frozenset(),
) -> list[Change]:
    """The changes fix-all makes to a document: one per value that safe fixes change.

    ``entries`` are the document's spans with their analyses (``None`` for spans that
    are not analysed). ``ignore``: diagnostic codes whose fixes are skipped, and so are
    those of findings silenced by a suppression comment on their line. A new value
    that cannot be written back into the host is left out, and so is one also read
    elsewhere (:func:`shared_reasons`; :func:`fix_text` lists them).
    """
    return _fix_all(host, text, entries, registry, renames, ignore)[0]


def _fix_all(
    host: HostKind,
    text: str,
    entries: Iterable[tuple[ValueSpan, Analysis | None]],
    registry: Registry,
    renames: RenameLookup | None,
    ignore: frozenset[str],
) -> tuple[list[Change], list[Held]]:
    """:func:`fix_all_edits`, and the values it leaves alone because they are also read
    elsewhere."""
    index = LineIndex(text)
    entries = list(entries)
    elsewhere = shared_reasons(host, text, [span for span, _ in entries])
    wanted: list[tuple[ValueSpan, str]] = []
    held: list[Held] = []
    silencer = Silencer(text, host)  # a finding silenced on its line is not fixed either
    for span, analysis in entries:
        if analysis is None or span.value is None or span.variable != "TORCH_LOGS":
            continue
        skip = ignore
        if silencer:
            skip = ignore | {
                d.code
                for d in analysis.every_diagnostic
                if silencer.silenced(d.code, span.document_range(d.start, d.end)[0])
            }
        new = fix_all_value(span.value, registry, renames, skip, hosts.runs_on(span.host))
        new = kept_line_end(text, span, new)
        if new == span.value:
            continue
        reason = elsewhere.get(span.name_start)
        if reason is not None:
            held.append(Held(index.position(span.name_start)[0], span.variable, reason))
        else:
            wanted.append((span, new))
    return [  # verified together: one re-read of the document, not one per value
        Change(span, index.position(span.name_start)[0], span.value or "", new, edits)
        for span, edits, new in value_edits(host, text, wanted)
    ], held


def quote_fixes(host: HostKind, text: str) -> list[tuple[QuoteFinding, bool]]:
    """The TL109 findings of ``text`` (typographic quotes, :mod:`.hosts.typographic`),
    each with whether its fix is safe (verified: the document then reads the intended
    value). Offsets are code points into the document. Never raises."""
    spans = hosts.extract(host, text)
    found = typographic.apply(host, text, [(s, None) for s in spans])[1]
    return [(f, typographic.verified(host, text, f)) for f in found if f.edits]


def fix_quotes(text: str, host: HostKind) -> tuple[str, list[Change]]:
    """The safe TL109 fixes applied to ``text`` (typographic quotes -> straight ones, or
    removed where the host keeps no quotes: an edit may change the length, so the values
    after it move): the new text and one change per value."""
    safe = [f for f, ok in quote_fixes(host, text) if ok]
    if not safe:
        return text, []
    index = LineIndex(text)
    edits = sorted((e for f in safe for e in f.edits), key=_start)
    new_text = apply_text_edits(text, edits)
    after = {s.name_start: s for s in hosts.extract(host, new_text)}
    changes = []
    for f in safe:
        moved = sum(len(e.new_text) - (e.end - e.start) for e in edits if e.end <= f.name_start)
        span = after.get(f.name_start + moved)
        old = f.span.value if f.span is not None and f.span.value is not None else ""
        if span is not None and f.intended is not None:
            line = index.position(f.name_start)[0]
            changes.append(Change(span, line, old, f.intended, f.edits))
    return new_text, changes


class FixedText(NamedTuple):
    """What :func:`fix_text` made of a document: the new ``text``, the ``changes`` made,
    and the values ``held`` back because they are also read elsewhere."""

    text: str
    changes: list[Change]
    held: list[Held]


def fix_document(
    text: str,
    host: HostKind,
    registry: Registry,
    renames: RenameLookup | None = None,
    ignore: frozenset[str] = frozenset(),
) -> tuple[str, list[Change]]:
    """Apply fix-all to a document: the new text and the changes made (first the safe
    TL109 fixes, :func:`fix_quotes`, then the value fixes of the result). ``ignore``:
    codes whose fixes are skipped (codes not chosen: ``check --fix --ignore``).

    Text outside the edited ranges is unchanged, code point for code point, and so is
    the line-end style (a CRLF line keeps its ``\\r``: :func:`kept_line_end`,
    :func:`.hosts.edits.keeps_line_ends`). When the combined result does not read as
    intended (never expected: each edit is verified on its own), nothing is changed.
    """
    fixed = fix_text(text, host, registry, renames, ignore)
    return fixed.text, fixed.changes


def fix_text(
    text: str,
    host: HostKind,
    registry: Registry,
    renames: RenameLookup | None = None,
    ignore: frozenset[str] = frozenset(),
) -> FixedText:
    """:func:`fix_document`, with the values it leaves alone because they are also read
    elsewhere (:func:`shared_reasons`; their lines are those of the text after the
    TL109 fixes, which change no line)."""
    quoted: list[Change] = []
    if "TL109" not in ignore:
        text, quoted = fix_quotes(text, host)
    new_text, changes, held = _fix_values(text, host, registry, renames, ignore)
    return FixedText(new_text, quoted + changes, held)


def _fix_values(
    text: str,
    host: HostKind,
    registry: Registry,
    renames: RenameLookup | None,
    ignore: frozenset[str] = frozenset(),
) -> tuple[str, list[Change], list[Held]]:
    entries = check_text(text, host, registry)
    changes, held = _fix_all(host, text, entries, registry, renames, ignore)
    if "TL602" not in ignore:  # the only safe set_logs fix: torch= -> all=
        changes += _call_changes(text, host, registry)
    if not changes:
        return text, [], held
    new_text = apply_text_edits(text, sorted((e for c in changes for e in c.edits), key=_start))
    wanted = {c.span.name_start: c.new for c in changes if c.span is not None}
    expected = [wanted.get(s.name_start, s.value) for s in hosts.extract(host, text)]
    if [s.value for s in hosts.extract(host, new_text)] != expected:
        return text, [], held
    if not keeps_line_ends(text, [e for c in changes for e in c.edits]):
        return text, [], held  # (each edit is verified on its own: never expected either)
    return new_text, changes, held


def _start(edit: TextEdit) -> int:
    return edit.start


def _call_changes(text: str, host: HostKind, registry: Registry) -> list[Change]:
    """The safe fixes of the ``set_logs(...)`` calls of ``text`` as changes."""
    if "set_logs" not in text:
        return []
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes

    try:
        fixes = call_fixes(host, text, registry, safe_only=True)
    except Exception:  # a bug here must not cost the value fixes
        log.exception("the set_logs fixes failed")
        return []
    index = LineIndex(text)
    return [
        Change(None, index.position(e.start)[0], text[e.start : e.end], e.new_text, (e,))
        for fix in fixes
        if fix.safe
        for e in fix.edits
    ]


@dataclass(frozen=True)
class FileFix:
    """Result of :func:`fix_file`: the file's text after fixing (``None`` when it was
    not read), the changes written, why the file was skipped (``None`` if it was not),
    and the values left alone because they are also read elsewhere (:func:`fix_text`)."""

    text: str | None
    changes: list[Change]
    skipped: str | None = None
    held: tuple[Held, ...] = ()


def fix_file(
    path: Path,
    host: HostKind,
    registry: Registry,
    write: bool = True,
    ignore: frozenset[str] = frozenset(),
) -> FileFix:
    """Apply fix-all to a file on disk and write it back when something changed.

    The file is read as bytes (a regular file of at most :data:`.files.MAX_FILE_BYTES`)
    and must be valid UTF-8 (a file with undecodable bytes is skipped, never rewritten);
    the new bytes equal the old ones outside the edited ranges (line endings, a BOM and
    the encoding are kept). ``write=False``: compute only. ``ignore``: codes whose fixes
    are skipped.

    Writing is atomic (:func:`.files.replace_file`): a temporary file in the same
    directory, with the file's owner, mode and extended attributes, renamed over it (a
    symlink's target is replaced). The file is left as it was, and ``skipped`` says why
    with no change reported, when the write fails (a full disk, a file-size limit, a
    permission, an extended attribute that cannot be kept), the file has more than one
    hard link, or it changed on disk after it was read, or it is read-only for the user running this
    (:func:`read_only`: root too is refused a file with no write bit, ``0444``; the
    rename would otherwise replace it). Never raises ``OSError``.
    """
    try:
        snapshot = read_snapshot(path, MAX_FILE_BYTES)
    except SkippedFile as exc:
        return FileFix(None, [], f"{_reason(exc)}; not fixed")
    try:
        text = snapshot.data.decode("utf-8")
    except UnicodeDecodeError:
        return FileFix(None, [], "not valid UTF-8; not fixed")
    new, changes, held_list = fix_text(text, host, registry, ignore=ignore)
    held = tuple(held_list)
    if changes and write and read_only(snapshot.mode, snapshot.uid, snapshot.gid):
        return FileFix(text, [], "read-only; not fixed", held)
    if changes and write:
        try:
            replace_file(path, new.encode("utf-8"), snapshot)
        except ChangedOnDisk:
            return FileFix(None, [], "changed on disk while being fixed; not fixed")
        except NotWritten as exc:
            return FileFix(text, [], f"{exc.reason}; the file is unchanged, not fixed", held)
    return FileFix(new, changes, None, held)


def read_only(mode: int, uid: int, gid: int) -> bool:
    """Whether a file of ``st_mode`` ``mode``, owner ``uid`` and group ``gid`` is
    read-only for this process by its mode bits: the owner's write bit for its owner,
    the group's for a member, the others' otherwise; for root (which ``access()`` lets
    write anything) any write bit. Where there are no uids (Windows): the owner's bit."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return not mode & stat.S_IWUSR
    euid = geteuid()
    if euid == 0:
        return not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    if uid == euid:
        return not mode & stat.S_IWUSR
    if gid == os.getegid() or gid in os.getgroups():
        return not mode & stat.S_IWGRP
    return not mode & stat.S_IWOTH


def _reason(exc: SkippedFile) -> str:
    if exc.error is not None:
        return f"cannot read ({exc.error.strerror or exc.error})"
    return exc.reason


__all__ = [
    "Change",
    "DocumentFix",
    "FileFix",
    "FixedText",
    "Held",
    "fix_all_edits",
    "fix_document",
    "fix_file",
    "fix_quotes",
    "fix_text",
    "kept_line_end",
    "quote_fixes",
    "read_only",
    "shared_reasons",
    "span_fixes",
]
