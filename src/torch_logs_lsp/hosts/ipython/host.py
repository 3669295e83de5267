"""The IPython host: one **code cell** of a Jupyter notebook, as IPython 9 runs it.

The ``.ipynb`` FILE (its JSON, the cell order, positions ``path:cell N:row:col``) is read
by ``notebook/reader.py``; a cell's text by this host. Editors open a notebook's cells as
documents of their own whose URI path is the notebook's path
(``vscode-notebook-cell:/x/nb.ipynb#W2sZmlsZQ%3D%3D``), so a document named ``*.ipynb``
is a cell here (:func:`detect_name`); notebook JSON given as a cell reads as nothing.

What a cell holds (measured with IPython as the oracle in
``tests/hosts/ipython/test_host.py``):

- ``%env NAME=value``, ``%env NAME value``, ``%set_env``: a value set in the kernel's
  process, verbatim (:mod:`.ipython_values`);
- ``!cmd``, ``!!cmd``, ``a = !cmd``: shell code (:func:`.embedded.shell_spans`), after
  IPython's ``$name``/``{expr}`` expansion;
- a cell starting with ``%%bash``, ``%%sh``, ``%%script bash`` or ``%%script sh``: its
  body is a shell script; ``%%time``, ``%%timeit`` and ``%%capture`` run their body as a
  cell; any other cell magic (``%%writefile``, ``%%html``) is not code here;
- everything else is Python, read by the Python host on the cell's *view*: the cell with
  IPython's syntax replaced by Python of the same length (:mod:`.ipython_escapes`), so
  ``os.environ`` writes, ``set_logs(...)`` calls and the import order (TL501) work and
  every offset is the cell's.

A cell that does not compile (IPython then runs none of it) is still read, as the Python
host reads half-typed code.

All offsets are **code points into the document text** (the cell).
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts.embedded import embedded_captured
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import Note, Overwrite, line_before
from torch_logs_lsp.hosts.ipython.cells import read
from torch_logs_lsp.hosts.ipython.escapes import Escape
from torch_logs_lsp.hosts.ipython.order import torch_imported as torch_imported_in
from torch_logs_lsp.hosts.ipython.values import encode_part as encode_part
from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, in_document_order, names_family

if TYPE_CHECKING:
    from torch_logs_lsp.hosts.python.registrations import Registered
    from torch_logs_lsp.hosts.typographic import QuoteFinding
    from torch_logs_lsp.set_logs.call import SetLogsCall
    from torch_logs_lsp.set_logs.site import SetLogsSite
    from torch_logs_lsp.set_logs.source import SetLogsSource

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "ipython",
    # a cell's URI carries its notebook's path (the notebook FILE is read by
    # notebook/reader.py, never through this host)
    ("*.ipynb",),
    (),  # cells have languageId "python": the URI decides
    # the extension's selector sends the cells by their scheme (vscode-extension/src/selector.ts)
    activation=("onNotebook:jupyter-notebook",),
)
HOST: HostKind = "ipython"
DESCRIPTION = "notebook cells (IPython)"
LANGUAGE_IDS = SPEC.language_ids
#: The languageIds of a cell document this host reads (a notebook's markdown and raw
#: cells, and cells of other kernels' languages, carry the notebook's path too).
CELL_LANGUAGE_IDS = frozenset({"python", "ipython"})
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = None  # an open quote in Python or shell code: those hosts decide
STRIPS_TRAILING_BLANKS = True  # a `%env` value: the input transformer strips them
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "python"
LINE_COMMENTS = False


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: a cell is known by its notebook's name."""
    return False


may_hold_values = names_family


def _rehosted(span: ValueSpan) -> ValueSpan:
    return ValueSpan(
        span.variable,
        HOST,
        span.name_start,
        span.name_end,
        span.value,
        span.char_starts,
        span.char_ends,
        span.content_start,
        span.content_end,
        span.raw_start,
        span.raw_end,
        span.quote,
        span.terminated,
    )


def _python_spans(view: str) -> list[ValueSpan]:
    return python.extract(view) if names_family(view) else []


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of the cell ``text`` in document order: the Python host's (on
    the view; their :attr:`~ValueSpan.host` is ``"ipython"``) and this host's own
    (``%env`` values with quote ``""``; shell values with a layered quote whose outer
    layer is ``"!"`` or ``"%%"``, see :mod:`.ipython_values`). ``cache`` is not used.
    Never raises."""
    if cache is not None:
        cache.reset()
    if not names_family(text):
        return []
    reading = read(text)
    return in_document_order([_rehosted(s) for s in _python_spans(reading.view)] + reading.own)


def _split(text: str, spans: list[ValueSpan]) -> tuple[str, list[int], list[int]]:
    """The view, and the indexes into ``spans`` of the Python host's spans and of this
    host's own."""
    reading = read(text)
    own = set(reading.own)
    mine = [i for i, s in enumerate(spans) if s in own]
    taken = set(mine)
    return reading.view, [i for i in range(len(spans)) if i not in taken], mine


