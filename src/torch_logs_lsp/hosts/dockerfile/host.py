"""The Dockerfile host: ``Dockerfile``, ``*.Dockerfile``, ``Dockerfile.*``, ``Containerfile``.

The instructions are read as BuildKit's parser reads them (:mod:`.dockerfile_lines`:
parser directives, line continuations with the escape token, heredocs), then:

- ``ENV NAME=value ...``, the legacy ``ENV NAME value`` and ``ARG NAME=default``: the value
  as BuildKit decodes it (:mod:`.dockerfile_words`); an expansion (``$X``, ``${X:-y}``)
  makes it not static. An ``ARG`` value reaches a process only as the environment of
  ``RUN`` (and ``--build-arg`` replaces the default written here); a global ``ARG``
  (before the first ``FROM``) reaches one only through a stage's ``ARG NAME`` without a
  default, else its value is not read (a span with no value: hover, no finding).
- ``RUN``, ``CMD`` and ``ENTRYPOINT`` in shell form: the command (line continuations
  removed) is shell code run by ``/bin/sh -c``, read by the shell host through
  :func:`~.embedded.shell_spans`; so is the body of ``RUN <<EOF`` (the heredoc alone is the
  script; a ``#!`` line naming another interpreter is not shell). After a ``SHELL``
  instruction the shell form is read only when the new shell is a POSIX one
  (``["/bin/bash", "-c"]``), per stage (:mod:`.dockerfile_scope`).
- the JSON form (``RUN ["env", "TORCH_LOGS=+dynamo", "python", "x.py"]``): the values
  after ``NAME=`` in the operands of ``env``, and the script of ``["sh", "-c", "..."]``.

A ``RUN`` whose heredocs come with other words (``RUN TORCH_LOGS=x python3 <<EOF``) runs
the script BuildKit rebuilds from them (the command line, each body and terminator): a
body is then the command's stdin, not shell code, except for a POSIX shell with options
only (``RUN <<EOF bash -e``: bash reads its script from stdin; an unquoted delimiter's
body is read only without ``$``, backquotes and backslashes, which ``/bin/sh`` expands
first; :func:`.dockerfile_scope.stdin_script`).
Not read: ``ONBUILD`` (runs in another build), files of a ``# syntax=`` frontend other than
``docker/dockerfile``. All offsets are **code points into the document**.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from torch_logs_lsp.hosts.dockerfile import lines, scope, words
from torch_logs_lsp.hosts.dockerfile.json import ENV_NAMES, json_env, json_strings
from torch_logs_lsp.hosts.dockerfile.words import encode_part as _encode
from torch_logs_lsp.hosts.embedded import (
    LAYER,
    EmbeddedCode,
    embedded_captured,
    encode_layers,
    shell_spans,
)
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Overwrite, line_before, runs_elsewhere
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, names_family, set_again

SPEC = HostSpec(
    "dockerfile",
    # detect_name: not Dockerfile.dockerignore or a source suffix (Dockerfile.py)
    (
        "Dockerfile",
        "Containerfile",
        "*.Dockerfile",
        "*.Containerfile",
        "Dockerfile.*",
        "Containerfile.*",
    ),
    ("dockerfile",),
    vscode_languages=("dockerfile",),
)
HOST: HostKind = "dockerfile"
DESCRIPTION = "Dockerfiles"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
#: An unclosed quote: BuildKit cannot decode an ENV/ARG value, ``/bin/sh`` cannot read the
#: ``RUN``/``CMD`` code; either way the instruction fails.
NEVER_SET: str | None = "the instruction fails (BuildKit or /bin/sh cannot read it)"
STRIPS_TRAILING_BLANKS = True
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = None
LINE_COMMENTS = True

_BASES = ("dockerfile", "containerfile")
#: ``Dockerfile.<suffix>`` names that are not Dockerfiles: BuildKit's per-Dockerfile
#: ignore file (``Dockerfile.dockerignore``) and source or data files.
_NOT_WORDS = (
    "dockerignore py pyi js ts json jsonc yaml yml toml md rst txt html sh bash zsh ps1 bat"
)
_NOT_SUFFIXES = frozenset(_NOT_WORDS.split())


def detect_name(name: str) -> bool:
    """``Dockerfile``, ``Containerfile`` (any case), ``*.Dockerfile``, ``*.Containerfile``,
    and ``Dockerfile.*``/``Containerfile.*`` except ``Dockerfile.dockerignore`` and source
    or data suffixes (``Dockerfile.py``, ``Dockerfile.md``). Never ``.dockerignore``."""
    lower = name.lower()
    if lower in _BASES or lower.endswith(tuple("." + b for b in _BASES)):
        return True
    base, dot, _suffix = lower.partition(".")
    return base in _BASES and bool(dot) and lower.rsplit(".", 1)[1] not in _NOT_SUFFIXES


def detect_content(name: str, head: str) -> bool:
    """Never: a Dockerfile is known by its name."""
    return False


may_hold_values = names_family
# BuildKit keeps typographic quotes as characters of a value; an unquoted ENV value can
# be put in straight quotes.
quote_findings = kept_findings(True)
path_facts = runs_elsewhere("a Dockerfile (its commands run in the image)")
# TL411: a value read from its shell code whose command keeps stderr
stderr_captured = embedded_captured

_SHELLS = frozenset({"sh", "bash", "dash", "ash"})
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(\S+))?")


class Found(NamedTuple):
    """A span with where it was found: ``kind`` (``"env"``, ``"arg"``, ``"run"`` for
    shell code, ``"json"`` for an ``env`` operand of the JSON form), the index of its
    instruction and stage, and for ``ENV``/``ARG`` the document range of its word and the
    number of words of the instruction."""

    span: ValueSpan
    kind: str
    instruction: int
    stage: int
    word: tuple[int, int] | None = None
    words: int = 0


def _shell_program(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _heredoc_code(text: str, doc: lines.Heredoc) -> EmbeddedCode | None:
    """The script of ``RUN <<EOF`` (its body, leading tabs removed for ``<<-``), or
    ``None`` when a ``#!`` line names an interpreter that is not a shell."""
    chars: list[int] = []
    pos = doc.start
    while pos < doc.end:
        if doc.chomp:
            while pos < doc.end and text[pos] == "\t":
                pos += 1
        nl = text.find("\n", pos, doc.end)
        stop = doc.end if nl < 0 else nl + 1
        chars.extend(range(pos, stop))
        pos = stop
    body = "".join(text[i] for i in chars)
    if body.startswith("#!"):
        m = _SHEBANG.match(body)
        program = _shell_program(m.group(1)) if m else ""
        if program == "env" and m is not None and m.group(2):
            program = _shell_program(m.group(2))
        if program not in _SHELLS:
            return None
    end = chars[-1] + 1 if chars else doc.start
    return EmbeddedCode(body, chars, [i + 1 for i in chars], end, words.CODE)


