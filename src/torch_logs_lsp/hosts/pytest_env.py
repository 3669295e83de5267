"""pytest-env's reading of one ``env`` entry, as pure functions (no TOML, no INI).

pytest-env (1.8.7, ``pytest_env/plugin.py``) reads the ``env`` ini option (a list of
lines: ``[tool.pytest.ini_options] env = [...]`` in ``pyproject.toml``, ``[tool.pytest]``
or ``[pytest]`` in TOML mode, ``env =`` lines of ``pytest.ini``/``tox.ini``/``setup.cfg``).
``_load_values`` reads each line so::

    parts = line.partition("=")
    ini_key_parts = parts[0].split(":")
    flags = {k.strip().upper() for k in ini_key_parts[:-1]}
    if flags - {"D", "R", "U"}: raise UsageError      # an unknown flag
    key = ini_key_parts[-1].strip()
    if not key: raise UsageError                      # no variable name
    transform = "R" not in flags      # R: raw, no {VAR} expansion
    skip_if_set = "D" in flags        # D: only when the variable is not set yet
    unset = "U" in flags              # U: remove the variable
    value = parts[2].strip()

and ``_apply_entries`` applies each entry as it is read, in order: a ``skip_if_set`` entry
whose variable is set is skipped, an ``unset`` one pops the variable, any other sets
``os.environ[key]`` to ``value.format_map(os.environ)`` when ``transform`` (else
``value``); a template ``format_map`` rejects, or a name or value the environment cannot
hold (a NUL character, an empty name, ``=`` in a name), is a ``UsageError``. A
``UsageError`` stops pytest before any test runs: no test sees any variable of the
file. An entry without ``=`` sets the variable to ``""``. The table form
``[tool.pytest_env]`` (``NAME = "value"`` or ``NAME = {value = ..., transform = ...,
skip_if_set = ..., unset = ...}``) has no entry string: its value is :func:`formatted`
when ``transform`` is true (its own checks: :mod:`.usage_errors`).

Earlier releases (read in 1.8.5 and 1.7.1, and checked against real runs of both:
``tests/hosts/test_pytest_env_oracle.py``) differ: they ignored an unknown flag; they
expanded with ``value.format(**os.environ)`` and let its error (or the one of
``os.environ[""] = ...`` for an empty name, which a ``U:`` entry never reaches) out of
the plugin's hook, which stops pytest too, with a traceback; and a ``D:U:`` entry removed
the variable even when it was set (1.8.7 skips it).

Used by the TOML host (:mod:`.toml`) and the INI host (:mod:`.ini_pytest_env`). Offsets
here are code points into the entry string (the caller maps them into its document).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace

#: The pytest-env release whose reading this module follows.
VERSION = "1.8.7"
#: The flags pytest-env 1.8.7 knows (any other one is a ``UsageError``).
FLAGS = frozenset({"D", "R", "U"})
#: What a ``UsageError`` of pytest-env means for the file's variables.
STOPS = "pytest stops before any test runs, so no test sees {names}"


@dataclass(frozen=True)
class Stop:
    """Why pytest-env stops pytest at an entry (it raises, before any test runs):
    ``start``/``end`` the part of the entry that makes it raise, ``reason`` what happens
    there (in pytest-env 1.8.7), ``before`` what earlier releases (1.8.5, 1.7.1) did
    instead (``""`` when they stopped on the entry too). :func:`stop_message` words it
    for the file's variables."""

    start: int
    end: int
    reason: str
    before: str


def stop_message(stop: Stop, names: list[str]) -> str:
    """The message of ``stop`` for a file whose pytest-env entries set ``names`` (the
    family variables, in order): the reason, that pytest stops and what no test sees,
    then the earlier releases."""
    seen = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    message = f"{stop.reason} and {STOPS.format(names=seen or 'the variables it sets')}"
    return f"{message}; {stop.before}" if stop.before else message


