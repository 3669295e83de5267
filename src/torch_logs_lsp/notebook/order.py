"""The cell order of a notebook: one module for the import-order rule (TL501).

Cells run in document order in one process (the kernel), so an unconditional ``import
torch`` in an earlier code cell makes a later cell's in-process write of a variable torch
reads only at import (``os.environ["TORCH_LOGS"] = ...``; with the IPython cell host also
``%env``) ineffective, exactly as a write after the import in one Python file (see
:mod:`.hosts.python_order` for what counts as such a write and what re-reads the value).

The rule itself is the cell host's :meth:`~.hosts.interface.Host.notes`, asked about the
cell with an ``import torch`` line put before it; its message then names the cell of the
real import ("after `import torch` in cell 1"). A write the cell's own notes already report
(an import in the same cell before it) is left to them.

Used by ``torch-logs check`` on ``.ipynb`` files (:mod:`.notebook_cli`) and meant for the
language server's notebook documents (the cells it is sent, in order).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from torch_logs_lsp import hosts
from torch_logs_lsp.hosts.interface import Note
from torch_logs_lsp.hosts.python.order import seen_by_children
from torch_logs_lsp.lint.checker import Finding, LineIndex
from torch_logs_lsp.lint.dead_values import overwrites
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.notebook.reader import CELL_HOST
from torch_logs_lsp.value.analysis import Diagnostic

#: What is put before a cell to ask the host whether its writes come after an import.
_PREFIX = "import torch\n"
#: A line that IPython runs as a magic or a shell escape (not Python for the import test).
_MAGIC_LINE = re.compile(r"^[ \t]*[%!][^\r\n]*", re.M)
_NAMED_LINE = re.compile(r"`import torch` \(line 1\)")
_CALLED_AT = re.compile(r"called at line (\d+)")
#: What, in a later cell, could read the variables again (then no finding, as in a file).
_REREAD = re.compile(r"\b(?:_init_logs|set_logs)[ \t]*\(")
_COMMENT = re.compile(r"#[^\r\n]*")


def imports_torch(text: str) -> bool:
    """Whether the Python of a cell imports torch unconditionally at its top level
    (``import torch``, ``import torch.x as y``, ``from torch... import ...``: the forms
    :mod:`.hosts.python_order` recognises). Magic and ``!`` lines are blanked first; a
    cell magic's cell (``%%bash``, ``%%time``, ...) never counts. Never raises."""
    from torch_logs_lsp.hosts._ts import Source
    from torch_logs_lsp.hosts.python import order as python_order

    if text.lstrip().startswith("%%"):
        return False
    code = _MAGIC_LINE.sub(lambda m: " " * len(m.group()), text)
    if not python_order._imports_torch(code):  # the cheap test first
        return False
    src = Source(code, lone_cr_is_lf=True)
    return python_order._torch_import(src.data, src.parse("python").root_node) is not None


def rereads(text: str) -> bool:
    """Whether a cell's ``text`` may read the variables again (it calls ``set_logs(`` or
    ``_init_logs(`` outside a comment; a mention in a comment or a string without the call
    does not count): no cell before it then gets a cell-order note."""
    return "_logs" in text and _REREAD.search(_COMMENT.sub("", text)) is not None


def cell_order_notes(
    cells: Sequence[str],
    host: HostKind = CELL_HOST,
    numbers: Sequence[int] | None = None,
    child_then: Mapping[str, str | None] | None = None,
) -> dict[int, list[Note]]:
    """The TL501 notes that the cell order adds: for each position ``i`` of ``cells``
    (the code cells' texts, in document order) whose in-process writes come after an
    ``import torch`` in an earlier cell, the notes (``span_index`` into
    ``hosts.extract(host, cells[i])``, code ``TL501``, a message naming the cell of the
    import). ``numbers[i]`` is the number a cell is called by in messages (default
    ``i + 1``; the CLI passes the 1-based index among all cells, markdown included, as
    Jupyter shows it). Writes the cell's own notes report (an import earlier in the
    same cell) are left out; so is everything when a later cell mentions
    ``_init_logs``/``set_logs`` (which may read the variables again). A write that a
    child process started in a later cell sees (:func:`child_start`; ``child_then``: what
    starts one after the last of ``cells``, by variable) is TL505 instead. Never raises."""
    names = list(numbers) if numbers is not None else [i + 1 for i in range(len(cells))]
    module = hosts.host_module(host)
    out: dict[int, list[Note]] = {}
    if module is None:
        return out
    # whether a cell after position i may read the variables again
    # (and what in one may start a child process, which sees the values: TL505)
    reread_after = [False] * len(cells)
    for i in range(len(cells) - 2, -1, -1):
        reread_after[i] = reread_after[i + 1] or rereads(cells[i + 1])

    def children(i: int) -> Callable[[str], str | None]:
        def child(variable: str) -> str | None:
            for later in cells[i + 1 :]:
                found = child_start(later, variable)
                if found is not None:
                    return found
            return (child_then or {}).get(variable)

        return child

    first: int | None = None  # the position of the first cell that imports torch
    for i, text in enumerate(cells):
        if first is not None and not reread_after[i]:
            notes = late_in_cell(host, text, children(i))
            if notes:
                out[i] = [n._replace(message=_named(n.message, names[first])) for n in notes]
        if first is None and imports_torch(text):
            first = i
    return out