def _rebuilt(
    text: str, command: EmbeddedCode, docs: tuple[lines.Heredoc, ...]
) -> EmbeddedCode | None:
    """The script BuildKit gives ``/bin/sh -c`` for a ``RUN`` whose heredocs come with
    other words: the command, then for each heredoc a line break, its body and its
    terminator (``dispatchRun``); ``None`` when a heredoc is not terminated (the
    Dockerfile cannot be parsed)."""
    parts = [command.text]
    starts, ends = list(command.starts), list(command.ends)
    for doc in docs:
        if not doc.terminated or doc.start == 0:
            return None
        name_at = doc.end
        while doc.chomp and text[name_at : name_at + 1] == "\t":
            name_at += 1
        if text[name_at : name_at + len(doc.name)] != doc.name:
            return None
        parts += ["\n", text[doc.start : doc.end], doc.name]
        starts += [doc.start - 1, *range(doc.start, doc.end)]
        starts += range(name_at, name_at + len(doc.name))
        ends += [doc.start, *range(doc.start + 1, doc.end + 1)]
        ends += range(name_at + 1, name_at + len(doc.name) + 1)
    return EmbeddedCode("".join(parts), starts, ends, ends[-1], words.CODE)


def _sub_code(line: EmbeddedCode, start: int, end: int) -> EmbeddedCode:
    """``line[start:end]`` as code of its own."""
    stop = line.ends[end - 1] if end > start else line.starts[start]
    return EmbeddedCode(
        line.text[start:end], line.starts[start:end], line.ends[start:end], stop, words.CODE
    )


