"""Results that encode themselves (server/pygls_fixes/wire.py) send exactly what pygls would
send for their lsprotocol form: the same JSON text, byte for byte, in the same message."""

from __future__ import annotations

import json

import pytest
from cattrs import Converter
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, default_converter

from torch_logs_lsp.knowledge.registry import load_registry, registry_from_facts
from torch_logs_lsp.server.app import create_server
from torch_logs_lsp.server.documents import build_state
from torch_logs_lsp.server.features.completion import NameCompletions, answer, completions
from torch_logs_lsp.server.pygls_fixes.wire import Encoded, range_json

DOCS = {
    "file:///w/.env": 'TORCH_LOGS=+dynamo,gu\nTORCH_LOGS=+dynamo, \nTORCH_LOGS="дин,all,+help"\n',
    "file:///w/run.sh": "export TORCH_LOGS='+dynamo,-ind' && TORCH_LOGS=x\\\nyz python t.py\n",
    "file:///w/.vscode/launch.json": '{"configurations": [{"env": {"TORCH_LOGS": "\\u002bdy"}}]}',
}


def _name_completions(encoding: str, locale: str, markdown: bool) -> list[NameCompletions]:
    registry = load_registry()
    out = []
    for uri, text in DOCS.items():
        state = build_state(uri, 1, text, "", registry, encoding)
        for offset in range(len(text) + 1):
            result = answer(state, offset, registry, locale, markdown)
            if isinstance(result, NameCompletions):
                out.append(result)
    return out


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
@pytest.mark.parametrize("locale", ["en", "ru"])
@pytest.mark.parametrize("markdown", [True, False])
def test_name_completions_encode_as_their_lsprotocol_form(
    encoding: str, locale: str, markdown: bool
):
    converter = default_converter()
    results = _name_completions(encoding, locale, markdown)
    assert len(results) > 20
    for result in results:
        assert result.to_json(converter) == json.dumps(converter.unstructure(result.to_lsp()))


def test_used_names_rank_last_in_both_forms():
    registry = load_registry()
    text = "TORCH_LOGS=dynamo,\n"
    state = build_state("file:///w/.env", 1, text, "", registry, "utf-16")
    result = answer(state, 18, registry, "en", True)
    assert isinstance(result, NameCompletions)
    items = json.loads(result.to_json(default_converter()))["items"]
    assert {i["label"]: i["sortText"] for i in items}["dynamo"] == "9_dynamo"
    listed = completions(state, 18, registry, "en", True)
    assert listed is not None
    assert {i.label: i.sort_text for i in listed.items}["dynamo"] == "9_dynamo"


def test_catalog_follows_the_registry():
    """A registry read from the user's torch gets its own names, not a cached list."""
    facts = {"logs": {"mine": ["torch.mine"]}, "artifacts": {}}
    small = registry_from_facts("2.13", facts)
    text = "TORCH_LOGS=m\n"
    state = build_state("file:///w/.env", 1, text, "", small, "utf-16")
    labels = []
    for registry in (small, load_registry(), small):
        result = completions(state, 12, registry, "en", True)
        assert result is not None
        labels.append({i.label for i in result.items})
    assert labels[0] == labels[2] == {"all", "mine"}
    assert "dynamo" in labels[1]


def test_range_json_matches_the_converter():
    converter = default_converter()
    rng = types.Range(
        start=types.Position(line=0, character=12), end=types.Position(line=70000, character=3)
    )
    assert range_json(rng) == json.dumps(converter.unstructure(rng))


class _Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


@pytest.mark.parametrize("msg_id", [7, "req-7"])
def test_protocol_writes_the_message_pygls_would(msg_id: int | str):
    result = _name_completions("utf-16", "ru", True)[0]
    server = create_server()
    ours, theirs = _Sink(), _Sink()
    server.protocol.set_writer(ours)
    server.protocol._send_response(msg_id, result=result)
    plain = LanguageServerProtocol(server, default_converter())
    plain.set_writer(theirs)
    plain._send_response(msg_id, result=result.to_lsp())
    assert ours.data == theirs.data
    assert b"Content-Length: " in ours.data


