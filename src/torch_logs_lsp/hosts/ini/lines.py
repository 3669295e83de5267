"""The INI host's readers of the file structure, with document offsets: iniconfig's (what
pytest reads ``pytest.ini``, ``.pytest.ini``, ``tox.ini`` and ``setup.cfg`` with) and
configparser's (what tox 4 reads ``tox.ini`` and ``setup.cfg`` with). Neither library
gives offsets, so each is mirrored here rule by rule; ``tests/hosts/ini/test_oracle.py``
checks both against the libraries on generated files.

An :class:`Option` is one ``name = value`` (or ``name: value``) entry: its section, its
name and the document ranges of its value lines, each already stripped as the library
strips it (so the library's value is ``"\\n".join`` of the lines' texts).
All offsets are **code points into the document**.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from torch_logs_lsp.hosts.pytest_env import strip_range

#: iniconfig 2.3.1 ``_parse.py``: ``COMMENTCHARS = "#;"``.
_COMMENT_CHARS = "#;"
#: The line breaks of ``str.splitlines`` (iniconfig splits the file with it, after the
#: universal-newline translation of ``open()``, which ``\\r\\n`` and ``\\r`` also get).
_SPLITLINES = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
#: configparser reads ``io.StringIO`` lines (``\\n`` only) of text tox read with
#: ``Path.read_text`` (universal newlines: ``\\r\\n`` and ``\\r`` become ``\\n``).
_UNIVERSAL = re.compile(r"\r\n|\r|\n")
#: configparser (CPython 3.11 ``Lib/configparser.py``): ``SECTCRE`` and ``OPTCRE``.
_SECTCRE = re.compile(r"\[(?P<header>.+)\]")
_OPTCRE = re.compile(r"(?P<option>.*?)\s*(?P<vi>=|:)\s*(?P<value>.*)$")
_NONSPACE = re.compile(r"\S")


class Option(NamedTuple):
    """One option of an INI file: ``section`` (its header's name as the library reads
    it, ``None`` before any header), ``name`` as the library keys it (configparser: lower
    case), the document range of the name, ``lines``: the document ranges of its value
    lines (each stripped; an empty first value has none), ``line_start``: where the
    option's first line starts."""

    section: str | None
    name: str
    name_start: int
    name_end: int
    lines: tuple[tuple[int, int], ...]
    line_start: int


def physical_lines(text: str, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    """The lines of ``text`` split at ``breaks`` as ``(start, end)`` ranges without their
    line break; a BOM at the start is not part of the first line (iniconfig removes it;
    tox reads with ``utf-8-sig``)."""
    out: list[tuple[int, int]] = []
    pos = 1 if text.startswith("\ufeff") else 0
    for m in breaks.finditer(text, pos):
        out.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out


def iniconfig_options(text: str) -> list[Option]:
    """The options as iniconfig 2.3.1 reads them (``_parse.parse_lines`` and
    ``_parseline`` with ``strip_inline_comments=False``, as pytest 9's
    ``_pytest/config/findpaths.py`` calls ``iniconfig.IniConfig(path)``): a line whose
    first non-blank is ``#`` or ``;`` is a comment; ``[...]`` (after cutting at any ``#``
    or ``;``) is a section header, else a ``[`` line is a continuation; an unindented line
    is ``name = value`` (split at the first ``=`` unless the name then holds a ``:``,
    else at the first ``:``); an indented one continues the previous value. Inline
    comments stay in the value. Lines iniconfig rejects (it then raises ``ParseError`` and
    pytest stops) are skipped here. Never raises."""
    found: list[tuple[Option, list[tuple[int, int]]]] = []
    section: str | None = None
    current: list[tuple[int, int]] | None = None
    for start, end in physical_lines(text, _SPLITLINES):
        s, e = strip_range(text, start, end)
        if s == e or text[s] in _COMMENT_CHARS:
            continue  # blank or comment: iniconfig returns (None, None)
        e = _rstrip_end(text, start, end)
        if text[start] == "[":
            line = text[start:e]
            for c in _COMMENT_CHARS:
                line = line.split(c)[0].rstrip()
            if line.endswith("]"):
                section, current = line[1:-1], None
                continue
            data = (s, e)  # a continuation of the whole line, stripped
        elif not text[start].isspace():
            line = text[start:e]
            name, sep, _ = line.partition("=")
            if not sep or ":" in name:
                name, sep, _ = line.partition(":")
                if not sep:
                    current = None  # iniconfig: "unexpected line"
                    continue
            value = strip_range(text, start + len(name) + 1, e)
            ns, ne = strip_range(text, start, start + len(name))
            current = [value] if value[0] < value[1] else []
            found.append((Option(section, text[ns:ne], ns, ne, (), start), current))
            continue
        else:
            data = (s, e)
        if current is not None:
            current.append(data)
    return [o._replace(lines=tuple(lines)) for o, lines in found]


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def configparser_options(text: str) -> list[Option]:
    """The options as ``configparser.ConfigParser(interpolation=None)`` reads them (tox 4
    ``tox/config/source/ini.py``; CPython 3.11 ``RawConfigParser._read``): full-line
    comments start with ``#`` or ``;`` after blanks, no inline comments; a line indented
    deeper than its option's line continues the value (a blank line inside a value is an
    empty line of it; trailing empty lines are dropped); ``[header]`` opens a section;
    ``name = value`` or ``name: value`` (the first ``=`` or ``:``) with the name lower
    cased. A line configparser rejects is skipped. Never raises."""
    found: list[tuple[Option, list[tuple[int, int]]]] = []
    section: str | None = None
    current: list[tuple[int, int]] | None = None
    indent_level = 0
    for start, end in physical_lines(text, _UNIVERSAL):
        s, e = strip_range(text, start, end)
        if s == e:
            if current is not None:
                current.append((s, s))  # an empty line of the value (trailing ones dropped)
            continue
        if text[s] in _COMMENT_CHARS:
            continue
        m = _NONSPACE.search(text, start, end)
        indent = (m.start() if m else start) - start
        if current is not None and indent > indent_level:
            current.append((s, e))
            continue
        indent_level = indent
        line = text[s:e]
        sm = _SECTCRE.match(line)
        if sm:
            section, current = sm.group("header"), None
            continue
        if section is None:
            return []  # MissingSectionHeaderError: configparser stops, tox cannot read it
        om = _OPTCRE.match(line)
        if om is None:
            continue  # a parsing error (raised at the end); the option before continues
        name = om.group("option").rstrip()
        if not name:
            current = None
            continue
        current = [strip_range(text, s + om.start("value"), e)]
        found.append((Option(section, name.lower(), s, s + len(name), (), start), current))
    out = []
    for o, lines in found:
        while lines and lines[-1][0] == lines[-1][1]:
            lines.pop()  # configparser: "\n".join(value).rstrip()
        out.append(o._replace(lines=tuple(lines)))
    return out


__all__ = ["Option", "configparser_options", "iniconfig_options", "physical_lines"]