@dataclass(frozen=True)
class EnvEntry:
    """One ``env`` entry as pytest-env reads it.

    ``flags``: the flags before the name, stripped and upper-cased (``{"D", "R"}``);
    ``name``: the variable name (stripped); ``name_start``/``name_end``: its place in the
    entry; ``raw_start``/``raw_end``: the value after ``=``, stripped (both the entry's
    end when there is no ``=``); ``transform``/``skip_if_set``/``unset``: what the flags
    mean (above); ``value``: what pytest-env sets (``str.format_map`` applied when
    ``transform``), or ``None`` when that is not known here (a ``{NAME}`` field, which
    reads the environment, or a lone brace, which makes pytest-env raise) or the entry
    unsets the variable; ``starts``/``ends``: per code point of ``value`` its source
    range in the entry (``{{`` is one ``{`` from two code points); ``stop``: why
    pytest-env certainly raises on the entry, whatever the environment (pytest then
    stops before any test runs: TL504), or ``None``."""

    flags: frozenset[str]
    name: str
    name_start: int
    name_end: int
    raw_start: int
    raw_end: int
    transform: bool
    skip_if_set: bool
    unset: bool
    value: str | None
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    stop: Stop | None = None


def strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    """The range ``[start, end)`` of ``text`` without the whitespace ``str.strip()``
    removes (Unicode whitespace), as code points into ``text``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def formatted(text: str, start: int, end: int) -> tuple[str, list[int], list[int]] | None:
    """``text[start:end].format_map(os.environ)`` when that does not depend on the
    environment: only ``{{`` and ``}}`` (one brace each), with each result code point's
    source range; ``None`` for a replacement field or a lone brace (``format_map``
    raises ``ValueError`` on it: :func:`template_error`)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = start
    while i < end:
        ch = text[i]
        if ch in "{}":
            if i + 1 < end and text[i + 1] == ch:
                out.append(ch)
                starts.append(i)
                ends.append(i + 2)
                i += 2
                continue
            return None
        out.append(ch)
        starts.append(i)
        ends.append(i + 1)
        i += 1
    return "".join(out), starts, ends


#: The first part of a replacement field's name (before ``.`` or ``[``).
_FIELD_HEAD = re.compile(r"[^.\[]*")


