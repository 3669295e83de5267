"""Assignments of names the hosts do not report, found by the hosts' own parsers.

All offsets are **code points into the document text**.

Every host reports assignments of the TORCH_LOGS family only. To learn whether a word of a
document is assigned, and to what value as the host decodes it (quotes, escapes), each such
word is replaced by a family name (its *stand-in*) in a copy of the document, the copy is
extracted once (:func:`.hosts.extract`), and a span of the word's stand-in whose name starts
where the word's replacement starts is the word's assignment (:func:`stand_in_spans`). Used
by TL408 (:mod:`.misspelled`: each word's stand-in is its suggestion), TL421-TL424
(:mod:`.knobs`) and TL441 (:mod:`.knob_values`); the last two share one extraction per
check (:func:`compiler_spans`: the copy replaces both rules' words).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Literal, NamedTuple

from torch_logs_lsp import hosts
from torch_logs_lsp.knowledge.env_reads import OWNED
from torch_logs_lsp.knowledge.knobs import KnobInfo, knobs
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

#: Words as ``(start, end)`` document offsets, in document order, not overlapping.
Words = Sequence[tuple[int, int]]


class StoodIn(NamedTuple):
    """A word the host reads as assigned: ``word`` its index in the words asked about,
    ``span`` its assignment with document offsets (``span.name_*`` the word's own;
    ``span.variable`` is the stand-in), ``changed`` the indices of the words whose
    replacement lies inside the value's text (raw or content): when not empty, ``span.value``
    was decoded from the copy and holds their stand-ins instead."""

    word: int
    span: ValueSpan
    changed: range


#: Results kept by :func:`stand_in_spans` (the last few (host, text, words, stand-in)).
_MEMO_SIZE = 4
_memo: OrderedDict[tuple[object, ...], tuple[StoodIn, ...]] = OrderedDict()
_lock = threading.Lock()


def stand_in_spans(
    host: HostKind, text: str, words: Words, stand_in: str | Sequence[str]
) -> tuple[StoodIn, ...]:
    """The assignments ``host`` reads of ``words`` of ``text`` (see the module docstring),
    in the order of the copy's spans; ``stand_in``: one family name for every word, or one
    per word. One extraction of a copy, in O((n + k) log k) for a text of n code points and
    k words besides; the last few results are kept, so asking again for the same
    (``host``, ``text``, ``words``, ``stand_in``) does not extract again. Raises what the
    host's extraction raises."""
    names = (stand_in,) * len(words) if isinstance(stand_in, str) else tuple(stand_in)
    key = (host, text, tuple(words), names)
    with _lock:
        kept = _memo.get(key)
        if kept is not None:
            _memo.move_to_end(key)
            return kept
    found = _extract(host, text, key[2], names)
    with _lock:
        _memo[key] = found
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return found


def _extract(
    host: HostKind, text: str, words: Sequence[tuple[int, int]], names: Sequence[str]
) -> tuple[StoodIn, ...]:
    if not words:
        return ()
    pieces: list[str] = []
    copy_starts: list[int] = []  # where each replacement starts in the copy
    copy_ends: list[int] = []  # and ends
    shifts: list[int] = []  # the copy's shift after each replacement
    at = 0
    shift = 0
    for (start, end), name in zip(words, names, strict=True):
        pieces += [text[at:start], name]
        copy_starts.append(start + shift)
        copy_ends.append(start + shift + len(name))
        shift += len(name) - (end - start)
        shifts.append(shift)
        at = end
    pieces.append(text[at:])
    spans = hosts.extract(host, "".join(pieces))

    def back(offset: int) -> int:  # a copy offset in the document (replacements ended)
        done = bisect_right(copy_ends, offset)
        return offset - (shifts[done - 1] if done else 0)

    index = {start: i for i, start in enumerate(copy_starts)}
    out: list[StoodIn] = []
    for span in spans:
        i = index.get(span.name_start)
        if i is None or span.variable != names[i]:
            continue
        lo, hi = min(span.raw_start, span.content_start), max(span.raw_end, span.content_end)
        first = bisect_left(copy_starts, lo)
        changed = range(first, bisect_left(copy_starts, hi))
        if changed:
            starts = tuple(back(s) for s in span.char_starts)
            ends = tuple(back(e) for e in span.char_ends)
            content = back(span.content_start), back(span.content_end)
            raw = back(span.raw_start), back(span.raw_end)
        else:  # one move for the whole value
            moved = span.moved(-(shifts[first - 1] if first else 0))
            starts, ends = moved.char_starts, moved.char_ends
            content = moved.content_start, moved.content_end
            raw = moved.raw_start, moved.raw_end
        placed = ValueSpan(
            span.variable,
            span.host,
            words[i][0],
            words[i][1],
            span.value,
            starts,
            ends,
            *content,
            *raw,
            span.quote,
            span.terminated,
        )
        out.append(StoodIn(i, placed, changed))
    return tuple(out)


# --- the compiler's names: TL421-TL424 and TL441 share one copy -------------------------

#: The family name every compiler name is replaced by in the shared copy.
COMPILER_STAND_IN = "TORCH_TRACE"
#: Most words of each rule looked at in one document.
MAX_WORDS = 1000
_OWNED = re.compile(OWNED.pattern)
_KNOB = re.compile(r"(?:TORCH|INDUCTOR_)[A-Z0-9_]*")
# Maximal runs of word characters that begin with a prefix: ``re`` finds each by searching
# for the literal prefix (a lookbehind before the prefix would make it try every offset).
_TORCH_RUN = re.compile(r"TORCH[A-Za-z0-9_]*")
_INDUCTOR_RUN = re.compile(r"INDUCTOR_[A-Za-z0-9_]*")


