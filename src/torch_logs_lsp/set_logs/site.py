"""Where a cursor stands in a ``torch._logging.set_logs(...)`` call, as a host finds it
(:meth:`~.hosts.interface.Host.set_logs_site`), for completion of its keywords and values.

Offsets are code points into the document. The site is found in half-typed code too (no
closing parenthesis yet), so it says nothing about the call's values; the checked calls
are :class:`~.set_logs_call.SetLogsCall`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from torch_logs_lsp.model.edits import TextEdit

#: The level names offered as values, in the order a component's completion ranks them
#: (DEBUG and INFO first: what ``+name`` / ``name`` give in ``TORCH_LOGS``). ``FATAL`` and
#: ``WARN`` are aliases of CRITICAL / WARNING and are not offered.
LEVEL_ORDER: tuple[str, ...] = ("DEBUG", "INFO", "ERROR", "WARNING", "CRITICAL", "NOTSET")


@dataclass(frozen=True)
class Spelling:
    """How the document can write one ``logging`` level name: ``text`` (``logging.DEBUG``,
    ``lg.DEBUG``, ``DEBUG``) and ``edit``, an edit to make elsewhere first (inserting
    ``import logging``), or ``None``."""

    text: str
    edit: TextEdit | None = None


@dataclass(frozen=True)
class SetLogsSite:
    """The cursor is in torch's ``set_logs(...)`` call starting at ``call_start``.

    ``where``: ``"keyword"`` (a keyword name may be typed here: at the start of an
    argument) or ``"value"`` (right after ``keyword=``, typing its value). ``[start, end)``
    is the word a completion replaces (a keyword prefix such as ``dyn``; a value such as
    ``logging.DE``), ``typed`` the part of it before the cursor. ``keyword``: for a value,
    the keyword it is for. ``given``: keyword names written in the call's other arguments.
    ``has_equals``: an ``=`` already follows the keyword word (insert the name alone).
    ``levels``: level name -> how this document spells it (see :class:`Spelling`).
    ``entry_key``: for a value in ``modules={"key": ...}``, the key (a module or
    registered name), else ``None``.
    """

    where: Literal["keyword", "value"]
    call_start: int
    start: int
    end: int
    typed: str
    keyword: str = ""
    given: tuple[str, ...] = ()
    has_equals: bool = False
    levels: dict[str, Spelling] = field(default_factory=dict)
    entry_key: str | None = None


__all__ = ["LEVEL_ORDER", "SetLogsSite", "Spelling"]
