"""Analysis of a TORCH_LOGS value: diagnostics with stable codes and the effective
configuration torch would build.

Follows ``torch/_logging/_internal.py`` ``_parse_log_settings`` (torch 2.15 rules, same
code in 2.13.0, checked against it by the differential tests): the empty value crashes
``import torch``; ``help``/``+help`` raise with the help text; a value failing the grammar
raises ``ValueError``; then items are applied left to right: ``all`` means the ``torch``
log, a component sets each of its loggers to the item's level (``+`` DEBUG, bare INFO,
``-`` ERROR; a later item overwrites an earlier one), an artifact is enabled (its prefix
is ignored), anything else is looked up as a module with ``importlib.util.find_spec``.
All offsets are code points into the decoded value.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Literal

from torch_logs_lsp.knowledge.registry import Registry, load_registry
from torch_logs_lsp.knowledge.suggest import Suggestions
from torch_logs_lsp.knowledge.versions import holds, release_verdict
from torch_logs_lsp.model.diagnostic import (
    CONFLICTING_ITEMS,
    DUPLICATE_ITEM,
    EMPTY_VALUE,
    HELP,
    INVALID_MODULE_NAME,
    MODULE_NAME,
    MODULE_NOT_FOUND,
    MORE_PROBLEMS,
    NOT_IN_RELEASE,
    OVERLAPPING_LOGGERS,
    PREFIX_IGNORED,
    RENAMED_NAME,
    UNKNOWN_NAME,
    Diagnostic,
    Severity,
    capped,
)
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.torch_env.context import fallback_finder
from torch_logs_lsp.torch_env.modules import ModuleFinder, Spec
from torch_logs_lsp.value.levels import level_syntax
from torch_logs_lsp.value.parser import (
    EMPTY_ITEM,
    ILLEGAL_CHARACTER,
    QUOTED_VALUE,
    Item,
    ParsedValue,
    outer_quotes,
    parse_value,
)

Outcome = Literal["ok", "invalid", "help", "module_not_found", "crash"]

LEVEL_NAMES = {logging.DEBUG: "DEBUG", logging.INFO: "INFO", logging.ERROR: "ERROR"}


@dataclass(frozen=True)
class EffectiveConfiguration:
    """What torch's ``LogState`` would hold: ``logs`` maps qualified logger names to
    ``logging`` levels (10 DEBUG, 20 INFO, 40 ERROR), in the order torch inserts them;
    ``artifacts`` are the enabled artifact names in order; ``modules`` the item names
    torch would look up as modules (with their level in ``logs``)."""

    logs: dict[str, int] = field(default_factory=dict)
    artifacts: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """Everything known about one value.

    ``outcome``: what ``import torch`` does with it: ``"ok"``, ``"invalid"``
    (``ValueError``), ``"help"`` (raises with the help text), ``"module_not_found"``
    (``ModuleNotFoundError``/``ImportError`` from ``find_spec``), ``"crash"``
    (``AttributeError``, the empty value). ``config`` is ``None`` unless the outcome is
    ``"ok"``. At most :data:`.limits.MAX_DIAGNOSTICS` diagnostics (and a summary) are in
    ``diagnostics``; see ``hidden``.
    """

    value: str
    release: str
    parsed: ParsedValue
    diagnostics: tuple[Diagnostic, ...]
    outcome: Outcome
    config: EffectiveConfiguration | None
    #: Diagnostics past the first :data:`.limits.MAX_DIAGNOSTICS` (in position order):
    #: not in ``diagnostics``, which ends with one ``TL901`` summary of them instead.
    hidden: tuple[Diagnostic, ...] = ()

    @property
    def every_diagnostic(self) -> tuple[Diagnostic, ...]:
        """Every finding, shown or hidden, in position order, without the ``TL901``
        summary: what fix-all works through."""
        if not self.hidden:
            return self.diagnostics
        return (*(d for d in self.diagnostics if d.code != MORE_PROBLEMS), *self.hidden)


def level_of(prefix: str) -> int:
    """The ``logging`` level an item prefix gives: ``+`` DEBUG, ``-`` ERROR, none INFO."""
    return {"+": logging.DEBUG, "-": logging.ERROR}.get(prefix, logging.INFO)


def _syntax_diagnostics(parsed: ParsedValue, registry: Registry) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    suggestions_for = Suggestions(registry.known_tuple, registry.aliases)
    for p in parsed.problems:
        suggestions: tuple[str, ...] = ()
        if p.code == ILLEGAL_CHARACTER and p.item is not None:
            suggestions = suggestions_for(parsed.items[p.item].name)
        message = p.message
        if suggestions:
            message += "; did you mean " + " or ".join(quote(s) for s in suggestions) + "?"
        out.append(Diagnostic(p.code, Severity.ERROR, message, p.start, p.end, suggestions))
    if not out:  # the regex disagrees with our scanner: never hide torch's verdict
        out.append(
            Diagnostic(
                ILLEGAL_CHARACTER, Severity.ERROR, "torch rejects this value", 0, len(parsed.text)
            )
        )
    return out


def _quoted_value(
    diagnostics: list[Diagnostic], runs_on: str, strips: bool, registry: Registry
) -> list[Diagnostic]:
    """The TL107 findings of a quoted value said for where it runs: a warning on
    ``"any"`` from 2.9 (only Linux and macOS reject it), the release on ``"windows"``
    before 2.9."""
    if runs_on == "posix" or not any(d.code == QUOTED_VALUE for d in diagnostics):
        return diagnostics
    if runs_on == "any" and strips:
        msg = (
            "the value is wrapped in quotes that are part of the value: torch rejects it "
            f"on Linux and macOS; on Windows torch {registry.release} strips one pair"
        )
        severity = Severity.WARNING
    elif runs_on == "windows" and not strips:
        msg = (
            "the value is wrapped in quotes that are part of the value: torch "
            f"{registry.release} rejects it on Windows too (it strips one pair from 2.9)"
        )
        severity = Severity.ERROR
    else:
        return diagnostics
    return [
        replace(d, message=msg, severity=severity) if d.code == QUOTED_VALUE else d
        for d in diagnostics
    ]


def quotes_before_2_9(value: str, registry: Registry) -> Diagnostic | None:
    """For a value a Windows process reads (a batch file's) checked against ``registry``
    only because nothing named the user's release: TL107 as an information over
    ``value`` when it is wrapped in one pair of quotes, saying what each release does
    (2.9+ strips the pair on Windows, ``process_env_var_string_for_windows``; 2.1-2.8 keep
    the quotes in the value and reject it); ``None`` otherwise or when ``registry``'s
    release does not strip them (then the analysis already says so)."""
    if not outer_quotes(value) or not holds("windows_outer_quotes", registry.release):
        return None
    return Diagnostic(
        QUOTED_VALUE,
        Severity.INFORMATION,
        f"the value is wrapped in quotes: on Windows torch 2.9 and later strip one pair "
        f"(checked so, against torch {registry.release}: no torch was found), but torch "
        "2.1-2.8 keep them in the value and reject it; name the release to check it "
        "exactly (--python, --torch-version or a pin comment), or remove the quotes",
        0,
        len(value),
    )


def _name_diagnostic(
    item: Item, registry: Registry, finder: ModuleFinder, suggestions_for: Suggestions
) -> tuple[Diagnostic, Outcome, Spec | None]:
    """Diagnostic for an item whose name is not registered, torch's outcome for it, and
    the module spec when torch would find it as a module (see :mod:`.modules`)."""
    name, start, end = item.name, item.name_start, item.end
    verdict = release_verdict(name, registry.release, registry.known_set)
    if verdict is not None:
        diag = Diagnostic(
            verdict.code, Severity.ERROR, verdict.message, start, end, verdict.suggestions
        )
        return diag, "invalid", None
    lookup = finder.find_spec(name)
    where = finder.description or "the environment"
    missing_severity = Severity.ERROR if finder.certain else Severity.WARNING
    parts = name.split(".")
    if lookup.status == "relative":
        msg = f"{quote(name)} is a relative module name: torch raises ImportError at import"
        return (
            Diagnostic(INVALID_MODULE_NAME, Severity.ERROR, msg, start, end),
            ("module_not_found"),
            None,
        )
    if "." in name and "" in parts:
        msg = f"{quote(name)} is not a valid module name (empty part between dots): torch " + (
            "rejects the value (ValueError) at import"
            if lookup.status == "not_found"
            else "raises ModuleNotFoundError at import"
        )
        outcome: Outcome = "invalid" if lookup.status == "not_found" else "module_not_found"
        return Diagnostic(INVALID_MODULE_NAME, Severity.ERROR, msg, start, end), outcome, None
    if lookup.status == "found" and lookup.spec is not None:
        spec = lookup.spec
        origin = f" ({spec.kind}: {spec.origin})" if spec.origin else f" ({spec.kind})"
        msg = f"{quote(name)} is not a registered name: torch treats it as a module name{origin}"
        return Diagnostic(MODULE_NAME, Severity.HINT, msg, start, end), "ok", spec
    if lookup.status in ("parent_missing", "parent_not_package"):
        why = lookup.parent_problem(where)
        msg = f"{quote(name)}: {why}: torch will raise ModuleNotFoundError at import"
        return (
            Diagnostic(MODULE_NOT_FOUND, missing_severity, msg, start, end),
            ("module_not_found"),
            None,
        )
    if lookup.status == "not_found" and "." in name:
        parent, _, last = name.rpartition(".")
        msg = (
            f"{quote(name)} is not a module: no {quote(last)} in package {quote(parent)} "
            f"({where}); torch rejects the value (ValueError) at import"
        )
        return Diagnostic(MODULE_NOT_FOUND, missing_severity, msg, start, end), "invalid", None
    if lookup.status == "unknown" and "." in name:
        msg = (
            f"{quote(name)} is not a registered name: torch treats it as a module name and "
            "raises ModuleNotFoundError at import if it cannot find it"
        )
        return Diagnostic(MODULE_NAME, Severity.HINT, msg, start, end), "ok", None
    found = suggestions_for(name)
    msg = f"unknown name {quote(name)}: not a component or artifact of torch {registry.release}"
    if lookup.status == "not_found":
        msg += f", nor a module in {where}"
    if found:
        msg += "; did you mean " + " or ".join(quote(s) for s in found) + "?"
        severity = Severity.ERROR
    elif not name.isidentifier():
        severity = Severity.ERROR
    elif lookup.status == "not_found":
        severity = missing_severity
    else:
        msg += " (torch accepts it only if it is an importable module)"
        severity = Severity.WARNING
    return Diagnostic(UNKNOWN_NAME, severity, msg, start, end, found), "invalid", None


def _has_registered_parent(
    name: str, registry: Registry, aliases: set[str], alias_lengths: set[int]
) -> bool:
    """torch's ``_has_registered_parent``: ``name`` or a parent logger is registered
    (``aliases``: modules registered as logs of their own so far, ``alias_lengths``: their
    lengths). Only prefixes as long as some registered name are sliced (a parent ends at
    a dot), so a 100 KB dotted name costs O(n), not O(n * parts)."""
    if name in registry.logger_names or name in aliases:
        return True
    lengths = registry.logger_name_lengths | alias_lengths
    return any(
        n < len(name)
        and name[n] == "."
        and (name[:n] in registry.logger_names or name[:n] in aliases)
        for n in lengths
    )


def _level_word(level: int) -> str:
    return LEVEL_NAMES.get(level, str(level))


def _duplicate_diagnostics(
    items: tuple[Item, ...], registry: Registry, module_items: set[int]
) -> list[Diagnostic]:
    """Warnings for repeated names and for items whose loggers a later item overrides."""
    out: list[Diagnostic] = []
    seen: dict[str, Item] = {}
    owner: dict[str, Item] = {}  # qualified logger -> last item that set it
    for item in items:
        if not item.valid:
            continue
        kind = registry.kind(item.name)
        prev = seen.get(item.name)
        if prev is not None:
            same = kind == "artifact" or prev.prefix == item.prefix
            if same:
                msg = f"{quote(item.text)} is already listed (item {prev.index + 1}); remove one"
                out.append(Diagnostic(DUPLICATE_ITEM, Severity.WARNING, msg, item.start, item.end))
            else:
                level = _level_word(level_of(item.prefix))
                msg = (
                    f"{quote(prev.text)} is overridden by {quote(item.text)} later in the value: "
                    f"the last one wins, so {quote(item.name)} logs at {level}"
                )
                out.append(
                    Diagnostic(CONFLICTING_ITEMS, Severity.WARNING, msg, prev.start, prev.end)
                )
        seen[item.name] = item
        qnames = registry.qnames_for(item.name)
        if item.index in module_items:
            qnames = (item.name,)
        overridden: dict[int, list[str]] = {}
        for q in qnames:
            before = owner.get(q)
            if (
                before is not None
                and before.name != item.name
                and level_of(before.prefix) != level_of(item.prefix)
            ):
                overridden.setdefault(before.index, []).append(q)
            owner[q] = item
        for idx, lost in overridden.items():
            before = items[idx]
            shown = quote(lost[0]) + (f" and {len(lost) - 1} more" if len(lost) > 1 else "")
            msg = (
                f"{quote(item.text)} later sets {shown} to {_level_word(level_of(item.prefix))}, "
                f"overriding {_level_word(level_of(before.prefix))} from {quote(before.text)}"
            )
            out.append(
                Diagnostic(OVERLAPPING_LOGGERS, Severity.INFORMATION, msg, before.start, before.end)
            )
    return out


def with_diagnostic(analysis: Analysis, diagnostic: Diagnostic) -> Analysis:
    """A copy of ``analysis`` with ``diagnostic`` added after its own."""
    return replace(analysis, diagnostics=(*analysis.diagnostics, diagnostic))


#: Where the process reading a value runs (a host's ``RUNS_ON``): decides torch's reading
#: of a value wrapped in one pair of quotes (see :func:`analyse`).
RunsOn = Literal["posix", "windows", "any"]


def analyse(
    value: str,
    registry: Registry | None = None,
    finder: ModuleFinder | None = None,
    runs_on: str = "posix",
) -> Analysis:
    """Analyse a decoded TORCH_LOGS value against ``registry`` (default: newest packaged),
    resolving module names with ``finder`` (default: no environment; our standard
    library and the packaged torch module list, verdicts on other names unknown).

    ``runs_on`` (:data:`RunsOn`, a host's ``RUNS_ON``): on ``"windows"`` torch 2.9+ strips
    one pair of outer quotes before parsing (``process_env_var_string_for_windows``,
    ``torch/_logging/_internal.py`` 2.13.0), so the items are read between them; on
    ``"any"`` (Windows or not) such quotes are a warning, not an error, from 2.9; on
    ``"posix"`` (and before 2.9 everywhere) they are part of the value. Offsets stay
    code points into ``value``.

    Returns diagnostics sorted by position and torch's outcome. Never raises.
    """
    reg = registry or load_registry()
    finder = finder or fallback_finder()
    strips = holds("windows_outer_quotes", reg.release)
    stripped = runs_on == "windows" and strips and outer_quotes(value)
    parsed = parse_value(value, strip_outer=stripped)
    seen = value[1:-1] if stripped else value  # what torch parses
    if seen == "":
        msg = (
            "empty TORCH_LOGS: `import torch` crashes with AttributeError "
            "(every release 2.1-2.15); remove the variable instead"
        )
        if stripped:
            msg = (
                f"empty TORCH_LOGS once Windows strips the quotes (torch {reg.release}): "
                "`import torch` crashes with AttributeError; remove the variable instead"
            )
        diag = Diagnostic(EMPTY_VALUE, Severity.ERROR, msg, 0, len(value))
        return Analysis(value, reg.release, parsed, (diag,), "crash", None)
    if seen in ("help", "+help"):
        which = "all names" if seen == "+help" else "the visible names"
        msg = f"{quote(seen)} makes `import torch` raise and print {which}; nothing else runs"
        diag = Diagnostic(HELP, Severity.ERROR, msg, 0, len(value))
        return Analysis(value, reg.release, parsed, (diag,), "help", None)

    diagnostics: list[Diagnostic] = []
    outcome: Outcome = "ok"
    if not parsed.valid:
        diagnostics += _quoted_value(_syntax_diagnostics(parsed, reg), runs_on, strips, reg)
        outcome = "invalid"

    logs: dict[str, int] = {}
    artifacts: list[str] = []
    modules: list[str] = []
    module_items: set[int] = set()
    #: A name that is not registered, by name: its finding (made once per value).
    named: dict[str, tuple[Diagnostic, Outcome, Spec | None]] = {}
    module_aliases: set[str] = set()
    lengths: set[int] = set()  # of module_aliases
    suggestions_for = Suggestions(reg.known_tuple, reg.aliases)
    for item in parsed.items:
        if not item.valid:
            continue
        level = level_of(item.prefix)
        kind = reg.kind(item.name)
        if kind in ("component", "special"):
            for q in reg.qnames_for(item.name):
                logs[q] = level
        elif kind == "artifact":
            if item.name not in artifacts:
                artifacts.append(item.name)
            if item.prefix:
                msg = (
                    f"the {quote(item.prefix)} prefix is ignored on an artifact: "
                    f"{quote(item.text)} still enables {quote(item.name)}"
                )
                diagnostics.append(
                    Diagnostic(PREFIX_IGNORED, Severity.WARNING, msg, item.start, item.name_start)
                )
        else:
            known = named.get(item.name)
            if known is None:  # a name met again in the value: the same finding, moved
                known = named[item.name] = _name_diagnostic(item, reg, finder, suggestions_for)
            found, item_outcome, spec = known
            name_diag = Diagnostic(
                found.code,
                found.severity,
                found.message,
                item.name_start,
                item.end,
                found.suggestions,
            )
            diagnostics.append(name_diag)
            if item_outcome == "ok":
                modules.append(item.name)
                module_items.add(item.index)
                names = [item.name]
                if (
                    spec is not None
                    and item.name not in module_aliases
                    and holds("module_submodules", reg.release)
                ):
                    names = finder.walk(spec)
                for module_name in names:
                    logs[module_name] = level
                    # torch registers a module without a registered parent logger as a
                    # log of its own; naming it again then sets only that logger
                    if not _has_registered_parent(module_name, reg, module_aliases, lengths):
                        module_aliases.add(module_name)
                        lengths.add(len(module_name))
            elif outcome == "ok":
                outcome = item_outcome
    diagnostics += _duplicate_diagnostics(parsed.items, reg, module_items)
    diagnostics = level_syntax(parsed, reg, finder, diagnostics)
    diagnostics.sort(key=lambda d: (d.start, d.end, d.code))
    shown, hidden = capped(diagnostics)
    config = None
    if outcome == "ok":
        config = EffectiveConfiguration(logs, tuple(artifacts), tuple(modules))
    return Analysis(value, reg.release, parsed, shown, outcome, config, hidden)


__all__ = [
    "CONFLICTING_ITEMS",
    "DUPLICATE_ITEM",
    "EMPTY_ITEM",
    "EMPTY_VALUE",
    "HELP",
    "INVALID_MODULE_NAME",
    "MODULE_NAME",
    "MODULE_NOT_FOUND",
    "MORE_PROBLEMS",
    "NOT_IN_RELEASE",
    "OVERLAPPING_LOGGERS",
    "PREFIX_IGNORED",
    "RENAMED_NAME",
    "UNKNOWN_NAME",
    "Analysis",
    "Diagnostic",
    "EffectiveConfiguration",
    "Outcome",
    "Severity",
    "analyse",
    "level_of",
]
