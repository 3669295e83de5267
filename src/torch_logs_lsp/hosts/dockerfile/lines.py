"""A Dockerfile's instructions as BuildKit's parser reads them, with document offsets.

Follows ``frontend/dockerfile/parser`` of moby/buildkit (``parser.go``: ``Parse``,
``trimContinuationCharacter``, heredocs; ``directives.go``; ``split_command.go``): lines
end at ``\\n`` (a trailing ``\\r`` is dropped); the parser directives ``# escape=`` and
``# syntax=`` come before anything else; a line ending in the escape token (``\\`` or a
backtick, then only blanks) continues on the next line, the escape and the blanks removed
and the next line appended as it is; inside a continued instruction a comment line and a
blank line are skipped. ``RUN``/``COPY``/``ADD`` lines that name a heredoc (``<<EOF``) take
the following lines up to the terminator as its body.

Each instruction's logical line is an :class:`~.embedded.EmbeddedCode`: its ``text`` as
BuildKit assembles it and, per code point, the document offsets it comes from (so a value
that continues over a line break still maps back). All offsets are **code points into the
document**; indexes into a logical line's ``text`` are code points into that text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from torch_logs_lsp.hosts.embedded import EmbeddedCode

#: Go's ``unicode.IsSpace`` (BuildKit trims and splits with it): not Python's
#: ``str.isspace``, which also takes U+001C..U+001F.
GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: ``reWhitespace`` of parser.go: what separates an instruction from its arguments.
WHITESPACE = re.compile(r"[\t\v\f\r ]+")
_DIRECTIVE = re.compile(r"([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*\Z")
#: ``reHeredoc`` (Go's ``\\d`` and ``\\s`` are ASCII only).
HEREDOC = re.compile(r"([0-9]*)<<(-?)[\t\n\f\r ]*([^<]*)\Z")
_HEREDOC_COMMANDS = frozenset({"add", "copy", "run"})


class Heredoc(NamedTuple):
    """A heredoc of an instruction: its terminator ``name``, whether ``<<-`` strips leading
    tabs (``chomp``), its body ``[start, end)`` (document offsets, line breaks included)
    and whether the terminator line was found."""

    name: str
    chomp: bool
    start: int
    end: int
    terminated: bool


class Instruction(NamedTuple):
    """One instruction: its ``keyword`` (lower case), the document offsets of its first
    and last lines (``start``: the first line's start; ``end``: after the last line's line
    break, heredoc bodies excluded), its logical ``line`` and where the arguments start
    in it (``args``, after the builder flags such as ``--mount=...``; ``None`` when the
    flags cannot be read safely), and its heredocs."""

    keyword: str
    start: int
    end: int
    line: EmbeddedCode
    args: int | None
    heredocs: tuple[Heredoc, ...]


class Document(NamedTuple):
    """A Dockerfile read as instructions, with its escape token; ``complete`` is
    ``False`` when reading stopped early (a heredoc name it cannot read: the lines after
    it are unknown)."""

    escape: str
    instructions: list[Instruction]
    complete: bool


def _physical_lines(text: str) -> list[tuple[int, int, int]]:
    """``(start, content end, next start)`` of every line: the content ends before the
    trailing ``\\r``/``\\n`` run (``trimNewline``)."""
    out = []
    pos, n = 0, len(text)
    while pos < n:
        nl = text.find("\n", pos)
        nxt = n if nl < 0 else nl + 1
        end = nxt
        while end > pos and text[end - 1] in "\r\n":
            end -= 1
        out.append((pos, end, nxt))
        pos = nxt
    return out


def _lstrip(text: str, start: int, end: int) -> int:
    while start < end and text[start] in GO_SPACE:
        start += 1
    return start


def _is_comment(text: str, start: int, end: int) -> bool:
    start = _lstrip(text, start, end)
    return start < end and text[start] == "#"


def _continued(text: str, start: int, end: int, escape: str) -> int | None:
    """Where a line ``[start, end)`` is cut when it ends in a line continuation (the
    escape token then only blanks, not preceded by another escape token), else ``None``."""
    i = end
    while i > start and text[i - 1] in " \t":
        i -= 1
    if i > start and text[i - 1] == escape and (i - 1 == start or text[i - 2] != escape):
        return i - 1
    return None


def _directive(text: str, start: int, end: int) -> tuple[str, str] | None:
    """A parser directive ``# name=value`` on the line ``[start, end)`` (lower-case name)."""
    if text[start : start + 1] != "#":
        return None
    m = _DIRECTIVE.match(text[_lstrip(text, start + 1, end) : end])
    if m is None or m.group(1).lower() not in ("syntax", "escape", "check"):
        return None
    return m.group(1).lower(), m.group(2)


