"""Values that options and operands of wrapped commands carry (see
:mod:`.shell_wrappers`): :func:`operand_span` reads ``NAME=value`` inside a word
(``--env=NAME=value``, ``"NAME=value"``, one item of ``--export=A=1,NAME=value``), and
:func:`elsewhere` says when such a value is for a process in a container or on another
machine. Offsets are code points into the text.
"""

from __future__ import annotations

import bisect
import re

from torch_logs_lsp.hosts.shell.words import scan_word
from torch_logs_lsp.hosts.shell.wrappers import ShellWord, literal_assignment
from torch_logs_lsp.model.spans import FAMILY, ValueSpan
from torch_logs_lsp.value.paths import PathFacts


def operand_span(text: str, word: ShellWord, off: int, *, comma: bool = False) -> ValueSpan | None:
    """The span of a family ``NAME=value`` inside ``word`` from its raw offset ``off``
    (``--env=NAME=value``: 6), or ``None`` (another name, or a name written with escapes).
    ``comma``: the value ends at its first comma (Slurm's ``--export`` list). A literal
    ``NAME=`` is read as an assignment's value (a tilde at its start is expanded: not
    static); a quoted one (``"NAME=value"``) from the decoded word. Offsets are code
    points into ``text``."""
    from torch_logs_lsp.hosts.shell.host import HOST

    var = literal_assignment(ShellWord(word.start + off, word.end, word.raw[off:], None))
    if var is not None:
        name_start = word.start + off
        w = scan_word(text, name_start + len(var) + 1, word.end, command_word=True)
        k, raw_start = 0, name_start + len(var) + 1
    else:
        w = scan_word(text, word.start, word.end, command_word=True)
        p = sum(1 for s in w.starts if s < word.start + off)
        e = p
        while e < len(w.chars) and w.chars[e] != "=":
            e += 1
        var = "".join(w.chars[p:e])
        if e >= len(w.chars) or var not in FAMILY or not w.static:
            return None
        if any(
            w.ends[j] - w.starts[j] != 1 or text[w.starts[j]] != w.chars[j] for j in range(p, e)
        ):
            return None  # an escaped name: not literal
        if w.starts[e - 1] - w.starts[p] != e - 1 - p:
            return None
        name_start, k, raw_start = w.starts[p], e + 1, w.ends[e]
    if var not in FAMILY:
        return None
    stop = len(w.chars)
    if comma and "," in w.chars[k:]:
        stop = w.chars.index(",", k)
    ok = w.static
    first = w.starts[k] if k < stop else raw_start
    last = w.ends[stop - 1] if k < stop else raw_start
    if k < stop:
        kinds = {q for q, cs, ce in w.parts if cs < last and ce > first}
    else:
        kinds = {q for q, cs, ce in w.parts if cs < raw_start <= ce}
    quote: str | None = kinds.pop() if len(kinds) == 1 else ("" if not kinds else None)
    return ValueSpan(
        variable=var,
        host=HOST,
        name_start=name_start,
        name_end=name_start + len(var),
        value="".join(w.chars[k:stop]) if ok else None,
        char_starts=tuple(w.starts[k:stop]) if ok else (),
        char_ends=tuple(w.ends[k:stop]) if ok else (),
        content_start=first,
        content_end=last,
        raw_start=raw_start,
        raw_end=w.end if stop == len(w.chars) else last,
        quote=None if quote == "$'" else quote,
        terminated=w.terminated,
    )


#: What ``(?:^|[\s;&|(`'"])(?:\S*/)?(docker|podman|srun)[ \t]`` finds (with
#: ``re.finditer``), read in one pass without backtracking (see :class:`_Elsewhere`).
_CANDIDATE = re.compile(r"(docker|podman|srun)[ \t]")
_BOUNDARY = re.compile(r"[\s;&|(`'\"]")
_ELSEWHERE_NAMES = {
    "docker": "a container (docker)",
    "podman": "a container (podman)",
    "srun": "a Slurm job step (srun)",
}


