"""The comment markers of every host, for suppression and pin comments, and pin comments.

The markers are the hosts' declared line comments (:attr:`.spec.HostSpec.line_comments`:
``#``, ``//``, ``;``, ``::``, ``rem``), so a host's comment syntax is said once. A word-like
marker (``rem``) counts only as a whole word, in any case, followed by a blank.

A pin comment (``# torch-logs: torch=2.4``, anywhere in a file) chooses the torch release
the names are checked against; it is found here, where comment syntax is known, and handed
to :class:`~torch_logs_lsp.torch_env.context.TorchResolver` as a
:class:`~torch_logs_lsp.torch_env.context.Pin` (torch_env sits below the hosts).
"""

from __future__ import annotations

import re
from functools import cache

from torch_logs_lsp.hosts import host_specs
from torch_logs_lsp.knowledge.versions import parse_release
from torch_logs_lsp.torch_env.context import Pin


def markers() -> tuple[str, ...]:
    """Every host's line-comment markers, each once, longest first: ``("::", "//", "rem",
    "#", ";")``."""
    found = {marker for spec in host_specs() for marker in spec.line_comments}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


@cache
def marker_pattern() -> str:
    """A regular expression (source) matching any host's comment marker where it starts:
    ``::|//|(?<!\\w)(?i:rem)(?=[ \\t])|#|;`` (a word marker needs a blank after it, not
    consumed)."""
    parts = [
        rf"(?<!\w)(?i:{re.escape(m)})(?=[ \t])" if m[0].isalnum() else re.escape(m)
        for m in markers()
    ]
    return "|".join(parts)


@cache
def _pin_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    marker = marker_pattern()
    strict = re.compile(rf"(?:{marker})\s*torch-logs:\s*torch\s*=\s*([0-9][\w.+-]*)")
    loose = re.compile(rf"(?:{marker})[ \t]*torch-logs:[ \t]*torch[ \t]*=[ \t]*[^\s,;]*")
    return strict, loose


def pin_re() -> re.Pattern[str]:
    """``# torch-logs: torch=2.4`` (or ``// torch-logs: torch=2.4.1``, ``; ...`` in INI,
    ``:: ...`` or ``rem ...`` in a batch file: any host's marker); group 1 is the release as
    written."""
    return _pin_patterns()[0]


def pin_comment(text: str) -> Pin | None:
    """The first pin comment of ``text`` naming a release like ``2.13`` (``Pin(start, end,
    "2.4")``, from its marker to the end of the release), else the first that names none
    (``torch=abc``: ``Pin(start, end, None)``), else ``None``. Never raises."""
    if "torch-logs:" not in text:  # a substring search is ~20x faster than the regex
        return None
    strict, loose = _pin_patterns()
    m = strict.search(text)
    release = parse_release(m.group(1)) if m else None
    if m is not None and release is not None:
        return Pin(m.start(), m.end(1), release)
    found = loose.search(text)
    return Pin(found.start(), found.end(), None) if found else None


def find_pin(text: str) -> str | None:
    """The release the first pin comment of ``text`` names (``"2.4"``), or ``None``."""
    pin = pin_comment(text)
    return pin.release if pin else None


__all__ = ["find_pin", "marker_pattern", "markers", "pin_comment", "pin_re"]