class _Broken(Encoded):
    def to_lsp(self) -> types.CompletionList:
        return types.CompletionList(is_incomplete=False, items=[types.CompletionItem(label="a")])

    def to_json(self, converter: Converter) -> str:
        raise RuntimeError("bug")


def test_a_failing_encoding_sends_the_lsprotocol_form():
    server = create_server()
    sink = _Sink()
    server.protocol.set_writer(sink)
    server.protocol._send_response(1, result=_Broken())
    body = json.loads(sink.data.split(b"\r\n\r\n", 1)[1])
    assert body == {
        "id": 1,
        "jsonrpc": "2.0",
        "result": {"isIncomplete": False, "items": [{"label": "a"}]},
    }


@pytest.mark.parametrize("uri", sorted(DOCS))
@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_encoded_diagnostics_are_what_lsprotocol_would_send(uri: str, encoding: str):
    """publishDiagnostics params written from the memoized JSON pieces decode to the same
    JSON as the lsprotocol form of the same diagnostics, on a fresh and a reused memo."""
    from torch_logs_lsp.server.features.diagnostics import PreparedDiagnostics, diagnostic_json
    from torch_logs_lsp.server.settings import Settings

    converter = default_converter()
    text = DOCS[uri] + "\n" + DOCS[uri].replace("TORCH_LOGS", "TORCH_TRACE")
    state = build_state(uri, 3, text, "", load_registry(), encoding)
    memo: dict = {}
    for _ in range(2):
        params = PreparedDiagnostics.of(uri, 3, diagnostic_json(state, Settings(), memo))
        assert params.pieces
        assert json.loads(params.to_json(converter)) == converter.unstructure(params.to_lsp())
        assert len(memo) == len(params.pieces)
    unversioned = PreparedDiagnostics.of(uri, None, [])
    assert json.loads(unversioned.to_json(converter)) == {"uri": uri, "diagnostics": []}


def test_a_python_setting_under_home_is_expanded(tmp_path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "py").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path))
    server = create_server()
    sink = _Sink()
    server.protocol.set_writer(sink)
    server.apply_settings({"torchLogs": {"python": "~/py"}})
    assert server.settings.python == str(tmp_path / "py")
    assert sink.data == b""  # found: no "no interpreter at" message
    server.apply_settings({"torchLogs": {"python": "~/missing"}})
    assert b"no interpreter at" in sink.data


def test_a_python_setting_is_made_a_file_path(tmp_path, monkeypatch: pytest.MonkeyPatch):
    exe = tmp_path / "bin" / "mypython3"
    exe.parent.mkdir()
    exe.write_text("")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(exe.parent))
    server = create_server()
    sink = _Sink()
    server.protocol.set_writer(sink)
    server.apply_settings({"torchLogs": {"python": " mypython3 "}})  # a bare name: on PATH
    assert server.settings.python == str(exe)
    server.workspace_root = str(tmp_path)
    server.apply_settings({"torchLogs": {"python": "bin/mypython3"}})  # from the workspace
    assert server.settings.python == str(exe)
    assert sink.data == b""
    server.apply_settings({"torchLogs": {"python": str(tmp_path)}})  # a directory
    assert b"no interpreter at" in sink.data


def test_diagnostic_memo_does_not_grow_with_versions() -> None:
    """TL502's hint is a new (equal) diagnostic on every version: the memo must find its
    text again, not keep one entry per version (the 100,000-edit soak grew by 40 MB)."""
    from torch_logs_lsp.server.features.diagnostics import diagnostic_json
    from torch_logs_lsp.server.settings import Settings

    registry = load_registry()
    texts = ["TORCH_LOGS=+dynamo\nTORCH_LOGS=aot_g\n", "TORCH_LOGS=+dynamox\nTORCH_LOGS=aot_g\n"]
    memo: dict[object, str] = {}
    sizes = []
    for version in range(1, 41):
        text = texts[version % 2]
        state = build_state("file:///w/.env", version, text, "", registry, "utf-16")
        pieces = diagnostic_json(state, Settings(), memo)
        assert any('"TL502"' in p for p in pieces)
        sizes.append(len(memo))
    assert sizes[-1] == sizes[1] <= 8, sizes
