"""Checks of a ``torch._logging.set_logs(...)`` call (codes TL601-TL631, ``docs/codes.md``).

The call is abstract (:mod:`.set_logs_call`: the host extracts it from Python source);
nothing here knows about Python syntax trees, LSP or files. Facts are those of
``set_logs`` in ``torch/_logging/_internal.py`` (torch 2.13.0 line 211, measured on
2.13.0 by ``tests/set_logs/test_set_logs.py``):

- keyword-only: an unknown keyword raises ``TypeError`` before anything happens; the
  keywords are not the registry (:mod:`.set_logs_keywords`);
- a value ``None`` is skipped (any keyword, any ``modules`` entry), before any check;
- an artifact needs a ``bool`` (``isinstance(val, bool)``: ``1`` and ``logging.DEBUG``
  raise ``ValueError``);
- a component (and ``all``, the ``torch`` log) needs ``val in logging._levelToName``
  (50, 40, 30, 20, 10, 0): ``True``, ``15`` and ``"DEBUG"`` raise ``ValueError``, while
  ``False`` passes (``False == 0``) and sets the level NOTSET;
- ``modules={name: value}``: registered names as above; any other key is looked up with
  ``importlib.util.find_spec`` (missing parent: ``ModuleNotFoundError``; a relative name:
  ``ImportError``; not found: ``ValueError``); a module's value is not checked by torch but
  given to ``Logger.setLevel`` (an unknown level name raises ``ValueError``);
- with ``TORCH_LOGS`` in ``os.environ`` the call only logs a warning (:func:`env_hint`).
"""

from __future__ import annotations

from functools import lru_cache

from torch_logs_lsp.knowledge.registry import Registry, release_tuple
from torch_logs_lsp.knowledge.suggest import Suggestions, suggest
from torch_logs_lsp.knowledge.versions import RENAMED
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity, capped
from torch_logs_lsp.model.limits import MAX_DIAGNOSTICS, excerpt, quote
from torch_logs_lsp.set_logs.call import (
    LOGGING_LEVELS,
    UNKNOWN,
    VALID_LEVELS,
    DictValue,
    Keyword,
    KeywordValue,
    NotStatic,
    SetLogsCall,
    python_value,
)
from torch_logs_lsp.set_logs.keywords import (
    SetLogsSignature,
    keyword_history,
    keyword_releases,
    set_logs_signature,
)
from torch_logs_lsp.torch_env.context import fallback_finder
from torch_logs_lsp.torch_env.modules import ModuleFinder

UNEXPECTED_KEYWORD = "TL601"
NOT_A_KEYWORD = "TL602"
KEYWORD_OF_OTHER_RELEASE = "TL603"
UNREGISTERED_KEYWORD = "TL604"
REPEATED_KEYWORD = "TL605"
POSITIONAL_ARGUMENT = "TL606"
NOT_A_LEVEL = "TL611"
NOT_A_BOOL = "TL612"
FALSE_LEVEL = "TL613"
MODULES_NOT_A_DICT = "TL614"
MODULE_KEY = "TL621"
MODULE_LEVEL = "TL622"
IGNORED_CALL = "TL631"

_LEVELS_TEXT = ",".join(str(n) for n in VALID_LEVELS)
_LEVEL_SET = frozenset(VALID_LEVELS)
_PREFIX = {10: "+", 20: "", 40: "-"}


def _shown(value: object) -> str:
    """A value as torch's f-string shows it (``True``, ``15``, ``DEBUG``)."""
    return f"{value}"


def torch_logs_spelling(name: str, value: object) -> str:
    """The ``TORCH_LOGS`` item for registered ``name`` set to ``value``: ``+name`` for
    DEBUG, ``-name`` for ERROR, else ``name`` (INFO, an artifact)."""
    prefix = _PREFIX.get(value, "") if isinstance(value, int) and value is not True else ""
    return prefix + name


def _span(span: tuple[str, str]) -> str:
    """``"from torch 2.5"`` (still in the newest packaged release) or ``"in torch 2.3 to
    2.4"``."""
    first, last = span
    return (
        f"from torch {first}" if last == keyword_releases()[-1] else f"in torch {first} to {last}"
    )


