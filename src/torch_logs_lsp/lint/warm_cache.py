"""TL431: a TORCH_LOGS item enables a name that prints nothing when torch.compile's caches
are warm (the FX graph and AOTAutograd caches hit, so the passes that log it never run).

Which names: :func:`.knowledge.warm_cache.swallowed` (measured on torch 2.13, carried to
another release only where its logging code is unchanged). Not given when the document
mentions anything that turns the caches off for its processes anywhere in its text
(``TORCHINDUCTOR_FORCE_DISABLE_CACHES``, the ``force_disable_caches`` config,
``fresh_cache``, ``fx_graph_cache``, freezing, custom passes, or
``TORCHINDUCTOR_CACHE_DIR``, which may be fresh for each run), whatever
its value or scope: a mention makes the hint uncertain, and a hint that is unsure stays
away. Offsets are code points into the decoded value.
"""

from __future__ import annotations

import re
from functools import lru_cache

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.warm_cache import FIX_VALUE, FIX_VARIABLE, swallowed
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.analysis import Analysis, Diagnostic, Severity, with_diagnostic
from torch_logs_lsp.value.analysis_cache import AnalysisCache

WARM_CACHE = "TL431"

#: A mention of any of these turns the hint off (case-insensitive): the switch that turns
#: every cache off (its two variables and the config attribute), torch's
#: ``fresh_cache``/``fresh_inductor_cache`` context managers, and what makes the FX graph
#: cache step aside for a graph (torch 2.13 ``CacheabilityValidator``: ``freezing``
#: (``TORCHINDUCTOR_FREEZING=1``), custom passes such as ``post_grad_custom_post_pass``),
#: and ``TORCHINDUCTOR_CACHE_DIR``: a file that chooses the cache directory may give each
#: run a fresh one.
_OFF = re.compile(
    r"force_disable_caches|fresh_cache|fresh_inductor_cache|freezing|custom_\w*pass"
    r"|torchinductor_cache_dir",
    re.IGNORECASE,
)

#: Turning the FX graph cache off alone is enough on torch 2.13 (measured: the AOTAutograd
#: cache then misses too, since its entries point into the FX graph cache).
_FX_OFF = re.compile(r"fx_graph_cache\b", re.IGNORECASE)

Entries = list[tuple[ValueSpan, Analysis | None]]


def caches_mentioned(text: str) -> bool:
    """Whether ``text`` mentions a way to turn the compile caches off (see the module doc)."""
    return _OFF.search(text) is not None or _FX_OFF.search(text) is not None


@lru_cache(maxsize=256)
def _hint(name: str, start: int, end: int, release: str) -> Diagnostic:
    where = "measured on torch 2.13"
    if release != "2.13":
        where += f"; the code that logs it is the same in {release}"
    return Diagnostic(
        WARM_CACHE,
        Severity.HINT,
        f"`{name}` prints nothing when the compiled graph comes from the cache (a later "
        f"run with the same cache directory: the passes that log it do not run; {where}); "
        f"set {FIX_VARIABLE}={FIX_VALUE} for this process to see it on every run",
        start,
        end,
    )


def warm_cache_hints(analysis: Analysis | None) -> list[Diagnostic]:
    """TL431 on each item of a TORCH_LOGS analysis that names a swallowed name of its
    release which the value enables (``all`` is not such an item)."""
    if analysis is None or analysis.config is None:
        return []
    names = swallowed(analysis.release)
    if not names:
        return []
    enabled = analysis.config.artifacts
    return [
        _hint(item.name, item.start, item.end, analysis.release)
        for item in analysis.parsed.items
        if item.name in names and item.name in enabled
    ]