def notes(text: str, spans: list[ValueSpan]) -> list[Note]:
    """The Python host's TL501 notes on the view, and TL501 for a ``%env`` line after
    an unconditional ``import torch`` of the cell (see :mod:`.ipython_order`); TL505
    instead when a shell escape after the value starts a child process that sees it."""
    from torch_logs_lsp.hosts.ipython.order import late_env
    from torch_logs_lsp.hosts.python.order import seen_by_children

    view, py, mine = _split(text, spans)
    escapes = read(text).escapes
    out = [
        n._replace(span_index=py[n.span_index]) for n in python.notes(view, [spans[i] for i in py])
    ]
    out += late_env(text, view, spans, mine, escapes)
    for k, note in enumerate(out):
        span = spans[note.span_index]
        child = _shell_escape(escapes, span.raw_end, span.variable)
        if child is not None:
            out[k] = seen_by_children(note, child)
    return out


#: A cell magic whose body runs in a new shell process.
_SHELL_CELL = re.compile(r"\s*%%(?:bash|sh|script|system)\b")
#: Line magics that run a shell command.
_SHELL_MAGICS = frozenset({"system", "sx"})


def _shell_escape(escapes: list[Escape], after: int, variable: str) -> str | None:
    """The first of a cell's ``escapes`` from code point ``after`` on that starts a shell
    process (``!cmd``, ``!!cmd``, ``a = !cmd``, ``%system``, ``%sx``) and does not name
    ``variable`` (a command that sets or unsets it decides its own value), as written in
    short (``"!python"``), or ``None``."""
    for e in escapes:
        if e.start < after or variable in e.code.text:
            continue
        words = e.code.text.split()
        if e.kind in ("!", "!!", "=!"):
            return "!" + (words[0][:40] if words else "")
        if e.kind in ("%", "=%") and words and words[0] in _SHELL_MAGICS:
            return "%" + words[0]
    return None


def child_start(text: str, variable: str) -> str | None:
    """What first may start a child process that inherits ``variable`` in the cell
    ``text`` (a shell cell magic such as ``%%bash``, a ``!cmd`` or ``%system`` line, or
    Python that starts one: see :func:`.python_order.child_in`), as written in short, or
    ``None``. Never raises."""
    from torch_logs_lsp.hosts.python.order import child_in

    if _SHELL_CELL.match(text):
        return text.split(None, 1)[0][:40]
    reading = read(text)
    found = _shell_escape(reading.escapes, 0, variable)
    if found is not None:
        return found
    try:
        return child_in(reading.view, variable)
    except Exception:  # a bug must not cost the other checks
        log.exception("ipython: looking for child processes failed")
        return None


def torch_imported(text: str) -> int | None:
    """For the notebook reader (the cell order): where the cell's first unconditional
    top-level ``import torch`` ends (a code point offset into the cell), or ``None``."""
    return torch_imported_in(read(text).view) if "torch" in text else None


