"""pytest-env's entries in an INI file: the ``env`` option of ``[pytest]`` (``pytest.ini``,
``.pytest.ini``, ``tox.ini``) and ``[tool:pytest]`` (``setup.cfg``), as pytest-env 1.8.7
reads it (``pytest_env/plugin.py`` ``_load_values``).

pytest reads the option as a ``linelist`` (pytest 9.2 ``_pytest/config/__init__.py``:
the value split at ``\\n``, each line stripped, empty ones dropped): one entry per value
line (:func:`.ini_lines.iniconfig_options`). An entry ``[FLAG:]...NAME=VALUE`` is split
at its first ``=``; the part before is split at ``:``, the last piece stripped is the
name, the others (stripped, upper cased) are flags: ``R`` (raw), ``D`` (only when unset),
``U`` (unset); any other flag, or no name, makes pytest-env 1.8.7 raise ``UsageError``
and pytest stop (:func:`stops`). The value is the rest, stripped; without ``R`` it goes
through ``str.format_map(os.environ)``: ``{{``/``}}`` are one brace, a value holding a
field or a lone brace is not static (:func:`.pytest_env.formatted`). An entry
without ``=`` sets the variable to ``""`` (an :class:`Entry` flagged :data:`NO_VALUE`
whose span has the empty value: TL001); a ``U`` entry removes it (an
:class:`Entry` with ``"U"`` in its flags, whose span is no value span).
All offsets are **code points into the document**.
"""

from __future__ import annotations

from typing import NamedTuple

from torch_logs_lsp.hosts.ini.lines import Option, iniconfig_options
from torch_logs_lsp.hosts.interface import Stopped
from torch_logs_lsp.hosts.pytest_env import Stop, parse_entry, stop_message
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

#: The sections pytest reads its options from in an INI file (``findpaths.py``:
#: ``[pytest]`` in pytest.ini, .pytest.ini, tox.ini; ``[tool:pytest]`` in setup.cfg).
SECTIONS = ("pytest", "tool:pytest")


#: The pseudo-flag of an entry without ``=`` (it sets the variable to ``""``).
NO_VALUE = "="


class Entry(NamedTuple):
    """One pytest-env entry of a family variable: its span, the flags written before its
    name (upper case), and the option it belongs to (its name's offset)."""

    span: ValueSpan
    flags: frozenset[str]
    option: int


def entry(text: str, start: int, end: int, option: int, host: HostKind) -> Entry | None:
    """The entry on the value line ``text[start:end]`` (stripped, no line break) when it
    sets a family variable, else ``None``; read by :func:`.pytest_env.parse_entry`, the
    reading the TOML host shares (offsets moved into the document)."""
    read = parse_entry(text[start:end])
    if read.name not in FAMILY:
        return None
    flags = read.flags | ({NO_VALUE} if "=" not in text[start:end] else set())
    value = read.value
    if NO_VALUE in flags:
        value = ""
    vs, ve = start + read.raw_start, start + read.raw_end
    span = ValueSpan(
        variable=read.name,
        host=host,
        name_start=start + read.name_start,
        name_end=start + read.name_end,
        value=value,
        char_starts=tuple(start + i for i in read.starts) if value else (),
        char_ends=tuple(start + i for i in read.ends) if value else (),
        content_start=vs,
        content_end=ve,
        raw_start=vs,
        raw_end=ve,
        quote="",
    )
    return Entry(span, frozenset(flags), option)


def entries(text: str, host: HostKind, options: list[Option] | None = None) -> list[Entry]:
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


def stops(text: str, options: list[Option] | None = None) -> list[Stopped]:
    """Per ``env`` option that names a family variable: the first entry on which
    pytest-env 1.8.7 certainly raises (:attr:`.pytest_env.EnvEntry.stop`), where pytest
    stops before any test runs. pytest-env reads the lines in order and applies each
    before it reads the next, so the first such line is where it stops, unless an
    earlier one raises for a reason that depends on the environment (a ``{VAR}`` of an
    unset variable): pytest stops either way."""
    out: list[Stopped] = []
    for option in options if options is not None else iniconfig_options(text):
        if option.name != "env" or option.section not in SECTIONS:
            continue
        names: list[str] = []
        first: tuple[int, Stop] | None = None
        for start, end in option.lines:
            read = parse_entry(text[start:end])
            if read.name in FAMILY and read.name not in names:
                names.append(read.name)
            if read.stop is not None and first is None:
                first = (start, read.stop)
        if first is not None and names:
            at, stop = first
            out.append(Stopped(at + stop.start, at + stop.end, stop_message(stop, names)))
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


__all__ = ["NO_VALUE", "SECTIONS", "Entry", "dead", "entries", "entry", "stops"]