def _word_start(text: str, at: int) -> bool:
    """Whether no word character (``[A-Za-z0-9_]``) comes right before offset ``at``."""
    if at == 0:
        return True
    c = text[at - 1]
    return not (c == "_" or ("0" <= c <= "9") or ("A" <= c <= "Z") or ("a" <= c <= "z"))


def owned_words(text: str) -> list[re.Match[str]]:
    """The first :data:`MAX_WORDS` whole words of ``text`` of a prefix torch owns
    (:data:`.env_reads.OWNED`) that are not family names, in document order. A whole word
    is a run of ``[A-Za-z0-9_]`` with no such character on either side."""
    out: list[re.Match[str]] = []
    if "TORCH" not in text:
        return out
    for m in _TORCH_RUN.finditer(text):
        word = m.group()
        if word in FAMILY or not _word_start(text, m.start()) or not _OWNED.fullmatch(word):
            continue
        out.append(m)
        if len(out) >= MAX_WORDS:
            break
    return out


def _knob_shaped(text: str) -> Iterator[re.Match[str]]:
    """The whole words of ``text`` of a knob name's shape (``TORCH…`` or ``INDUCTOR_…``: upper
    case letters, digits and ``_``) that are not family names, in document order."""
    runs = [_TORCH_RUN.finditer(text)] if "TORCH" in text else []
    if "INDUCTOR_" in text:
        runs.append(_INDUCTOR_RUN.finditer(text))
    found = (
        runs[0] if len(runs) == 1 else sorted((m for r in runs for m in r), key=lambda m: m.start())
    )
    for m in found:
        word = m.group()
        if word not in FAMILY and _word_start(text, m.start()) and _KNOB.fullmatch(word):
            yield m


def knob_words(text: str, names: dict[str, KnobInfo]) -> Iterator[re.Match[str]]:
    """The whole words of ``text`` that are knob names of ``names``, in document order (no
    family name is a knob)."""
    return (m for m in _knob_shaped(text) if m.group() in names)


class CompilerWords(NamedTuple):
    """The words of a document either compiler rule asks about: ``owned`` (TL421-TL424:
    :func:`owned_words`) and ``knobs`` (TL441: the first :data:`MAX_WORDS` knob names of a
    release), each in document order, and ``words`` their union as ``(start, end)``."""

    owned: tuple[re.Match[str], ...]
    knobs: tuple[re.Match[str], ...]
    words: tuple[tuple[int, int], ...]


@lru_cache(maxsize=2)
def compiler_words(text: str, release: str | None) -> CompilerWords:
    """:class:`CompilerWords` of ``text`` for torch ``release``'s knobs (``None``: the
    default release)."""
    owned = tuple(owned_words(text))
    names: dict[str, KnobInfo] | None = None  # the table is read for the first candidate
    found: list[re.Match[str]] = []
    for m in _knob_shaped(text):
        if names is None:
            names = knobs(release)
        if m.group() not in names:
            continue
        if len(found) >= MAX_WORDS:
            break
        found.append(m)
    union = sorted({m.span() for m in owned} | {m.span() for m in found})
    return CompilerWords(owned, tuple(found), tuple(union))


def no_compiler_word(span: ValueSpan) -> bool:
    """Whether a value cannot hold a word of either compiler rule, nor become one by an
    edit inside it: static, with no ``TORCH`` and no ``INDUCTOR_`` (the copy of a
    document that differs only inside such a value differs by the same edit there)."""
    value = span.value
    return value is not None and "TORCH" not in value and "INDUCTOR_" not in value


def compiler_spans(
    host: HostKind, text: str, release: str | None, rule: Literal["owned", "knobs"]
) -> list[tuple[re.Match[str], StoodIn]]:
    """The assignments ``host`` reads of ``rule``'s words of ``text`` (:class:`CompilerWords`),
    each with its word (``StoodIn.word`` and ``changed`` index ``rule``'s words), all
    replaced by :data:`COMPILER_STAND_IN`: the same as :func:`stand_in_spans` of these words
    alone, taken from one extraction of the copy with both rules' words replaced (the other
    rule's call finds it kept). A value whose text holds a word of the other rule only is
    not the document's in that copy: then this rule's words get a copy of their own. Raises
    what the host's extraction raises."""
    cw = compiler_words(text, release)
    own = cw.owned if rule == "owned" else cw.knobs
    if not own:
        return []
    position = {m.start(): j for j, m in enumerate(own)}
    out: list[tuple[re.Match[str], StoodIn]] = []
    for hit in stand_in_spans(host, text, cw.words, COMPILER_STAND_IN):
        j = position.get(cw.words[hit.word][0])
        if j is None:
            continue
        inside = [position.get(cw.words[c][0]) for c in hit.changed]
        ours = [k for k in inside if k is not None]
        if len(ours) < len(inside):  # the other rule's word changed this value
            alone = stand_in_spans(host, text, [m.span() for m in own], COMPILER_STAND_IN)
            return [(own[h.word], h) for h in alone]
        changed = range(ours[0], ours[-1] + 1) if ours else range(0)
        out.append((own[j], StoodIn(j, hit.span, changed)))
    return out


__all__ = [
    "COMPILER_STAND_IN",
    "MAX_WORDS",
    "CompilerWords",
    "StoodIn",
    "Words",
    "compiler_spans",
    "compiler_words",
    "knob_words",
    "owned_words",
    "stand_in_spans",
]
