"""Text the CLI prints that must never fail to print: paths whose names are not UTF-8,
JSON for any output encoding."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any


def shown(path: str | os.PathLike[str]) -> str:
    """A path for a text message: the bytes of a name that is not valid UTF-8 (which
    Python holds as lone surrogates, ``\\udcff``) shown as ``\\xff`` escapes, so that
    printing never fails; any other name unchanged."""
    name = os.fspath(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


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


__all__ = ["json_text", "shown"]
