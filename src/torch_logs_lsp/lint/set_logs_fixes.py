"""Fixes of ``set_logs(...)`` calls (TL601-TL613), of a ``TORCH_LOGS`` write that has no
effect (TL501), and the ``set_logs`` -> ``TORCH_LOGS`` refactor, as verified document edits.

Shared by the language server (code actions); nothing here knows LSP or syntax trees. The
host says how the module spells ``logging``, ``os.environ`` and torch's functions
(:meth:`.hosts.interface.Host.set_logs_source`); a host without that has no such fixes.
Every fix is verified: the edited document is checked again (:func:`.checker.findings`)
and the fix is kept only when the diagnostic it fixes is gone and no code has more errors
or warnings than before (an information such as TL411 may appear; not TL631, an ignored
call). Offsets (edits and diagnostics) are code points into the document.

torch facts (torch 2.13.0 ``torch/_logging/_internal.py``, each measured by an oracle test
in ``tests/set_logs/test_fixes.py``):

- ``modules={"loop_ordering": True}`` enables a registered name that is no keyword
  (``set_logs`` runs keywords and ``modules`` entries through one loop, line 503);
- ``os.environ.setdefault("TORCH_LOGS", v)`` then ``torch._logging._internal._init_logs()``
  gives the log state and logger levels of the equivalent ``set_logs`` call, for
  registered names (a module name registers its submodules as child logs only through
  ``set_logs``: their ``propagate`` differs, so calls with module names get no refactor);
  with ``TORCH_LOGS`` given from outside, both leave the state that value set at import
  (``set_logs`` is ignored, line 492; ``setdefault`` keeps the value, which is why it is
  not ``[...] =``); afterwards every ``set_logs`` call only logs a warning, and child
  processes inherit the variable.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import TextEdit, apply_text_edits
from torch_logs_lsp.hosts.python.order import LATE
from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.edits import line_break
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.set_logs.call import (
    LOGGING_LEVELS,
    VALID_LEVELS,
    BoolValue,
    DictValue,
    IntValue,
    KeywordValue,
    LevelName,
    SetLogsCall,
    StrValue,
)
from torch_logs_lsp.set_logs.checks import (
    FALSE_LEVEL,
    IGNORED_CALL,
    KEYWORD_OF_OTHER_RELEASE,
    NOT_A_BOOL,
    NOT_A_KEYWORD,
    NOT_A_LEVEL,
    UNEXPECTED_KEYWORD,
    check_set_logs,
)
from torch_logs_lsp.set_logs.convert import set_logs_to_torch_logs, torch_logs_to_set_logs
from torch_logs_lsp.set_logs.keywords import set_logs_signature
from torch_logs_lsp.set_logs.source import SetLogsSource, import_edit
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import Analysis

QUICKFIX = "quickfix"
REFACTOR = "refactor.rewrite"
_NAME_OF_LEVEL = {50: "CRITICAL", 40: "ERROR", 30: "WARNING", 20: "INFO", 10: "DEBUG", 0: "NOTSET"}
_LEVEL_IN_ARGS = re.compile(r"(?<![\w.\"'])logging\.(CRITICAL|ERROR|WARNING|INFO|DEBUG|NOTSET)\b")


@dataclass(frozen=True)
class CallFix:
    """A fix as document edits (code points, non-overlapping). ``kind``: ``"quickfix"`` or
    ``"refactor.rewrite"``; ``diagnostics``: what it fixes, document offsets (none for a
    refactor); ``target``: the ``[start, end)`` the editor's range must touch for a
    refactor (the call). ``safe``: a single unambiguous result (fix-all may apply it)."""

    title: str
    kind: str
    diagnostics: tuple[Diagnostic, ...]
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    safe: bool = False
    target: tuple[int, int] | None = None


def _source(host: HostKind, text: str) -> SetLogsSource | None:
    module = hosts.set_logs_host(host)
    return module.set_logs_source(text) if module is not None else None


def _level(source: SetLogsSource, text: str, name: str) -> tuple[str, list[TextEdit]] | None:
    """``name`` (``"DEBUG"``) as the module can write it, with the import it needs."""
    if name in source.level_names:
        return source.level_names[name], []
    if source.logging is not None:
        return f"{source.logging}.{name}", []
    if "logging" in source.free:
        return f"logging.{name}", [import_edit(text, source.imports_at, "logging")]
    return None


class _Verifier:
    """Checks edits of one document (its findings are computed once, on first use)."""

    def __init__(
        self, host: HostKind, text: str, registry: Registry, finder: ModuleFinder | None
    ) -> None:
        self.host, self.text, self.registry, self.finder = host, text, registry, finder
        self._before: Counter[str] | None = None

    def _counts(self, text: str) -> Counter[str]:
        # every problem, also those a binding error hides: fixing it may reveal them
        found = findings(text, self.host, self.registry, self.finder, binding_first=False)
        serious = (Severity.ERROR, Severity.WARNING)  # hints (TL411) may come and go
        return Counter(
            f.diagnostic.code
            for f in found
            if f.diagnostic.severity in serious or f.diagnostic.code == IGNORED_CALL
        )

    def __call__(self, edits: list[TextEdit], fixed: tuple[Diagnostic, ...]) -> bool:
        """Whether the edited document has, for every code, no more errors and warnings
        (and TL631: a call torch ignores) than before, and fewer of each code in ``fixed``."""
        if self._before is None:
            self._before = self._counts(self.text)
        before = self._before
        after = self._counts(apply_text_edits(self.text, sorted(edits, key=lambda e: e.start)))
        fixed_codes = Counter(d.code for d in fixed)
        return all(after[c] <= before[c] - fixed_codes[c] for c in set(after) | set(fixed_codes))


def _value_at(call: SetLogsCall, start: int) -> tuple[str, KeywordValue] | None:
    """The registered name (keyword or ``modules`` key) whose value starts at ``start``."""
    for kw in call.keywords:
        if kw.value.start == start:
            return ("torch" if kw.name == "all" else kw.name), kw.value
        if isinstance(kw.value, DictValue):
            for e in kw.value.entries:
                if e.value.start == start and e.key is not None:
                    return e.key, e.value
    return None


def _value_fixes(
    source: SetLogsSource, text: str, call: SetLogsCall, d: Diagnostic
) -> list[tuple[str, list[TextEdit], bool]]:
    """(title, edits, preferred) for TL611 / TL612 / TL613 on a value."""
    found = _value_at(call, d.start)
    if found is None:
        return []
    _, value = found
    wanted: list[str] = []  # level names, or "True" / "None"
    if d.code == NOT_A_LEVEL and isinstance(value, BoolValue) and value.value:
        wanted = ["DEBUG"]
    elif d.code == NOT_A_LEVEL and isinstance(value, StrValue):
        level = LOGGING_LEVELS.get(value.value.strip().upper())
        wanted = [_NAME_OF_LEVEL[level]] if level in VALID_LEVELS else []
    elif d.code == NOT_A_BOOL and isinstance(value, LevelName | IntValue):
        number = value.value if isinstance(value, IntValue) else LOGGING_LEVELS.get(value.name)
        wanted = ["True"] if number else []
    elif d.code == FALSE_LEVEL and isinstance(value, BoolValue):
        wanted = ["None", "ERROR"]
    out: list[tuple[str, list[TextEdit], bool]] = []
    for w in wanted:
        if w in ("True", "None"):
            spelled: tuple[str, list[TextEdit]] | None = (w, [])
        else:
            spelled = _level(source, text, w)
        if spelled is not None:
            new, extra = spelled
            edits = [TextEdit(value.start, value.end, new), *extra]
            out.append((f"Change to `{new}`", edits, len(wanted) == 1))
    return out


def _name_fixes(
    source: SetLogsSource, text: str, call: SetLogsCall, d: Diagnostic, registry: Registry
) -> list[tuple[str, list[TextEdit], bool]]:
    """(title, edits, preferred) for TL601 / TL602 / TL603 on a keyword's name."""
    kw = next((k for k in call.keywords if k.name_start == d.start), None)
    if kw is None:
        return []
    if d.suggestions:
        return [
            (
                f"Change to `{s}=`",
                [TextEdit(kw.name_start, kw.name_end, s)],
                len(d.suggestions) == 1,
            )
            for s in d.suggestions
        ]
    has_modules = any(k.name == "modules" for k in call.keywords)
    kind = registry.kind(kw.name)
    if d.code != NOT_A_KEYWORD or has_modules or kind not in ("component", "artifact"):
        return []
    if call.unpacked or text[kw.name_end : kw.value.start].strip() != "=":
        return []  # `**kw` may hold a modules=; `x=(True)`: the value's own parentheses
    value = text[kw.value.start : kw.value.end]
    new = "modules={" + f'"{kw.name}": ' + value + "}"
    return [(f"Move into `{new}`", [TextEdit(kw.name_start, kw.value.end, new)], True)]


