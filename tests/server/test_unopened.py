"""What the server keeps for documents (in process, real pygls; see tests/server/test_protocol.py).

Requests may name any number of documents that are not open (each spelling of a URI is
another one); the server kept a :class:`DocumentState` and an incremental-parsing cache
for each, forever (a 7.5 MB ``.env`` hovered under ``.env?1``, ``.env?2``, ... grew the
process by ~545 MB per URI). Only open documents are kept now, until ``didClose``.
"""

from __future__ import annotations

from pathlib import Path

from tests.server.test_protocol import feed, started
from torch_logs_lsp.files import MAX_FILE_BYTES


def test_unopened_documents_are_not_kept(tmp_path: Path) -> None:
    server, _out = started()
    env = tmp_path / ".env"
    env.write_text("TORCH_LOGS=+dynamo,guards\n")
    for i in range(50):
        state = server.state(f"{env.as_uri()}?{i}")  # what hover/completion/codeAction ask
        assert state is not None and "guards" in state.text
    assert (len(server.states), len(server.doc_caches)) == (0, 0)
    # an open document is kept while it is open, and dropped on didClose
    uri = env.as_uri()
    item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=dynamo\n"}
    feed(server, {"method": "textDocument/didOpen", "params": {"textDocument": item}})
    assert list(server.states) == list(server.doc_caches) == [uri]
    feed(server, {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    assert (len(server.states), len(server.doc_caches)) == (0, 0)


def test_unopened_large_document_is_only_logged(tmp_path: Path) -> None:
    """8 MB of invalid UTF-8 fits the byte limit on disk but not once decoded (each bad
    byte becomes U+FFFD, 3 bytes): not analysed, and no popup for a document the user
    has not opened."""
    server, out = started()
    bad = tmp_path / "bad.env"
    bad.write_bytes(b"TORCH_LOGS=dynamo\n" + b"\xff" * (MAX_FILE_BYTES - 18))
    assert server.state(bad.as_uri()) is None
    assert [m for m in out.messages if m.get("method") == "window/showMessage"] == []
    assert server.too_large == set()