def _is_dockerfile_syntax(value: str) -> bool:
    """Whether a ``# syntax=`` image is BuildKit's Dockerfile frontend (another frontend
    reads the file its own way)."""
    image = value.split(" ", 1)[0].split("@", 1)[0]
    if ":" in image.rsplit("/", 1)[-1]:
        image = image.rsplit(":", 1)[0]
    return image.endswith(("docker/dockerfile", "docker/dockerfile-upstream"))


def _flags_end(line: str, start: int, escape: str) -> int | None:
    """Index in ``line`` where the arguments start after the builder flags (``--x=y``),
    as ``extractBuilderFlags`` finds it; ``None`` for flags with a non-ASCII character
    (BuildKit reads them byte by byte)."""
    pos, n = start, len(line)
    while True:
        while pos < n and line[pos] in GO_SPACE:
            pos += 1
        if not line.startswith("--", pos):
            return pos
        word_start = pos
        quote = ""
        while pos < n:
            c = line[pos]
            if ord(c) > 0x7F:
                return None
            if quote:
                if c == quote:
                    quote = ""
                elif c == escape:
                    pos += 1
            elif c in GO_SPACE:
                break
            elif c in "'\"":
                quote = c
            elif c == escape:
                pos += 1
            pos += 1
        if line[word_start:pos] == "--":
            return pos
        if pos >= n:
            return n


def split_command(line: str, escape: str) -> tuple[str, int | None]:
    """The instruction keyword (lower case) of a logical line and the index where its
    arguments start (see :func:`_flags_end`)."""
    start = _lstrip(line, 0, len(line))
    m = WHITESPACE.search(line, start)
    keyword = line[start : m.start() if m else len(line)].lower()
    if m is None:
        return keyword, len(line)
    return keyword, _flags_end(line, m.end(), escape)


def heredoc_names(line: str) -> list[tuple[str, bool]] | None:
    """The heredocs a logical line opens, as BuildKit's ``heredocsFromLine`` finds them:
    ``(name, chomp)`` for each word ``<<NAME``/``<<-NAME``/``<<"NAME"``; ``None`` when a
    name has an unclosed quote (BuildKit fails)."""
    words = raw_words(line)
    if words is None:
        return None
    out = []
    for word in words:
        m = HEREDOC.match(word)
        if m is None or not m.group(3):
            continue
        name = unquoted_words(m.group(3))
        if name is None:
            return None
        if len(name) == 1:
            out.append((name[0], m.group(2) == "-"))
    return out


def raw_words(line: str) -> list[str] | None:
    """Words split on unquoted blanks, quotes and escapes kept (``ProcessWords`` with
    ``RawQuotes``, ``RawEscapes`` and ``SkipUnsetEnv``: ``$X`` stays as written; ``<<``
    keeps the blanks after it); ``[]`` for an unclosed quote (BuildKit then finds no
    heredoc)."""
    words: list[str] = []
    cur: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in "'\"":
            close = line.find(c, i + 1) if c == "'" else _double_close(line, i + 1)
            if close < 0:
                return []
            cur.append(line[i : close + 1])
            i = close + 1
        elif c == "\\":
            cur.append(line[i : i + 2])
            i += 2
        elif line.startswith("<<", i):
            j = i + 2
            while j < n and line[j] in " \t\n\r\f\v":
                j += 1
            cur.append(line[i:j])
            i = j
        elif c in GO_SPACE:
            if cur:
                words.append("".join(cur))
                cur = []
            i += 1
        else:
            cur.append(c)
            i += 1
    if cur:
        words.append("".join(cur))
    return words


def _double_close(line: str, i: int) -> int:
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == '"':
            return i
        i += 1
    return -1


