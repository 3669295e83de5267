"""A stateful property test through the real server over stdio.

Hypothesis opens, edits and closes documents of every host kind with nasty text (emoji,
CRLF, NUL, tabs, 100,000-character lines, unterminated quotes, broken JSON). After every
step: completion and hover are answered, and the diagnostics of the edited document equal
those of a fresh open of the same text (incremental parsing, span reuse and the analysis
cache change nothing). At the end the server's log holds no exception. No sleeps: every
wait is for a notification or a response.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tests.support.budget import examples
from torch_logs_lsp.lint.checker import UNTERMINATED
from torch_logs_lsp.server.positions import PositionMapper

KINDS = {"dotenv": ".env", "jsonc": ".vscode/launch.json", "shell": "run.sh"}
SEEDS = {
    "dotenv": 'A=1\nexport TORCH_LOGS="+dynamo,aot_g" # c\r\nTORCH_TRACE=/t\n',
    "jsonc": '{"configurations": [{"env": {"TORCH_LOGS": "+dynamo,aot_g", // c\n'
    ' "TORCH_TRACE": "/t",},},]}\n',
    "shell": '#!/bin/bash\nexport TORCH_LOGS="+dynamo,aot_g"\nTORCH_LOGS=guards,x python t.py\n',
}
PIECES = [
    *"\"'\\{}[]:,=#$`()\t /-+_aé",
    "😀",
    "\u0301",
    "\x00",
    "\r\n",
    "\n",
    "\r",
    "TORCH_LOGS=",
    '"TORCH_LOGS": "',
    '"env": {',
    "+dynamo,aot_g",
    "output_code",
    "json.nothere",
]
LONG_LINE = "x" * 100_000


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("stateful-test", "0")
        self.waiters: dict[tuple[str, int | None], asyncio.Future[list[types.Diagnostic]]] = {}


def _on_diagnostics(client: Client, params: types.PublishDiagnosticsParams) -> None:
    fut = client.waiters.pop((params.uri, params.version), None)
    if fut is not None and not fut.done():
        fut.set_result(list(params.diagnostics))


class Session:
    """One server process for the whole test (its stderr goes to ``log``)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tl-stateful-"))
        self.log = self.dir / "server.log"
        self.loop = asyncio.new_event_loop()
        self.client = Client()
        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(
            lambda params: _on_diagnostics(self.client, params)
        )
        boot = (
            "import sys; sys.stderr = open(sys.argv[1], 'a', buffering=1); "
            "from torch_logs_lsp.server.__main__ import main; sys.exit(main([]))"
        )
        self.run(self.client.start_io(sys.executable, "-c", boot, str(self.log)))
        self.run(
            self.client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None)
            )
        )
        self.client.initialized(types.InitializedParams())
        self.count = 0

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, 60))

    def expect(self, uri: str, version: int) -> asyncio.Future[list[types.Diagnostic]]:
        fut: asyncio.Future[list[types.Diagnostic]] = self.loop.create_future()
        self.client.waiters[(uri, version)] = fut
        return fut

    def open(self, uri: str, text: str) -> list[types.Diagnostic]:
        fut = self.expect(uri, 1)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="", version=1, text=text)
            )
        )
        return self.run(fut)  # type: ignore[no-any-return]

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def new_uri(self, kind: str) -> str:
        self.count += 1
        path = self.dir / str(self.count) / KINDS[kind]
        return path.as_uri()

    def stop(self) -> None:
        self.run(self.client.shutdown_async(None))
        self.client.exit(None)
        self.run(self.client.stop())
        self.loop.close()


_session: Session | None = None


def session() -> Session:
    global _session
    if _session is None:
        _session = Session()
    return _session


def _key(d: types.Diagnostic) -> tuple[Any, ...]:
    r = d.range
    return (r.start.line, r.start.character, r.end.line, r.end.character, d.code, d.message)


class ServerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.s = session()
        # uri -> kind, text, version; drawn from in insertion order: the URIs hold a
        # session-wide counter, so sorting them would order the documents differently when
        # hypothesis replays an example (FlakyStrategyDefinition).
        self.docs: dict[str, tuple[str, str, int]] = {}

    @precondition(lambda self: len(self.docs) < 3)
    @rule(kind=st.sampled_from(sorted(KINDS)), junk=st.booleans())
    def open(self, kind: str, junk: bool) -> None:
        uri = self.s.new_uri(kind)
        text = SEEDS[kind] if not junk else SEEDS[kind][::-1]
        self.s.open(uri, text)
        self.docs[uri] = (kind, text, 1)

    @precondition(lambda self: bool(self.docs))
    @rule(
        data=st.data(),
        start=st.floats(0, 1),
        length=st.sampled_from([0.0, 0.0, 0.01, 0.1, 0.5, 1.0]),
        pieces=st.lists(st.sampled_from([*PIECES, "<long line>"]), max_size=5),
    )
    def edit(self, data: st.DataObject, start: float, length: float, pieces: list[str]) -> None:
        uri = data.draw(st.sampled_from(list(self.docs)))
        kind, text, version = self.docs[uri]
        a = int(start * len(text))
        b = min(len(text), a + int(length * len(text)))
        # A position cannot point between the "\r" and "\n" of a line break.
        if text[a - 1 : a + 1] == "\r\n":
            a -= 1
        if text[b - 1 : b + 1] == "\r\n":
            b += 1
        inserted = "".join(LONG_LINE if p == "<long line>" else p for p in pieces)
        new_text = text[:a] + inserted + text[b:]
        mapper = PositionMapper(text, types.PositionEncodingKind.Utf16)
        version += 1
        fut = self.s.expect(uri, version)
        change: types.TextDocumentContentChangeEvent
        if a == 0 and b == len(text):
            change = types.TextDocumentContentChangeWholeDocument(text=new_text)
        else:
            change = types.TextDocumentContentChangePartial(
                range=mapper.range(a, b), text=new_text[a : len(new_text) - (len(text) - b)]
            )
        self.s.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )
        self.docs[uri] = (kind, new_text, version)
        new_mapper = PositionMapper(new_text, types.PositionEncodingKind.Utf16)
        at = new_mapper.position(data.draw(st.integers(0, len(new_text))))
        doc = types.TextDocumentIdentifier(uri=uri)
        self.s.run(
            self.s.client.text_document_completion_async(
                types.CompletionParams(text_document=doc, position=at)
            )
        )
        self.s.run(
            self.s.client.text_document_hover_async(
                types.HoverParams(text_document=doc, position=at)
            )
        )
        got = self.s.run(fut)
        twin = self.s.new_uri(kind)
        fresh = self.s.open(twin, new_text)  # opened: the file's saved text
        self.s.close(twin)
        # an edited, unsaved text has no TL108 (its closing quote may be typed next)
        want = [d for d in fresh if d.code != UNTERMINATED]
        assert sorted(map(_key, got)) == sorted(map(_key, want)), repr(new_text[:300])
        if want != fresh:  # saved, the edited document shows what the fresh one does
            fut = self.s.expect(uri, version)
            self.s.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc))
            saved = self.s.run(fut)
            assert sorted(map(_key, saved)) == sorted(map(_key, fresh)), repr(new_text[:300])

    @precondition(lambda self: bool(self.docs))
    @rule(data=st.data())
    def close(self, data: st.DataObject) -> None:
        uri = data.draw(st.sampled_from(list(self.docs)))
        self.s.close(uri)
        del self.docs[uri]

    @invariant()
    def server_log_clean(self) -> None:
        log = self.s.log.read_text(errors="replace") if self.s.log.exists() else ""
        assert "Traceback" not in log and "ERROR" not in log, log[-3000:]

    def teardown(self) -> None:
        for uri in list(self.docs):
            self.s.close(uri)


@pytest.fixture(scope="module", autouse=True)
def _stop_session() -> Any:
    yield
    global _session
    if _session is not None:
        _session.stop()
        _session = None


TestServerMachine = ServerMachine.TestCase
TestServerMachine.settings = settings(
    max_examples=examples(40),
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