def _level_diagnostic(log: str, value: KeywordValue, shown_as: str) -> Diagnostic | None:
    """A component's (or ``all``'s) value: ``log`` is the alias torch names in its error."""
    v = python_value(value)
    if v is UNKNOWN or v is None:
        return None
    if v is False:
        msg = (
            f"`{shown_as}=False` sets level 0 (NOTSET), it does not turn the log off; "
            "use None (leave it unset) or logging.ERROR"
        )
        return Diagnostic(FALSE_LEVEL, Severity.WARNING, msg, value.start, value.end)
    try:
        known = v in _LEVEL_SET  # torch: `val not in logging._levelToName` (a dict)
    except TypeError:
        msg = f"torch raises TypeError: unhashable type: '{type(v).__name__}' "
        msg += "(a level is logging.DEBUG, logging.INFO, ...)"
        return Diagnostic(NOT_A_LEVEL, Severity.ERROR, msg, value.start, value.end)
    if known and isinstance(v, int):
        return None
    if known:  # 10.0 == 10 passes torch's check; Logger.setLevel then refuses it
        return _set_level_type_error(v, value)
    msg = (
        f"torch raises ValueError: Unrecognized log level for log {quote(log)[1:-1]}: "
        f"{quote(_shown(v))[1:-1]}, valid level values are: {_LEVELS_TEXT} (use logging.DEBUG, "
        "logging.INFO, ...)"
    )
    return Diagnostic(NOT_A_LEVEL, Severity.ERROR, msg, value.start, value.end)


def _set_level_type_error(v: object, value: KeywordValue, code: str = NOT_A_LEVEL) -> Diagnostic:
    """What ``logging``'s ``_checkLevel`` raises (CPython 3.8-3.14) for a level that is
    neither an int nor a str, when torch's ``_init_logs`` applies it."""
    msg = (
        f"torch raises TypeError: Level not an integer or a valid string: "
        f"{quote(repr(v))[1:-1]} (use logging.DEBUG, logging.INFO, ...)"
    )
    return Diagnostic(code, Severity.ERROR, msg, value.start, value.end)


def _bool_diagnostic(name: str, value: KeywordValue) -> Diagnostic | None:
    v = python_value(value)
    if v is UNKNOWN or v is None or isinstance(v, bool):
        return None
    msg = (
        f"torch raises ValueError: Expected bool to enable artifact {quote(name)[1:-1]}, "
        f"received {quote(_shown(v))[1:-1]} (an artifact takes True or False)"
    )
    return Diagnostic(NOT_A_BOOL, Severity.ERROR, msg, value.start, value.end)


def _registered_value(name: str, value: KeywordValue, registry: Registry) -> Diagnostic | None:
    """The value check of a registered name (keyword or ``modules`` key)."""
    kind = registry.kind(name)
    if kind == "artifact":
        return _bool_diagnostic(name, value)
    return _level_diagnostic(name, value, name)


def _not_a_keyword(
    kw: Keyword, registry: Registry, sig: SetLogsSignature, suggestions: Suggestions
) -> Diagnostic:
    name, release = kw.name, registry.release
    start, end = kw.name_start, kw.name_end
    head = (
        f"set_logs() got an unexpected keyword argument '{excerpt(name)}': TypeError at this call"
    )
    later = keyword_history(name)
    if registry.kind(name) in ("component", "artifact"):
        if name == "torch":
            msg = f"{head}; `torch` is not a set_logs keyword: `all=` sets the `torch` log"
            return Diagnostic(NOT_A_KEYWORD, Severity.ERROR, msg, start, end, ("all",))
        item = torch_logs_spelling(name, python_value(kw.value))
        msg = (
            f"{head}; {quote(name)} is registered but not a set_logs keyword in torch "
            f"{release}: `TORCH_LOGS={item}` works, or set_logs(modules={{{name!r}: ...}})"
        )
        if later:
            msg += f" (a keyword {_span(later)})"
        return Diagnostic(NOT_A_KEYWORD, Severity.ERROR, msg, start, end)
    if later:
        first, last = later
        renamed = RENAMED.get(name)
        new = renamed[0] if renamed and renamed[0] in sig.keywords else None
        if release_tuple(release) < release_tuple(first):
            when = f"added in {first}"
        elif first == last:
            when = f"only in {first}"
        else:
            when = f"in {first} to {last}"
        msg = f"{head}; {quote(name)} is not a set_logs keyword in torch {release} ({when})"
        if new:
            msg += f"; it was renamed to {quote(new)}"
        return Diagnostic(
            KEYWORD_OF_OTHER_RELEASE, Severity.ERROR, msg, start, end, (new,) if new else ()
        )
    found = suggestions(name)
    msg = head
    if found:
        msg += "; did you mean " + " or ".join(quote(s) for s in found) + "?"
    return Diagnostic(UNEXPECTED_KEYWORD, Severity.ERROR, msg, start, end, found)


