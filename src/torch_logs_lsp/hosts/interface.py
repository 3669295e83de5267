"""The host interface: what every host module provides, and the edit type it returns.

A host (the file kind a value lives in) is one module of this package that defines the
names of :class:`Host`; ``hosts/__init__.py`` lists the modules in one table
(:data:`~torch_logs_lsp.hosts.HOST_KINDS`) and everything else (detection,
extraction, edits, the CLI's TL108, completion of variable names) goes through it, so a
new host is one module and one table entry. A host module must be cheap to import
(detection imports every one): a parser it needs is imported on first use.

All offsets are **code points into the document text** (like :class:`~.base.ValueSpan`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from torch_logs_lsp.model.diagnostic import Severity
from torch_logs_lsp.model.edits import TextEdit, line_break
from torch_logs_lsp.value.paths import PathFacts

if TYPE_CHECKING:
    from torch_logs_lsp.hosts.incremental import DocumentCache
    from torch_logs_lsp.hosts.python.registrations import Registered
    from torch_logs_lsp.hosts.typographic import QuoteFinding
    from torch_logs_lsp.model.host_kind import HostKind
    from torch_logs_lsp.model.spans import ValueSpan
    from torch_logs_lsp.set_logs.call import SetLogsCall
    from torch_logs_lsp.set_logs.site import SetLogsSite
    from torch_logs_lsp.set_logs.source import SetLogsSource

from torch_logs_lsp.hosts.spec import HostSpec


class Note(NamedTuple):
    """A host's own finding about a span (the checker adds it to the span's analysis,
    over the whole value): ``span_index`` into the spans, a diagnostic ``code``, a
    message, and its ``severity`` (a warning unless the code is an information, TL505)."""

    span_index: int
    code: str
    message: str
    severity: Severity = Severity.WARNING


class Stopped(NamedTuple):
    """A place where the program that reads the document certainly stops before any
    process sees its values (pytest-env rejecting an entry: :meth:`Host.stops`):
    ``start``/``end`` the document range (code points) of the cause, ``message`` why and
    what it means."""

    start: int
    end: int
    message: str


class Overwrite(NamedTuple):
    """A value that never reaches a process: ``dead`` and ``live`` index the spans, the
    span ``live`` sets the same variable again before anything can read the ``dead`` one;
    ``why`` says so in the host's words (``"set again before any command runs"``)."""

    dead: int
    live: int
    why: str


