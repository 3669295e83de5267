"""Level syntax of other loggers in a TORCH_LOGS value: ``name:DEBUG``, ``name=debug``,
``name.DEBUG``, ``DEBUG`` alone, and switch words (``1``, ``true``, ``on``, ``verbose``).

torch has no level words: an item's level is its prefix (``+name`` DEBUG, ``name`` INFO,
``-name`` ERROR; ``torch/_logging/_internal.py``, 2.1-2.15), and a registered log that
is not named stays at WARNING (``_reset_logs``, 2.13.0). What torch does with each form,
checked on torch 2.13.0 (``tests/value/test_levels.py``): ``name:DEBUG``, ``name=debug``,
``dynamo=logging.DEBUG`` fail the grammar (ValueError); ``DEBUG``, ``1``, ``true``,
``on``, ``off`` are looked up as modules (ValueError when none is importable);
``torch._dynamo.DEBUG`` is a missing submodule (ValueError) and ``dynamo.DEBUG`` a
missing package (ModuleNotFoundError).

:func:`level_syntax` rewrites the findings of such items into :data:`LEVEL_SYNTAX`
(TL207: a level attached to a name) and :data:`LEVEL_WORD` (TL208: a level or switch
word as an item), keeping what the analysis found about torch's outcome;
:func:`level_fixes` gives their quick fixes. Offsets are code points into the decoded
value.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.knowledge.suggest import suggest
from torch_logs_lsp.model.diagnostic import (
    INVALID_MODULE_NAME,
    MODULE_NAME,
    MODULE_NOT_FOUND,
    UNKNOWN_NAME,
    Diagnostic,
    Severity,
)
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.parser import ILLEGAL_CHARACTER, Item, ParsedValue

LEVEL_SYNTAX = "TL207"
LEVEL_WORD = "TL208"

#: Level words of ``logging`` and other loggers (lower case) -> ``logging`` level.
LEVELS: dict[str, int] = {
    "debug": 10,
    "trace": 10,
    "info": 20,
    "warning": 30,
    "warn": 30,
    "error": 40,
    "critical": 50,
    "fatal": 50,
    "10": 10,
    "20": 20,
    "30": 30,
    "40": 40,
    "50": 50,
}
#: Words used as if TORCH_LOGS were an on/off switch (lower case) -> on.
SWITCHES: dict[str, bool] = {
    "1": True,
    "true": True,
    "on": True,
    "yes": True,
    "verbose": True,
    "enable": True,
    "enabled": True,
    "0": False,
    "false": False,
    "off": False,
    "no": False,
    "disable": False,
    "disabled": False,
}
_ATTACHED = re.compile(r"([\w.]+?)\s*[:=]\s*(?:logging\.)?(\w+)", re.IGNORECASE)
_PREFIX = {10: "+", 20: "", 40: "-"}
_LEGEND = "`+name` DEBUG, `name` INFO, `-name` ERROR"


@dataclass(frozen=True)
class _Advice:
    """What torch wants instead: ``why`` (a clause), and replacements
    ``(text, preferred, safe)`` best first."""

    why: str
    replacements: tuple[tuple[str, bool, bool], ...]


def _word(text: str) -> bool | int | None:
    """The level (int) or switch (bool) a word means, else ``None``."""
    low = text.lower()
    if low in LEVELS:
        return LEVELS[low]
    return SWITCHES.get(low)


def _advice(name: str, meant: bool | int, registry: Registry, exact_safe: bool) -> _Advice:
    """What to write for ``name`` at the level (or switch) ``meant``."""
    q = quote
    if registry.kind(name) == "artifact":
        if meant is True or meant in (10, 20):
            why = f"an artifact takes no level: {q(name)} enables it"
            return _Advice(why, ((name, True, exact_safe),))
        why = f"an artifact is on or off: leave {q(name)} out to keep it off"
        return _Advice(why, ())
    if meant is True:
        why = f"a level is a prefix, not a switch: {q(name)} (INFO) or {q('+' + name)} (DEBUG)"
        return _Advice(why, ((name, False, False), ("+" + name, False, False)))
    if meant is False or meant == 0:
        return _Advice(f"leave {q(name)} out to keep it at torch's default", ())
    if meant in _PREFIX:
        text = _PREFIX[int(meant)] + name
        return _Advice(f"write {q(text)}", ((text, True, exact_safe),))
    if meant == 30:
        why = (
            f"torch has no WARNING prefix (a registered log you do not name stays at "
            f"WARNING); the closest are {q(name)} (INFO) and {q('-' + name)} (ERROR)"
        )
        return _Advice(why, ((name, False, False), ("-" + name, False, False)))
    why = f"torch has no CRITICAL prefix; the closest is {q('-' + name)} (ERROR)"
    return _Advice(why, (("-" + name, True, False),))


def _attached(text: str) -> tuple[str, bool | int] | None:
    """``name:LEVEL`` / ``name=LEVEL`` (``logging.`` before the level allowed)."""
    m = _ATTACHED.fullmatch(text)
    if m is None:
        return None
    meant = _word(m.group(2))
    return None if meant is None else (m.group(1), meant)


def _dotted(text: str) -> tuple[str, int] | None:
    """``name.LEVEL`` with a level word (not a number or switch) as the last part."""
    rest, dot, last = text.rpartition(".")
    level = LEVELS.get(last.lower()) if dot and rest and not last.isdigit() else None
    return None if level is None else (rest, level)


def _outcome(status: str, name: str) -> str:
    if status == "not_found":
        return "torch rejects the value (ValueError) at import"
    if status in ("parent_missing", "parent_not_package"):
        return "torch raises ModuleNotFoundError at import"
    return f"torch looks {quote(name)} up as a module and fails at import unless it is importable"


def _better_name(name: str, registry: Registry, finder: ModuleFinder) -> tuple[str, ...]:
    """The registered name meant by an unregistered ``name`` that is not a module
    (``aot_autograd`` -> ``aot``), as TL201 would suggest it; ``()`` otherwise."""
    if registry.kind(name) is not None or "." in name or not name.isidentifier():
        return ()
    if finder.find_spec(name).status not in ("not_found", "unknown"):
        return ()
    return tuple(suggest(name, registry.known_tuple, limit=1, aliases=registry.aliases))


def _finding(
    parsed: ParsedValue, item: Item, registry: Registry, finder: ModuleFinder, prev: Item | None
) -> tuple[Diagnostic, frozenset[str]] | None:
    """The TL207/TL208 diagnostic of ``item`` and the codes it replaces on the item."""
    if not item.valid:
        hit = _attached(item.name)
        if hit is None:
            return None
        name, meant = hit
        better = _better_name(name, registry, finder)
        advice = _advice(better[0] if better else name, meant, registry, not better)
        why = advice.why
        if better:
            why = f"{quote(name)} is not a name either (did you mean {quote(better[0])}?); {why}"
        msg = (
            f"{quote(item.name)} is the level syntax of other loggers; torch sets a level "
            f"with a prefix ({_LEGEND}): {why}; torch rejects this value (ValueError) at import"
        )
        diag = Diagnostic(LEVEL_SYNTAX, Severity.ERROR, msg, item.start, item.end, better)
        return diag, frozenset({ILLEGAL_CHARACTER})
    dotted = _dotted(item.name)
    word = _word(item.name)
    if (dotted is None and word is None) or registry.kind(item.name) is not None:
        return None
    lookup = finder.find_spec(item.name)
    if lookup.status == "found":
        return None  # torch finds it as a module: a real name, whatever it looks like
    replaced = frozenset({UNKNOWN_NAME, MODULE_NAME, MODULE_NOT_FOUND, INVALID_MODULE_NAME})
    if dotted is not None:
        rest, level = dotted
        if registry.kind(rest) is None and finder.find_spec(rest).status != "found":
            return None
        advice = _advice(rest, level, registry, False)
        # as for TL204: an error only when the environment was named
        certain = lookup.status != "unknown" and finder.certain
        severity = Severity.ERROR if certain else Severity.WARNING
        msg = (
            f"{quote(item.name)} puts a level after a dot, as other loggers do; torch sets "
            f"a level with a prefix ({_LEGEND}): {advice.why}; "
            + _outcome(lookup.status, item.name)
        )
        return Diagnostic(LEVEL_SYNTAX, severity, msg, item.start, item.end), replaced
    if word is None:
        return None
    meant = word
    # as for TL201: certain only for a name that cannot be a module or is not one
    certain = not item.name.isidentifier() or (lookup.status == "not_found" and finder.certain)
    severity = Severity.ERROR if certain else Severity.WARNING
    outcome = _outcome("not_found" if lookup.status != "unknown" else "unknown", item.name)
    start = item.start
    if prev is not None and prev.valid and _word(prev.name) is None and meant not in (False, 0):
        advice = _advice(prev.name, meant, registry, False)
        msg = (
            f"{quote(item.name)} is {'a switch' if meant is True else 'a level'}, not a "
            f"name; torch sets the level of "
            f"{quote(prev.name)} with a prefix ({_LEGEND}): {advice.why}; {outcome}"
        )
        start = prev.start
    elif meant is False or meant == 0:
        msg = (
            f"{quote(item.name)}: TORCH_LOGS is not an on/off switch; to leave torch's logs "
            f"at their default (WARNING), unset TORCH_LOGS; {outcome}"
        )
    else:
        what = "a switch" if isinstance(meant, bool) else "a level for everything"
        msg = (
            f"{quote(item.name)}: TORCH_LOGS is a list of names, not {what}; name what to "
            f"log with its level as a prefix ({_LEGEND}; `all` is every log); {outcome}"
        )
    return Diagnostic(LEVEL_WORD, severity, msg, start, item.end), replaced


def level_syntax(
    parsed: ParsedValue,
    registry: Registry,
    finder: ModuleFinder,
    diagnostics: list[Diagnostic],
) -> list[Diagnostic]:
    """``diagnostics`` with the findings of items written in another logger's level
    syntax replaced by one TL207/TL208 each (see the module docstring); unchanged when
    no item is. Only the item's own syntax or name findings are replaced, so torch's
    outcome is still what the analysis found. O(items + diagnostics log items)."""
    found: dict[int, tuple[Diagnostic, frozenset[str]]] = {}
    prev: Item | None = None
    for item in parsed.items:
        hit = _finding(parsed, item, registry, finder, prev)
        if hit is not None:
            found[item.index] = hit
        prev = item
    if not found:
        return diagnostics
    starts = [i.start for i in parsed.items]
    out: list[Diagnostic] = []
    for d in diagnostics:
        k = bisect.bisect_right(starts, d.start) - 1
        hit = found.get(parsed.items[k].index) if k >= 0 else None
        if hit is not None and d.code in hit[1] and d.end <= parsed.items[k].end:
            continue
        out.append(d)
    out += [d for d, _ in found.values()]
    return out


def level_fixes(text: str, d: Diagnostic, registry: Registry) -> list[tuple[str, str, bool, bool]]:
    """Quick fixes of a TL207/TL208 diagnostic as ``(title, replacement of
    text[d.start:d.end], preferred, safe)``. A level attached with ``:``/``=`` that
    torch has exactly (DEBUG, INFO, ERROR) is safe; other guesses are offered only."""
    span = text[d.start : d.end]
    body = span.lstrip("+-")
    meant: bool | int | None
    if d.code == LEVEL_SYNTAX:
        hit = _attached(body)
        if hit is not None:
            name, meant = hit
            if d.suggestions:  # the name is not registered either: safe only up to case
                same = d.suggestions[0].lower() == name.lower()
                advice = _advice(d.suggestions[0], meant, registry, same)
            else:
                advice = _advice(name, meant, registry, True)
        else:
            dotted = _dotted(body)
            if dotted is None:
                return []
            advice = _advice(dotted[0], dotted[1], registry, False)
    elif d.code == LEVEL_WORD:
        head, comma, word = span.rpartition(",")
        meant = _word(word.strip().lstrip("+-"))
        if meant is None:
            return []
        if comma:
            advice = _advice(head.strip().lstrip("+-"), meant, registry, False)
        elif meant is True:
            advice = _Advice("", (("all", False, False),))
        elif meant in _PREFIX:
            advice = _Advice("", ((_PREFIX[int(meant)] + "all", False, False),))
        else:
            return []
    else:
        return []
    return [(f"Change to {quote(r)}", r, p, s) for r, p, s in advice.replacements]


__all__ = ["LEVELS", "LEVEL_SYNTAX", "LEVEL_WORD", "SWITCHES", "level_fixes", "level_syntax"]
