"""An abstract ``torch._logging.set_logs(...)`` call, as a host extracts it from Python
source, and what its values are when they are static.

Offsets (``start``/``end``, ``name_start``/``name_end``) are whatever the host uses
(code points into the document); they are only copied into diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

#: The ``logging`` module's level constants (``logging.DEBUG``, or ``DEBUG`` imported from
#: ``logging``), as ``logging/__init__.py`` of CPython 3.8-3.14 defines them.
LOGGING_LEVELS: dict[str, int] = {
    "CRITICAL": 50,
    "FATAL": 50,
    "ERROR": 40,
    "WARNING": 30,
    "WARN": 30,
    "INFO": 20,
    "DEBUG": 10,
    "NOTSET": 0,
}

#: The levels torch accepts for a log (``logging._levelToName``: 50, 40, 30, 20, 10, 0;
#: the message of its ``ValueError`` lists them in this order).
VALID_LEVELS: tuple[int, ...] = (50, 40, 30, 20, 10, 0)


@dataclass(frozen=True)
class BoolValue:
    """``True`` / ``False``."""

    value: bool
    start: int
    end: int


@dataclass(frozen=True)
class IntValue:
    """An int literal (``10``; a host may fold ``-1``)."""

    value: int
    start: int
    end: int


@dataclass(frozen=True)
class StrValue:
    """A str literal (its decoded text)."""

    value: str
    start: int
    end: int


@dataclass(frozen=True)
class LevelName:
    """``logging.X`` or a name ``X`` imported from ``logging``; ``name`` is ``X``."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)
class NoneValue:
    """``None``."""

    start: int
    end: int


@dataclass(frozen=True)
class OtherLiteral:
    """Any other literal with a value ``ast.literal_eval`` gives (a float, a complex,
    bytes, a tuple/list/set display of literals): ``value`` is that Python object."""

    value: object = field(hash=False)
    start: int
    end: int


@dataclass(frozen=True)
class NotStatic:
    """Anything else (a variable, a call, ``**kwargs``): never judged."""

    start: int
    end: int


@dataclass(frozen=True)
class DictEntry:
    """One ``key: value`` of a dict display; ``key`` is ``None`` when not a str literal."""

    key: str | None
    key_start: int
    key_end: int
    value: KeywordValue


@dataclass(frozen=True)
class DictValue:
    """A dict display (``{"torch._dynamo": logging.DEBUG}``), entries in source order."""

    entries: tuple[DictEntry, ...]
    start: int
    end: int


KeywordValue: TypeAlias = (
    "BoolValue | IntValue | StrValue | LevelName | NoneValue | DictValue | OtherLiteral | NotStatic"
)


@dataclass(frozen=True)
class Keyword:
    """``name=value`` in the call; ``[name_start, name_end)`` is the keyword's name."""

    name: str
    name_start: int
    name_end: int
    value: KeywordValue


@dataclass(frozen=True)
class SetLogsCall:
    """One ``set_logs(...)`` call: its keywords in source order; ``[start, end)`` the call
    (for diagnostics about the whole call). ``positional``: the ``[start, end)`` of each
    plain positional argument (not ``*args``); ``unpacked``: the call also has ``*args`` or
    ``**kwargs`` (keywords we cannot see: no conversion is offered); ``torch_logs_set``:
    see the field."""

    keywords: tuple[Keyword, ...]
    start: int = 0
    end: int = 0
    positional: tuple[tuple[int, int], ...] = ()
    unpacked: bool = False
    #: Where ``TORCH_LOGS`` is certainly set in this process before the call ("line 9"),
    #: found by the host; then torch's ``set_logs`` only logs a warning (``TL631``).
    torch_logs_set: str | None = None


class _Unknown:
    """What :func:`python_value` answers for a value that is not static."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

Scalar: TypeAlias = "bool | int | str | None"


def python_value(value: KeywordValue) -> object:
    """The Python value of a static value other than a dict display (a level name -> its
    int; ``None``; an :class:`OtherLiteral`'s object), else :data:`UNKNOWN` (not static, a
    dict display, a ``logging`` name that is no level)."""
    if isinstance(value, BoolValue | IntValue | StrValue | OtherLiteral):
        return value.value
    if isinstance(value, NoneValue):
        return None
    if isinstance(value, LevelName) and value.name in LOGGING_LEVELS:
        return LOGGING_LEVELS[value.name]
    return UNKNOWN


__all__ = [
    "LOGGING_LEVELS",
    "UNKNOWN",
    "VALID_LEVELS",
    "BoolValue",
    "DictEntry",
    "DictValue",
    "IntValue",
    "Keyword",
    "KeywordValue",
    "LevelName",
    "NoneValue",
    "NotStatic",
    "OtherLiteral",
    "Scalar",
    "SetLogsCall",
    "StrValue",
    "python_value",
]
