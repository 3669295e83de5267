"""Text the CLI prints that must never fail to print nor act on the terminal: paths whose
names are not UTF-8, control characters in names and messages, JSON for any output
encoding."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from torch_logs_lsp.model.limits import excerpt

#: Control characters (Unicode category Cc: C0, DEL, C1) and the line and paragraph
#: separators: a newline splits a finding over two lines, ESC starts a terminal sequence.
#: Control characters, line and paragraph separators, and the bidirectional embeddings,
#: overrides and isolates (a name holding U+202E shows the rest of the line reversed).
_CONTROL = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def printable(text: str) -> str:
    """``text`` with its control characters written as escapes, as Python writes them
    (``\\n``, ``\\t``, ``\\r``, ``\\x1b``, ``\\u2028``, ``\\u202e``), so that a line of text output
    stays one line, reads in its order, and nothing in it reaches the terminal as a
    command; other characters unchanged."""
    return _CONTROL.sub(_escaped, text)


def value_text(value: str) -> str:
    """A value as a fix report quotes it: a JSON string of its :func:`.limits.excerpt`
    (at most ``MAX_QUOTED`` code points of a longer value), :func:`printable`."""
    return printable(json.dumps(excerpt(value), ensure_ascii=False))


def shown(path: str | os.PathLike[str]) -> str:
    """A path for a text message: the bytes of a name that is not valid UTF-8 (which
    Python holds as lone surrogates, ``\\udcff``) shown as ``\\xff`` escapes, so that
    printing never fails, and control characters as :func:`printable` escapes them; any
    other name unchanged."""
    name = os.fspath(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        name = os.fsencode(name).decode("utf-8", "backslashreplace")
    return printable(name)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def json_text(data: Any) -> str:
    """``data`` as indented JSON that the output stream can always write: characters
    its encoding cannot hold (lone surrogates from a file name that is not UTF-8 in
    any encoding; anything outside ASCII for ``PYTHONIOENCODING=ascii``) become JSON
    ``\\uXXXX`` escapes, so the text stays valid JSON and ``json.loads`` returns the same
    strings (``os.fsencode`` of such a path gives its bytes back)."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    cache: dict[str, str] = {}

    def escape(m: re.Match[str]) -> str:
        ch = m.group(0)
        if ch not in cache:
            try:
                ch.encode(encoding)
                cache[ch] = ch
            except (UnicodeEncodeError, LookupError):
                cache[ch] = json.dumps(ch)[1:-1]
        return cache[ch]

    return _NON_ASCII.sub(escape, text)


__all__ = ["json_text", "printable", "shown", "value_text"]
