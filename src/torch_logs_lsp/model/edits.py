"""Edits of a document's text, shared by the hosts, the fixers and the set_logs helpers.

Offsets are code points into the document text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextEdit:
    """Replace the document's ``[start, end)`` (code points) with ``new_text``."""

    start: int
    end: int
    new_text: str


def line_break(text: str) -> str:
    """The document's line break: CRLF when it has one, else a lone CR when it has one
    (Python's tokenizer and the LSP end a line there too), else LF."""
    return "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"


__all__ = ["TextEdit", "line_break"]