def template_error(template: str) -> str | None:
    """Why ``template.format_map(os.environ)`` raises whatever the environment holds, or
    ``None`` when it may not: the format string is malformed (``string.Formatter``'s
    parser, the one ``str.format_map`` uses, raises: a lone brace, a field left open);
    a field is positional (``{}``, ``{0}``: ``format_map`` takes names only); a
    conversion is not ``!r``, ``!s`` or ``!a``; or a format spec (without nested fields)
    does not apply to a string (``{HOME:d}``: every environment value is a ``str``). A
    field that names a variable that may be unset, an attribute or an index is not
    judged (it depends on the environment)."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as e:
        return str(e)
    for _literal, field, spec, conversion in parts:
        if field is None:
            continue
        head = _FIELD_HEAD.match(field)
        name = head.group() if head is not None else ""
        if name == "" or name.isdecimal():
            return f"`{{{field}}}` is a positional field (format_map takes names only)"
        if conversion is not None and conversion not in ("r", "s", "a"):
            return f"`!{conversion}` is not a conversion (!r, !s or !a)"
        if spec and "{" not in spec:
            try:
                format("", spec)
            except ValueError as e:
                return f"`:{spec}` does not format a string ({e})"
    return None


def _flag_stop(entry: str, colon: int) -> Stop | None:
    """The first flag of ``entry[:colon]`` (pieces between ``:``) that is not one of
    :data:`FLAGS`, as a :class:`Stop` on its text (on its ``:`` when it is empty)."""
    pos = 0
    for piece in entry[:colon].split(":"):
        start, end = strip_range(entry, pos, pos + len(piece))
        flag = piece.strip().upper()
        if flag not in FLAGS:
            where = (start, end) if start < end else (pos + len(piece), pos + len(piece) + 1)
            shown = f"the flag `{piece.strip()}`" if flag else "an empty flag"
            return Stop(
                *where,
                f"pytest-env {VERSION} rejects {shown} (its flags are D, R and U)",
                "pytest-env 1.8.5 and earlier ignored an unknown flag",
            )
        pos += len(piece) + 1
    return None


def entry_stop(entry: str, read: EnvEntry, colon: int) -> Stop | None:
    """Why pytest-env 1.8.7 certainly raises on ``entry`` (read as ``read``; ``colon``
    the last ``:`` before its name, or -1), or ``None``: an unknown flag, no name, then
    (for an entry that sets its variable whatever the environment: neither ``D`` nor
    ``U``) a template ``format_map`` rejects or a NUL character in the name or value.
    An unknown flag's :attr:`Stop.before` is empty when earlier releases stop on the
    entry for another reason."""
    flag = _flag_stop(entry, colon) if colon != -1 else None
    other = _other_stop(entry, read)
    if flag is None:
        return other
    return replace(flag, before="") if other is not None and not other.before else flag


def _other_stop(entry: str, read: EnvEntry) -> Stop | None:
    """:func:`entry_stop` but for the flags."""
    if not read.name:
        a, b = strip_range(entry, 0, len(entry))
        return Stop(
            a,
            max(b, a),
            f"pytest-env {VERSION} rejects an entry with no variable name",
            ""
            if not read.unset
            else "pytest-env 1.8.5 and earlier ignored such an entry with the U flag",
        )
    if read.unset or read.skip_if_set:
        return None  # removed, or maybe skipped: nothing is expanded or set for sure
    if read.transform:
        why = template_error(entry[read.raw_start : read.raw_end])
        if why is not None:
            return Stop(
                read.raw_start,
                read.raw_end,
                f"pytest-env cannot expand this {{VAR}} template: {why}",
                "",
            )
    if "\0" in read.name or (read.value is not None and "\0" in read.value):
        return Stop(
            read.name_start,
            read.raw_end,
            "pytest-env cannot set a variable whose name or value holds a NUL character",
            "",
        )
    return None


def parse_entry(entry: str) -> EnvEntry:
    """``entry`` (one ``env`` line or list item, as pytest-env receives it) read as
    pytest-env 1.8.7 reads it (see the module docstring). Never raises."""
    eq = entry.find("=")
    key_end = eq if eq != -1 else len(entry)
    colon = entry.rfind(":", 0, key_end)
    flags = (
        frozenset(f.strip().upper() for f in entry[: max(colon, 0)].split(":"))
        if colon != -1
        else frozenset()
    )
    name_start, name_end = strip_range(entry, colon + 1, key_end)
    raw_start, raw_end = (
        strip_range(entry, eq + 1, len(entry)) if eq != -1 else (len(entry), len(entry))
    )
    transform = "R" not in flags
    unset = "U" in flags
    value: str | None = None
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    if not unset:
        if transform:
            got = formatted(entry, raw_start, raw_end)
            if got is not None:
                value, starts, ends = got[0], tuple(got[1]), tuple(got[2])
        else:
            value = entry[raw_start:raw_end]
            starts = tuple(range(raw_start, raw_end))
            ends = tuple(range(raw_start + 1, raw_end + 1))
    read = EnvEntry(
        flags=flags,
        name=entry[name_start:name_end],
        name_start=name_start,
        name_end=name_end,
        raw_start=raw_start,
        raw_end=raw_end,
        transform=transform,
        skip_if_set="D" in flags,
        unset=unset,
        value=value,
        starts=starts,
        ends=ends,
    )
    stop = entry_stop(entry, read, colon)
    return read if stop is None else replace(read, stop=stop)


def encode_value(value: str, transform: bool) -> str | None:
    """``value`` as the text after ``=`` of an entry that pytest-env reads back as
    ``value``: braces doubled when ``transform``; ``None`` when ``str.strip()`` would
    change it (leading or trailing whitespace) or it has a line break (an INI line or a
    multi-line TOML string is split at it by pytest's ``linelist``)."""
    if value != value.strip() or "\n" in value or "\r" in value:
        return None
    return value.replace("{", "{{").replace("}", "}}") if transform else value
