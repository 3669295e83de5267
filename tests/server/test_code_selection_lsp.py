"""Choosing codes in the editor: ``torchLogs.select``/``extendSelect``/``ignore``/
``extendIgnore`` settings and the document's project configuration
(``[tool.torch-logs]``), through the real server."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait

TEXT = "TORCH_LOGS=-guards,aot_g,\n"  # TL301 (warning), TL201, TL104


def configure(client: LanguageClient, **settings: object) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": settings})
    )


def codes(diags: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diags)


async def test_settings_choose_codes(vscode: LanguageClient, tmp_path: Path):
    def uri(name: str) -> str:
        return (tmp_path / name).as_uri()

    assert codes(await open_and_wait(vscode, uri("a.env"), TEXT)) == ["TL104", "TL201", "TL301"]
    configure(vscode, ignore=["TL2"])
    assert codes(await open_and_wait(vscode, uri("b.env"), TEXT)) == ["TL104", "TL301"]
    configure(vscode, select=["TL1", "TL3"], ignore=["TL104"], extendSelect=["TL201"])
    assert codes(await open_and_wait(vscode, uri("c.env"), TEXT)) == ["TL201", "TL301"]
    configure(vscode, extendIgnore=["ALL"])
    assert codes(await open_and_wait(vscode, uri("d.env"), TEXT)) == []


async def test_an_unknown_code_in_the_settings_is_shown_and_ignored(
    vscode: LanguageClient, tmp_path: Path
):
    configure(vscode, ignore=["TL301", "TL999"])
    params = await vscode.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert "torchLogs.ignore: unknown code or prefix 'TL999'" in params.message
    assert params.type == types.MessageType.Warning
    uri = (tmp_path / "a.env").as_uri()
    assert codes(await open_and_wait(vscode, uri, TEXT)) == ["TL104", "TL201", "TL301"]


async def test_the_project_configuration_applies_before_the_settings(
    vscode: LanguageClient, tmp_path: Path
):
    (tmp_path / "pyproject.toml").write_text('[tool.torch-logs]\nignore = ["TL301", "TL104"]\n')
    sub = tmp_path / "pkg"
    sub.mkdir()
    uri = (sub / "a.env").as_uri()
    assert codes(await open_and_wait(vscode, uri, TEXT)) == ["TL201"]
    # fix-all does not touch a code the project turned off (TL104: the trailing comma)
    assert await fix_all(vscode, uri) == []
    (tmp_path / "pyproject.toml").write_text("[tool.torch-logs]\n")  # read again: changed
    assert await fix_all(vscode, uri) == ["", ""]  # the `-` (TL301) and the comma
    assert codes(await open_and_wait(vscode, (sub / "b.env").as_uri(), TEXT)) == [
        "TL104", "TL201", "TL301",
    ]  # fmt: skip
    # the settings come after it: a select starts over
    (tmp_path / "pyproject.toml").write_text('[tool.torch-logs]\nignore = ["TL1"]\n')
    configure(vscode, select=["TL1"])
    assert codes(await open_and_wait(vscode, (sub / "c.env").as_uri(), TEXT)) == ["TL104"]


async def fix_all(client: LanguageClient, uri: str) -> list[str]:
    """The new texts of the edits of the source.fixAll action for ``uri``."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    out: list[str] = []
    for action in actions or []:
        if not isinstance(action, types.CodeAction) or action.edit is None:
            continue
        for change in action.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                out += [e.new_text for e in change.edits]
        for edits in (action.edit.changes or {}).values():
            out += [e.new_text for e in edits]
    return out
