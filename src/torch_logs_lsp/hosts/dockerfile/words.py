"""``ENV``/``ARG`` words and values of a Dockerfile, as BuildKit splits and decodes them.

Splitting follows ``parseWords`` and ``parseNameVal`` of moby/buildkit
``frontend/dockerfile/parser/line_parsers.go``: words end at unquoted blanks (Go's
``unicode.IsSpace``), quotes and escapes are kept in the word, ``NAME=value`` splits at the
first ``=``; ``ENV NAME value`` (no ``=`` in the first word) takes the rest of the line
as the value. The value is then decoded as ``ProcessWord`` of
``frontend/dockerfile/shell/lex.go`` decodes it when the instruction runs: ``'...'`` is
literal, ``"..."`` takes the escape token before ``"``, ``$`` or itself (before anything
else it stays), an unquoted escape token makes the next character literal (a last one is
dropped); ``$NAME``, ``${...}`` and ``$`` before a digit or a special parameter are
expansions (the value is then not static); any other ``$`` is literal.

Offsets: indexes into a logical line (:class:`~.embedded.EmbeddedCode`) are mapped to
**code points into the document** through its ``starts``/``ends``.
"""

from __future__ import annotations

from typing import NamedTuple

from torch_logs_lsp.hosts.dockerfile.lines import GO_SPACE, WHITESPACE
from torch_logs_lsp.hosts.embedded import EmbeddedCode
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

_SPECIAL = frozenset("@*#?-$!0")


class Word(NamedTuple):
    """A word of a logical line: ``[start, end)`` indexes into its text."""

    start: int
    end: int


def words(line: str, start: int, end: int, escape: str) -> list[Word]:
    """The words of ``line[start:end]`` as ``parseWords`` splits them."""
    out: list[Word] = []
    i = start
    while i < end:
        while i < end and line[i] in GO_SPACE:
            i += 1
        if i >= end:
            break
        w = i
        quote = ""
        while i < end:
            c = line[i]
            if quote:
                if c == quote:
                    quote = ""
                elif c == escape and quote != "'":
                    i += 1
            elif c in GO_SPACE:
                break
            elif c in "'\"":
                quote = c
            elif c == escape:
                i += 1
            i += 1
        out.append(Word(w, min(i, end)))
    return out


class Decoded(NamedTuple):
    """A value decoded by ``ProcessWord``: ``value`` (``None``: an expansion), per code
    point the ``[start, end)`` indexes of its source in the line, the quoting (``""``,
    ``'"'``, ``"'"``, or ``None`` for several differently quoted parts), the content range
    (indexes; between the quotes of a single quoted part) and ``terminated`` (``False``: a
    quote is never closed, so the instruction fails)."""

    value: str | None
    starts: list[int]
    ends: list[int]
    quote: str | None
    content: tuple[int, int]
    terminated: bool


def _expands(line: str, i: int, end: int) -> bool:
    """Whether the ``$`` at ``i`` starts an expansion (``processDollar``)."""
    if i + 1 >= end:
        return False
    c = line[i + 1]
    return c == "{" or c == "_" or c.isalpha() or c.isdecimal() or c in _SPECIAL