def late_after_earlier_import(text: str, spans: list[ValueSpan]) -> list[int]:
    """For the notebook reader (the cell order): the indexes into ``spans``
    (``extract(text)``) of the values this cell sets in the kernel's process that torch
    no longer reads when an earlier cell imported it (TL501's rules: top-level
    ``%env`` lines, ``os.environ`` writes at the cell's top level or in a function it
    calls, unless ``_init_logs``/``set_logs`` reads them again later in the cell; ``!``
    commands and ``%%bash`` cells start new processes and never count). Never raises."""
    from torch_logs_lsp.hosts.ipython.order import late_after_earlier_import as late

    view, _, mine = _split(text, spans)
    return late(text, view, spans, mine, read(text).escapes)


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """The Python host's overwritten values on the view, unless IPython syntax (a
    command that may read the first value) stands between the two; and a top-level
    ``%env`` line whose variable the next top-level ``%env`` line sets again with only
    blank lines, comments and other ``%env`` lines between (nothing runs in between).
    Never raises."""
    view, py, mine = _split(text, spans)
    escapes = read(text).escapes
    out = []
    try:
        for o in python.overwritten(view, [spans[i] for i in py]):
            dead, live = spans[py[o.dead]], spans[py[o.live]]
            if not any(dead.raw_end <= e.start < live.name_start for e in escapes):
                out.append(Overwrite(py[o.dead], py[o.live], o.why))
    except Exception:  # a bug must not cost the rest
        log.exception("ipython: overwritten values failed")
    envs = [i for i in mine if spans[i].quote == "" and _env_line(text, escapes, spans[i])]
    for k, i in enumerate(envs):
        later = [j for j in envs[k + 1 :] if spans[j].variable == spans[i].variable]
        if later and _only_env_lines(text, escapes, spans[i].raw_end, spans[later[0]].name_start):
            why = f"the next %env sets {spans[i].variable} again before any code runs"
            out.append(Overwrite(i, later[0], why))
    return sorted(out)


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured`: the Python host's on the view
    (children started by :mod:`subprocess` that capture stderr) and a ``!`` command's or a
    ``%%bash`` cell's shell code that keeps it (:func:`.embedded.inner_captured`); a
    ``%env`` value (the kernel's own process) never. Never raises."""
    flags = embedded_captured(text, spans)
    view, py, _ = _split(text, spans)
    for i, flag in zip(py, python.stderr_captured(view, [spans[i] for i in py]), strict=True):
        flags[i] = flag
    return flags


def _env_line(text: str, escapes: list[Escape], span: ValueSpan) -> bool:
    """Whether ``span`` is the value of a ``%env`` line at the cell's top level."""
    for esc in escapes:
        if esc.start <= span.name_start < esc.end:
            ls = max(text.rfind(c, 0, esc.start) for c in "\n\r") + 1
            return esc.kind == "%" and ls == esc.start
    return False


def _only_env_lines(text: str, escapes: list[Escape], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds only blanks, comments and ``%env`` lines."""
    pos = start
    for esc in escapes:
        if esc.end <= start or esc.start >= end:
            continue
        name = esc.code.text.partition(" ")[0]
        if esc.kind != "%" or name not in ("env", "set_env"):
            return False
        if not _blank_or_comments(text[pos : esc.start]):
            return False
        pos = esc.end
    return _blank_or_comments(text[pos:end])


def _blank_or_comments(piece: str) -> bool:
    return all(not line.strip() or line.strip().startswith("#") for line in piece.splitlines())


def set_logs_calls(text: str) -> list[SetLogsCall]:
    """The Python host's ``set_logs(...)`` calls of the view; a call after a top-level
    ``%env TORCH_LOGS ...`` line of the cell (nothing between that could remove it) has
    it in :attr:`~..set_logs_call.SetLogsCall.torch_logs_set` (TL631), as after an
    ``os.environ`` write."""
    if "set_logs" not in text:
        return []
    reading = read(text)
    calls = python.set_logs_calls(reading.view)
    if not calls or "TORCH_LOGS" not in text:
        return calls
    from torch_logs_lsp.hosts.ipython.order import env_set_before_calls

    open_ = [c.start for c in calls if c.torch_logs_set is None]
    found = env_set_before_calls(reading.view, reading.own, reading.escapes, open_)
    return [
        replace(c, torch_logs_set=f"line {found[c.start]}") if c.start in found else c
        for c in calls
    ]


def set_logs_source(text: str) -> SetLogsSource | None:
    """The Python host's answer on the view, where imports go after a ``%%time`` line."""
    reading = read(text)
    found = python.set_logs_source(reading.view)
    if found is not None and found.imports_at < reading.start:
        found = replace(found, imports_at=reading.start)
    return found


def registered(text: str) -> Registered:
    """The names the cell's Python registers with torch (see
    :mod:`.python.registrations`)."""
    return python.registered(read(text).view) if "register_" in text else python.registered("")


def set_logs_site(text: str, offset: int) -> SetLogsSite | None:
    """The Python host's answer on the view."""
    return python.set_logs_site(read(text).view, offset) if "set_logs" in text else None


def quote_findings(text: str, spans: list[ValueSpan]) -> list[QuoteFinding]:
    """The Python host's findings on the view for its spans; a typographic quote in a
    ``%env`` or shell value is kept in the value (:func:`.typographic.in_value`)."""
    from torch_logs_lsp.hosts.typographic import in_value

    view, py, mine = _split(text, spans)
    out = python.quote_findings(view, [spans[i] for i in py])
    return out + [f for i in mine if (f := in_value(text, spans[i], False)) is not None]


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """A ``%env`` line at the cell's top level (not indented, not continued): the whole
    line. ``None`` for anything else."""
    if span not in set(read(text).own) or span.quote != "":
        return None
    for esc in read(text).escapes:
        if esc.kind != "%" or not esc.start <= span.name_start < esc.end:
            continue
        ls = max(text.rfind(c, 0, esc.start) for c in "\n\r") + 1
        if ls != esc.start or "\\" in text[esc.start : esc.end]:
            return None
        end = esc.end
        end += 2 if text.startswith("\r\n", end) else 1 if end < len(text) else 0
        return ("Remove the %env line", TextEdit(ls, end, ""))
    return None


_BANG_TYPED = re.compile(r"^[ \t]*!!?")
_ENV_TYPED = re.compile(r"^[ \t]*%(?:env|set_env) +([A-Za-z_][A-Za-z0-9_]*)?$")


def typed_name(text: str, offset: int) -> str | None:
    """A name typed after ``%env `` (or ``%set_env ``), at the start of a ``!`` command
    or after ``export`` there (the shell host's rule); elsewhere the Python host's answer
    (a key string of ``os.environ[...]``)."""
    line = line_before(text, offset)
    m = _ENV_TYPED.match(line)
    if m is not None:
        return m.group(1) or ""
    bang = _BANG_TYPED.match(line)
    if bang is not None:  # a `!` line: where the shell host would offer a name
        from torch_logs_lsp.hosts.shell import host as shell

        return shell.typed_name(line[bang.end() :], len(line) - bang.end())
    return python.typed_name(read(text).view, offset)