def _command_spans(
    ins: lines.Instruction, text: str, shell_ok: bool
) -> tuple[str, list[ValueSpan]]:
    """The spans of a ``RUN``/``CMD``/``ENTRYPOINT`` and their kind."""
    line, args = ins.line, ins.args
    if args is None:
        return "run", []
    end = len(line.text)
    while end > args and line.text[end - 1] in lines.GO_SPACE:
        end -= 1
    while args < end and line.text[args] in lines.GO_SPACE:
        args += 1
    array = lines.json_array(line.text[args:end])
    if array is not None:
        strings = json_strings(line, args)
        if len(strings) != len(array) or not array:
            return "json", []
        if array[0] in ENV_NAMES:
            return "json", json_env(strings)
        if len(array) >= 3 and _shell_program(array[0]) in _SHELLS and array[1] == "-c":
            return "run", shell_spans(HOST, strings[2][0])
        return "json", []
    if not shell_ok or args >= end:
        return "run", []
    if ins.heredocs:
        m = lines.HEREDOC.match(line.text, args, end)
        if m is not None and len(lines.unquoted_words(m.group(3)) or []) == 1:
            code = _heredoc_code(text, ins.heredocs[0])  # the heredoc alone: the script
        elif (quoted := scope.stdin_script(line.text[args:end])) is not None:
            code = _heredoc_code(text, ins.heredocs[0])  # `<<EOF bash`: bash reads stdin
            if code is not None and not quoted and any(c in code.text for c in "$`\\"):
                code = None  # /bin/sh expands the body before bash reads it
        else:
            code = _rebuilt(text, _sub_code(line, args, end), ins.heredocs)
        return "run", shell_spans(HOST, code) if code is not None else []
    return "run", shell_spans(HOST, _sub_code(line, args, end))


def _unread(s: ValueSpan) -> ValueSpan:
    """``s`` with no value (not static: no finding, no fix)."""
    a, b = s.content_start, s.content_end
    return ValueSpan(
        s.variable,
        HOST,
        s.name_start,
        s.name_end,
        None,
        (),
        (),
        a,
        b,
        s.raw_start,
        s.raw_end,
        s.quote,
    )


