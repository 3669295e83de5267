"""Where a code sits in a suppression comment (:func:`.code_hover.code_at`) and what its
hover says (:func:`.code_hover.code_doc`), without a server."""

from __future__ import annotations

import pytest

from torch_logs_lsp.codes.table import code_table
from torch_logs_lsp.lint.suppressions import find_suppressions
from torch_logs_lsp.package_info import codes_doc_url
from torch_logs_lsp.server.features.code_hover import MAX_LISTED, code_at, code_doc


def entries(text: str) -> list[tuple[int, tuple[str, int, int] | None]]:
    (s,) = find_suppressions(text)
    return [(i, code_at(text, s.start, s.end, i)) for i in range(len(text))]


def test_code_at_each_offset():
    text = "x=1  # torch-logs: ignore[ tl201 ,TL3,]\n"
    found = {i: hit for i, hit in entries(text) if hit is not None}
    start = text.index("tl201")
    assert found[start] == ("tl201", start, start + 5)
    assert found[start + 5] == ("tl201", start, start + 5)  # its end counts
    assert start - 1 not in found and start + 6 not in found  # the blanks around it
    tl3 = text.index("TL3")
    assert found[tl3 + 3] == ("TL3", tl3, tl3 + 3)
    assert min(found) == start and max(found) == tl3 + 3  # nothing in `ignore[` or `]`


def test_empty_brackets_and_a_bare_ignore():
    (s,) = find_suppressions("# torch-logs: ignore[]\n")
    assert code_at("# torch-logs: ignore[]\n", s.start, s.end, s.end - 1) is None
    (bare,) = find_suppressions("# torch-logs: ignore\n")
    assert bare.codes is None


def test_code_doc_of_a_code_a_prefix_and_no_code():
    doc = code_doc("tl201", "en").markdown()
    assert doc == (
        f"**TL201** · {code_table()['TL201'].title}\n\n"
        f"[TL201 in the documentation]({codes_doc_url('TL201')})"
    )
    tl2 = code_doc("TL2", "en").markdown()
    assert all(f"`{c}`" in tl2 for c in code_table() if c.startswith("TL2"))
    every = code_doc("TL", "en").markdown()
    assert every.count("\n| `TL") == MAX_LISTED
    assert f"... and {len(code_table()) - MAX_LISTED} more." in every
    assert code_doc("TL999", "en").markdown() == "**TL999** · not a torch-logs code"
    assert code_doc("E501", "ru").markdown() == "**E501** · не код torch-logs"


@pytest.mark.parametrize(
    "line", ["TORCH_LOGS=x  # torch-logs: ignore[TL201]", "# torch-logs: ignore[TL201]"]
)
def test_plain_text_link(line: str):
    (s,) = find_suppressions(line)
    assert code_at(line, s.start, s.end, line.index("TL201")) == (
        "TL201",
        line.index("TL201"),
        len(line) - 1,
    )
    assert (
        code_doc("TL201", "en", markdown=False)
        .plaintext()
        .endswith(f"TL201 in the documentation: {codes_doc_url('TL201')}")
    )
