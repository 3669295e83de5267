"""Shell code embedded in another host's value: a Dockerfile ``RUN`` line, a workflow's
``run:`` block, the script of ``bash -c '...'``.

The outer host decodes the code as its own reader does (YAML's scalar rules, BuildKit's
line continuations, bash's quotes) into an :class:`EmbeddedCode` that remembers where
each decoded code point comes from in the document; :func:`shell_spans` reads that code
with the shell host and maps every offset of its spans back into the document.

An edit of such a value must be encoded twice, first for the shell quoting around the
value inside the code and then for the outer host's quoting around the code. The span's
:attr:`~.base.ValueSpan.quote` says both: the layers' quotes joined with :data:`LAYER`,
innermost first (``"'" + LAYER + '"'``: a single-quoted shell word inside a
double-quoted string of the outer host); every layer but the last is shell, or
PowerShell when its quote starts with :data:`PWSH` (a ``shell: pwsh`` step).
:func:`encode_layers` encodes through them. Such a quote never equals a host's plain
quote, so code that looks for ``quote == ""`` treats an embedded value as quoted.

All offsets are **code points into the document text**, and inside an
:class:`EmbeddedCode`, code points into its decoded ``text``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, names_family

#: Joins the quotes of the layers of an embedded value's quote, innermost first (a NUL
#: never stands in a quote of any host).
LAYER = "\0"
#: Starts the quote of a layer that is PowerShell code, not shell code (a control
#: character no host's quote holds).
PWSH = "\x01"


class EmbeddedCode(NamedTuple):
    """Code inside a document, as its interpreter reads it.

    ``text``: the decoded code. ``starts[i]``/``ends[i]``: the document offsets of the
    source of code point ``i`` of ``text`` (``ends`` exclusive; an escape such as YAML's
    ``\\"`` gives one code point from two document code points). ``end``: the document
    offset just after the code (where a position at ``len(text)`` maps). ``quote``: the
    outer host's quote around the code, as that host's ``encode_part`` takes it (``None``
    when an edit cannot be encoded there: no value inside is then fixed in place).
    """

    text: str
    starts: Sequence[int]
    ends: Sequence[int]
    end: int
    quote: str | None


def verbatim(text: str, start: int, quote: str | None = "") -> EmbeddedCode:
    """Code copied verbatim from document offset ``start`` (each code point is itself)."""
    starts = range(start, start + len(text))
    return EmbeddedCode(
        text, starts, range(start + 1, start + len(text) + 1), start + len(text), quote
    )


def _position(code: EmbeddedCode, index: int) -> int:
    """The document offset of a position ``index`` (0..len) in the code, before its
    code point (the end of the code at ``len``)."""
    return code.starts[index] if index < len(code.text) else code.end


def _after(code: EmbeddedCode, index: int) -> int:
    """The document offset just after the code point before position ``index``."""
    return code.ends[index - 1] if index > 0 else _position(code, 0)


class EmbeddedSpan(ValueSpan):
    """A :class:`ValueSpan` of the outer document read from embedded code (:func:`shell_spans`),
    which remembers that code: ``code`` its decoded text, ``inner`` the host that read it
    (``"shell"``, ``"powershell"``) and ``inner_start`` where the span's name starts in
    ``code`` (code points), so that what the code does with the value (where its process's
    stderr goes: :func:`inner_captured`) can be read again. Compared as a ``ValueSpan``."""

    __slots__ = ("code", "inner", "inner_start")
    code: str
    inner: str
    inner_start: int

    def __init__(self, span: ValueSpan, code: str, inner: str, inner_start: int) -> None:
        ValueSpan.__init__(
            self, span.variable, span.host, span.name_start, span.name_end, span.value,
            span.char_starts, span.char_ends, span.content_start, span.content_end,
            span.raw_start, span.raw_end, span.quote, span.terminated,
        )  # fmt: skip
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "inner_start", inner_start)

    def moved(self, delta: int) -> ValueSpan:
        """See :meth:`ValueSpan.moved` (O(1) too); the code is remembered."""
        if delta == 0:
            return self
        base = ValueSpan.moved(self, delta)
        span = object.__new__(EmbeddedSpan)
        for name in (*ValueSpan.__slots__, *EmbeddedSpan.__slots__):
            source = self if name in EmbeddedSpan.__slots__ else base
            object.__setattr__(span, name, object.__getattribute__(source, name))
        return span


def inner_captured(span: ValueSpan, context: tuple[str, str] = ("loose", "loose")) -> bool:
    """Whether the code ``span`` was read from (an :class:`EmbeddedSpan`; any other span:
    ``False``) keeps the stderr of the process that reads it (see
    :meth:`.interface.OutputHost.stderr_captured`); ``context``: where the code's own
    stdout and stderr go (:mod:`.shell.capture`'s tables). Never raises."""
    if not isinstance(span, EmbeddedSpan):
        return False
    return _code_captured(span.code, span.inner, context).get(span.inner_start, False)


def embedded_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`.interface.OutputHost.stderr_captured` of a host whose code runs in a shell of
    its own (a Makefile recipe line, a ``RUN``, a workflow's ``run:``): a span read from
    that code counts as kept when the code keeps it (:func:`inner_captured`); any other
    span does not. Never raises."""
    return [inner_captured(s) for s in spans]


@lru_cache(maxsize=256)
def _code_captured(code: str, inner: str, context: tuple[str, str]) -> dict[int, bool]:
    """Per inner span's name start: whether ``code`` read by ``inner`` keeps its stderr."""
    from torch_logs_lsp.hosts.shell.nested import nesting

    spans = list(_inner_spans(code, nesting(), inner))
    if inner == "powershell":
        from torch_logs_lsp.hosts.powershell.capture import stderr_captured as powershell

        flags = powershell(code, spans)
    else:
        from torch_logs_lsp.hosts.shell.capture import stderr_captured as shell

        flags = shell(code, spans, context)
    return {s.name_start: flag for s, flag in zip(spans, flags, strict=False)}


def _layered(inner: str | None, outer: str | None) -> str | None:
    return None if inner is None or outer is None else inner + LAYER + outer


def shell_spans(host: HostKind, code: EmbeddedCode, inner: str = "shell") -> list[ValueSpan]:
    """The family assignments of ``code`` read by the shell host (bash 5.2's rules, see
    :mod:`.shell`), or by the PowerShell host when ``inner`` is ``"powershell"`` (its
    layer's quote then starts with :data:`PWSH`), as spans of the outer document:
    ``host`` is the outer host kind, every offset maps through the code's offset map,
    and the quote is layered (see the module docstring). ``[]`` when the code names no
    family variable. Never raises."""
    if not names_family(code.text):
        return []
    from torch_logs_lsp.hosts.shell.nested import nesting

    mark = PWSH if inner == "powershell" else ""
    out: list[ValueSpan] = []
    for s in _inner_spans(code.text, nesting(), inner):
        if len(code.text) and s.raw_end > len(code.text):
            continue  # cannot happen (offsets stay inside the code); be safe
        value = s.value
        starts = tuple(code.starts[i] for i in s.char_starts) if value else ()
        ends = tuple(code.ends[i - 1] for i in s.char_ends) if value else ()
        content_start = _position(code, s.content_start)
        quote = None if s.quote is None else mark + s.quote
        out.append(
            EmbeddedSpan(
                ValueSpan(
                    variable=s.variable,
                    host=host,
                    name_start=_position(code, s.name_start),
                    name_end=_after(code, s.name_end),
                    value=value,
                    char_starts=starts,
                    char_ends=ends,
                    content_start=content_start,
                    content_end=max(content_start, _after(code, s.content_end)),
                    raw_start=_position(code, s.raw_start),
                    raw_end=max(_position(code, s.raw_start), _after(code, s.raw_end)),
                    quote=_layered(quote, code.quote),
                    terminated=s.terminated,
                ),
                code.text,
                inner,
                s.name_start,
            )
        )
    return out


@lru_cache(maxsize=4096)
def _inner_spans(text: str, level: int, inner: str = "shell") -> tuple[ValueSpan, ...]:
    """The spans of a piece of code read by the ``inner`` host (shell: ``level`` levels
    of code in code deep, which bounds how much deeper it is read: :mod:`.shell_nested`),
    remembered: a document with hundreds of ``run:`` steps reads again only the steps an
    edit changed."""
    if inner == "powershell":
        from torch_logs_lsp.hosts.powershell import host as powershell

        return tuple(powershell.extract(text))
    from torch_logs_lsp.hosts.shell import host as shell

    return tuple(shell.extract(text))


def encode_layers(quote: str, value: str, outer: Callable[[str, str], str | None]) -> str | None:
    """``value`` encoded for a layered ``quote`` (see the module docstring): through the
    shell quoting of each inner layer, then ``outer`` (the outer host's own
    ``encode_part``) for the last; ``None`` when a layer cannot hold it."""
    from torch_logs_lsp.hosts.powershell.strings import encode_part as powershell_part
    from torch_logs_lsp.hosts.shell.edits import encode_part as shell_part

    *inner, last = quote.split(LAYER)
    body: str | None = value
    for q in inner:
        if body is not None:
            body = powershell_part(q[1:], body) if q.startswith(PWSH) else shell_part(q, body)
    return outer(last, body) if body is not None else None


__all__ = [
    "LAYER",
    "PWSH",
    "EmbeddedCode",
    "EmbeddedSpan",
    "embedded_captured",
    "encode_layers",
    "inner_captured",
    "shell_spans",
    "verbatim",
]
