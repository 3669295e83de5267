"""pytest-env's reading of one ``env`` entry, as pure functions (no TOML, no INI).

pytest-env (1.8.5, ``pytest_env/plugin.py``) reads the ``env`` ini option (a list of
lines: ``[tool.pytest.ini_options] env = [...]`` in ``pyproject.toml``, ``[tool.pytest]``
or ``[pytest]`` in TOML mode, ``env =`` lines of ``pytest.ini``/``tox.ini``/``setup.cfg``).
``_load_values`` reads each line so::

    parts = line.partition("=")
    ini_key_parts = parts[0].split(":")
    flags = {k.strip().upper() for k in ini_key_parts[:-1]}
    transform = "R" not in flags      # R: raw, no {VAR} expansion
    skip_if_set = "D" in flags        # D: only when the variable is not set yet
    unset = "U" in flags              # U: remove the variable
    key = ini_key_parts[-1].strip()
    value = parts[2].strip()

and ``_apply_entries`` sets ``os.environ[key] = value.format(**os.environ)`` when
``transform`` (else ``value``), skips a ``skip_if_set`` entry whose variable is set,
pops an ``unset`` one. Unknown flags are ignored; an entry without ``=`` sets the
variable to ``""``. The table form ``[tool.pytest_env]`` (``NAME = "value"`` or
``NAME = {value = ..., transform = ..., skip_if_set = ..., unset = ...}``) has no
entry string: its value is :func:`formatted` when ``transform`` is true.

Used by the TOML host (:mod:`.toml`) and meant for the INI host. Offsets here are code
points into the entry string (the caller maps them into its document).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EnvEntry:
    """One ``env`` entry as pytest-env reads it.

    ``flags``: the flags before the name, stripped and upper-cased (``{"D", "R"}``);
    ``name``: the variable name (stripped); ``name_start``/``name_end``: its place in the
    entry; ``raw_start``/``raw_end``: the value after ``=``, stripped (both the entry's
    end when there is no ``=``); ``transform``/``skip_if_set``/``unset``: what the flags
    mean (above); ``value``: what pytest-env sets (``str.format`` applied when
    ``transform``), or ``None`` when that is not known here (a ``{NAME}`` field, which
    reads the environment, or a lone brace, which makes pytest-env raise) or the entry
    unsets the variable; ``starts``/``ends``: per code point of ``value`` its source
    range in the entry (``{{`` is one ``{`` from two code points)."""

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


def strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    """The range ``[start, end)`` of ``text`` without the whitespace ``str.strip()``
    removes (Unicode whitespace), as code points into ``text``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def formatted(text: str, start: int, end: int) -> tuple[str, list[int], list[int]] | None:
    """``text[start:end].format(**os.environ)`` when that does not depend on the
    environment: only ``{{`` and ``}}`` (one brace each), with each result code point's
    source range; ``None`` for a replacement field or a lone brace (``str.format``
    raises ``ValueError`` on it)."""
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


def parse_entry(entry: str) -> EnvEntry:
    """``entry`` (one ``env`` line or list item, as pytest-env receives it) read as
    pytest-env 1.8.5 reads it (see the module docstring). Never raises."""
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
    return EnvEntry(
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


def encode_value(value: str, transform: bool) -> str | None:
    """``value`` as the text after ``=`` of an entry that pytest-env reads back as
    ``value``: braces doubled when ``transform``; ``None`` when ``str.strip()`` would
    change it (leading or trailing whitespace) or it has a line break (an INI line or a
    multi-line TOML string is split at it by pytest's ``linelist``)."""
    if value != value.strip() or "\n" in value or "\r" in value:
        return None
    return value.replace("{", "{{").replace("}", "}}") if transform else value
