"""Protocol conformance over stdio, against the real ``torch-logs-lsp`` process, with the
benchmark's raw client (scripts/rawlsp.py): exit codes, requests before ``initialize`` and
after ``shutdown``, invalid params, a change to a document that is not open. Every wait is
bounded (a server that never answers fails the test instead of hanging it)."""

from __future__ import annotations

import pytest

from tests.support.raw import Client

HOVER = {"textDocument": {"uri": "file:///w/.env"}, "position": {"line": 0, "character": 0}}


def error_code(exc: pytest.ExceptionInfo[RuntimeError]) -> int:
    error = exc.value.args[0]
    assert isinstance(error, dict), error
    return int(error["code"])


async def test_exit_without_shutdown_is_code_1(raw_client: Client) -> None:
    await raw_client.initialize()
    raw_client.notify("exit", None)
    assert await raw_client.exit_code() == 1


async def test_exit_after_shutdown_is_code_0(raw_client: Client) -> None:
    await raw_client.initialize()
    assert await raw_client.ask("shutdown", None) is None
    raw_client.notify("exit", None)
    assert await raw_client.exit_code() == 0


async def test_request_before_initialize_is_refused(raw_client: Client) -> None:
    with pytest.raises(RuntimeError) as exc:
        await raw_client.ask("textDocument/hover", HOVER)
    assert error_code(exc) == -32002
    await raw_client.initialize()  # and the server still starts normally
    assert await raw_client.ask("textDocument/hover", HOVER) is None


async def test_request_after_shutdown_is_invalid(raw_client: Client) -> None:
    await raw_client.initialize()
    await raw_client.ask("shutdown", None)
    with pytest.raises(RuntimeError) as exc:
        await raw_client.ask("textDocument/hover", HOVER)
    assert error_code(exc) == -32600
    raw_client.notify("exit", None)
    assert await raw_client.exit_code() == 0


async def test_invalid_params_get_an_error_response(raw_client: Client) -> None:
    await raw_client.initialize()
    bad = {"textDocument": 5, "position": {"line": 0, "character": 0}}
    for method in ("textDocument/hover", "textDocument/completion", "textDocument/codeAction"):
        with pytest.raises(RuntimeError) as exc:
            await raw_client.ask(method, bad)
        assert error_code(exc) == -32602, method
    # a notification cannot be answered: it is logged, not shown
    raw_client.notify("textDocument/didOpen", {"textDocument": 5})
    assert await raw_client.ask("textDocument/hover", HOVER) is None  # still serving
    assert raw_client.shown() == []
    await raw_client.ask("shutdown", None)
    raw_client.notify("exit", None)
    assert await raw_client.exit_code() == 0
    assert "notification textDocument/didOpen ignored: invalid params" in raw_client.log.read_text()


async def test_change_of_an_unopened_document_is_only_logged(raw_client: Client) -> None:
    await raw_client.initialize()
    change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}
    raw_client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": "file:///w/never-opened.env", "version": 2},
            "contentChanges": [{**change, "text": "TORCH_LOGS=x\n"}],
        },
    )
    # requests are answered in order: a showMessage for the change would come first
    assert await raw_client.ask("textDocument/hover", HOVER) is None
    assert raw_client.shown() == []
    await raw_client.ask("shutdown", None)
    raw_client.notify("exit", None)
    assert await raw_client.exit_code() == 0
    assert "never-opened.env, which is not open" in raw_client.log.read_text()


async def test_second_initialize_is_refused_and_keeps_the_documents(raw_client: Client) -> None:
    await raw_client.initialize()
    uri = "file:///w/kept.env"
    item = {"uri": uri, "languageId": "dotenv", "version": 1, "text": "TORCH_LOGS=dynamo\n"}
    raw_client.notify("textDocument/didOpen", {"textDocument": item})
    with pytest.raises(RuntimeError) as exc:
        await raw_client.ask("initialize", {"processId": None, "capabilities": {}})
    assert error_code(exc) == -32600
    position = {"line": 0, "character": 13}
    hover = await raw_client.ask(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
    )
    assert hover is not None and "dynamo" in str(hover)
