"""YAML anchors and aliases (YAML 1.2.2, sections 3.2.2.2 and 7.1; the merge key ``<<``
of YAML 1.1's type repository, which Compose and GitLab CI read): which values of a
document are also read somewhere else.

``TORCH_LOGS: &v +dynamo`` gives its node the anchor ``v``; a later ``*v`` in the same
document (an alias, or a merge key ``<<: *v``) reads that node again. A value inside an
anchored node that an alias uses is one text read in several places: an edit of it
changes every one of them (another variable, another service). An alias names the
closest anchor of that name before it in the same document; anchors of other documents
of the stream are not seen. All offsets are code points into the document.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor
from torch_logs_lsp.hosts.yaml.tree import PAIRS, document_of, key_of
from torch_logs_lsp.model.spans import ValueSpan

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)


class _Anchor(NamedTuple):
    name: str
    start: int  # the anchored node's document range, code points
    end: int
    at: int  # where ``&name`` stands


class _Use(NamedTuple):
    name: str
    at: int  # where ``*name`` stands
    merged: bool  # the value of a ``<<`` merge key


_MARKS = declare_query("yaml", "(anchor) @m\n(alias) @m")


def _marks(src: Source, root: tree_sitter.Node) -> dict[int, tuple[list[_Anchor], list[_Use]]]:
    """The anchors and aliases of each document (by document node id), in order."""
    out: dict[int, tuple[list[_Anchor], list[_Use]]] = {}
    found = query_cursor(query("yaml", _MARKS)).captures(root).get("m", [])
    for node in sorted(found, key=lambda n: n.start_byte):
        holder = node.parent  # the block_node/flow_node it anchors or stands for
        if holder is None:
            continue
        at = src.cp(node.start_byte)
        name = src.text[at + 1 : src.cp(node.end_byte)]
        anchors, uses = out.setdefault(document_of(node).id, ([], []))
        if node.type == "anchor":
            anchors.append(_Anchor(name, src.cp(holder.start_byte), src.cp(holder.end_byte), at))
            continue
        pair = holder.parent
        merged = (
            pair is not None
            and pair.type in PAIRS
            and pair.child_by_field_name("value") == holder
            and key_of(src, pair) == "<<"
        )
        uses.append(_Use(name, at, merged))
    return out


def _line(text: str, at: int) -> int:
    """The 1-based line of offset ``at``."""
    return text.count("\n", 0, at) + 1


def shared(text: str, spans: list[ValueSpan]) -> list[str | None]:
    """:meth:`~.interface.SharedValuesHost.shared` for YAML: for each span, why its
    value is also read elsewhere (it lies in an anchored node that an alias or a merge
    key of the same document uses), or ``None``. Never raises: a document that cannot
    be read this way gives every span a reason (nothing is edited blindly)."""
    if "&" not in text or "*" not in text:
        return [None] * len(spans)
    try:
        return _shared(text, spans)
    except Exception:  # bad input never crashes; an unread anchor must not be edited
        log.exception("yaml: anchors could not be read")
        reason = "its YAML anchors and aliases could not be read"
        return [reason] * len(spans)


#: An anchor or alias as text (YAML 1.2.2 [102] ``ns-anchor-char``: no blank, no flow
#: indicator), after a line start, a blank or a flow indicator; for a document the
#: parser cannot read whole.
_MARK_TEXT = re.compile(r"(?:^|(?<=[\s\[\]{},]))([&*])([^\s\[\]{},]+)", re.M)


def _text_marks(text: str, start: int, anchors: list[_Anchor], uses: list[_Use]) -> None:
    """Add the anchors and aliases of the unparsed ``text`` (at ``start`` in the
    document) found as text: an anchor then covers the rest of its line (its node's end
    is not known), and a ``*`` inside a quoted string counts too (a fix left out
    needlessly, never one made blindly)."""
    for m in _MARK_TEXT.finditer(text):
        at = start + m.start(1)
        if m.group(1) == "&":
            eol = text.find("\n", m.end())
            anchors.append(_Anchor(m.group(2), at, start + (len(text) if eol < 0 else eol), at))
        else:
            uses.append(_Use(m.group(2), at, False))


@lru_cache(maxsize=4)
def _used(text: str) -> tuple[tuple[_Anchor, _Use], ...]:
    """Each alias of ``text`` with the anchor it reads (kept for the few texts in use:
    a quick-fix request asks once per value).

    A file longer than tree-sitter-yaml reads is parsed in the host's chunks
    (:mod:`.chunks`), and a chunk or document that does not parse is read as text
    (:func:`_text_marks`); in both cases an alias may read an anchor of any earlier
    place of the file (a document boundary is not trusted): more values are left
    alone, none is edited blindly."""
    from torch_logs_lsp.hosts.yaml.chunks import chunk_texts, too_long

    pieces = (
        [(start, chunk) for start, chunk, _ in chunk_texts(text)] if too_long(text) else [(0, text)]
    )
    by_document: dict[int, tuple[list[_Anchor], list[_Use]]] = {}
    whole: tuple[list[_Anchor], list[_Use]] = ([], [])
    for start, chunk in pieces:
        src = Source(chunk)
        root = src.parse("yaml").root_node
        if root.has_error or len(pieces) > 1:
            for anchors, uses in _marks(src, root).values():
                whole[0].extend(
                    a._replace(start=a.start + start, end=a.end + start, at=a.at + start)
                    for a in anchors
                )
                whole[1].extend(u._replace(at=u.at + start) for u in uses)
            if root.has_error:
                _text_marks(chunk, start, *whole)
        else:
            by_document = _marks(src, root)
    first: dict[_Anchor, _Use] = {}  # each anchor an alias reads, with its first alias
    for anchors, uses in [*by_document.values(), whole]:
        named: dict[str, list[_Anchor]] = {}
        for anchor in sorted(anchors, key=lambda a: a.at):
            named.setdefault(anchor.name, []).append(anchor)
        places = {name: [a.at for a in found] for name, found in named.items()}
        for use in sorted(uses, key=lambda u: u.at):
            k = bisect_left(places.get(use.name, []), use.at)  # anchors before the alias
            if k:
                first.setdefault(named[use.name][k - 1], use)
    return tuple(sorted(first.items(), key=lambda au: au[0].start))


def _shared(text: str, spans: list[ValueSpan]) -> list[str | None]:
    """:func:`shared`: a sweep over the spans and the used anchors, both by start (an
    anchor is open while the spans start inside it): O((spans + anchors) x nesting)."""
    used = _used(text)
    out: list[str | None] = [None] * len(spans)
    ranges = [(min(s.raw_start, s.content_start), max(s.raw_end, s.content_end)) for s in spans]
    open_: list[tuple[_Anchor, _Use]] = []
    k = 0
    for i in sorted(range(len(spans)), key=lambda i: ranges[i][0]):
        start, end = ranges[i]
        while k < len(used) and used[k][0].start <= start:
            open_.append(used[k])
            k += 1
        open_ = [au for au in open_ if au[0].end > start]  # (only the enclosing ones stay)
        around = [au for au in open_ if end <= au[0].end]
        if spans[i].value is None or not around:
            continue
        anchor, use = min(around, key=lambda au: (au[0].end - au[0].start, au[1].at))
        how = f"`<<: *{use.name}`" if use.merged else f"`*{use.name}`"
        out[i] = (
            f"{how} on line {_line(text, use.at)} reads it too (the YAML anchor "
            f"`&{anchor.name}` of line {_line(text, anchor.at)})"
        )
    return out


__all__ = ["shared"]