def _module_entry(
    key: str, key_start: int, key_end: int, value: KeywordValue, finder: ModuleFinder
) -> Diagnostic | None:
    """A ``modules`` key that is no registered name: resolved like ``find_spec``."""
    if key == "all":
        msg = (
            "torch raises ValueError: Unrecognized log or artifact name passed to set_logs: "
            "all (`all` is a keyword, not a modules key)"
        )
        return Diagnostic(MODULE_KEY, Severity.ERROR, msg, key_start, key_end, ("torch",))
    lookup = finder.find_spec(key)
    where = finder.description or "the environment"
    missing = Severity.ERROR if finder.certain else Severity.WARNING
    if lookup.status == "relative":
        msg = f"{quote(key)} is a relative module name: torch raises ImportError at this call"
        return Diagnostic(MODULE_KEY, Severity.ERROR, msg, key_start, key_end)
    if lookup.status in ("parent_missing", "parent_not_package"):
        why = lookup.parent_problem(where)
        msg = f"{quote(key)}: {why}: torch raises ModuleNotFoundError at this call"
        return Diagnostic(MODULE_KEY, missing, msg, key_start, key_end)
    if lookup.status == "not_found":
        msg = (
            f"{quote(key)} is neither a registered name nor a module in {where}: torch raises "
            f"ValueError: Unrecognized log or artifact name passed to set_logs: "
            f"{quote(key)[1:-1]}"
        )
        return Diagnostic(MODULE_KEY, missing, msg, key_start, key_end)
    if lookup.status != "found":
        return None
    v = python_value(value)
    if v is UNKNOWN or v is None:
        return None
    if not isinstance(v, int | str):
        return _set_level_type_error(v, value, MODULE_LEVEL)
    if isinstance(v, str) and v not in LOGGING_LEVELS:
        msg = f"torch's Logger.setLevel raises ValueError: Unknown level: {quote(repr(v))[1:-1]}"
        return Diagnostic(MODULE_LEVEL, Severity.ERROR, msg, value.start, value.end)
    if isinstance(v, int) and not isinstance(v, bool) and v in VALID_LEVELS:
        return None
    msg = (
        f"{quote(_shown(v))} is not one of the levels {_LEVELS_TEXT}: torch takes it for the "
        "module the first time, but the module is then a registered log and the next "
        "set_logs call with it raises ValueError; use logging.DEBUG, logging.INFO, ..."
    )
    return Diagnostic(MODULE_LEVEL, Severity.WARNING, msg, value.start, value.end)


def _modules(value: KeywordValue, registry: Registry, finder: ModuleFinder) -> list[Diagnostic]:
    if not isinstance(value, DictValue):
        v = python_value(value)
        if v is UNKNOWN or not v:  # None, 0, False, "": torch uses {} (`modules or {}`)
            return []
        msg = (
            f"modules= takes a dict of names to levels: torch raises AttributeError: "
            f"'{type(v).__name__}' object has no attribute 'items'"
        )
        return [Diagnostic(MODULES_NOT_A_DICT, Severity.ERROR, msg, value.start, value.end)]
    out: list[Diagnostic] = []
    for entry in value.entries:
        if entry.key is None or isinstance(entry.value, NotStatic):
            continue
        if python_value(entry.value) is None:  # torch skips None before any lookup
            continue
        if registry.kind(entry.key) in ("component", "artifact"):
            found = _registered_value(entry.key, entry.value, registry)
        else:
            found = _module_entry(entry.key, entry.key_start, entry.key_end, entry.value, finder)
        if found is not None:
            out.append(found)
    return out