def decode(line: str, start: int, end: int, escape: str) -> Decoded:
    """Decode the value ``line[start:end]`` (see the module docstring)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    parts: list[tuple[str, int, int]] = []  # (quote, content start, content end)
    static, terminated = True, True

    def put(ch: str, a: int, b: int) -> None:
        out.append(ch)
        starts.append(a)
        ends.append(b)

    i = start
    while i < end:
        c = line[i]
        if c in "'\"":
            j = i + 1
            while True:
                if j >= end:
                    terminated = False
                    break
                d = line[j]
                if d == c:
                    break
                if c == '"' and d == "$" and _expands(line, j, end):
                    static = False
                elif c == '"' and d == escape:
                    if j + 1 >= end:
                        j += 1
                        continue
                    if line[j + 1] in ('"', "$", escape):
                        put(line[j + 1], j, j + 2)
                        j += 2
                        continue
                put(d, j, j + 1)
                j += 1
            parts.append((c, i + 1, j))
            i = j + 1
            continue
        if not parts or parts[-1][0] != "" or parts[-1][2] != i:
            parts.append(("", i, i))
        if c == "$" and _expands(line, i, end):
            static = False
            put(c, i, i + 1)
            i += 1
        elif c == escape:
            if i + 1 < end:
                put(line[i + 1], i, i + 2)
            i += 2
        else:
            put(c, i, i + 1)
            i += 1
        parts[-1] = ("", parts[-1][1], min(i, end))
    if not parts:
        parts.append(("", start, start))
    quote: str | None = parts[0][0] if len(parts) == 1 else None
    value = "".join(out)
    if value.startswith("\ufeff") or "\0" in value:
        static = False  # Go's text/scanner drops a leading BOM, reports a NUL
    content = (parts[0][1], parts[-1][2])
    return Decoded(value if static else None, starts, ends, quote, content, terminated)


class Pair(NamedTuple):
    """A ``NAME=value`` of an ``ENV``/``ARG`` (or the legacy ``ENV NAME value``):
    the word's ``[start, end)``, the name's start and the value's ``[start, end)``
    (indexes into the line)."""

    word: Word
    name_start: int
    value_start: int
    value_end: int


def pairs(keyword: str, line: str, start: int, escape: str) -> tuple[list[Pair], int]:
    """The assignments of an ``ENV``/``ARG`` whose arguments start at ``start``, and the
    number of words (``parseNameVal``/``parseNameOrNameVal``; ``[]`` for an ``ENV`` that
    BuildKit rejects)."""
    end = len(line)
    while end > start and line[end - 1] in GO_SPACE:
        end -= 1
    while start < end and line[start] in GO_SPACE:
        start += 1
    found = words(line, start, end, escape)
    if not found:
        return [], 0
    first = found[0]
    if keyword == "env" and "=" not in line[first.start : first.end]:
        m = WHITESPACE.search(line, start, end)
        if m is None:
            return [], 1
        return [Pair(Word(start, end), start, m.end(), end)], 1
    out = []
    for w in found:
        eq = line.find("=", w.start, w.end)
        if eq < 0:
            if keyword == "env":
                return [], len(found)  # "can't find = in ...": the instruction fails
            continue
        out.append(Pair(w, w.start, eq + 1, w.end))
    return out, len(found)


def doc_range(line: EmbeddedCode, a: int, b: int) -> tuple[int, int]:
    """Document offsets of the line's ``[a, b)`` (an empty range: the point before ``a``,
    or after the previous code point at the end)."""
    if a < b:
        return line.starts[a], line.ends[b - 1]
    if a < len(line.text):
        point = line.starts[a] if a == 0 else line.ends[a - 1]
    else:
        point = line.ends[a - 1] if a > 0 else line.end
    return point, point


def span(host: HostKind, line: EmbeddedCode, pair: Pair, escape: str) -> ValueSpan | None:
    """The value span of a family ``pair`` of ``line``, or ``None`` (another name, or a
    name not written in one piece in the document)."""
    text = line.text
    name_end = pair.value_start - 1 if text[pair.value_start - 1] == "=" else None
    if name_end is None:  # legacy ENV NAME value
        m = WHITESPACE.search(text, pair.name_start)
        name_end = m.start() if m else pair.value_start
    name = text[pair.name_start : name_end]
    if name not in FAMILY:
        return None
    name_start, name_stop = doc_range(line, pair.name_start, name_end)
    if name_stop - name_start != len(name):
        return None
    d = decode(text, pair.value_start, pair.value_end, escape)
    raw_start, raw_end = doc_range(line, pair.value_start, pair.value_end)
    content_start, content_end = doc_range(line, *d.content)
    static = d.value is not None
    return ValueSpan(
        variable=name,
        host=host,
        name_start=name_start,
        name_end=name_stop,
        value=d.value,
        char_starts=tuple(line.starts[a] for a in d.starts) if static else (),
        char_ends=tuple(line.ends[b - 1] for b in d.ends) if static else (),
        content_start=content_start,
        content_end=content_end,
        raw_start=raw_start,
        raw_end=raw_end,
        quote=d.quote,
        terminated=d.terminated,
    )


#: The quote of shell code written verbatim in a ``RUN``/``CMD`` line or a heredoc (the
#: outer layer of its values' quotes, see :mod:`.embedded`).
CODE = "code"
#: The quote of a JSON string of the exec form (``["env", "TORCH_LOGS=..."]``).
JSON = "json"


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a part quoted with ``quote`` in a Dockerfile: :data:`CODE`
    verbatim (no line break); :data:`JSON` with JSON's escapes; in an ``ENV``/``ARG``
    value written the same for either escape token (``\\`` or a backtick; the document's
    is not known here): verbatim when that reads back unchanged, else ``None``. No line
    break or control character; ``'...'``: no ``'``; ``"..."``: none of ``" $ \\ ```;
    unquoted: neither these, ``'`` nor blanks."""
    if quote == CODE:
        return None if "\n" in value or "\r" in value else value
    if quote == JSON:
        import json

        return json.dumps(value, ensure_ascii=False)[1:-1]
    if any(c < " " or c == "\x7f" for c in value):
        return None
    if quote == "'":
        return None if "'" in value else value
    if any(c in '"$\\`' for c in value):
        return None
    if quote == '"':
        return value
    if quote == "" and not any(c == "'" or c in GO_SPACE for c in value):
        return value
    return None
