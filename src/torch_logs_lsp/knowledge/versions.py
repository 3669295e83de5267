"""Version-specific facts: which release has which name, and how torch's behaviour changed.

Names: the first and last packaged release that registers each name come from
``data/names-by-torch-version.json`` (torch 2.1.0 ... 2.15.0 wheels, read with ``ast``).
Renames come from the project's registry facts (``registry-facts/README.md``: "Only
removals: ``dist_c10d``, ``dist_ddp``, ``dist_fsdp`` (2.3 only), renamed ``c10d``,
``ddp``, ``fsdp`` in 2.4"), confirmed by the packaged data (the old names are in 2.3 only,
the new ones from 2.4).

Behaviour: :data:`FACTS`, each with the release it starts in and its source. Releases are
``"major.minor"`` strings compared numerically (``"2.10"`` > ``"2.9"``).
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache

from torch_logs_lsp.knowledge.registry import _facts, release_tuple, releases

#: Removed name -> (replacement, release the replacement appeared in).
RENAMED: dict[str, tuple[str, str]] = {
    "dist_c10d": ("c10d", "2.4"),
    "dist_ddp": ("ddp", "2.4"),
    "dist_fsdp": ("fsdp", "2.4"),
}

_INTERNAL = "torch/_logging/_internal.py"
_FACTS_README = "registry-facts README (read once from the release wheels)"


@dataclass(frozen=True)
class Fact:
    """One behaviour of torch's TORCH_LOGS handling that depends on the release.

    ``since``: first release with the behaviour (``"2.1"`` = every packaged release);
    ``until``: last release with it, or ``None`` (still true in 2.15). ``source``: where it
    was read (a file and line of torch 2.13.0 as installed by ``./dev test``, or the
    registry facts for releases we could not read here).
    """

    key: str
    since: str
    until: str | None
    text: str
    source: str

    def applies(self, release: str) -> bool:
        """Whether the fact holds for ``release`` (``"2.13"``)."""
        r = release_tuple(release)
        if r < release_tuple(self.since):
            return False
        return self.until is None or r <= release_tuple(self.until)


FACTS: tuple[Fact, ...] = (
    Fact(
        "empty_value_crash",
        "2.1",
        None,
        "`TORCH_LOGS=` (empty) makes the parser return a dict; `import torch` fails with "
        "AttributeError",
        f"{_INTERNAL}:804 in 2.13.0 (`return {{}}`), reproduced; same code in 2.1, 2.2, 2.5, "
        f"2.9, 2.12 per the {_FACTS_README}",
    ),
    Fact(
        "all_every_log",
        "2.1",
        "2.1",
        "`all` enables every registered log (each component's loggers)",
        _FACTS_README,
    ),
    Fact(
        "all_is_torch",
        "2.2",
        None,
        "`all` means the `torch` log",
        f'{_INTERNAL}:835 in 2.13.0 (`if name == "all": name = "torch"`)',
    ),
    Fact(
        "logs_format",
        "2.2",
        None,
        "`TORCH_LOGS_FORMAT` sets the log format",
        f"{_INTERNAL}:52 in 2.13.0; first release per the {_FACTS_README}",
    ),
    Fact(
        "logs_format_short_basic",
        "2.3",
        None,
        "`TORCH_LOGS_FORMAT=short` / `basic` are named formats",
        f"{_INTERNAL}:1052 in 2.13.0; first release per the {_FACTS_README}",
    ),
    Fact(
        "logs_out",
        "2.3",
        None,
        "`TORCH_LOGS_OUT` also writes the logs to a file",
        f"{_INTERNAL}:51 in 2.13.0; first release per the {_FACTS_README}",
    ),
    Fact(
        "torch_trace",
        "2.3",
        None,
        "`TORCH_TRACE` names a directory for structured trace logs",
        f"{_INTERNAL}:54 in 2.13.0; first release per the {_FACTS_README}",
    ),
    Fact(
        "module_imported",
        "2.1",
        "2.5",
        "module names are imported with `__import__` (the module's code runs)",
        _FACTS_README,
    ),
    Fact(
        "module_find_spec",
        "2.6",
        None,
        "module names are looked up with `importlib.util.find_spec` (which still imports "
        "the parent packages of a dotted name)",
        f"{_INTERNAL}:860 in 2.13.0 (`_is_valid_module`); first release per the {_FACTS_README}",
    ),
    Fact(
        "trace_id_filter",
        "2.7",
        None,
        "`TORCH_LOGS_TRACE_ID_FILTER` filters logs by trace id",
        f"{_INTERNAL}:53 in 2.13.0; first release per the {_FACTS_README}",
    ),
    Fact(
        "windows_outer_quotes",
        "2.9",
        None,
        "on Windows one pair of outer quotes is stripped from the value",
        f"{_INTERNAL}:761 in 2.13.0 (`process_env_var_string_for_windows`); first release "
        f"per the {_FACTS_README}",
    ),
    Fact(
        "module_submodules",
        "2.11",
        None,
        "a package name also sets the level of all its submodules",
        f"{_INTERNAL}:865 in 2.13.0 (`_get_module_and_submodules`); first release per the "
        f"{_FACTS_README}",
    ),
    Fact(
        "compile_debug_trace",
        "2.12",
        None,
        "`TORCH_COMPILE_DEBUG=1` without `TORCH_TRACE` sets a default trace directory",
        f"{_INTERNAL}:1169 in 2.13.0; first release per the {_FACTS_README}",
    ),
)

_BY_KEY = {f.key: f for f in FACTS}


def fact(key: str) -> Fact:
    """The fact called ``key`` (``KeyError`` if there is none)."""
    return _BY_KEY[key]


def holds(key: str, release: str) -> bool:
    """Whether behaviour ``key`` holds in ``release``."""
    return _BY_KEY[key].applies(release)


_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)")


def parse_release(text: str) -> str | None:
    """``"major.minor"`` of a version string (``"2.13.0+cpu"``, ``"2.16.0.dev20260101"``,
    ``"2.4"``), or ``None`` when it does not start with two numbers."""
    m = _VERSION_RE.match(text)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def nearest_release(release: str) -> str:
    """The packaged release closest to ``release``: itself when packaged, else the newest
    packaged one not after it, else the oldest packaged one."""
    packaged = releases()
    if release in packaged:
        return release
    want = release_tuple(release)
    older = [r for r in packaged if release_tuple(r) <= want]
    return older[-1] if older else packaged[0]


@cache
def history(name: str) -> tuple[str, str] | None:
    """``(first, last)`` packaged release that registers ``name``, or ``None``.

    ``all`` is in every release. Gaps do not occur in the data (a name never comes back).
    """
    seen = [
        r
        for r in releases()
        if name == "all" or name in _facts()[r]["logs"] or name in _facts()[r]["artifacts"]
    ]
    return (seen[0], seen[-1]) if seen else None


def lifespan_text(name: str) -> str:
    """``"since 2.5"``, ``"since 2.3, until 2.3"`` or ``""`` for names not packaged."""
    span = history(name)
    if span is None:
        return ""
    first, last = span
    newest = releases()[-1]
    text = f"since {first}" if first != releases()[0] else "since 2.1 (every release)"
    if last != newest:
        text += f", until {last}"
    return text


@dataclass(frozen=True)
class ReleaseVerdict:
    """Why a name is not in a release although other releases have it.

    ``code``: ``"TL205"`` (not in this release) or ``"TL206"`` (renamed);
    ``suggestions``: the replacement name, when there is one in ``release``.
    """

    code: str
    message: str
    suggestions: tuple[str, ...]


def release_verdict(name: str, release: str, known: AbstractSet[str]) -> ReleaseVerdict | None:
    """Verdict for a ``name`` absent from ``release`` (whose names are ``known``), or
    ``None`` when no packaged release has it either (a plain unknown name)."""
    span = history(name)
    if span is None or name in known:
        return None
    first, last = span
    here = release_tuple(release)
    renamed = RENAMED.get(name)
    if renamed and here >= release_tuple(renamed[1]) and renamed[0] in known:
        new, when = renamed
        msg = f"`{name}` was renamed to `{new}` in torch {when}; use `{new}`"
        return ReleaseVerdict("TL206", msg, (new,))
    if here < release_tuple(first):
        msg = f"`{name}` is not in torch {release} (added in {first})"
    elif first == last:
        msg = f"`{name}` is not in torch {release} (only in {first})"
    else:
        msg = f"`{name}` is not in torch {release} (in {first} to {last})"
    return ReleaseVerdict("TL205", msg, ())


__all__ = [
    "FACTS",
    "RENAMED",
    "Fact",
    "ReleaseVerdict",
    "fact",
    "history",
    "holds",
    "lifespan_text",
    "nearest_release",
    "parse_release",
    "release_verdict",
]
