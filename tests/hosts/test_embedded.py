"""Shell code inside another host's value (hosts/embedded.py): offsets map back
through the outer decoding, and edits encode through every quoting layer."""

from __future__ import annotations

from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.embedded import LAYER, EmbeddedCode, shell_spans, verbatim
from torch_logs_lsp.hosts.jsonc.edits import encode_part as json_part
from torch_logs_lsp.hosts.shell import host as shell


def _json_string_code(doc: str) -> EmbeddedCode:
    """The body of the only JSON string of ``doc``, decoded (``\\"`` and ``\\\\`` only)."""
    start = doc.index('"') + 1
    text, starts, ends = [], [], []
    i = start
    while doc[i] != '"':
        width = 2 if doc[i] == "\\" else 1
        text.append(doc[i + width - 1])
        starts.append(i)
        ends.append(i + width)
        i += width
    return EmbeddedCode("".join(text), starts, ends, i, '"')


def test_offsets_map_through_an_escaping_outer_string() -> None:
    doc = 'run: "echo \\"hi\\"; TORCH_LOGS=\\"+dynamo,guards\\" python x.py"'
    spans = shell_spans("outer", _json_string_code(doc))
    assert [(s.variable, s.value, s.host) for s in spans] == [
        ("TORCH_LOGS", "+dynamo,guards", "outer")
    ]
    span = spans[0]
    check_spans(doc, spans)
    assert doc[span.raw_start : span.raw_end] == '\\"+dynamo,guards\\"'
    assert doc[span.content_start : span.content_end] == "+dynamo,guards"
    assert span.quote == '"' + LAYER + '"'


def test_verbatim_code_after_an_emoji() -> None:
    doc = "🙂 x: TORCH_LOGS=dynamo python"
    start = doc.index("TORCH")
    spans = shell_spans("outer", verbatim(doc[start:], start))
    check_spans(doc, spans)
    assert doc[spans[0].content_start : spans[0].content_end] == "dynamo"
    assert spans[0].quote == LAYER


def test_layered_encoding_goes_through_each_quote() -> None:
    # A double-quoted shell word inside a double-quoted shell string (bash -c "..."): the
    # inner quoting escapes `"` as `\"`, then the outer escapes both characters.
    assert shell.encode_part('"' + LAYER + '"', 'a"b') == 'a\\\\\\"b'
    encoded = shell.encode_part('"' + LAYER + "'", 'a"b')  # shell "..." inside shell '...'
    assert encoded == 'a\\"b'
    from torch_logs_lsp.hosts.embedded import encode_layers

    assert encode_layers('"' + LAYER + '"', 'a"b', json_part) == 'a\\\\\\"b'
    assert encode_layers("'" + LAYER + '"', "a'b", json_part) == "a'\\\\''b"


def test_no_family_name_means_no_parse() -> None:
    assert shell_spans("outer", verbatim("echo hi", 0)) == []