@lru_cache(maxsize=4096)
def _close_keywords(keywords: tuple[str, ...], name: str) -> tuple[str, ...]:
    """difflib's suggestions for an unknown keyword, shared by every call of every
    document (100 calls with the same typo ran difflib 100 times)."""
    return tuple(suggest(name, keywords, close=True))


class _KeywordSuggestions(Suggestions):
    """:class:`.suggest.Suggestions` (the per-call budget of difflib lookups) whose
    difflib answers come from :func:`_close_keywords`."""

    def __call__(self, name: str) -> tuple[str, ...]:
        found = self.memo.get(name)
        if found is None:
            self.left -= 1
            found = self.memo[name] = (
                _close_keywords(self.known, name)
                if self.left >= 0
                else tuple(suggest(name, self.known, close=False))
            )
        return found


def check_set_logs(
    call: SetLogsCall,
    registry: Registry,
    *,
    signature: SetLogsSignature | None = None,
    finder: ModuleFinder | None = None,
    binding_first: bool = True,
) -> list[Diagnostic]:
    """Diagnostics of one ``set_logs(...)`` call for ``registry``'s torch, in keyword order.

    ``signature``: the keywords of that torch (default :func:`.set_logs_keywords.
    set_logs_signature` of ``registry``); ``finder``: module resolution for ``modules``
    keys (default: the partial finder used when no environment is known). Offsets are
    copied from the call. Values that are not static are never judged. A keyword given
    twice gets ``TL605`` and is not checked again. Suggestions (difflib) are computed for
    the first :data:`.limits.MAX_DIAGNOSTICS` unknown keywords only (then only the cheap
    rankings), so a call with 10,000 keywords stays fast. Positional arguments get one
    ``TL606`` over all of them (first, before the keywords). When the host found that
    ``TORCH_LOGS`` is certainly set before the call (``call.torch_logs_set``), only the
    errors Python raises while binding the arguments are kept, and ``TL631`` is added:
    torch then ignores the values. A call with such a binding error (an unknown keyword, a
    positional argument, a keyword given twice) gets only those: Python raises before
    set_logs reads a value (all of them without ``binding_first``: a fix's verification
    counts every problem, a fix of the binding error may reveal the others). Never
    raises.
    """
    sig = signature if signature is not None else set_logs_signature(registry)
    find = finder if finder is not None else fallback_finder()
    suggestions = _KeywordSuggestions(tuple(sig.keywords))
    out: list[Diagnostic] = []
    if call.positional:
        n = len(call.positional)
        msg = (
            f"set_logs() takes 0 positional arguments but {n} {'was' if n == 1 else 'were'} "
            "given: TypeError at this call (set_logs takes keywords only: dynamo=logging.DEBUG)"
        )
        start, end = call.positional[0][0], call.positional[-1][1]
        out.append(Diagnostic(POSITIONAL_ARGUMENT, Severity.ERROR, msg, start, end))
    seen: set[str] = set()
    for kw in call.keywords:
        if kw.name in seen:
            msg = f"keyword argument repeated: {excerpt(kw.name)} (a SyntaxError: Python "
            msg += "does not even compile this call)"
            out.append(
                Diagnostic(REPEATED_KEYWORD, Severity.ERROR, msg, kw.name_start, kw.name_end)
            )
            continue
        seen.add(kw.name)
        if kw.name not in sig.keywords:
            out.append(_not_a_keyword(kw, registry, sig, suggestions))
            continue
        found: Diagnostic | None = None
        if kw.name == "modules":
            out += _modules(kw.value, registry, find)
        elif kw.name == "all":
            found = _level_diagnostic("torch", kw.value, "all")
        elif registry.kind(kw.name) in ("component", "artifact"):
            found = _registered_value(kw.name, kw.value, registry)
        elif python_value(kw.value) is not None:  # 2.4's dist_ddp: no registered log
            new = RENAMED.get(kw.name, ("", ""))[0]
            msg = (
                f"{quote(kw.name)} names no registered log in torch {registry.release}: any "
                "value but None raises ValueError: Unrecognized log or artifact name passed "
                f"to set_logs: {kw.name}"
            )
            if new:
                item = torch_logs_spelling(new, python_value(kw.value))
                msg += f"; use modules={{{new!r}: ...}} or `TORCH_LOGS={item}`"
            found = Diagnostic(
                UNREGISTERED_KEYWORD, Severity.ERROR, msg, kw.name_start, kw.name_end
            )
        if found is not None:
            out.append(found)
    if binding_first and any(d.code in _BINDING_ERRORS for d in out):
        # Python raises (TypeError, or SyntaxError for a repeated keyword) while binding the
        # arguments, before set_logs runs: no value is ever read, so only that is reported
        out = [d for d in out if d.code in _BINDING_ERRORS]
    if call.torch_logs_set is not None:
        # torch's set_logs returns before reading a value: only what Python raises while
        # binding the arguments is left, and the call is reported as ignored
        out = [d for d in out if d.code in _BINDING_ERRORS]
        if not out:  # (a TypeError while binding comes first: then nothing is logged)
            out.append(env_hint(call, call.torch_logs_set))
    if len(out) > MAX_DIAGNOSTICS:  # one call shows at most 100, then a TL901 summary
        shown, _ = capped(sorted(out, key=lambda d: (d.start, d.end)))
        return list(shown)
    return out


