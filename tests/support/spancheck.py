"""Invariants every value span must satisfy, shared by the host tests."""

from __future__ import annotations

from torch_logs_lsp.model.spans import FAMILY, ValueSpan


def check_span(text: str, span: ValueSpan, *, exact_name: bool = True) -> None:
    """Assert the offset invariants of ``span`` in ``text``."""
    n = len(text)
    assert span.variable in FAMILY
    assert 0 <= span.name_start < span.name_end, span
    # the name before its value, but in YAML a Kubernetes item written value-first
    value_first = span.host == "yaml" and span.raw_end <= span.name_start
    assert span.name_end <= span.raw_start or value_first, span
    if exact_name:
        assert text[span.name_start : span.name_end] == span.variable
    assert span.raw_start <= span.content_start <= span.content_end <= span.raw_end <= n, span
    if span.value is None:
        assert span.char_starts == () and span.char_ends == ()
        return
    assert len(span.char_starts) == len(span.char_ends) == len(span.value), span
    prev_end = span.content_start
    for i, (s, e) in enumerate(zip(span.char_starts, span.char_ends, strict=True)):
        assert prev_end <= s < e <= span.content_end, (i, span)
        if e - s == 1:  # a lone CR in a Python string reads as LF, as Python's tokenizer does
            cr = span.host == "python" and text[s] == "\r" and span.value[i] == "\n"
            # YAML: a lone CR reads as LF, and a single LF folds into a space
            cr = cr or (span.host == "yaml" and text[s] in "\r\n" and span.value[i] in " \n")
            assert text[s] == span.value[i] or cr, (i, span)
        prev_end = e
    # The documented helpers work on every index.
    for i in range(len(span.value) + 1):
        span.document_offset(i)
    assert span.value_index(span.content_end) == len(span.value)
    assert span.value_index(span.content_start) == 0


def check_spans(text: str, spans: list[ValueSpan], *, exact_name: bool = True) -> None:
    """Check every span and that spans come in document order."""
    last = -1
    for span in spans:
        check_span(text, span, exact_name=exact_name)
        assert span.name_start > last
        last = span.name_start
