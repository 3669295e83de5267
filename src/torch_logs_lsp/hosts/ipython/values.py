"""The values an IPython escape sets (for :mod:`.ipython`): ``%env``/``%set_env`` lines
and the shell code of ``!``, ``!!`` and ``a = !cmd``.

``%env NAME=value`` and ``%env NAME value`` (IPython 9, ``IPython/core/magics/osm.py``,
``OSMagics.env``/``set_env``): the arguments (the line after ``%env `` with trailing
blanks stripped by the input transformer) are split once at the first ``=`` when there
is one, else at the first space; ``NAME`` and the value are ``str.strip()``-ed and the
value is set verbatim (quotes are kept: ``%env TORCH_LOGS="+dynamo"`` sets
``"+dynamo"`` with its quotes); a name holding a blank is refused; ``%env NAME`` alone
reads the variable. Before that, IPython expands ``$name``, ``$$``, ``{expr}`` from the
user's namespace (``var_expand``, ``DollarFormatter``): an argument holding one of them
gives a span whose value is ``None`` (not static). A ``!`` command is expanded the same
way, then run by the shell: the spans of its code (:func:`.embedded.shell_spans`) that
end before the first expansion keep their values; later ones are not read (the expanded
text may reopen a quote). A command ending in ``&`` may not run at all
(``system_piped`` refuses it): its spans are not read.

All offsets are **code points into the document text** (the cell).
"""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.embedded import LAYER, EmbeddedCode, shell_spans
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

#: What ``var_expand`` may replace: ``$name``/``$$name`` (``DollarFormatter``) and any
#: brace (``string.Formatter`` fields, ``{{``).
EXPANDS = re.compile(r"\$\$?[\w.]|[{}]")
#: The quote of a ``%env`` value (its verbatim text) and the outer layer of a ``!``
#: command's shell values (:mod:`.embedded`).
ENV_QUOTE = ""
BANG = "!"
#: The outer layer of a shell cell's body (``%%bash``): passed on verbatim.
CELL = "%%"
HOST: HostKind = "ipython"


def _slice(code: EmbeddedCode, start: int, end: int) -> tuple[str, list[int], list[int]]:
    return code.text[start:end], list(code.starts[start:end]), list(code.ends[start:end])


def _at(code: EmbeddedCode, index: int) -> int:
    return code.starts[index] if index < len(code.text) else code.end


def env_span(args: EmbeddedCode) -> ValueSpan | None:
    """The span ``%env``/``%set_env`` sets with the arguments ``args`` (the line after
    the magic's name and its one space), or ``None`` when it sets no family variable."""
    text = args.text
    if not text.strip():
        return None
    sep = "=" if "=" in text else " "
    cut = text.find(sep)
    if cut < 0:
        return None  # `%env NAME`: a read
    name = text[:cut].strip()
    if name not in FAMILY or re.match(r".*\s.*", name):
        return None
    name_start = len(text[:cut]) - len(text[:cut].lstrip())
    name_end = name_start + len(name)
    rest = text[cut + 1 :]
    lead = len(rest) - len(rest.lstrip())
    value = rest.strip()
    v0 = cut + 1 + lead
    v1 = v0 + len(value)
    if "\0" in value:
        return None  # os.environ refuses it: nothing is set
    expanded = EXPANDS.search(text) is not None
    if expanded and (sep == " " or EXPANDS.search(text, 0, cut + 1)):
        return None  # the split itself may move
    if v0 >= len(text) or not value:  # the empty value: after the separator
        where = args.ends[cut]  # just after the separator
        v_starts: list[int] = []
        v_ends: list[int] = []
        start = end = where
    else:
        _, v_starts, v_ends = _slice(args, v0, v1)
        start, end = v_starts[0], v_ends[-1]
    if expanded:
        return ValueSpan(
            name, HOST, args.starts[name_start], args.ends[name_end - 1], None, (), (),
            start, end, start, end, ENV_QUOTE,
        )  # fmt: skip
    return ValueSpan(
        name,
        HOST,
        args.starts[name_start],
        args.ends[name_end - 1],
        value,
        tuple(v_starts),
        tuple(v_ends),
        start,
        end,
        start,
        end,
        ENV_QUOTE,
    )


def bang_spans(code: EmbeddedCode) -> list[ValueSpan]:
    """The family assignments of the shell command ``code`` of a ``!`` line, mapped into
    the cell, with their layered quotes (outer layer :data:`BANG`)."""
    if code.text.rstrip().endswith("&"):
        return []
    m = EXPANDS.search(code.text)
    cut = _at(code, m.start()) if m is not None else None
    spans = shell_spans(HOST, code._replace(quote=BANG))
    return [s for s in spans if cut is None or s.raw_end <= cut]


def cell_spans(code: EmbeddedCode) -> list[ValueSpan]:
    """The family assignments of a shell cell's body (``%%bash``), mapped into the cell
    (outer layer :data:`CELL`: IPython passes a cell magic's body on unexpanded)."""
    return shell_spans(HOST, code._replace(quote=CELL))


#: Code points IPython's line splitting (``str.splitlines``) ends a line at.
LINE_ENDS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def encode_verbatim(value: str, expanded: bool) -> str | None:
    """``value`` as IPython passes it on verbatim: ``None`` when it would end the line
    or, when ``expanded`` (a line magic's arguments, a ``!`` command), holds what
    ``var_expand`` replaces (``$name``, a brace) or a lone ``$`` that could join one."""
    if any(c in LINE_ENDS for c in value) or "\0" in value:
        return None
    if expanded and ("$" in value or "{" in value or "}" in value):
        return None
    return value


def encode_part(quote: str, value: str) -> str | None:
    """``value`` for a part quoted with ``quote``: a ``%env`` value verbatim, a layered
    shell value through the shell quoting and then the ``!`` line or the cell body;
    anything else (a Python literal's quote) by the Python host."""
    if LAYER in quote:
        from torch_logs_lsp.hosts.embedded import encode_layers

        def outer(q: str, body: str) -> str | None:
            if q == CELL:
                return body if "\0" not in body else None
            return encode_verbatim(body, True) if q == BANG else None

        return encode_layers(quote, value, outer)
    if quote == ENV_QUOTE:  # (blanks around the whole value are stripped: the edit's
        return encode_verbatim(value, True)  # verification reads it back)
    from torch_logs_lsp.hosts.python.host import encode_part as python_part

    return python_part(quote, value)


__all__ = ["EXPANDS", "bang_spans", "cell_spans", "encode_part", "env_span"]
