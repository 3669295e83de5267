"""PLACEHOLDER (replaced at merge by the full decoder written in parallel): YAML scalars
decoded with a map back to the document, for :mod:`.yaml`.

Only what the YAML host needs to be developed: plain scalars and single- or double-quoted
scalars on one line, and ``|`` literal block scalars. The API is the full decoder's.
All offsets are code points into the document.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Scalar(NamedTuple):
    """A decoded scalar: ``value`` (``None`` when it cannot be decoded), ``starts[i]`` /
    ``ends[i]`` the document range of the source of ``value[i]``, ``content_start`` /
    ``content_end`` the text between the quotes (a block scalar: its content lines),
    ``quote`` ``""`` (plain), ``"'"``, ``'"'``, ``"|"`` or ``">"``, ``terminated``
    ``False`` when a quote is never closed."""

    value: str | None
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    content_start: int
    content_end: int
    quote: str
    terminated: bool


_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}


def _literal_block(text: str, start: int, end: int, indent: int) -> Scalar:
    header_end = text.find("\n", start, end)
    if header_end < 0:
        return Scalar("", (), (), end, end, "|", True)
    header = text[start + 1 : header_end].split("#", 1)[0].strip()
    chomp = "-" if "-" in header else "+" if "+" in header else ""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    width = -1
    pos = header_end + 1
    content_start = pos
    while pos < end:
        line_end = text.find("\n", pos, end)
        line_end = end if line_end < 0 else line_end
        line = text[pos:line_end].rstrip("\r")
        if line.strip(" "):
            if width < 0:
                width = len(line) - len(line.lstrip(" "))
                content_start = pos + width
            for i in range(pos + width, pos + len(line)):
                chars.append(text[i])
                starts.append(i)
                ends.append(i + 1)
        if line_end < len(text) and text[line_end] == "\n":
            chars.append("\n")
            starts.append(line_end)
            ends.append(line_end + 1)
        pos = line_end + 1
    while chars and chars[-1] == "\n" and (len(chars) < 2 or chars[-2] == "\n"):
        if chomp == "+":
            break
        chars.pop()
        starts.pop()
        ends.pop()
    if chomp == "-" and chars and chars[-1] == "\n":
        chars.pop()
        starts.pop()
        ends.pop()
    content_end = ends[-1] if ends else content_start
    return Scalar("".join(chars), tuple(starts), tuple(ends), content_start, content_end, "|", True)


def decode_scalar(text: str, start: int, end: int, indent: int = -1) -> Scalar:
    """The scalar whose tree-sitter node covers ``text[start:end]`` (code points),
    decoded as YAML 1.2 reads it. ``indent``: the indentation column of the block node
    around it (block scalars). Never raises."""
    first = text[start:end][:1]
    if first == "|":
        return _literal_block(text, start, end, indent)
    if first in ("'", '"'):
        quote = first
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        i = start + 1
        while i < end:
            c = text[i]
            if c == quote:
                if quote == "'" and text[i + 1 : i + 2] == "'" and i + 1 < end:
                    chars.append("'")
                    starts.append(i)
                    ends.append(i + 2)
                    i += 2
                    continue
                return Scalar("".join(chars), tuple(starts), tuple(ends), start + 1, i, quote, True)
            if c in "\r\n":
                break  # (the placeholder reads one line only)
            if quote == '"' and c == "\\":
                e = text[i + 1 : i + 2]
                if e in _SIMPLE_ESCAPES:
                    chars.append(_SIMPLE_ESCAPES[e])
                    starts.append(i)
                    ends.append(i + 2)
                    i += 2
                    continue
                n = _HEX.get(e, 0)
                digits = text[i + 2 : i + 2 + n]
                if n and len(digits) == n and re.fullmatch(r"[0-9A-Fa-f]+", digits):
                    chars.append(chr(int(digits, 16)))
                    starts.append(i)
                    ends.append(i + 2 + n)
                    i += 2 + n
                    continue
                return Scalar(None, (), (), start + 1, end, quote, True)
            chars.append(c)
            starts.append(i)
            ends.append(i + 1)
            i += 1
        terminated = i < end  # stopped at a line break: a multi-line scalar (not read)
        if terminated:
            return Scalar(None, (), (), start + 1, i, quote, True)
        return Scalar("".join(chars), tuple(starts), tuple(ends), start + 1, i, quote, False)
    body = text[start:end]
    if "\n" in body or "\r" in body:
        return Scalar(None, (), (), start, end, "", True)
    return Scalar(
        body, tuple(range(start, end)), tuple(range(start + 1, end + 1)), start, end, "", True
    )


_PLAIN_UNSAFE = re.compile(r"^[-?:,\[\]{}#&*!|>'\"%@`\s]|: |\s#|:$|\s$|[\x00-\x1f\x7f]")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a part of a scalar quoted with ``quote``, or ``None``."""
    if quote == "'":
        return None if "\n" in value or "\r" in value else value.replace("'", "''")
    if quote == '"':
        out = []
        for c in value:
            if c in '"\\':
                out.append("\\" + c)
            elif ord(c) < 0x20 or c == "\x7f":
                out.append(f"\\x{ord(c):02x}")
            else:
                out.append(c)
        return "".join(out)
    if quote in ("|", ">"):
        return None if "\n" in value or "\r" in value else value
    if quote == "" and (not value or not _PLAIN_UNSAFE.search(value)):
        return value
    return None


# PyYAML 6 SafeLoader's implicit resolvers (yaml/resolver.py), other than str.
_NOT_STR = re.compile(
    r"""(?x)^(?:
    yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN)
    |[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    |<<
    |~|null|Null|NULL|
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    |=
    )$"""
)


def plain_is_string(value: str) -> bool:
    """Whether a plain scalar reading ``value`` resolves to ``str`` under PyYAML's
    SafeLoader (YAML 1.1 booleans, numbers, null, timestamps, ``<<``, ``=`` do not)."""
    return _NOT_STR.match(value) is None


__all__ = ["Scalar", "decode_scalar", "encode_part", "plain_is_string"]