def _has_comment(statement: str) -> bool:
    """Whether Python source ``statement`` holds a comment (by Python's own tokenizer; a
    text it cannot read counts as one): a fix that rewrites the whole statement would
    drop it."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(statement).readline)
        return any(t.type == tokenize.COMMENT for t in tokens)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return True


def _in_range(start: int, end: int, first: int, last: int) -> bool:
    return start <= last and first <= end


def call_fixes(
    host: HostKind,
    text: str,
    registry: Registry,
    finder: ModuleFinder | None = None,
    first: int = 0,
    last: int | None = None,
    safe_only: bool = False,
    limit: int | None = None,
) -> list[CallFix]:
    """The verified quick fixes of the ``set_logs`` diagnostics (TL601, TL602, TL603,
    TL611, TL612, TL613) that touch ``[first, last]`` (document offsets; default: the whole
    document), and the "Rewrite as TORCH_LOGS" refactor of each call there.
    ``safe_only``: only the safe fixes (``torch=`` -> ``all=``, for fix-all), no refactor.
    ``limit``: at most this many calls (the first in the range): each fix re-checks the
    document, so an editor asking for the whole document (select all, then the quick-fix
    key) would otherwise wait seconds. Never raises for a well-formed registry."""
    source = _source(host, text)
    module = hosts.set_logs_host(host)
    if source is None or module is None:
        return []
    end = len(text) if last is None else last
    sig = set_logs_signature(registry)
    verified = _Verifier(host, text, registry, finder)
    out: list[CallFix] = []
    calls = [c for c in module.set_logs_calls(text) if _in_range(c.start, c.end, first, end)]
    for call in calls[:limit]:
        for d in check_set_logs(call, registry, signature=sig, finder=finder):
            if not _in_range(d.start, d.end, first, end):
                continue
            if safe_only and not (d.code == NOT_A_KEYWORD and d.suggestions == ("all",)):
                continue
            if d.code in (UNEXPECTED_KEYWORD, NOT_A_KEYWORD, KEYWORD_OF_OTHER_RELEASE):
                found = _name_fixes(source, text, call, d, registry)
            elif d.code in (NOT_A_LEVEL, NOT_A_BOOL, FALSE_LEVEL):
                found = _value_fixes(source, text, call, d)
            else:
                continue
            for title, edits, preferred in found:
                if verified(edits, (d,)):
                    safe = preferred and d.code == NOT_A_KEYWORD and d.suggestions == ("all",)
                    out.append(CallFix(title, QUICKFIX, (d,), tuple(edits), preferred, safe))
        if not safe_only:
            out += _refactor(text, source, call, registry, verified)
    return out


def _refactor(
    text: str, source: SetLogsSource, call: SetLogsCall, registry: Registry, verified: _Verifier
) -> list[CallFix]:
    """ "Rewrite as TORCH_LOGS" for a call that is a whole statement and the last that
    names ``set_logs``/``_init_logs`` in the module (later calls would be ignored)."""
    stmt = source.calls.get(call.start)
    if stmt is None or stmt.later_set_logs or call.torch_logs_set is not None:
        return []
    if _has_comment(text[stmt.start : stmt.end]):
        return []
    for kw in call.keywords:  # module names: not exact (see the module docstring)
        if isinstance(kw.value, DictValue) and any(
            e.key is None or registry.kind(e.key) not in ("component", "artifact")
            for e in kw.value.entries
        ):
            return []
    value = set_logs_to_torch_logs(call, registry)
    if value is None or '"' in value or "\\" in value:
        return []
    edits: list[TextEdit] = []
    environ, init_logs = source.environ, source.init_logs
    if environ is None:
        if "os" not in source.free:
            return []
        environ = "os.environ"
        edits.append(import_edit(text, source.imports_at, "os"))
    if init_logs is None:
        if source.torch_at is None:
            return []
        init_logs = "torch._logging._internal._init_logs"
        edits.append(TextEdit(source.torch_at, source.torch_at, "import torch" + line_break(text)))
    new = (
        f'{environ}.setdefault("TORCH_LOGS", "{value}"){line_break(text)}{stmt.indent}{init_logs}()'
    )
    edits.append(TextEdit(stmt.start, stmt.end, new))
    if not verified(edits, ()):
        return []
    title = f'Rewrite as TORCH_LOGS="{value}" (os.environ: child processes inherit it)'
    return [CallFix(title, REFACTOR, (), tuple(edits), target=(call.start, call.end))]


def _respell(args: str, source: SetLogsSource, text: str) -> tuple[str, list[TextEdit]] | None:
    """``args`` (keywords from :func:`.set_logs_convert.torch_logs_to_set_logs`, levels
    written ``logging.X``) with the levels as the module spells them, and the import
    that needs; ``None`` when the module cannot name one."""
    levels: dict[str, str] = {}
    edits: list[TextEdit] = []
    for name in sorted(set(_LEVEL_IN_ARGS.findall(args))):
        spelled = _level(source, text, name)
        if spelled is None:
            return None
        levels[name] = spelled[0]
        edits += [e for e in spelled[1] if e not in edits]
    return _LEVEL_IN_ARGS.sub(lambda m: levels[m.group(1)], args), edits


def late_write_fixes(
    host: HostKind,
    text: str,
    entries: Iterable[tuple[ValueSpan, Analysis | None]],
    registry: Registry,
    finder: ModuleFinder | None = None,
    first: int = 0,
    last: int | None = None,
    limit: int | None = None,
) -> list[CallFix]:
    """For each TL501 (``TORCH_LOGS`` set in this process after ``import torch``) touching
    ``[first, last]`` (at most ``limit`` of them, the first): replace the write with the
    equivalent ``set_logs(...)`` call (:func:`.set_logs_convert.torch_logs_to_set_logs`),
    when it is exact and the write is a whole statement. ``entries``: the document's spans
    with their analyses (with the host's notes). The diagnostics of the fix are in
    document offsets."""
    end = len(text) if last is None else last
    late = [
        (span, d)
        for span, analysis in entries
        if analysis is not None and span.variable == "TORCH_LOGS" and span.value is not None
        for d in analysis.diagnostics
        if d.code == LATE and _in_range(*span.document_range(d.start, d.end), first, end)
    ]
    late = late[:limit]
    if not late:
        return []
    source = _source(host, text)
    if source is None:
        return []
    verified = _Verifier(host, text, registry, finder)
    out: list[CallFix] = []
    for span, d in late:
        stmt = source.writes.get(span.name_start)
        if stmt is not None and _has_comment(text[stmt.start : stmt.end]):
            continue  # the statement is replaced whole: its comments would be lost
        args = torch_logs_to_set_logs(span.value or "", registry)
        if stmt is None or args is None:
            continue
        edits: list[TextEdit] = []
        callee = source.set_logs
        if callee is None:
            if source.torch_at is None:
                continue
            callee = "torch._logging.set_logs"
            edits.append(
                TextEdit(source.torch_at, source.torch_at, "import torch" + line_break(text))
            )
        respelled = _respell(args, source, text)
        if respelled is None:
            continue
        args, imports = respelled
        edits += imports
        new = f"{callee}({args})"
        edits.append(TextEdit(stmt.start, stmt.end, new))
        start, stop = span.document_range(d.start, d.end)
        fixed = replace(d, start=start, end=stop)
        if verified(edits, (fixed,)):
            title = f"Replace with `{new}` (takes effect now; child processes no longer inherit it)"
            out.append(CallFix(title, QUICKFIX, (fixed,), tuple(edits), True))
    return out


__all__ = ["REFACTOR", "CallFix", "call_fixes", "late_write_fixes"]
