"""JSON strings decoded from a document's text, with the offset of every code point.

Used by the JSONC host (:mod:`.jsonc`); follows RFC 8259 section 7 and VS Code's JSONC
scanner for where a string ends.
"""

from __future__ import annotations

_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n"}
_SIMPLE_ESCAPES.update({"r": "\r", "t": "\t"})
_HEX = frozenset("0123456789abcdefABCDEF")


class ScannedString:
    """A JSON string decoded from the document, with offsets (see :func:`scan_string`)."""

    __slots__ = ("content_end", "ends", "raw_end", "starts", "terminated", "valid", "value")

    def __init__(self) -> None:
        self.value = ""
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.content_end = 0
        self.raw_end = 0
        self.terminated = True
        self.valid = True


def _hex4(text: str, pos: int) -> int | None:
    digits = text[pos : pos + 4]
    if len(digits) == 4 and all(c in _HEX for c in digits):
        return int(digits, 16)
    return None


def scan_string(text: str, quote: int) -> ScannedString:
    """Decode the JSON string whose opening ``"`` is at code point offset ``quote``.

    The string ends at the next unescaped ``"``; a line break (CR or LF) or the end of the
    text first makes it unterminated (``terminated=False``, ends at the line end), as in VS
    Code's JSONC scanner. An invalid escape sets ``valid=False``. Never raises.
    """
    out: list[str] = []
    res = ScannedString()
    i = quote + 1
    n = len(text)
    while True:
        if i >= n or text[i] in "\r\n":
            res.terminated = False
            res.content_end = res.raw_end = i
            break
        c = text[i]
        if c == '"':
            res.content_end, res.raw_end = i, i + 1
            break
        if c != "\\":
            out.append(c)
            res.starts.append(i)
            res.ends.append(i + 1)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        simple = _SIMPLE_ESCAPES.get(nxt)
        if simple is not None:
            out.append(simple)
            width = 2
        elif nxt == "u" and (cp := _hex4(text, i + 2)) is not None:
            width = 6
            if 0xD800 <= cp < 0xDC00 and text[i + 6 : i + 8] == "\\u":
                low = _hex4(text, i + 8)
                if low is not None and 0xDC00 <= low < 0xE000:
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    width = 12
            out.append(chr(cp))
        else:
            res.valid = False
            i += 1 if nxt in ("", "\r", "\n") else 2
            continue
        res.starts.append(i)
        res.ends.append(i + width)
        i += width
    res.value = "".join(out)
    return res