@lru_cache(maxsize=4)
def _read(text: str) -> tuple[Found, ...]:
    doc = lines.read(text)
    if doc is None:
        return ()
    out: list[Found] = []
    stage = 0
    shell_ok = True
    shells: dict[str, bool] = {}  # stage name -> whether its shell is POSIX (so far)
    name = ""
    redeclared: set[str] = set()  # `ARG NAME` without a default inside a stage
    for index, ins in enumerate(doc.instructions):
        kw = ins.keyword
        if kw == "from":
            stage += 1
            base, name = scope.from_names(ins)
            shell_ok = shells.get(base, True)  # an earlier stage's shell, else /bin/sh
            if "$" in base:  # a global ARG may name any earlier stage
                shell_ok = all(shells.values())
            if name:
                shells[name] = shell_ok
        elif kw == "shell":
            shell_ok = scope.posix_shell(ins)
            if name:
                shells[name] = shell_ok
        elif kw in ("env", "arg") and ins.args is not None:
            if kw == "arg" and stage:
                redeclared.update(scope.bare_args(ins, doc.escape))
            found, count = words.pairs(kw, ins.line.text, ins.args, doc.escape)
            for pair in found:
                span = words.span(HOST, ins.line, pair, doc.escape)
                if span is not None:
                    w = words.doc_range(ins.line, pair.word.start, pair.word.end)
                    out.append(Found(span, kw, index, stage, w, count))
        elif kw in ("run", "cmd", "entrypoint") and names_family(ins.line.text + "".join(
            text[h.start : h.end] for h in ins.heredocs
        )):  # fmt: skip
            kind, spans = _command_spans(ins, text, shell_ok)
            out.extend(Found(s, kind, index, stage) for s in spans)
    # A global ARG (before the first FROM) reaches no RUN unless a stage declares it again
    # without a default: its value is then not read (no finding, no fix).
    return tuple(
        f._replace(span=_unread(f.span))
        if f.kind == "arg" and not f.stage and f.span.variable not in redeclared
        else f
        for f in out
    )


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The family values of a Dockerfile in document order (see the module docstring);
    ``cache`` is not used (a Dockerfile is read whole). Never raises."""
    return [f.span for f in _read(text)]


def encode_part(quote: str, value: str) -> str | None:
    """See :func:`.dockerfile_words.encode_part`; a layered quote (a value in ``RUN``
    shell code) goes through the shell's quoting first (:func:`~.embedded.encode_layers`)."""
    if LAYER in quote:
        return encode_layers(quote, value, _encode)
    return _encode(quote, value)


def _instructions(text: str) -> list[lines.Instruction]:
    doc = lines.read(text)
    return doc.instructions if doc is not None else []


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """``ENV``/``ARG``: the ``NAME=value`` word (with the blanks after it, or before it for
    the last), or the whole instruction when it is the only one; shell code: as the shell
    host removes it (``NAME=value cmd`` -> ``cmd``); else ``None``."""
    found = next((f for f in _read(text) if f.span == span), None)
    if found is None:
        return None
    if found.kind == "run":
        from torch_logs_lsp.hosts.shell.edits import removal as shell_removal

        return shell_removal(text, span)
    if found.word is None:
        return None
    ins = _instructions(text)[found.instruction]
    keyword = ins.keyword.upper()
    if found.words == 1:
        return f"Remove the `{keyword} {span.variable}` instruction", TextEdit(
            ins.start, ins.end, ""
        )
    start, end = found.word
    after = end
    while after < len(text) and text[after] in " \t":
        after += 1
    if after < len(text) and text[after] not in "\r\n" and after > end:
        return f"Remove `{span.variable}=...` from this {keyword}", TextEdit(start, after, "")
    before = start
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    if before == start:
        return None
    return f"Remove `{span.variable}=...` from this {keyword}", TextEdit(before, end, "")


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """An ``ENV`` value set again by a later ``ENV`` of the same stage with no ``RUN``
    between them and no mention of the variable between (an expansion could read it)."""
    found = _read(text)
    if [f.span for f in found] != list(spans):
        return []
    runs = [i for i, ins in enumerate(_instructions(text)) if ins.keyword == "run"]
    out = []
    for dead, live in set_again(spans):
        a, b = found[dead], found[live]
        if a.kind != "env" or b.kind != "env" or a.stage != b.stage:
            continue
        if any(a.instruction < r < b.instruction for r in runs):
            continue
        if a.span.variable in text[a.span.raw_end : b.span.name_start]:
            continue
        out.append(Overwrite(dead, live, "set again by a later ENV before any RUN"))
    return out


_NAME_LINE = re.compile(
    r"^[ \t]*(?i:env|arg|run)[ \t]+(?:[A-Za-z_][A-Za-z0-9_]*=[^ \t]*[ \t]+)*"
    r"([A-Za-z_][A-Za-z0-9_]*)?$"
)


def typed_name(text: str, offset: int) -> str | None:
    """After ``ENV ``, ``ARG `` or ``RUN `` (and after earlier ``NAME=value`` words)."""
    m = _NAME_LINE.match(line_before(text, offset))
    return None if m is None else m.group(1) or ""
