"""Lines end only at ``\\n``, ``\\r\\n`` and ``\\r`` (LSP specification), in every host.

Characters that ``str.splitlines`` also breaks at (U+2028, U+2029, ``\\x0b``, ``\\x0c``,
``\\x1c``-``\\x1e``, ``\\x85``) stand on the first line; an incremental change is then made
on a later line. The client's text is modelled here, applying each change per the
specification; the server's diagnostics, hover and fix-all must point into that text.
(pygls split lines with ``str.splitlines``: its text went out of step with the client's and
fix-all deleted a character inside ``dynamo``.)
"""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, wait_diagnostics

ODD = ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"]
VALUE = "+dynamo,guards"


def document(host: str, odd: str) -> str:
    if host == "dotenv":
        return f"# a{odd}b\nA=1\r\nTORCH_LOGS={VALUE}\n"
    if host == "shell":
        return f"# a{odd}b\nexport TORCH_LOGS='{VALUE}'\n"
    return f'{{ // a{odd}b\n  "configurations": [{{"env": {{"TORCH_LOGS": "{VALUE}"}}}}]\n}}\n'


URIS = {"dotenv": ".env", "shell": "run.sh", "jsonc": ".vscode/launch.json"}


def line_starts(text: str) -> list[int]:
    """Offsets where lines start, lines ending at \\n, \\r\\n or \\r (and nothing else)."""
    starts = [0]
    i = 0
    while i < len(text):
        if text[i] == "\r" and text[i + 1 : i + 2] == "\n":
            i += 1
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


def offset(text: str, pos: types.Position) -> int:
    """Offset of a UTF-16 position (the texts here are all in the BMP: 1 unit each)."""
    return line_starts(text)[pos.line] + pos.character


def position(text: str, at: int) -> types.Position:
    starts = line_starts(text)
    line = max(i for i, s in enumerate(starts) if s <= at)
    return types.Position(line=line, character=at - starts[line])


def apply(text: str, edits: list[types.TextEdit]) -> str:
    spans = [(offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize("host", ["dotenv", "shell", "jsonc"])
async def test_only_lsp_line_ends_count(vscode: LanguageClient, host: str) -> None:
    for n, odd in enumerate(ODD):
        case = (host, repr(odd))
        uri = f"file:///work/lines{n}/{URIS[host]}"
        text = document(host, odd)
        await open_and_wait(vscode, uri, text)
        # replace `guards` (a later line than the odd character) by three problems
        at = text.index("guards")
        rng = types.Range(start=position(text, at), end=position(text, at + len("guards")))
        new = "Aot,,graph-breaks,"
        vscode.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
            )
        )
        text = text[:at] + new + text[at + len("guards") :]
        diags = await wait_diagnostics(vscode, uri, 2)
        flagged = {(offset(text, d.range.start), offset(text, d.range.end)) for d in diags}
        aot, dash = text.index("Aot"), text.index("graph-breaks") + len("graph")
        assert {(aot, aot + 3), (dash, dash + 1)} <= flagged, (case, flagged)

        hover = await vscode.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(text, text.index("dynamo") + 2),
            )
        )
        assert hover is not None and hover.range is not None, case
        assert text[offset(text, hover.range.start) : offset(text, hover.range.end)] == "+dynamo"

        result = await vscode.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=position(text, 0), end=position(text, 0)),
                context=types.CodeActionContext(
                    diagnostics=diags, only=[types.CodeActionKind.SourceFixAll]
                ),
            )
        )
        fix_all = [a for a in result or [] if isinstance(a, types.CodeAction)]
        assert len(fix_all) == 1 and fix_all[0].edit is not None, case
        edit = fix_all[0].edit
        edits = [e for c in edit.document_changes or [] for e in getattr(c, "edits", [])]
        edits += list((edit.changes or {}).get(uri, []))
        fixed = apply(text, [e for e in edits if isinstance(e, types.TextEdit)])
        assert fixed == document(host, odd).replace(VALUE, "+dynamo,aot,graph_breaks"), case
