"""pytest-env's entries in an INI file: the ``env`` option of ``[pytest]`` (``pytest.ini``,
``.pytest.ini``, ``tox.ini``) and ``[tool:pytest]`` (``setup.cfg``), as pytest-env 1.8.5
reads it (``pytest_env/plugin.py`` ``_load_values``).

pytest reads the option as a ``linelist`` (pytest 9.2 ``_pytest/config/__init__.py``:
the value split at ``\\n``, each line stripped, empty ones dropped): one entry per value
line (:func:`.ini_lines.iniconfig_options`). An entry ``[FLAG:]...NAME=VALUE`` is split
at its first ``=``; the part before is split at ``:``, the last piece stripped is the
name, the others (stripped, upper cased) are flags: ``R`` (raw), ``D`` (only when unset),
``U`` (unset). The value is the rest, stripped; without ``R`` it goes through
``str.format(**os.environ)``, so a value holding ``{`` or ``}`` is not static. An entry
without ``=`` sets the variable to ``""`` (an :class:`Entry` flagged :data:`NO_VALUE`,
not reported); a ``U`` entry removes it (an
:class:`Entry` with ``"U"`` in its flags, whose span is no value span).
All offsets are **code points into the document**.
"""

from __future__ import annotations

from typing import NamedTuple

from .base import FAMILY, ValueSpan
from .ini_lines import Option, iniconfig_options

#: The sections pytest reads its options from in an INI file (``findpaths.py``:
#: ``[pytest]`` in pytest.ini, .pytest.ini, tox.ini; ``[tool:pytest]`` in setup.cfg).
SECTIONS = ("pytest", "tool:pytest")


#: The pseudo-flag of an entry without ``=`` (it sets the variable to ``""``; its span is
#: not reported).
NO_VALUE = "="


class Entry(NamedTuple):
    """One pytest-env entry of a family variable: its span, the flags written before its
    name (upper case), and the option it belongs to (its name's offset)."""

    span: ValueSpan
    flags: frozenset[str]
    option: int


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def entry(text: str, start: int, end: int, option: int, host: str) -> Entry | None:
    """The entry on the value line ``text[start:end]`` (stripped, no line break) when it
    sets a family variable, else ``None``."""
    eq = text.find("=", start, end)
    no_value = eq == -1
    if no_value:
        eq = end
    colon = text.rfind(":", start, eq)
    ns, ne = _strip(text, colon + 1 if colon != -1 else start, eq)
    name = text[ns:ne]
    if name not in FAMILY:
        return None
    flags = (
        frozenset(f.strip().upper() for f in text[start:colon].split(":"))
        if colon != -1
        else frozenset()
    )
    if no_value:
        flags |= {NO_VALUE}
    vs, ve = _strip(text, eq + 1, end) if not no_value else (ne, ne)
    value: str | None = text[vs:ve]
    if "R" not in flags and ("{" in text[vs:ve] or "}" in text[vs:ve]):
        value = None  # str.format(**os.environ): depends on the environment
    starts = tuple(range(vs, ve)) if value else ()
    span = ValueSpan(
        variable=name,
        host=host,
        name_start=ns,
        name_end=ne,
        value=value,
        char_starts=starts,
        char_ends=tuple(i + 1 for i in starts),
        content_start=vs,
        content_end=ve,
        raw_start=vs,
        raw_end=ve,
        quote="",
    )
    return Entry(span, flags, option)


def entries(text: str, host: str, options: list[Option] | None = None) -> list[Entry]:
    """Every pytest-env entry of a family variable in ``text``, in document order
    (``options``: :func:`.ini_lines.iniconfig_options` of ``text``, read when not given)."""
    out: list[Entry] = []
    for option in options if options is not None else iniconfig_options(text):
        if option.name != "env" or option.section not in SECTIONS:
            continue
        for start, end in option.lines:
            found = entry(text, start, end, option.name_start, host)
            if found is not None:
                out.append(found)
    return out


def dead(found: list[Entry]) -> list[tuple[int, int]]:
    """``(dead, live)`` index pairs into ``found`` (pytest-env applies the entries of an
    option in order): an entry set again by a later one of the same option and variable
    without ``D`` (a ``D`` entry after it is skipped, as the variable is then set). A ``U``
    entry between them keeps both."""
    out: list[tuple[int, int]] = []
    last: dict[tuple[int, str], int] = {}  # (option, variable) -> the entry that set it
    for i, e in enumerate(found):
        key = (e.option, e.span.variable)
        before = last.get(key)
        if "U" in e.flags:
            last.pop(key, None)
        elif before is None:
            last[key] = i
        elif "D" not in e.flags:
            out.append((before, i))
            last[key] = i
    return out


__all__ = ["NO_VALUE", "SECTIONS", "Entry", "dead", "entries", "entry"]
