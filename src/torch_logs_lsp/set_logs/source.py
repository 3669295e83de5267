"""How one Python module spells what a ``set_logs`` fix writes, as a host finds it
(:meth:`.hosts.interface.Host.set_logs_source`): the names bound to ``logging``,
``os.environ``, torch's ``set_logs`` and ``_init_logs``, where an import may be added, and
which statements a fix may replace whole.

Nothing here knows Python syntax trees: the fixes (:mod:`.set_logs_fixes`) only paste
these spellings. Offsets are code points into the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch_logs_lsp.model.edits import TextEdit, line_break


@dataclass(frozen=True)
class Statement:
    """A statement alone on its line(s): ``[start, end)`` the statement itself (without its
    indentation or a trailing comment), ``indent`` the blanks before it on its line.

    ``later_set_logs``: ``set_logs`` or ``_init_logs`` is named
    anywhere else in the module (a call that may run after this one)."""

    start: int
    end: int
    indent: str
    later_set_logs: bool = False


@dataclass(frozen=True)
class SetLogsSource:
    """The spellings of one module. Each name is ``None`` when the module has no certain
    one (a name rebound somewhere, or only imported inside a function).

    - ``logging``: the name of the ``logging`` module (``logging``, ``import logging as L``);
    - ``level_names``: level constant -> the name ``from logging import DEBUG (as D)`` binds;
    - ``set_logs`` / ``init_logs``: source text of a callee reaching torch's ``set_logs`` /
      ``torch._logging._internal._init_logs`` (``torch._logging.set_logs``, ``tl.set_logs``);
    - ``environ``: the text naming this process's ``os.environ``;
    - ``imports_at``: a line start where ``import x`` lines may be added (after the module
      docstring, ``from __future__`` imports and leading comments);
    - ``free``: module names (``logging``, ``os``, ``torch``) that no code of the module uses
      as a name and no import binds, so that ``import <name>`` may be added;
    - ``torch_at``: the start of the line after the module's first unconditional torch
      import, where ``import torch`` may be added (``None`` when the name ``torch`` is used
      otherwise or the module has no such import);
    - ``calls``: a ``set_logs`` call's start -> its expression statement, when the call is
      the whole statement, alone on its line;
    - ``writes``: a ``TORCH_LOGS`` span's ``name_start`` -> the statement writing it to this
      process's environment (``os.environ["TORCH_LOGS"] = "..."``, ``.setdefault(...)``,
      ``.update(TORCH_LOGS=...)``, ``.update({"TORCH_LOGS": ...})``), when it is the
      whole statement, alone on its line.
    """

    logging: str | None = None
    level_names: dict[str, str] = field(default_factory=dict)
    set_logs: str | None = None
    init_logs: str | None = None
    environ: str | None = None
    imports_at: int = 0
    free: frozenset[str] = frozenset()
    torch_at: int | None = None
    calls: dict[int, Statement] = field(default_factory=dict)
    writes: dict[int, Statement] = field(default_factory=dict)


def import_edit(text: str, at: int, module: str) -> TextEdit:
    """``import <module>`` as a line of its own at ``at`` (a line start, code points:
    :attr:`SetLogsSource.imports_at`), with the document's own line break."""
    newline = line_break(text)
    lead = newline if at > 0 and text[at - 1] not in "\r\n" else ""
    return TextEdit(at, at, f"{lead}import {module}{newline}")


__all__ = ["SetLogsSource", "Statement", "import_edit"]
