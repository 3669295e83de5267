"""Variables of torch's compiler and logging beyond the family: names no release reads
(TL421), names other releases read (TL405), ``~`` in a trace or log path (TL422),
``TORCH_DTRACE`` next to ``TORCH_TRACE`` (TL423) and ``TORCHDYNAMO_VERBOSE=1`` without
``TORCH_LOGS`` (TL424).

All offsets are **code points into the document text**.

Which names: upper-case words of a prefix torch owns (:data:`.env_reads.OWNED`:
``TORCH_LOGS…``, ``TORCH_TRACE…``, ``TORCH_DTRACE…``, ``TORCH_COMPILE…``, ``TORCHDYNAMO…``,
``TORCHINDUCTOR…``) that are not family names. Whether torch reads one comes from the
packaged ``data/env-reads-by-version.json`` (each release's Python reads, the owned words in
its string literals, and the words of its native libraries' string tables:
:mod:`.env_reads`), a superset, so an error there only means fewer warnings.

Where: only where the host reads an *assignment*, decided by the host's own parser as for
TL408 (:mod:`.stand_ins`): each candidate is replaced by :data:`PLACEHOLDER` in a copy of
the document, the copy is extracted once (the same copy as TL441's knob names:
:func:`.stand_ins.compiler_spans`), and a candidate counts when the copy has a span of the
placeholder whose name starts where the candidate starts; that span's value is the
candidate's value as the process sees it (``None`` when not static). Reads
(``os.environ.get("TORCHINDUCTOR_X")``, ``$TORCHINDUCTOR_X``) and comments never count.

Facts (torch ``_logging/_internal.py`` ``_init_logs``, ``_dynamo/config.py``, read in each
wheel 2.1-2.15):

- ``TORCH_DTRACE`` is read from 2.7; a non-empty value replaces ``TORCH_TRACE``'s directory
  (and, from 2.12, the ``torch_compile_debug/.../tlparse`` default of
  ``TORCH_COMPILE_DEBUG=1``) and turns on the ``dtrace_structured`` events (symbolic shapes,
  fake tensor cache, export), which torch documents as possibly making the program slow.
  The empty value is ignored (``if dtrace_dir_name := ...``).
- ``TORCHDYNAMO_VERBOSE`` (every release): ``config.verbose = ... == "1"``; it keeps
  torch's internal stack in compile errors and adds stack info to graph-break records, and
  turns on no logger.
- No release calls ``expanduser`` on ``TORCH_TRACE``, ``TORCH_DTRACE`` or
  ``TORCH_LOGS_OUT``: ``~/t`` is a relative path (``os.makedirs`` creates ``./~/t``;
  ``logging.FileHandler`` opens ``./~/t.log``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from torch_logs_lsp.hosts.incremental import DocumentCache, Edit
from torch_logs_lsp.knowledge.env_reads import OWNED, packaged_reads, releases_reading
from torch_logs_lsp.knowledge.versions import holds
from torch_logs_lsp.lint.misspelled import BROAD, _read_in, names_read, suggestion
from torch_logs_lsp.lint.stand_ins import (
    COMPILER_STAND_IN,
    MAX_WORDS,
    compiler_spans,
    no_compiler_word,
)
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.limits import quote
from torch_logs_lsp.model.spans import ValueSpan

UNREAD_NAME = "TL421"
NOT_READ = "TL405"
TILDE_PATH = "TL422"
DTRACE_WINS = "TL423"
VERBOSE_ALONE = "TL424"

#: The family name each candidate is replaced by in the copy the host extracts.
PLACEHOLDER = COMPILER_STAND_IN
#: Most candidates looked at in one document.
MAX_CANDIDATES = MAX_WORDS
#: Least ``difflib`` ratio of a suggestion offered as a rename (``..._CACHE`` ->
#: ``..._CACHES`` is 0.98); a farther one is only named in the message.
RENAME_CUTOFF = 0.9
#: Least ratio of a suggestion named in the message.
NAME_CUTOFF = 0.8
#: What an unread ``TORCHINDUCTOR_`` name about traces or dumps was probably meant as
#: (``torch/_inductor/config.py``: ``trace.enabled`` is ``TORCH_COMPILE_DEBUG == "1"``).
DEBUG_HINT = (
    "; inductor's debug files (IR, generated code) come with TORCH_COMPILE_DEBUG=1, "
    "its generated code in the logs with TORCH_LOGS=output_code"
)
_DEBUG_WORDS = ("TRACE", "DUMP", "DEBUG", "IR", "CODE")

#: Variables whose value is a path torch uses as written (no ``expanduser``).
PATH_VARIABLES = ("TORCH_TRACE", "TORCH_DTRACE", "TORCH_LOGS_OUT")


@dataclass(frozen=True)
class Assignment:
    """An assignment the host reads of a non-family name at ``[start, end)``, its
    decoded ``value`` (``None`` when not static) and its value's text at
    ``[content_start, content_end)`` (document offsets)."""

    name: str
    start: int
    end: int
    value: str | None
    content_start: int
    content_end: int


def assignments(
    host: HostKind,
    text: str,
    release: str | None = None,
    kept: DocumentCache | None = None,
    spans: list[ValueSpan] | None = None,
) -> list[Assignment]:
    """The assignments of owned non-family names in ``text`` (a document of ``host``
    kind), in document order; ``release``: the release whose knob names TL441 looks for
    (:func:`.stand_ins.compiler_spans`: with the same one, both rules share one extraction;
    the result does not depend on it). ``kept``: the document's cache, with ``spans`` the
    family spans extracted from ``text``: while edits stay inside one plain value that
    holds no compiler word (:func:`.stand_ins.no_compiler_word`), the last version's
    assignments are moved instead of extracted again. Never raises for any text."""
    if kept is not None and spans is not None:
        return kept.remembered_moved(  # type: ignore[no-any-return]
            "owned assignments",
            (host, release),
            text,
            spans,
            no_compiler_word,
            lambda: assignments(host, text, release),
            _moved,
        )
    out = [
        Assignment(
            m.group(),
            m.start(),
            m.end(),
            hit.span.value,
            hit.span.content_start,
            hit.span.content_end,
        )
        for m, hit in compiler_spans(host, text, release, "owned")
    ]
    out.sort(key=lambda a: a.start)
    return out


def _moved(found: list[Assignment], edit: Edit) -> list[Assignment]:
    """``found`` after ``edit`` (inside a family value: before or after each of them)."""
    d = edit.delta
    return [
        replace(a, start=a.start + d, end=a.end + d, content_start=a.content_start + d,
                content_end=a.content_end + d)
        if a.start >= edit.old_end
        else a
        for a in found
    ]  # fmt: skip


@cache
def _every() -> frozenset[str]:
    """Every name some packaged release reads."""
    return frozenset().union(*packaged_reads().values())


def _span() -> str:
    """``"2.1-2.15"``: the packaged releases."""
    order = list(packaged_reads())
    return f"{order[0]}-{order[-1]}"


def _runs(releases: Sequence[str]) -> str:
    """``"2.7-2.15"`` for consecutive packaged releases, runs joined with ``, ``."""
    order = list(packaged_reads())
    idx = sorted(order.index(r) for r in releases)
    runs: list[str] = []
    i = 0
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        first, last = order[idx[i]], order[idx[j]]
        runs.append(first if i == j else f"{first}-{last}")
        i = j + 1
    return ", ".join(runs)


_PREFIX = re.compile(r"TORCH_LOGS|TORCH_D?TRACE|TORCH_COMPILE|TORCHDYNAMO|TORCHINDUCTOR")


def _group(name: str) -> str:
    m = _PREFIX.match(name)
    return "" if m is None else m.group().replace("DTRACE", "TRACE")


def _nearest(name: str) -> tuple[str | None, bool]:
    """The read name of ``name``'s prefix that ``name`` probably means, and whether it is
    close enough to offer as a rename. Closeness is the ``difflib`` ratio of the parts after
    the prefix (a shared ``TORCHINDUCTOR_`` says nothing): at least :data:`NAME_CUTOFF` to
    be named, :data:`RENAME_CUTOFF` to be a rename."""
    group = _group(name)
    rests = {
        n[len(group) :]: n
        for n in sorted(_every())
        if OWNED.fullmatch(n) and _group(n) == group and n != name
    }
    rest = name[len(group) :]
    best = difflib.get_close_matches(rest, list(rests), n=1, cutoff=NAME_CUTOFF)
    if not best:
        return None, False
    ratio = difflib.SequenceMatcher(None, rest, best[0]).ratio()
    return rests[best[0]], ratio >= RENAME_CUTOFF


def _read_elsewhere(text: str, name: str, starts: set[int]) -> bool:
    """Whether the document reads ``name`` itself (``$NAME``, ``${NAME}``, ``%NAME%``,
    ``getenv("NAME"``, ``.get("NAME"``, ...: as :func:`.misspelled._read_in`) other than
    at an assignment's name in ``starts`` (PowerShell's ``$env:NAME = ...``)."""
    if not _read_in(text, name):
        return False
    word = re.escape(name)
    use = re.compile(
        rf"(?:\$\{{?(?:env:)?|%)(?={word}(?![A-Za-z0-9_]))"
        rf"|(?:getenv|\.get|\.pop)\(\s*[\"'](?={word}[\"'])"
    )
    return any(m.end() not in starts for m in use.finditer(text))


def _mentions(text: str, name: str) -> int:
    return len(re.findall(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text))


def name_findings(text: str, release: str, found: Iterable[Assignment]) -> list[Diagnostic]:
    """TL421 for an assigned owned name no packaged release reads (with the nearest read
    name; as a rename in ``suggestions`` when close and the document names it only in
    these assignments), TL405 for one that only other releases read (``release`` is
    packaged). Names TL408 reports (near misses of a family name) and names the document
    reads itself are left alone."""
    found = list(found)
    if not found:
        return []
    read = names_read(release)
    every = _every()
    short = ".".join(release.split(".")[:2])
    packaged = packaged_reads().get(short)
    counts: dict[str, int] = {}
    for a in found:
        counts[a.name] = counts.get(a.name, 0) + 1
    out: list[Diagnostic] = []
    starts: dict[str, set[int]] = {}
    for a in found:
        starts.setdefault(a.name, set()).add(a.start)
    # what depends on the name only is asked once per name (each question scans the text)
    read_here = {name: _read_elsewhere(text, name, at) for name, at in starts.items()}
    nearest: dict[str, tuple[str | None, bool]] = {}
    mentions: dict[str, int] = {}
    for a in found:
        if read_here[a.name]:
            continue
        if BROAD.fullmatch(a.name) and suggestion(a.name, read) is not None:
            continue  # TL408's
        if a.name not in every:
            if a.name not in nearest:
                nearest[a.name] = _nearest(a.name)
            near, close = nearest[a.name]
            hint = f"; did you mean `{near}`?" if near else ""
            words = a.name.split("_")[1:]
            if not near and a.name.startswith("TORCHINDUCTOR_") and set(words) & set(_DEBUG_WORDS):
                hint = DEBUG_HINT
            if near and close and a.name not in mentions:
                mentions[a.name] = _mentions(text, a.name)
            fix = (near,) if near and close and mentions[a.name] == counts[a.name] else ()
            out.append(
                Diagnostic(
                    UNREAD_NAME,
                    Severity.WARNING,
                    f"torch does not read `{a.name}`: no release {_span()} does (neither its "
                    f"Python code nor its native libraries name it), so it has no effect{hint}",
                    a.start,
                    a.end,
                    fix,
                )
            )
        elif packaged is not None and a.name not in packaged:
            out.append(
                Diagnostic(
                    NOT_READ,
                    Severity.WARNING,
                    f"`{a.name}` is not read by torch {short} (read by torch "
                    f"{_runs(releases_reading(a.name))}); it has no effect",
                    a.start,
                    a.end,
                )
            )
    return out


def _reads(name: str, release: str) -> bool:
    """Whether torch ``release`` reads ``name`` (a release not packaged: any does)."""
    return name in names_read(release)


def tilde_findings(
    release: str, spans: Sequence[ValueSpan], found: Sequence[Assignment]
) -> list[Diagnostic]:
    """TL422 for a TORCH_TRACE, TORCH_DTRACE or TORCH_LOGS_OUT value that reaches torch
    starting with ``~`` (the host decoded it so: quoted in a shell, any value of a
    ``.env``, YAML, JSON, Dockerfile ``ENV`` or Python string), for a release that reads
    the variable."""
    places = [(s.variable, s.value, s.content_start, s.content_end) for s in spans]
    places += [(a.name, a.value, a.content_start, a.content_end) for a in found]
    out: list[Diagnostic] = []
    for variable, value, start, end in places:
        if variable not in PATH_VARIABLES or value is None or not value.startswith("~"):
            continue
        if variable == "TORCH_TRACE" and not holds("torch_trace", release):
            continue
        if variable == "TORCH_LOGS_OUT" and not holds("logs_out", release):
            continue
        if variable == "TORCH_DTRACE" and not _reads(variable, release):
            continue
        head = quote(value.split("/", 1)[0])
        where = quote("./" + value)
        what = (
            f"`import torch` opens {where} (relative to the working directory) "
            f"and raises FileNotFoundError unless a folder named {head} exists there"
            if variable == "TORCH_LOGS_OUT"
            else f"torch writes its trace files into a folder named {head} that it creates "
            f"in the working directory ({where})"
        )
        out.append(
            Diagnostic(
                TILDE_PATH,
                Severity.WARNING,
                f"torch does not expand `~` in {variable}: {what}; write the home directory "
                "out, or let a shell expand it (unquoted `~/...` in bash, or $HOME)",
                start,
                end,
            )
        )
    return out


#: Hosts whose assignments in one file make one environment (a shell's ``A=1 cmd`` is for
#: ``cmd`` only): TL423 looks across their whole file, elsewhere at one line.
_ONE_ENVIRONMENT = frozenset({"dotenv", "toml", "ini", "python", "ipython"})
#: Hosts whose file holds one environment per mapping (Compose services, workflow jobs,
#: Kubernetes containers, launch configurations): TL423 pairs two keys of one mapping only.
_PER_MAPPING = frozenset({"jsonc", "yaml"})


def _indentation(text: str, offset: int) -> int:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start : text.find("\n", start) if "\n" in text[start:] else len(text)]
    return len(line) - len(line.lstrip(" \t"))


def same_mapping(text: str, a: int, b: int) -> bool:
    """Whether the keys at document offsets ``a`` and ``b`` (YAML or JSON) are in one
    mapping, judged by the text between them: no closing bracket, and in block style no
    line indented less than theirs (a line of a parent key: another service, job or
    configuration). A bracket or an indentation change inside a value makes it ``False``:
    a pair is missed, never invented."""
    lo, hi = min(a, b), max(a, b)
    between = text[lo:hi]
    if "}" in between or "]" in between:
        return False
    if "\n" not in between:
        return True
    own = _indentation(text, lo)
    if _indentation(text, hi) != own:
        return False
    for line in between.split("\n")[1:]:
        body = line.strip()
        if body and not body.startswith(("#", "//")) and len(line) - len(line.lstrip(" \t")) < own:
            return False
    return True


def dtrace_findings(
    host: HostKind,
    text: str,
    release: str,
    spans: Sequence[ValueSpan],
    found: Sequence[Assignment],
) -> list[Diagnostic]:
    """TL423 on each TORCH_TRACE that a non-empty (or not static) TORCH_DTRACE of the same
    environment overrides, for a release that reads TORCH_DTRACE (2.7+): the same line
    (``TORCH_TRACE=a TORCH_DTRACE=b cmd``, ``export``, ``ENV``), the whole file of a
    host in :data:`_ONE_ENVIRONMENT`, or one mapping of YAML and JSON (:func:`same_mapping`)."""
    if not _reads("TORCH_DTRACE", release):
        return []
    dtrace = [a for a in found if a.name == "TORCH_DTRACE" and a.value != ""]
    if not dtrace:
        return []
    whole = host in _ONE_ENVIRONMENT

    def line(offset: int) -> int:
        return text.count("\n", 0, offset)

    lines = {line(a.start) for a in dtrace}
    out: list[Diagnostic] = []
    for s in spans:
        if s.variable != "TORCH_TRACE" or s.value is None:
            continue
        if host in _PER_MAPPING:
            if not any(same_mapping(text, a.start, s.name_start) for a in dtrace):
                continue
        elif not whole and line(s.name_start) not in lines:
            continue
        out.append(
            Diagnostic(
                DTRACE_WINS,
                Severity.WARNING,
                f"TORCH_DTRACE is set for the same process: torch {release} writes the trace "
                "into TORCH_DTRACE's directory and ignores TORCH_TRACE, and TORCH_DTRACE "
                "also records the detailed dtrace events (symbolic shapes, fake tensors, "
                "export), which can make the program much slower; keep one of them",
                s.content_start,
                s.content_end,
            )
        )
    return out


def verbose_findings(
    text: str, spans: Sequence[ValueSpan], found: Sequence[Assignment]
) -> list[Diagnostic]:
    """TL424 on ``TORCHDYNAMO_VERBOSE=1`` in a document that sets no TORCH_LOGS and calls
    no ``set_logs``."""
    if any(s.variable == "TORCH_LOGS" for s in spans) or "set_logs" in text:
        return []
    return [
        Diagnostic(
            VERBOSE_ALONE,
            Severity.INFORMATION,
            "TORCHDYNAMO_VERBOSE=1 turns on no logs: it only keeps torch's internal stack "
            "in compile errors and adds stack traces to graph-break records; for dynamo's "
            "logs set TORCH_LOGS=+dynamo (or TORCH_LOGS=graph_breaks,recompiles)",
            a.start,
            a.end,
        )
        for a in found
        if a.name == "TORCHDYNAMO_VERBOSE" and a.value == "1"
    ]


def knob_diagnostics(
    host: HostKind,
    text: str,
    release: str,
    spans: Sequence[ValueSpan],
    kept: DocumentCache | None = None,
    extracted: list[ValueSpan] | None = None,
) -> list[Diagnostic]:
    """TL421, TL405 (names), TL422, TL423 and TL424 of ``text`` (document offsets), in
    document order; ``spans`` the family spans the host extracted from it; ``kept`` and
    ``extracted``: the document's cache and its extraction's spans (:func:`assignments`)."""
    found = assignments(host, text, release, kept, extracted)
    out = name_findings(text, release, found)
    out += tilde_findings(release, spans, found)
    out += dtrace_findings(host, text, release, spans, found)
    out += verbose_findings(text, spans, found)
    out.sort(key=lambda d: (d.start, d.end, d.code))
    return out


__all__ = [
    "DTRACE_WINS",
    "NOT_READ",
    "PATH_VARIABLES",
    "PLACEHOLDER",
    "TILDE_PATH",
    "UNREAD_NAME",
    "VERBOSE_ALONE",
    "Assignment",
    "assignments",
    "dtrace_findings",
    "knob_diagnostics",
    "name_findings",
    "tilde_findings",
    "verbose_findings",
]