def child_start(text: str, variable: str) -> str | None:
    """What may start a child process that inherits ``variable`` in the code cell ``text``
    (see :func:`.hosts.ipython.host.child_start`), or ``None``. Never raises."""
    from torch_logs_lsp.hosts.ipython.host import child_start as start

    return start(text, variable)


def late_in_cell(
    host: HostKind, text: str, children: Callable[[str], str | None] | None = None
) -> list[Note]:
    """The host's notes of ``text`` as if torch was imported just before it, less the
    ones of ``text`` alone; with ``children`` (a variable -> what starts a child process
    that inherits it in a later cell, as written, or ``None``), each TL501 note a child
    sees is its TL505. None for a cell magic's cell (``%%bash``: another process;
    ``%%time``: not judged)."""
    module = hosts.notes_host(host)
    if module is None or text.lstrip().startswith("%%"):
        return []
    spans = hosts.extract(host, text)
    if not spans:
        return []
    shifted = hosts.extract(host, _PREFIX + text)
    if [s.value for s in shifted] != [s.value for s in spans]:
        return []  # the prefix changed how the cell reads: say nothing
    # the cell's own notes, and values set again before anything reads them (TL502: no
    # notes on those, as in a file)
    skip = {n.span_index for n in module.notes(text, spans)}
    skip |= {o.dead for o in overwrites(host, text, spans)}
    found = [n for n in module.notes(_PREFIX + text, shifted) if n.span_index not in skip]
    if children is None:
        return found
    out = []
    for note in found:
        child = children(shifted[note.span_index].variable)
        out.append(note if child is None else seen_by_children(note, child))
    return out


def _named(message: str, cell: int) -> str:
    """A host's note for the prefixed cell, made to name the cell of the import (and
    its own line numbers again: the prefix is one line)."""
    named, n = _NAMED_LINE.subn(f"`import torch` in cell {cell}", message)
    if not n:
        named = f"{message} (torch is imported in cell {cell})"
    return _CALLED_AT.sub(lambda m: f"called at line {int(m.group(1)) - 1}", named)


def note_findings(text: str, host: HostKind, notes: Sequence[Note]) -> list[Finding]:
    """``notes`` (of ``hosts.extract(host, text)``'s spans) as warnings placed in
    ``text`` over each value (offsets and positions as in :class:`.checker.Finding`),
    for values whose quote is closed (as the checker adds host notes): a static value's
    over the value, one that is not static over its source (no ``span`` then)."""
    spans: list[ValueSpan] = hosts.extract(host, text)
    index = LineIndex(text)
    out: list[Finding] = []
    for note in notes:
        span = spans[note.span_index] if 0 <= note.span_index < len(spans) else None
        if span is None or not span.terminated:
            continue
        if span.value is None:  # where it is written decides, not what it holds
            start, end = span.raw_start, span.raw_end
            diag = Diagnostic(note.code, note.severity, note.message, start, end)
            line, column = index.position(start)
            end_line, end_column = index.position(end)
            out.append(Finding(None, diag, start, end, line, column, end_line, end_column))
            continue
        diag = Diagnostic(note.code, note.severity, note.message, 0, len(span.value))
        start, end = span.document_range(0, len(span.value))
        line, column = index.position(start)
        end_line, end_column = index.position(end)
        out.append(Finding(span, diag, start, end, line, column, end_line, end_column))
    return out


__all__ = [
    "cell_order_notes",
    "child_start",
    "imports_torch",
    "late_in_cell",
    "note_findings",
    "rereads",
]
