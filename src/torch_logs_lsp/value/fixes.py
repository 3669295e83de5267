"""Fixes for a TORCH_LOGS value, as edits on the **decoded value** (no host, no LSP).

Every offset in this module is a code point index into the decoded value (the string the
process sees, ``ValueSpan.value``), like the offsets of :mod:`.analysis`. Turning a new
value into document edits that keep the host's quoting valid is the job of
:mod:`.hosts.edits`; :mod:`.fixer` combines both for a document.

A :class:`Fix` is tied to the diagnostics it resolves. ``safe`` fixes are the ones
``source.fixAll`` and ``torch-logs check --fix`` apply: they never guess between several
names and never change what torch does with a value it already accepts:

========  ===============================================================  =====
code      fix                                                              safe
========  ===============================================================  =====
TL101-4   remove the whitespace, the empty item, the trailing comma        yes
TL105     remove the extra prefix characters                               yes
TL106     ``;``, ``|`` or whitespace between names -> a comma; stray quote  yes
          removed; a name with a suggestion -> "Change to ..." (see TL201)
TL107     remove the quotes around the value                               yes
TL201     "Change to `x`" per suggestion; safe (and preferred) only when   one
TL205     exactly one suggestion equals the name up to case and ``-``/``_``
TL206     "Rename `old` to `new`" (its first suggestion, or the hook)      yes
TL207/8   "Change to `+name`" for a foreign level (``name:DEBUG``); safe  some
          for ``:``/``=`` with DEBUG, INFO or ERROR (see :mod:`.levels`)
TL301     remove the ignored prefix                                        yes
TL302     remove the earlier item (the later one wins; behaviour unchanged) yes
TL303     remove the overridden earlier item (which level is the user's)    no
TL001/2   remove the assignment (a host edit, see :mod:`.fixer`)            no
========  ===============================================================  =====

Refactors (never safe): "Also enable `output_code`" after a component item, from
:data:`COMPANIONS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.value.analysis import (
    CONFLICTING_ITEMS,
    DUPLICATE_ITEM,
    NOT_IN_RELEASE,
    PREFIX_IGNORED,
    RENAMED_NAME,
    UNKNOWN_NAME,
    Analysis,
    Diagnostic,
    analyse,
    level_of,
)
from torch_logs_lsp.value.edits import (
    ItemIndex,
    ValueChanges,
    ValueEdit,
    apply_edits,
    non_overlapping,
)
from torch_logs_lsp.value.levels import LEVEL_SYNTAX, LEVEL_WORD, level_fixes
from torch_logs_lsp.value.parser import (
    DOUBLED_PREFIX,
    EMPTY_ITEM,
    ILLEGAL_CHARACTER,
    LEADING_TRAILING_WHITESPACE,
    QUOTED_VALUE,
    QUOTES,
    TRAILING_COMMA,
    WHITESPACE_BEFORE_COMMA,
    Item,
    ParsedValue,
)

QUICKFIX = "quickfix"
REFACTOR = "refactor.rewrite"

#: Hook for the version-aware registry: maps a name that the user's torch no longer (or
#: not yet) registers to its replacement (``dist_ddp`` -> ``ddp``), else ``None``. A
#: rename is a safe, preferred fix of every diagnostic on that item's name.
RenameLookup = Callable[[str], "str | None"]

#: Off-by-default (or DEBUG-only) artifacts a user enabling a component usually wants
#: too; offered as the refactor "Also enable `artifact`". An artifact that is not
#: off-by-default is offered only when the component item is not ``+`` (DEBUG already
#: shows it), and only when the registry has it and the value does not name it.
COMPANIONS: dict[str, tuple[str, ...]] = {
    "inductor": ("output_code",),
    "dynamo": ("graph_breaks", "recompiles", "verbose_guards"),
    "aot": ("aot_graphs",),
    "dynamic": ("recompiles",),
}

_SEPARATORS = re.compile(r"[\s;|]")
#: What a name ends with / what an item starts with (its prefix or its first character).
_NAME_END = re.compile(r"[\w.]")
_NAME_START = re.compile(r"[\w.+\-]")
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Fix:
    """One fix of a value: ``title`` (shown to the user), ``kind`` (:data:`QUICKFIX` or
    :data:`REFACTOR`), the ``diagnostics`` it resolves (empty for refactors), ``edits``
    (non-overlapping, sorted, offsets into the decoded value), ``preferred`` (the one
    clear best fix of its diagnostics) and ``safe`` (part of fix-all)."""

    title: str
    kind: str
    diagnostics: tuple[Diagnostic, ...]
    edits: tuple[ValueEdit, ...]
    preferred: bool = False
    safe: bool = False
    #: For a refactor (no diagnostics): the value range ``[start, end)`` it is offered on.
    anchor: tuple[int, int] | None = None

    @property
    def codes(self) -> frozenset[str]:
        """The codes of the diagnostics this fix resolves."""
        return frozenset(d.code for d in self.diagnostics)


def remove_item(parsed: ParsedValue, item: Item) -> ValueEdit | None:
    """The edit removing ``item`` with one comma and the whitespace around it; ``None``
    when it is the only item (the value would become empty, which crashes torch)."""
    text, lo, hi = parsed.text, parsed.inner_start, parsed.inner_end
    j = item.end
    while j < hi and _SPACE.match(text[j]):
        j += 1
    if j < hi and text[j] == ",":
        j += 1
        while j < hi and _SPACE.match(text[j]):
            j += 1
        return ValueEdit(item.start, j, "")
    k = item.start - 1
    while k >= lo and _SPACE.match(text[k]):
        k -= 1
    if k >= lo and text[k] == ",":
        while k > lo and _SPACE.match(text[k - 1]):
            k -= 1
        return ValueEdit(k, item.end, "")
    return None


def _clear_best(name: str, suggestions: tuple[str, ...]) -> str | None:
    """The single suggestion equal to ``name`` up to case and ``-``/``_``, if any."""
    norm = name.lower().replace("-", "_")
    hits = [s for s in suggestions if s.lower() == norm]
    return hits[0] if len(hits) == 1 else None


def _separator_fix(items: ItemIndex, item: Item, d: Diagnostic) -> Fix:
    """``dynamo; aot`` -> ``dynamo,aot``: the run of separator characters around the
    diagnostic becomes one comma (or is removed at the start or end of the name). The run
    is looked up in ``items`` (O(log n); a run of n separators has n diagnostics)."""
    s, e = d.start, d.end
    before = items.separator_run(s - 1) if s > item.name_start else None
    if before is not None:
        s = max(before[0], item.name_start)
    after = items.separator_run(e) if e < item.end else None
    if after is not None:
        e = min(after[1], item.end)
    if s == item.name_start or e == item.end:
        return Fix("Remove the separator", QUICKFIX, (d,), (ValueEdit(s, e, ""),), safe=True)
    # Safe (fix-all) only between two names: `dynamo guards # c` must not become the
    # "fixed" `dynamo,guards,#,c`; the quick fix is still offered there.
    text = items.text
    names = _NAME_END.match(text[s - 1]) is not None and _NAME_START.match(text[e]) is not None
    title = "Separate items with a comma"
    return Fix(title, QUICKFIX, (d,), (ValueEdit(s, e, ","),), safe=names)


def _diagnostic_fixes(
    analysis: Analysis,
    items: ItemIndex,
    d: Diagnostic,
    renames: RenameLookup | None,
    registry: Registry | None = None,
) -> list[Fix]:
    parsed, text = analysis.parsed, analysis.value
    item = items.at(d.start, d.end)
    out: list[Fix] = []
    code = d.code
    delete = (ValueEdit(d.start, d.end, ""),)
    if code == LEADING_TRAILING_WHITESPACE and parsed.items:
        out.append(Fix("Remove the whitespace", QUICKFIX, (d,), delete, safe=True))
    elif code == WHITESPACE_BEFORE_COMMA:
        out.append(Fix("Remove whitespace before the comma", QUICKFIX, (d,), delete, safe=True))
    elif code == TRAILING_COMMA:
        out.append(Fix("Remove the trailing comma", QUICKFIX, (d,), delete, safe=True))
    elif code == EMPTY_ITEM:
        if item is not None:  # a prefix with no name: remove the whole item
            edit = remove_item(parsed, item)
            if edit is not None:
                out.append(Fix("Remove the empty item", QUICKFIX, (d,), (edit,), safe=True))
        else:
            out.append(Fix("Remove the empty item", QUICKFIX, (d,), delete, safe=True))
    elif code == DOUBLED_PREFIX:
        extra = text[d.start : d.end]
        out.append(Fix(f"Remove the extra {quote(extra)}", QUICKFIX, (d,), delete, safe=True))
    elif code == QUOTED_VALUE:
        inner = text[parsed.inner_start : parsed.inner_end]
        if inner.strip():
            edits = (ValueEdit(0, 1, ""), ValueEdit(len(text) - 1, len(text), ""))
            title = "Remove the quotes around the value"
            out.append(Fix(title, QUICKFIX, (d,), edits, preferred=True, safe=True))
    elif code == ILLEGAL_CHARACTER and item is not None:
        ch = text[d.start]
        if _SEPARATORS.match(ch):
            out.append(_separator_fix(items, item, d))
        elif ch in QUOTES:
            out.append(Fix("Remove the stray quote", QUICKFIX, (d,), delete, safe=True))
    elif code == PREFIX_IGNORED:
        title = f"Remove the ignored {quote(text[d.start : d.end])}"
        out.append(Fix(title, QUICKFIX, (d,), delete, preferred=True, safe=True))
    elif code == DUPLICATE_ITEM and item is not None:
        earlier = items.earlier.get(item.index)
        if earlier is not None:
            edit = remove_item(parsed, earlier)
            if edit is not None:
                title = f"Remove the duplicate {quote(earlier.text)} (item {earlier.index + 1})"
                out.append(Fix(title, QUICKFIX, (d,), (edit,), preferred=True, safe=True))
    elif code == CONFLICTING_ITEMS and item is not None:
        edit = remove_item(parsed, item)
        if edit is not None:
            title = f"Remove {quote(item.text)} (a later item overrides it)"
            # Offered, not in fix-all: which level the user meant is theirs to choose
            # (`+dynamo,Dynamo` must not silently become `dynamo`).
            out.append(Fix(title, QUICKFIX, (d,), (edit,), preferred=True, safe=False))
    elif code in (LEVEL_SYNTAX, LEVEL_WORD) and registry is not None:
        for title, new, preferred, safe in level_fixes(text, d, registry):
            one = (ValueEdit(d.start, d.end, new),)
            out.append(Fix(title, QUICKFIX, (d,), one, preferred, safe))
    if (
        item is not None
        and code in (UNKNOWN_NAME, ILLEGAL_CHARACTER, NOT_IN_RELEASE, RENAMED_NAME)
        and (d.suggestions or renames is not None)
        and not items.has_separator(item)  # `dynamo;aot` -> `dynamo` would drop `aot`
    ):
        out += _name_fixes(item, d, renames)
    return out


def _name_fixes(item: Item, d: Diagnostic, renames: RenameLookup | None) -> list[Fix]:
    """Fixes "Change to `x`", one per suggestion; a rename from the hook comes first."""
    span = (item.name_start, item.end)
    renamed = renames(item.name) if renames is not None else None
    if renamed is None and d.code == RENAMED_NAME and d.suggestions:
        renamed = d.suggestions[0]  # TL206 names the replacement first
    best = renamed or _clear_best(item.name, d.suggestions)
    out: list[Fix] = []
    if renamed:
        title = f"Rename {quote(item.name)} to {quote(renamed)}"
        out.append(Fix(title, QUICKFIX, (d,), (ValueEdit(*span, renamed),), True, True))
    for s in d.suggestions:
        if s == renamed:
            continue
        preferred = s == best
        edit = (ValueEdit(*span, s),)
        out.append(Fix(f"Change to {quote(s)}", QUICKFIX, (d,), edit, preferred, preferred))
    return out


def _companion_fixes(analysis: Analysis, registry: Registry) -> list[Fix]:
    named = {i.name for i in analysis.parsed.items}
    out: list[Fix] = []
    for item in analysis.parsed.items:
        if not item.valid or registry.kind(item.name) != "component":
            continue
        debug = level_of(item.prefix) == 10
        for artifact in COMPANIONS.get(item.name, ()):
            info = registry.artifacts.get(artifact)
            if info is None or artifact in named or (debug and not info.off_by_default):
                continue
            edit = ValueEdit(item.end, item.end, "," + artifact)
            anchor = (item.start, item.end)
            out.append(Fix(f"Also enable {quote(artifact)}", REFACTOR, (), (edit,), anchor=anchor))
            named.add(artifact)
    return out


def _merge(fixes: list[Fix]) -> list[Fix]:
    """One fix per (kind, edits): the same edit for several diagnostics is one fix tied
    to all of them (``ab;;cd`` has one diagnostic per run of characters). Linear in the
    number of fixes and diagnostics (a run of 100,000 spaces gives that many)."""
    merged: dict[tuple[str, tuple[ValueEdit, ...]], Fix] = {}
    diags: dict[tuple[str, tuple[ValueEdit, ...]], dict[Diagnostic, None]] = {}
    for f in fixes:
        key = (f.kind, f.edits)
        old = merged.get(key)
        if old is None:
            merged[key] = f
            diags[key] = dict.fromkeys(f.diagnostics)
            continue
        diags[key].update(dict.fromkeys(f.diagnostics))
        preferred, safe = old.preferred or f.preferred, old.safe or f.safe
        merged[key] = Fix(old.title, old.kind, (), old.edits, preferred, safe, old.anchor)
    return [replace(f, diagnostics=tuple(diags[key])) for key, f in merged.items()]


def value_fixes(
    analysis: Analysis,
    registry: Registry,
    renames: RenameLookup | None = None,
    every: bool = False,
) -> list[Fix]:
    """Every fix and refactor for an analysed value, in diagnostic order: of its shown
    diagnostics (at most :data:`.limits.MAX_DIAGNOSTICS`), or of every one, hidden ones
    included, with ``every`` (fix-all).

    Fixes that would leave the value empty or unchanged are dropped. Near-linear in the
    value's length and number of diagnostics. Never raises.
    """
    if analysis.value == "" or analysis.outcome == "help":
        return []  # TL001/TL002: only the host can remove the assignment (see fixer)
    items = ItemIndex(analysis.parsed)
    fixes: list[Fix] = []
    for d in analysis.every_diagnostic if every else analysis.diagnostics:
        fixes += _diagnostic_fixes(analysis, items, d, renames, registry)
    fixes += _companion_fixes(analysis, registry)
    changes = ValueChanges(analysis.value)
    return [f for f in _merge(fixes) if changes.keeps_a_value(f.edits)]


def fix_all_value(
    value: str,
    registry: Registry,
    renames: RenameLookup | None = None,
    ignore: frozenset[str] = frozenset(),
    runs_on: str = "posix",
) -> str:
    """Apply every safe fix until none is left; return the new decoded value.

    ``runs_on``: where the value is read (see :func:`.analysis.analyse`).

    Fixes are applied in rounds (one value is re-analysed after each round, like ruff's
    fix loop); a fix whose diagnostics all have codes in ``ignore`` (turned off by the
    user) is skipped. The result is never empty; the empty value and ``help`` are
    returned unchanged. Never raises.
    """
    for _ in range(len(value) + 2):  # each round removes a problem; bounded anyway
        analysis = analyse(value, registry, runs_on=runs_on)
        fixes = value_fixes(analysis, registry, renames, every=True)
        safe = [f for f in fixes if f.safe and not f.codes <= ignore]
        edits = non_overlapping(
            f.edits for f in sorted(safe, key=lambda f: (f.edits[0].start, f.edits[-1].end))
        )
        if not edits:
            break
        new = apply_edits(value, edits)
        if not new.strip() or new == value:
            break
        value = new
    return value


__all__ = [
    "COMPANIONS",
    "QUICKFIX",
    "REFACTOR",
    "Fix",
    "RenameLookup",
    "ValueEdit",
    "apply_edits",
    "fix_all_value",
    "remove_item",
    "value_fixes",
]