#: Codes of what Python raises before ``set_logs``' body runs (TypeError, SyntaxError).
_BINDING_ERRORS = frozenset(
    {POSITIONAL_ARGUMENT, REPEATED_KEYWORD, UNEXPECTED_KEYWORD, NOT_A_KEYWORD}
    | {KEYWORD_OF_OTHER_RELEASE}
)


def raising_calls_only_raise(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` (document offsets) without the hints that a call is ignored
    (``TL631``, and the launch configurations' ``TL632``) on a call that Python already
    rejects while binding its arguments (a :data:`_BINDING_ERRORS` code inside the call's
    range): it raises before torch could log anything."""
    raising = [d for d in diagnostics if d.code in _BINDING_ERRORS]
    if not raising:
        return diagnostics
    return [
        d
        for d in diagnostics
        if d.code not in (IGNORED_CALL, "TL632")
        or not any(d.start <= r.start and r.end <= d.end for r in raising)
    ]


def env_hint(call: SetLogsCall, where: str) -> Diagnostic:
    """The ``TL631`` information on the whole call: ``TORCH_LOGS`` is set for the process
    (``where``: e.g. ``".env line 3"``), so ``set_logs`` only logs the warning "Using
    TORCH_LOGS environment variable for log settings, ignoring call to set_logs" (torch
    2.13.0 ``_internal.py`` line 492). The caller decides when that link is certain."""
    msg = (
        f'set_logs(...) is ignored: TORCH_LOGS is set ({where}); torch only logs "Using '
        'TORCH_LOGS environment variable for log settings, ignoring call to set_logs"'
    )
    return Diagnostic(IGNORED_CALL, Severity.INFORMATION, msg, call.start, call.end)


__all__ = [
    "FALSE_LEVEL",
    "IGNORED_CALL",
    "KEYWORD_OF_OTHER_RELEASE",
    "MODULES_NOT_A_DICT",
    "MODULE_KEY",
    "MODULE_LEVEL",
    "NOT_A_BOOL",
    "NOT_A_KEYWORD",
    "NOT_A_LEVEL",
    "POSITIONAL_ARGUMENT",
    "REPEATED_KEYWORD",
    "UNEXPECTED_KEYWORD",
    "UNREGISTERED_KEYWORD",
    "check_set_logs",
    "env_hint",
    "raising_calls_only_raise",
    "torch_logs_spelling",
]
