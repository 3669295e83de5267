"""Values that options and operands of wrapped commands carry (see
:mod:`.shell_wrappers`): :func:`operand_span` reads ``NAME=value`` inside a word
(``--env=NAME=value``, ``"NAME=value"``, one item of ``--export=A=1,NAME=value``), and
:func:`elsewhere` says when such a value is for a process in a container or on another
machine. Offsets are code points into the text.
"""

from __future__ import annotations

import re

from .base import FAMILY, ValueSpan
from .interface import PathFacts
from .shell_words import scan_word
from .shell_wrappers import ShellWord, literal_assignment


def operand_span(text: str, word: ShellWord, off: int, *, comma: bool = False) -> ValueSpan | None:
    """The span of a family ``NAME=value`` inside ``word`` from its raw offset ``off``
    (``--env=NAME=value``: 6), or ``None`` (another name, or a name written with escapes).
    ``comma``: the value ends at its first comma (Slurm's ``--export`` list). A literal
    ``NAME=`` is read as an assignment's value (a tilde at its start is expanded: not
    static); a quoted one (``"NAME=value"``) from the decoded word. Offsets are code
    points into ``text``."""
    from .shell import HOST

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


_ELSEWHERE = re.compile(r"(?:^|[\s;&|(`'\"])(?:\S*/)?(docker|podman|srun)[ \t]")
_ELSEWHERE_NAMES = {
    "docker": "a container (docker)",
    "podman": "a container (podman)",
    "srun": "a Slurm job step (srun)",
}


def elsewhere(text: str, span: ValueSpan) -> str | None:
    """Why ``span``'s value is for a process on another machine or in a container: a
    ``docker``/``podman``/``srun`` word before it in its command (its line, with the lines
    it continues); ``None`` otherwise. A textual test: it only keeps paths from being
    judged here, so a false match costs a path check, never a finding."""
    start = span.name_start
    while True:
        start = text.rfind("\n", 0, start)
        if start <= 0 or text[start - 1] != "\\":
            break
    found = list(_ELSEWHERE.finditer(text, max(start, 0), span.name_start))
    return _ELSEWHERE_NAMES[found[-1].group(1)] if found else None


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """The shell host's :meth:`~.interface.Host.path_facts`: see
    :func:`.shell_paths.path_facts` (directories the script creates, ``cd``,
    batch-scheduler headers); a value given to a container or an ``srun`` step runs
    elsewhere (:func:`elsewhere`)."""
    from .shell_paths import path_facts as facts

    out = facts(text, spans)
    return [
        PathFacts(runs_elsewhere=w) if (w := elsewhere(text, s)) else f
        for f, s in zip(out, spans, strict=True)
    ]


__all__ = ["elsewhere", "operand_span", "path_facts"]