def _matches(text: str, pos: int, endpos: int) -> list[tuple[int, str]]:
    """(end, name) of each match ``re.finditer`` gives for the pattern above in
    ``text[pos:endpos]``, in order; linear in ``endpos - pos``. A name followed by a
    blank matches when a boundary character (or the text's start) comes right before it,
    or before a ``/`` path that reaches it without a blank (any blank is a boundary), and
    that character was not used by the match before (matches do not overlap)."""
    out: list[tuple[int, str]] = []
    lo = pos  # the first offset a match's boundary character may use
    for m in _CANDIDATE.finditer(text, pos, endpos):
        p = m.start()
        if p == 0:
            ok = True
        elif text[p - 1] == "/":
            ok = lo == 0 or (p - 1 > lo and _BOUNDARY.search(text, lo, p - 1) is not None)
        else:
            ok = p - 1 >= lo and _BOUNDARY.match(text, p - 1) is not None
        if ok:
            out.append((m.end(), m.group(1)))
        # the blank after this name: the earliest boundary a later match can use
        lo = m.end() if ok else max(lo, m.end() - 1)
    return out


class _Elsewhere:
    """:func:`elsewhere` for many spans of one text: each logical line is read once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        starts: list[int] = []  # per newline: where its logical line starts (-1: the text's)
        for k, nl in enumerate(self.newlines):
            joined = nl > 0 and text[nl - 1] == "\\"
            starts.append((starts[k - 1] if k else -1) if joined else nl)
        self.starts = starts
        self.found: dict[int, tuple[int, list[tuple[int, str]]]] = {}

    def line_start(self, pos: int) -> int:
        """Where the logical line of ``pos`` starts: the newline before it, or 0."""
        k = bisect.bisect_left(self.newlines, pos) - 1
        return max(self.starts[k], 0) if k >= 0 else 0

    def why(self, pos: int, line_end: int) -> str | None:
        """The last match before ``pos`` in its logical line (see :func:`elsewhere`);
        ``line_end``: how far to read that line's matches (at least ``pos``)."""
        start = self.line_start(pos)
        have = self.found.get(start)
        if have is None or have[0] < pos:
            have = (line_end, _matches(self.text, start, line_end))
            self.found[start] = have
        k = bisect.bisect_right(have[1], (pos, "\uffff")) - 1
        return _ELSEWHERE_NAMES[have[1][k][1]] if k >= 0 else None


def elsewhere(text: str, span: ValueSpan) -> str | None:
    """Why ``span``'s value is for a process on another machine or in a container: a
    ``docker``/``podman``/``srun`` word before it in its command (its line, with the lines
    it continues); ``None`` otherwise. A textual test: it only keeps paths from being
    judged here, so a false match costs a path check, never a finding. Linear in the
    text's length; for many spans of one text :func:`path_facts` reads each line once."""
    return _Elsewhere(text).why(span.name_start, span.name_start)


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """The shell host's :meth:`~.interface.Host.path_facts`: see
    :func:`.shell_paths.path_facts` (directories the script creates, ``cd``,
    batch-scheduler headers); a value given to a container or an ``srun`` step runs
    elsewhere (:func:`elsewhere`)."""
    from torch_logs_lsp.hosts.shell.paths import path_facts as facts

    out = facts(text, spans)
    where = _Elsewhere(text)
    last: dict[int, int] = {}  # logical line start -> the last span's name start in it
    for s in spans:
        start = where.line_start(s.name_start)
        last[start] = max(last.get(start, 0), s.name_start)
    return [
        PathFacts(runs_elsewhere=w)
        if (w := where.why(s.name_start, last[where.line_start(s.name_start)]))
        else f
        for f, s in zip(out, spans, strict=True)
    ]


__all__ = ["elsewhere", "operand_span", "path_facts"]
