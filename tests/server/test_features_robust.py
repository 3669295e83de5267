"""Feature functions never raise on junk documents, at any cursor offset, in any encoding.

Drives the same functions the LSP handlers call (document state -> diagnostics,
completion, hover) over generated documents of each host kind.
"""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from tests.support.budget import examples
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.server.documents import build_state
from torch_logs_lsp.server.features.completion import completions
from torch_logs_lsp.server.features.diagnostics import document_diagnostics
from torch_logs_lsp.server.features.hover import hover
from torch_logs_lsp.server.settings import Settings

URIS = {
    "dotenv": "file:///w/.env",
    "shell": "file:///w/run.sh",
    "jsonc": "file:///w/.vscode/launch.json",
}
PIECES = st.sampled_from(
    [
        "TORCH_LOGS=",
        "export TORCH_LOGS=",
        '{"configurations": [{"env": {"TORCH_LOGS": "',
        '"}}]}',
        "+dynamo",
        ",guards",
        " ,",
        '"',
        "'",
        "\\",
        "\\u002b",
        "$X",
        "${X:-y}",
        "\n",
        "\r\n",
        "\r",
        "🙂",
        "e\u0301",
        "\x00",
        "\t",
        "aot_g",
        "#",
        "=",
        "\ud800",
        ",",
        "{",
        "}",
    ]
)


def _within(r: types.Range, lines: int) -> bool:
    return 0 <= r.start.line <= r.end.line <= lines and r.start.character >= 0


OPENERS = {
    "dotenv": ["TORCH_LOGS=", "export TORCH_LOGS='", 'A=🙂\nTORCH_LOGS="', ""],
    "shell": ["TORCH_LOGS=", 'export TORCH_LOGS="', "env TORCH_LOGS=$'", "x=é TORCH_LOGS=", ""],
    "jsonc": ['{"configurations": [{"env": {"TORCH_LOGS": "', '{"tasks": [{"options"', ""],
}


@settings(max_examples=examples(300), deadline=None)
@given(
    host=st.sampled_from(sorted(URIS)),
    opener=st.integers(min_value=0, max_value=4),
    tail=st.lists(PIECES, max_size=12).map("".join),
    encoding=st.sampled_from(["utf-16", "utf-8"]),
)
def test_features_never_raise(host: str, opener: int, tail: str, encoding: str):
    openers = OPENERS[host]
    text = openers[opener % len(openers)] + tail
    registry = load_registry()
    state = build_state(URIS[host], 1, text, "", registry, encoding)
    event(f"spans: {min(len(state.entries), 2)}")
    lines = text.count("\n") + text.count("\r") + 1
    for d in document_diagnostics(state, Settings()):
        r = d["range"]
        start, end = types.Position(**r["start"]), types.Position(**r["end"])
        assert _within(types.Range(start=start, end=end), lines)
    for offset in range(0, len(text) + 1):
        result = completions(state, offset, registry, "en", True)
        if result is not None:
            for item in result.items:
                assert isinstance(item.text_edit, types.TextEdit)
                r = item.text_edit.range
                assert r.start.line == r.end.line and _within(r, lines)
        h = hover(state, offset, registry, "ru", False)
        if h is not None and h.range is not None:
            assert _within(h.range, lines)
