"""tox 4's ``set_env`` (alias ``setenv``) lines in ``[testenv]``, ``[testenv:NAME]`` and
``[pkgenv...]`` sections of ``tox.ini`` (and of a ``setup.cfg`` with a ``[tox:tox]``
section: a document with ``[metadata]``, ``[options]`` or ``[tool:pytest]`` options and
no ``[tox:tox]`` is taken for a setup.cfg tox does not read), as tox 4.67 reads them.

The file is read by configparser (:func:`.ini_lines.configparser_options`; names lower
cased). ``IniLoader.process_raw`` (``tox/config/loader/ini/__init__.py``) then drops value
lines starting with ``#``, cuts each line at its first ``#`` not after a backslash (with
the blanks before it), keeps the lines of the factors that match the environment
(``py310: NAME=value``, ``tox/config/loader/ini/factor.py``) and joins a line ending in
``\\`` with the next. ``SetEnv._parse_str`` (``tox/config/set_env.py``) splits the text
into lines again (``str.splitlines``), skips ``file|`` lines, and splits ``NAME=value``
at the first ``=`` (``set_env_line.split_line``: both stripped, a ``;`` outside quotes
starts an environment marker). The value is then substituted (``{env:X}``,
``{posargs}``, ``[]``, backslash escapes: ``tox/config/loader/replacer.py``), so a value
holding ``{``, ``}``, ``\\`` or ``[]`` is not static here.

Not reported: a line joined with the one before (``\\``), a line holding a line break
other than ``\\n``, a ``file|`` line, a line whose factor prefix this module cannot read
as tox does. All offsets are **code points into the document**.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from torch_logs_lsp.hosts.ini.lines import Option
from torch_logs_lsp.hosts.pytest_env import strip_range
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

#: The option names of tox's ``set_env`` (``tox/config/sets.py``: ``keys=["set_env",
#: "setenv"]``: ``set_env`` wins in a section that has both).
KEYS = ("set_env", "setenv")
_SECTION = re.compile(r"(?:testenv|pkgenv)(?::.*)?", re.DOTALL)
#: Line breaks ``str.splitlines`` knows besides ``\\n`` (and ``\\r``, which the file read
#: already turned into ``\\n``).
_OTHER_BREAKS = frozenset("\v\f\x1c\x1d\x1e\x85\u2028\u2029")
#: ``factor.py`` ``_MARKER_SEARCH_PATTERN``: a ``:`` followed by a blank or the end.
_FACTOR_MARK = re.compile(r":(\s|$)")
#: ``factor.py``: ``_EXPAND_ENV_WITH_NEGATION_PATTERN``, ``_ELEMENTS_PATTERN``,
#: ``_FACTOR_RE`` (verbatim).
_ENV_NEGATION = re.compile(r"((?:\{[^}]+\})+)|,")
_ELEMENTS = re.compile(r"\{([^}]+)\}")
_FACTOR_RE = re.compile(r"(?:!?(?:\[!?|[\w.*?\]])(?:\[!?|[\w.*?\]-])*|^$)")


class Line(NamedTuple):
    """One ``set_env`` entry of a family variable: its span, and the option it belongs
    to (the option name's offset); ``conditional`` when a factor prefix or an environment
    marker decides whether it applies."""

    span: ValueSpan
    option: int
    conditional: bool


def _is_factor_expr(prefix: str) -> bool:
    """Whether ``factor._find_factor_groups(prefix)`` succeeds (it raises ``ValueError``
    when a variant is not made of factors) with at least one variant (an empty prefix
    gives none, and tox drops the line). Ranges (``{10-13}``) expand to digits and
    commas, which the check below accepts as written, so they are not expanded."""
    from itertools import groupby, product

    variants = 0
    for key, group in groupby(_ENV_NEGATION.split(prefix), key=bool):
        if not key:
            continue
        joined = "".join(g for g in group if g).strip()
        elements = _ELEMENTS.split(joined)
        for variant in product(*[[i.strip() for i in e.split(",")] for e in elements]):
            if not all(_FACTOR_RE.fullmatch(f) for f in "".join(variant).split("-")):
                return False
            variants += 1
    return variants > 0  # no variant at all: tox reads factors that never match


def _comment_cut(text: str, start: int, end: int) -> int:
    """Where ``_COMMENTS`` (``\\s*(?<!\\\\)#.*``) cuts the line ``text[start:end]``."""
    at = text.find("#", start, end)
    while at != -1 and at > start and text[at - 1] == "\\":
        at = text.find("#", at + 1, end)
    return end if at == -1 else at


def _marker_at(value: str) -> tuple[int | None, bool]:
    """``set_env_line.split_value_marker``: the ``;`` that starts a marker (quotes keep
    one inside them, unless a quote is left open: then quotes are ignored)."""
    for respect in (True, False):
        in_quotes, quote = False, ""
        for i, ch in enumerate(value):
            if respect and ch in "\"'" and (len(value[:i]) - len(value[:i].rstrip("\\"))) % 2 == 0:
                if not in_quotes:
                    in_quotes, quote = True, ch
                elif ch == quote:
                    in_quotes = False
            elif ch == ";" and not in_quotes and (i == 0 or value[i - 1] != "\\"):
                return i, False
        if not in_quotes:
            return None, False
    return None, False


def _line(text: str, start: int, end: int, option: int, host: HostKind) -> Line | None:
    """The entry of the value line ``text[start:end]`` (stripped by configparser)."""
    if text.startswith("#", start):
        return None
    end = _comment_cut(text, start, end)
    conditional = False
    m = _FACTOR_MARK.search(text, start, end)
    if m is not None:
        prefix = text[start : m.start()].strip()
        if "=" not in prefix:
            if not _is_factor_expr(prefix):
                return None  # the whole line (its name holds the prefix), or no line
            start, conditional = m.start() + 1, True
    start, end = strip_range(text, start, end)
    if text.startswith("file|", start) or any(c in _OTHER_BREAKS for c in text[start:end]):
        return None
    eq = text.find("=", start, end)
    if eq == -1:
        return None
    ns, ne = strip_range(text, start, eq)
    name = text[ns:ne]
    if name not in FAMILY:
        return None
    vs, ve = strip_range(text, eq + 1, end)
    at, _ = _marker_at(text[vs:ve])
    if at is not None:
        vs, ve = strip_range(text, vs, vs + at)
        conditional = True
    raw = text[vs:ve]
    static = not any(c in raw for c in "{}\\") and "[]" not in raw
    starts = tuple(range(vs, ve)) if static else ()
    span = ValueSpan(
        variable=name,
        host=host,
        name_start=ns,
        name_end=ne,
        value=raw if static else None,
        char_starts=starts,
        char_ends=tuple(i + 1 for i in starts),
        content_start=vs,
        content_end=ve,
        raw_start=vs,
        raw_end=ve,
        quote="",
    )
    return Line(span, option, conditional)


#: Sections only a ``setup.cfg`` has (setuptools, pytest): such a file is read by tox
#: only when it has a ``[tox:tox]`` section (``tox/config/source/setup_cfg.py``).
_SETUP_CFG = frozenset(("metadata", "options", "tool:pytest"))
_TOX_TOX = re.compile(r"^[ \t]*\[tox:tox\]", re.MULTILINE)


def lines(text: str, options: list[Option], host: HostKind) -> list[Line]:
    """The ``set_env`` entries of family variables in ``options``
    (:func:`.ini_lines.configparser_options` of ``text``), in document order; none in a
    ``setup.cfg`` (known by its sections) without ``[tox:tox]``."""
    if _SETUP_CFG & {o.section for o in options} and not _TOX_TOX.search(text):
        return []
    with_set_env = {o.section for o in options if o.name == "set_env"}
    out: list[Line] = []
    for option in options:
        if option.section is None or not _SECTION.fullmatch(option.section):
            continue
        if option.name not in KEYS or (option.name == "setenv" and option.section in with_set_env):
            continue
        joined = False
        for start, end in option.lines:
            cut = _comment_cut(text, start, end) if not text.startswith("#", start) else start
            content_end = strip_range(text, start, cut)[1]
            if not joined:
                found = _line(text, start, end, option.name_start, host)
                if found is not None:
                    out.append(found)
            joined = text.startswith("\\", content_end - 1) and content_end > start
    return out


def dead(found: list[Line]) -> list[tuple[int, int]]:
    """``(dead, live)`` index pairs into ``found``: an unconditional entry set again by a
    later unconditional one of the same option (a later ``NAME=`` replaces it in tox's
    dict)."""
    out: list[tuple[int, int]] = []
    last: dict[tuple[int, str], int] = {}
    for i, line in enumerate(found):
        if line.conditional:
            continue
        key = (line.option, line.span.variable)
        if key in last:
            out.append((last[key], i))
        last[key] = i
    return out


__all__ = ["KEYS", "Line", "dead", "lines"]