def unquoted_words(rest: str) -> list[str] | None:
    """``rest`` split into words with quotes and backslash escapes removed (``$X`` stays:
    ``SkipUnsetEnv``); ``None`` for an unclosed quote (BuildKit fails)."""
    words: list[str] = []
    cur: list[str] = []
    started = False
    i, n = 0, len(rest)
    while i < n:
        c = rest[i]
        if c == "'":
            close = rest.find("'", i + 1)
            if close < 0:
                return None
            cur.append(rest[i + 1 : close])
            started, i = True, close + 1
        elif c == '"':
            close = _double_close(rest, i + 1)
            if close < 0:
                return None
            cur.append(re.sub(r'\\([\\"$])', r"\1", rest[i + 1 : close]))
            started, i = True, close + 1
        elif c == "\\":
            cur.append(rest[i + 1 : i + 2])
            started, i = True, i + 2
        elif c in GO_SPACE:
            if started:
                words.append("".join(cur))
                cur, started = [], False
            i += 1
        else:
            cur.append(c)
            started, i = True, i + 1
    if started:
        words.append("".join(cur))
    return words


def read(text: str) -> Document | None:
    """The instructions of a Dockerfile, or ``None`` when it is not read by BuildKit's
    Dockerfile parser (a ``# syntax=`` naming another frontend, an invalid ``# escape=``).
    Never raises."""
    lines = _physical_lines(text)
    escape = "\\"
    first = 1 if text.startswith("\ufeff") else 0
    k = 0
    # Parser directives: the leading comment lines of the form `# name=value`.
    while k < len(lines):
        start, end, _ = lines[k]
        if k == 0:
            start = first
        found = _directive(text, _lstrip(text, start, end), end)
        if found is None:
            break
        name, value = found
        if name == "escape":
            if value not in ("\\", "`"):
                return None
            escape = value
        elif name == "syntax" and not _is_dockerfile_syntax(value):
            return None
        k += 1
    out: list[Instruction] = []
    while k < len(lines):
        start, end, nxt = lines[k]
        if k == 0:
            start = first
        k += 1
        if _is_comment(text, start, end):
            continue
        s = _lstrip(text, start, end)
        chars: list[int] = []
        cut = _continued(text, s, end, escape)
        chars.extend(range(s, end if cut is None else cut))
        last_end = nxt
        while cut is not None and k < len(lines):
            ls, le, lnxt = lines[k]
            k += 1
            last_end = lnxt
            if _is_comment(text, ls, le) or _lstrip(text, ls, le) == le:
                continue
            cut = _continued(text, ls, le, escape)
            chars.extend(range(ls, le if cut is None else cut))
        if not chars:
            continue
        line_text = "".join(text[i] for i in chars)
        line = EmbeddedCode(line_text, chars, [i + 1 for i in chars], chars[-1] + 1, "")
        keyword, args = split_command(line_text, escape)
        heredocs: list[Heredoc] = []
        if "<<" in line_text and _takes_heredocs(keyword, line_text, args, escape):
            names = heredoc_names(line_text)
            if names is None:
                out.append(Instruction(keyword, start, last_end, line, args, ()))
                return Document(escape, out, False)
            for name, chomp in names:
                body_start = lines[k][0] if k < len(lines) else len(text)
                terminated = False
                while k < len(lines):
                    ls, le, _ = lines[k]
                    k += 1
                    candidate = text[ls:le].lstrip("\t") if chomp else text[ls:le]
                    if candidate == name:
                        terminated = True
                        body_end = ls
                        break
                if not terminated:
                    body_end = len(text)
                heredocs.append(Heredoc(name, chomp, body_start, body_end, terminated))
        out.append(Instruction(keyword, start, last_end, line, args, tuple(heredocs)))
    return Document(escape, out, True)


def _takes_heredocs(keyword: str, line: str, args: int | None, escape: str) -> bool:
    """``canContainHeredoc``: ``RUN``, ``COPY``, ``ADD`` (also after ``ONBUILD``), not in
    JSON form."""
    if args is None:
        return False
    rest = line[args:]
    if keyword == "onbuild":
        keyword, sub = split_command(rest, escape)
        if sub is None:
            return False
        rest = rest[sub:]
    return keyword in _HEREDOC_COMMANDS and json_array(rest) is None


def json_array(args: str) -> list[str] | None:
    """The JSON form of ``RUN``/``CMD``/``ENTRYPOINT`` (``parseJSON``): the arguments,
    after leading blanks, are a JSON array of strings (nothing after it); else ``None``."""
    import json

    rest = args.lstrip("".join(GO_SPACE))
    if not rest.startswith("["):
        return None
    try:
        value = json.loads(rest)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return value
