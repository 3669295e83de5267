"""A YAML scalar as decoded from a document, with where each of its code points came from
(:func:`.scalars.decode_scalar` and :func:`.block_scalars.decode_block` make them)."""

from __future__ import annotations

from typing import NamedTuple


class Scalar(NamedTuple):
    """A YAML scalar decoded from the document (see :func:`decode_scalar`).

    ``value``: the string a YAML loader gives for it (as a string: a plain ``12`` is
    ``"12"`` here, see :func:`plain_is_string`); ``None`` when it cannot be decoded exactly
    here (then ``starts``/``ends`` are empty). ``starts``/``ends``: per decoded code point,
    the document offsets (code points) where its source starts and ends (exclusive).
    ``content_start``/``content_end``: the content's range (after an opening quote, after
    the block header line); for an empty value the insertion point. ``quote``: ``""``
    plain, ``"'"``, ``'"'``, ``"|"`` literal or ``">"`` folded block. ``terminated``:
    ``False`` for a quote left open; then the value is the text to the end of its line.
    """

    value: str | None
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    content_start: int
    content_end: int
    quote: str
    terminated: bool


__all__ = ["Scalar"]
