"""TL408: an assignment of a variable torch does not read whose name is close to a family
name (``export TORCH_LOG=perf_hints``: logging silently stays off).

All offsets are **code points into the document text**.

Which names: a word matching :data:`BROAD` (``torch_log...``, ``torchtrace...``,
``torch_compile_debug...``, any case) that

- is not itself a name torch reads: the family, and every name the chosen release's Python
  code reads (``data/env-reads-by-version.json``, built by ``scripts/env_reads.py`` with
  :mod:`.env_reads`, with the names in the string tables of each release's native libraries;
  a release not packaged uses the union of all packaged ones);
- has no digit (``TORCH_LOGS_2`` is taken to be deliberate);
- is close to a name torch reads that matches :data:`BROAD` (the family plus, e.g.,
  ``TORCH_COMPILE_DEBUG_DIR``): equal up to case or ``_``, or ``difflib`` ratio of the upper-
  cased names at least :data:`CUTOFF` (tuned in ``tests/lint/test_misspelled.py``). Only a family
  name can be confirmed below (hosts report family assignments), so a near miss of
  ``TORCH_COMPILE_DEBUG_DIR`` (``torch_compile_debug_dir``) is left alone rather than
  "corrected" to ``TORCH_COMPILE_DEBUG``.

Case: environment names are case-sensitive on Linux and macOS and not on Windows. A shell
script runs under a POSIX shell (its host's ``SPEC.posix_only``), so ``torch_logs`` there
is always reported; for the other
hosts (``.env``, launch.json, Python) a name that differs from a read name only in case is
reported unless the checker itself runs on Windows (where the file most likely runs too);
in a batch file or a PowerShell script (a host whose ``RUNS_ON`` is not ``"posix"``: their
hosts read ``torch_logs`` as ``TORCH_LOGS``, as Windows does) never.

Where: only where the host would report an *assignment* if the name were the suggested
one. Each host's own parser decides: every candidate is replaced by its suggestion in a copy
of the document, the copy is extracted once (:func:`.stand_ins.stand_in_spans`), and a
candidate counts when the copy has a span of the suggested variable whose name starts where
the candidate starts. ``echo $TORCH_LOG``, a comment or ``os.environ.get("TORCH_LOG")`` are
not assignments and are never reported; and a name the document itself reads (``$TORCH_LOG``
anywhere in it: :func:`_read_in`) is the document's own variable, never reported. The
same replacement is the quick fix, so it is known to give an assignment the host reads.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.incremental import DocumentCache, Edit
from torch_logs_lsp.knowledge.env_reads import packaged_reads
from torch_logs_lsp.lint.stand_ins import stand_in_spans
from torch_logs_lsp.model.diagnostic import Diagnostic, Severity
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, FAMILY_ORDER, ValueSpan

MISSPELLED_NAME = "TL408"

#: Words that may be a misspelled family name (any case; word boundaries of ``\w``).
BROAD = re.compile(
    r"(?<![A-Za-z0-9_])(?i:torch_?(?:logs?|traces?|compile_?debug))[A-Za-z0-9_]*(?![A-Za-z0-9_])"
)
#: Least ``difflib.SequenceMatcher`` ratio of a near miss (``TORCH_LOGS_FMT`` 0.90 is one;
#: ``TORCH_TRACE_DIR`` 0.85 and ``TORCH_LOGS_DIR`` 0.83 are not).
CUTOFF = 0.88
#: Most candidates looked at in one document (the rest are not reported).
MAX_CANDIDATES = 1000


def _packaged() -> dict[str, frozenset[str]]:
    return packaged_reads()


def packaged_releases() -> list[str]:
    """The releases (``"2.13"``) whose read names are packaged."""
    return list(_packaged())


@cache
def names_read(release: str) -> frozenset[str]:
    """The environment names torch ``release`` (``"2.13"``) reads, plus the family: the
    packaged list, or the union of every packaged list for a release not packaged."""
    data = _packaged()
    short = ".".join(release.split(".")[:2])
    found = data.get(short)
    if found is None:
        found = frozenset().union(*data.values())
    return found | FAMILY


#: How a candidate starts (a name spelled ``tOrCh_LOG`` is not looked for): searching for
#: these and matching :data:`BROAD` only there costs 5 ms on 2 MB instead of a regex scan's
#: 120 ms.
_STARTS = ("TORCH", "torch", "Torch")


def _words(text: str) -> Iterator[re.Match[str]]:
    """The matches of :data:`BROAD` in ``text`` that start with one of :data:`_STARTS`,
    in document order."""
    starts: list[int] = []
    for needle in _STARTS:
        at = text.find(needle)
        while at >= 0:
            starts.append(at)
            at = text.find(needle, at + 5)
    for at in sorted(starts):
        m = BROAD.match(text, at)
        if m is not None:
            yield m


def _read_in(text: str, name: str) -> bool:
    """Whether the document itself reads ``name`` (``$NAME``, ``${NAME...}``,
    ``${env:NAME}``, ``%NAME%``, ``getenv("NAME"``, ``.get("NAME"``, ``.pop("NAME"``): then
    it is the document's own variable (``TORCH_LOG=/tmp/t.log; python t.py > $TORCH_LOG``),
    not a misspelling."""
    word = re.escape(name)
    use = (
        rf"\$\{{?(?:env:)?{word}(?![A-Za-z0-9_])|%{word}%"
        rf"|(?:getenv|\.get|\.pop)\(\s*[\"']{word}[\"']"
    )
    return re.search(use, text) is not None


def _squash(name: str) -> str:
    return name.upper().replace("_", "")


@cache
def _pool(read: frozenset[str]) -> list[str]:
    """The names a near miss may be of: the family, then the read names like it."""
    return [*FAMILY_ORDER, *sorted(n for n in read - FAMILY if BROAD.fullmatch(n))]


@cache
def _upper(read: frozenset[str]) -> frozenset[str]:
    return frozenset(n.upper() for n in read)


def suggestion(name: str, read: frozenset[str], case_sensitive: bool = True) -> str | None:
    """The name torch reads that ``name`` is a near miss of (see the module docstring),
    or ``None`` when ``name`` is read (in any case, when not ``case_sensitive``), has a
    digit, or is not close to a read name matching :data:`BROAD`."""
    if name in read or any(ch.isdigit() for ch in name):
        return None
    upper = name.upper()
    pool = _pool(read)
    if not case_sensitive and upper in _upper(read):
        return None
    for candidate in pool:
        if _squash(candidate) == _squash(name):
            return candidate
    best = difflib.get_close_matches(upper, pool, n=1, cutoff=CUTOFF)
    return best[0] if best else None


@dataclass(frozen=True)
class NearMiss:
    """A misspelled variable name at ``[start, end)`` (document code points), ``name`` as
    written and the ``suggestion`` torch reads."""

    start: int
    end: int
    name: str
    suggestion: str

    def diagnostic(self) -> Diagnostic:
        """TL408 over the name (document offsets), its suggestion in ``suggestions``."""
        message = f"torch does not read `{self.name}`; did you mean `{self.suggestion}`?"
        return Diagnostic(
            MISSPELLED_NAME, Severity.WARNING, message, self.start, self.end, (self.suggestion,)
        )

    def edit(self) -> TextEdit:
        """The rename (verified: the host reads the suggested variable there)."""
        return TextEdit(self.start, self.end, self.suggestion)


def near_misses(
    host: HostKind, text: str, release: str, case_sensitive: bool | None = None
) -> list[NearMiss]:
    """The near-miss assignments of ``text`` (a document of ``host`` kind), in document
    order, for torch ``release``. ``case_sensitive``: ``None`` decides by the host and
    platform (see the module docstring). Never raises for any text."""
    if case_sensitive is None:
        posix = hosts.runs_on(host) == "posix"  # not a batch file or PowerShell script
        module = hosts.host_module(host)
        posix_only = module is not None and module.SPEC.posix_only  # a shell script
        case_sensitive = posix_only or (os.name != "nt" and posix)
    read: frozenset[str] | None = None  # loaded for the first word that is not the family's
    found: list[NearMiss] = []
    for m in _words(text):
        if len(found) >= MAX_CANDIDATES:
            break
        if m.group() in FAMILY:
            continue  # read by every release: never a near miss
        if read is None:
            read = names_read(release)
        target = suggestion(m.group(), read, case_sensitive)
        if target is not None:
            found.append(NearMiss(m.start(), m.end(), m.group(), target))
    used = {name for name in {miss.name for miss in found} if _read_in(text, name)}
    found = [miss for miss in found if miss.name not in used]
    if not found:
        return []
    words = [(miss.start, miss.end) for miss in found]
    hits = stand_in_spans(host, text, words, [miss.suggestion for miss in found])
    confirmed = [found[i] for i in sorted({hit.word for hit in hits})]
    # A name the text mentions anywhere else (``export TORCH_LOG`` on its own line,
    # ``printenv TORCH_LOG``, ``os.environ["TORCH_LOG"]`` read, a here-document) is the
    # document's own variable, or one the rename would leave half done: not reported.
    counts = Counter(miss.name for miss in confirmed)
    mentions = {
        name: len(re.findall(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text))
        for name in counts
    }
    return [miss for miss in confirmed if mentions[miss.name] == counts[miss.name]]


def _torchless(span: ValueSpan) -> bool:
    """Whether a value cannot hold a candidate or a mention of one: static (nothing
    expanded, such as a batch file's ``%TORCH_LOG%``) and no ``torch`` in any case."""
    return span.value is not None and "torch" not in span.value.lower()


def _moved(misses: list[NearMiss], edit: Edit) -> list[NearMiss]:
    """``misses`` after ``edit`` (inside a value, so before or after every name)."""
    d = edit.delta
    return [
        replace(m, start=m.start + d, end=m.end + d) if m.start >= edit.old_end else m
        for m in misses
    ]


def name_diagnostics(
    host: HostKind,
    text: str,
    release: str,
    kept: DocumentCache | None = None,
    spans: list[ValueSpan] | None = None,
) -> list[Diagnostic]:
    """TL408 diagnostics of ``text`` (document offsets), in document order. ``kept``: the
    document's cache (with ``spans``, the text's extracted spans): while edits stay inside
    one plain value without ``torch`` in it (typing in a TORCH_LOGS value), the last
    version's near misses are moved instead of searched for again (a search extracts a
    copy of the document)."""
    if kept is None or spans is None:
        return [miss.diagnostic() for miss in near_misses(host, text, release)]
    misses = kept.remembered_moved(
        "near misses",
        (host, release),
        text,
        spans,
        _torchless,
        lambda: near_misses(host, text, release),
        _moved,
    )
    return [miss.diagnostic() for miss in misses]


__all__ = [
    "BROAD",
    "CUTOFF",
    "MISSPELLED_NAME",
    "NearMiss",
    "name_diagnostics",
    "names_read",
    "near_misses",
    "packaged_releases",
    "suggestion",
]