def with_warm_cache_hints(
    text: str, entries: Entries, cache: AnalysisCache | None = None
) -> Entries:
    """``entries`` (live values of the document ``text``) with TL431 added to the
    TORCH_LOGS analyses, unless ``text`` mentions a cache switch (:func:`caches_mentioned`)."""
    hints = {
        i: found
        for i, (span, analysis) in enumerate(entries)
        if span.variable == "TORCH_LOGS" and span.value is not None
        for found in [warm_cache_hints(analysis)]
        if found
    }
    if not hints or caches_mentioned(text):  # (the text is searched only when needed)
        return entries
    out = list(entries)
    for i, diags in hints.items():
        span, analysis = entries[i]
        if analysis is None:  # (none: warm_cache_hints gave it nothing)
            continue
        for diag in diags:
            if cache is not None:
                analysis = cache.with_diagnostic(analysis, diag)
            else:
                analysis = with_diagnostic(analysis, diag)
        out[i] = (span, analysis)
    return out


_PY_LINE = re.compile(r"[ \t]*((?:os\.)?environ)\[")
_YAML_LINE = re.compile(r"[ \t]*(?:- )?[ \t]*([\"']?)TORCH_LOGS\1[ \t]*:")
_JSON_LINE = re.compile(r"[ \t]*\"TORCH_LOGS\"[ \t]*:")


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _eol(text: str, offset: int) -> str:
    end = text.find("\n", offset)
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _candidate(host: HostKind, text: str, span: ValueSpan) -> TextEdit | None:
    at = span.name_start
    if not text.startswith(span.variable, at):
        return None  # a name written with escapes or quotes: not ours to edit
    start = _line_start(text, at)
    line = text[start:at]
    eol = _eol(text, at)
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if host == "dotenv":
        return TextEdit(start, start, f"{FIX_VARIABLE}={FIX_VALUE}{eol}")
    if host == "shell":
        if at > start and not text[at - 1].isspace() and text[at - 1] != ";":
            return None  # inside `${...}` or another word
        return TextEdit(at, at, f"{FIX_VARIABLE}={FIX_VALUE} ")
    if host == "python":
        m = _PY_LINE.match(text, start)
        quote = text[m.end()] if m else ""
        if m is None or m.end() + 1 != at or quote not in "'\"":
            return None
        new = f"{indent}{m.group(1)}[{quote}{FIX_VARIABLE}{quote}] = {quote}{FIX_VALUE}{quote}{eol}"
        return TextEdit(start, start, new)
    if host == "yaml":
        m = _YAML_LINE.match(text, start)
        if m is None or "- " in text[start : m.end()]:
            return None
        return TextEdit(start, start, f'{indent}{FIX_VARIABLE}: "{FIX_VALUE}"{eol}')
    if host == "jsonc":
        if _JSON_LINE.match(text, start) is not None:
            return TextEdit(start, start, f'{indent}"{FIX_VARIABLE}": "{FIX_VALUE}",{eol}')
        if at > 0 and text[at - 1] == '"':  # a member after others on its line
            return TextEdit(at - 1, at - 1, f'"{FIX_VARIABLE}": "{FIX_VALUE}", ')
        return None
    return None


def switch_edit(host: HostKind, text: str, span: ValueSpan) -> TextEdit | None:
    """An edit of the document ``text`` that sets :data:`.warm_cache.FIX_VARIABLE` to
    ``1`` for the process that reads ``span`` (a TORCH_LOGS value), in the host's syntax:
    a ``.env`` line before it; ``NAME=1`` before the assignment in a shell command
    (``export``, ``env`` and prefix assignments alike); ``os.environ["NAME"] = "1"`` before
    an ``os.environ[...]`` write; a key before it in a YAML block mapping or a JSON object
    (a line of its own when the key starts its line).
    ``None`` for other hosts and forms. Kept only when the edited text reads every family
    value as before and mentions the switch (a re-read). Never raises."""
    try:
        edit = _candidate(host, text, span)
        if edit is None:
            return None
        new = apply_text_edits(text, [edit])
        before = [(s.variable, s.value) for s in hosts.extract(host, text)]
        after = [(s.variable, s.value) for s in hosts.extract(host, new)]
        if before != after or not caches_mentioned(new):
            return None
        return edit
    except Exception:  # a fix is never worth a crash
        return None


__all__ = [
    "WARM_CACHE",
    "caches_mentioned",
    "switch_edit",
    "warm_cache_hints",
    "with_warm_cache_hints",
]