class Host(Protocol):
    """The names a host module defines (checked by mypy against every module in the
    table; ``self`` is the module)."""

    #: The host's declaration (:class:`~.spec.HostSpec`: file-name globs, languageIds,
    #: comment syntax), from which ``LANGUAGE_IDS`` and ``COMMENT`` come.
    SPEC: HostSpec
    #: The host kind: the module's name, and :attr:`ValueSpan.host` of its spans.
    HOST: HostKind
    #: The files this host reads, as a plural noun phrase for the CLI's messages
    #: (``".env files"``); :func:`~torch_logs_lsp.hosts.describe_kinds` lists them all.
    DESCRIPTION: str
    #: Editor languageIds of this host's documents (LSP ``TextDocumentItem.languageId``),
    #: used only for a document whose URI and content say nothing (an untitled one).
    LANGUAGE_IDS: tuple[str, ...]
    #: What starts a comment to the end of the line (``"#"``, ``"//"``): suppression
    #: comments (``# torch-logs: ignore[TL201]``) are written with it.
    COMMENT: str
    #: Why a quote left open to the end of a saved file means the variable is never set
    #: (the CLI's TL108), or ``None`` when that is not certain for this host.
    NEVER_SET: str | None
    #: Whether the reader strips blanks after an unquoted value (so a cursor after
    #: ``TORCH_LOGS=+dynamo, `` is still in the value, for completion).
    STRIPS_TRAILING_BLANKS: bool
    #: Where the process that reads the value runs, which decides torch's reading of a
    #: value wrapped in one pair of quotes (torch 2.9+ strips them on Windows only,
    #: ``process_env_var_string_for_windows`` in ``torch/_logging/_internal.py``):
    #: ``"windows"`` (a batch file), ``"any"`` (PowerShell: Windows, Linux or macOS) or
    #: ``"posix"`` (judged as on Linux/macOS; every host that runs on either and has no
    #: Windows-only syntax is judged so, as torch mostly runs there).
    RUNS_ON: str
    #: The tree-sitter grammar (a key of ``_ts.GRAMMARS``) whose ``comment`` nodes are this
    #: host's comments, or ``None`` for a host read line by line: a suppression comment
    #: (:mod:`~torch_logs_lsp.lint.suppressions`) counts only where that grammar sees a
    #: comment, so text inside a string never does.
    COMMENT_GRAMMAR: str | None
    #: Whether a comment alone on its line counts without the grammar (YAML: a ``#`` line in
    #: a ``run: |`` block is a comment of the shell code, not of the YAML); always for a host
    #: without a grammar, where a comment after code never counts (an INI value or a batch
    #: ``echo`` keeps it as text).
    LINE_COMMENTS: bool

    def detect_name(self, name: str) -> bool:
        """Whether a file named ``name`` (a base name, any case) is of this host."""
        ...

    def detect_content(self, name: str, head: str) -> bool:
        """Whether a file named ``name`` that no host claims by name is of this host by
        its first characters ``head`` (a shebang)."""
        ...

    def may_hold_values(self, text: str) -> bool:
        """A cheap test (substring searches): ``False`` only when ``text`` certainly has
        no value span, so it need not be parsed."""
        ...

    def extract(self, text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
        """The value spans of ``text`` in document order (see :class:`ValueSpan`), reusing
        ``cache`` (one per open document) when given with the same result. Never raises."""
        ...

    def encode_part(self, quote: str, value: str) -> str | None:
        """``value`` written as the body of a part quoted with ``quote`` (a span's
        :attr:`~ValueSpan.quote`), without the quotes; ``None`` when it cannot be."""
        ...

    def removal(self, text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
        """A titled edit that removes ``span``'s assignment (verified by the caller), or
        ``None`` when there is no safe one."""
        ...

    def quote_findings(self, text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
        """The typographic quotes (TL109) of ``text`` whose spans are ``spans``
        (``extract(text)``), with what this host does with them: one of the functions of
        :mod:`.typographic`. Never raises."""
        ...

    def typed_name(self, text: str, offset: int) -> str | None:
        """The start of a variable name being typed at ``offset`` (``""`` when none is
        typed yet) where an environment variable's name may go (a family variable's or a
        compile knob's: completion offers both, filtered by this start), else ``None``."""
        ...


@runtime_checkable
class NotesHost(Protocol):
    """A host with warnings of its own about where values sit (the Python host's TL501)."""

    def notes(self, text: str, spans: list[ValueSpan]) -> list[Note]:
        """Warnings that follow from where the spans (``extract(text)``) sit in the
        document (the Python host: a value set after ``import torch``); ``[]`` for most."""
        ...


@runtime_checkable
class OverwritesHost(Protocol):
    """A host that knows when a value is replaced before anything reads it (TL502)."""

    def overwritten(self, text: str, spans: list[ValueSpan]) -> list[Overwrite]:
        """The spans (``extract(text)``) whose value is certainly replaced by a later span
        of the same variable before any process or reader sees it (only when certain: a
        branch, a loop or a command between them keeps both). Never raises."""
        ...


@runtime_checkable
class StopsHost(Protocol):
    """A host whose reader may stop on the whole document (pytest-env: TL504)."""

    def stops(self, text: str) -> list[Stopped]:
        """Where the program that reads ``text`` certainly stops before any process sees
        a family value of it (pytest-env 1.8.7 rejecting an entry: the TOML and INI
        hosts), only when the document has such a value; ``[]`` for most. Never raises."""
        ...


@runtime_checkable
class PathFactsHost(Protocol):
    """A host that knows something of the paths its values name (where its documents
    run, directories created before a value, the working directory); a host without it
    knows nothing (:class:`PathFacts` defaults)."""

    def path_facts(self, text: str, spans: list[ValueSpan]) -> list[PathFacts]:
        """One :class:`PathFacts` per span of ``spans`` (``extract(text)``), in order;
        ``[PathFacts()] * len(spans)`` for a host that knows nothing. Never raises."""
        ...


@runtime_checkable
class OutputHost(Protocol):
    """A host that knows where the output of the process reading a value goes (TL411:
    torch's logs go to that process's stderr, through ``logging.StreamHandler``)."""

    def stderr_captured(self, text: str, spans: list[ValueSpan]) -> list[bool]:
        """One flag per span of ``spans`` (``extract(text)``), in order: ``True`` when the
        stderr of every process that reads the span's value is certainly redirected to a
        file, piped or captured by the document itself (``2>log``, ``2>&1 | tee log``,
        ``capture_output=True``); ``False`` when not, or not certain. Never raises."""
        ...


@runtime_checkable
class SharedValuesHost(Protocol):
    """A host where one value's text may be read in more than one place (YAML anchors
    reused by aliases and merge keys): an edit of it changes every place."""

    def shared(self, text: str, spans: list[ValueSpan]) -> list[str | None]:
        """One entry per span of ``spans`` (``extract(text)``), in order: where else the
        span's value is read, for a message ("`*v` on line 3 reads it too (the YAML
        anchor `&v` of line 2)"), or ``None`` when an edit of it changes only this
        assignment. Fixes never edit such a value unasked. Never raises."""
        ...


@runtime_checkable
class SetLogsHost(Protocol):
    """A host whose documents hold ``torch._logging.set_logs(...)`` calls (Python code)."""

    def set_logs_calls(self, text: str) -> list[SetLogsCall]:
        """The ``torch._logging.set_logs(...)`` calls of ``text`` (the Python host; checked
        by :func:`~..set_logs.check_set_logs`); ``[]`` for most. Never raises."""
        ...

    def set_logs_source(self, text: str) -> SetLogsSource | None:
        """How ``text`` spells what a ``set_logs`` fix writes (the Python host; see
        :class:`~..set_logs_source.SetLogsSource`); ``None`` for most. Never raises."""
        ...

    def registered(self, text: str) -> Registered:
        """The log names ``text`` registers with torch itself (``register_log`` /
        ``register_artifact`` calls with a literal name; see
        :mod:`.python.registrations`); empty for most. Never raises."""
        ...

    def set_logs_site(self, text: str, offset: int) -> SetLogsSite | None:
        """Where ``offset`` (code points) stands in a ``torch._logging.set_logs(...)`` call
        of ``text``, half-typed ones too (a keyword position, or the value after
        ``keyword=``; the Python host), else ``None``. Never raises."""
        ...


def no_path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """:meth:`Host.path_facts` of a host that knows nothing of its paths."""
    return [PathFacts()] * len(spans)


def runs_elsewhere(reason: str) -> Callable[[str, list[ValueSpan]], list[PathFacts]]:
    """:meth:`Host.path_facts` of a host whose documents always run on another machine
    (``reason``, e.g. ``"a Dockerfile (runs in the image)"``): a host module declares
    ``path_facts = runs_elsewhere("...")`` and none of its paths is judged here."""

    def facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
        return [PathFacts(runs_elsewhere=reason)] * len(spans)

    return facts


_LINE_BREAK = re.compile(r"\r\n|\n|\r")


def line_bounds(text: str, start: int, end: int) -> tuple[int, int, int]:
    """(start of the line holding ``start``, end of the line holding ``end`` before its
    line break, end after the line break)."""
    ls = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    m = _LINE_BREAK.search(text, end)
    return (ls, m.start(), m.end()) if m else (ls, len(text), len(text))


def lines_back(text: str, line_start: int, comment: str = "#") -> Iterator[str]:
    """The lines before the line starting at ``line_start``, nearest first, without their
    line break; blank lines and lines starting with ``comment`` are skipped (for finding
    an indented line's parent)."""
    pos = line_start - 1
    while pos > 0:
        start = text.rfind("\n", 0, pos) + 1
        line = text[start:pos].rstrip("\r")
        pos = start - 1
        stripped = line.strip()
        if stripped and not stripped.startswith(comment):
            yield line


def line_before(text: str, offset: int) -> str:
    """The text of ``offset``'s line before it (up to the previous ``\\n``)."""
    return text[text.rfind("\n", 0, offset) + 1 : offset]


__all__ = [
    "Host",
    "Note",
    "NotesHost",
    "OutputHost",
    "Overwrite",
    "OverwritesHost",
    "PathFacts",
    "PathFactsHost",
    "SetLogsHost",
    "Stopped",
    "StopsHost",
    "TextEdit",
    "line_before",
    "line_bounds",
    "line_break",
    "lines_back",
    "no_path_facts",
    "runs_elsewhere",
]
