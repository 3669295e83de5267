"""textDocument/documentLink through the real server over stdio: an existing
TORCH_LOGS_OUT file and TORCH_TRACE directory are links (relative paths resolved as the
path rules resolve them: the workspace folder, a ``cd`` of the script), in every host;
nothing for a path that is missing, of the wrong kind, starts with ``~``, is not static,
or is in a document that runs on another machine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.conftest import SERVER, open_and_wait

#: Each test client's answer to initialize.
RESULTS: dict[int, types.InitializeResult] = {}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace folder: ``logs/out.log`` (a file), ``traces/`` and ``sub/t/``
    (directories), ``~/x.log`` (a directory literally named ``~``)."""
    root = tmp_path / "ws"
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "out.log").write_text("")
    (root / "traces").mkdir()
    (root / "sub" / "t").mkdir(parents=True)
    (root / "~").mkdir()
    (root / "~" / "x.log").write_text("")
    (tmp_path / "outside").mkdir()
    return root


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, ws: Path) -> AsyncIterator[LanguageClient]:
    """A VS Code-like client with :func:`ws` as its workspace folder."""
    folder = types.WorkspaceFolder(uri=ws.as_uri(), name="ws")

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """The server registers file watchers (TL632), as VS Code accepts."""

    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[folder],
        root_uri=ws.as_uri(),
    )
    RESULTS[id(lsp_client)] = await lsp_client.initialize_session(params)
    yield lsp_client
    await lsp_client.shutdown_session()
    RESULTS.pop(id(lsp_client), None)


async def links(
    client: LanguageClient, uri: str, text: str, language: str
) -> list[tuple[int, int, int, str]]:
    """``(line, start character, end character, target)`` of each link, in order."""
    await open_and_wait(client, uri, text, language)
    got = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    out = []
    for link in got or []:
        assert link.range.start.line == link.range.end.line
        assert link.target is not None
        out.append(
            (
                link.range.start.line,
                link.range.start.character,
                link.range.end.character,
                link.target,
            )
        )
    return out


def span(text: str, needle: str) -> tuple[int, int, int]:
    """(line, start, end) of the first ``needle`` (UTF-16 columns)."""
    at = text.index(needle)
    line = text.count("\n", 0, at)
    start = len(text[text.rfind("\n", 0, at) + 1 : at].encode("utf-16-le")) // 2
    return line, start, start + len(needle.encode("utf-16-le")) // 2


async def test_capability_registered(client: LanguageClient):
    provider = RESULTS[id(client)].capabilities.document_link_provider
    assert isinstance(provider, types.DocumentLinkOptions)
    assert not provider.resolve_provider


async def test_links_in_a_dotenv_file(client: LanguageClient, ws: Path):
    outside = ws.parent / "outside"
    text = (
        "# 🙂 links\n"
        "TORCH_LOGS_OUT=logs/out.log\n"  # a file, relative to the workspace folder
        "TORCH_TRACE=traces\n"  # a directory
        "TORCH_TRACE=logs/out.log\n"  # a file where a directory is wanted
        "TORCH_LOGS_OUT=traces\n"  # a directory where a file is wanted
        "TORCH_LOGS_OUT=missing.log\n"
        "TORCH_LOGS_OUT=~/x.log\n"  # exists as ws/~/x.log, but reads as the home directory
        "TORCH_TRACE=${HOME}\n"  # not static
        f"TORCH_TRACE='{outside}' # 🙂\n"  # absolute, outside the workspace, exists
    )
    got = await links(client, (ws / ".env").as_uri(), text, "dotenv")
    assert got == [
        (*span(text, "logs/out.log"), (ws / "logs" / "out.log").as_uri()),
        (*span(text, "traces"), (ws / "traces").as_uri()),
        (*span(text, str(outside)), outside.as_uri()),
    ]


async def test_shell_cd_and_a_job_that_runs_elsewhere(client: LanguageClient, ws: Path):
    text = f"#!/bin/bash\ncd {ws / 'sub'}\nexport TORCH_TRACE=t\n"
    got = await links(client, (ws / "a.sh").as_uri(), text, "shellscript")
    assert got == [(2, 19, 20, (ws / "sub" / "t").as_uri())]
    # a relative cd: where it lands is not certain to the path rules, nor here
    text = "#!/bin/bash\ncd sub\nexport TORCH_TRACE=t\n"
    assert await links(client, (ws / "a2.sh").as_uri(), text, "shellscript") == []
    # a cd we cannot follow: where the relative path lands is unknown
    text = '#!/bin/bash\ncd "$1"\nexport TORCH_TRACE=traces\n'
    assert await links(client, (ws / "b.sh").as_uri(), text, "shellscript") == []
    # a SLURM job runs on another machine
    text = f"#!/bin/bash\n#SBATCH -N 1\nexport TORCH_TRACE={ws / 'traces'}\n"
    assert await links(client, (ws / "c.sh").as_uri(), text, "shellscript") == []


def _hosts(trace: str) -> list[tuple[str, str, str]]:
    """(file name, language id, text) naming ``trace`` in each host."""
    return [
        ("run.sh", "shellscript", f"export TORCH_TRACE={trace}\n"),
        (".env", "dotenv", f"TORCH_TRACE={trace}\n"),
        (
            ".vscode/launch.json",
            "jsonc",
            f'{{"configurations": [{{"env": {{"TORCH_TRACE": "{trace}"}}}}]}}\n',
        ),
        ("t.py", "python", f'import os\nos.environ["TORCH_TRACE"] = "{trace}"\n'),
        ("ci.yml", "yaml", f"env:\n  TORCH_TRACE: {trace}\n"),
        ("pyproject.toml", "toml", f'[tool.pytest.ini_options]\nenv = ["TORCH_TRACE={trace}"]\n'),
        ("pytest.ini", "ini", f"[pytest]\nenv =\n  TORCH_TRACE={trace}\n"),
        ("Makefile", "makefile", f"export TORCH_TRACE={trace}\n"),
        ("run.ps1", "powershell", f"$Env:TORCH_TRACE = '{trace}'\n"),
        ("run.bat", "bat", f"set TORCH_TRACE={trace}\n"),
        ("Dockerfile", "dockerfile", f"FROM x\nENV TORCH_TRACE={trace}\n"),
    ]


#: Hosts whose values are used on another machine (a batch file runs on Windows, a
#: Dockerfile's commands in the image, a CI or compose YAML file elsewhere): no path of
#: theirs is judged, nor linked.
ELSEWHERE = {"run.bat", "Dockerfile", "ci.yml"}


@pytest.mark.parametrize("index", range(11), ids=[h[0] for h in _hosts("x")])
async def test_every_host(client: LanguageClient, ws: Path, index: int):
    name, language, text = _hosts(str(ws / "traces"))[index]
    path = ws / name
    got = await links(client, path.as_uri(), text, language)
    if name in ELSEWHERE:
        assert got == []
        return
    assert [target for *_, target in got] == [(ws / "traces").as_uri()]
    line, start, end, _ = got[0]
    assert text.splitlines()[line][start:end] == str(ws / "traces")


async def test_notebook_cell(client: LanguageClient, ws: Path):
    uri = (ws / "n.ipynb").as_uri().replace("file:", "vscode-notebook-cell:") + "#W0sZmlsZQ%3D%3D"
    text = "%env TORCH_TRACE=traces\n"
    got = await links(client, uri, text, "python")
    assert got == [(0, 17, 23, (ws / "traces").as_uri())]


async def test_links_follow_edits(client: LanguageClient, ws: Path):
    uri = (ws / "edit.sh").as_uri()
    text = f"#!/bin/bash\ncd {ws / 'sub'}\nexport TORCH_LOGS=+dynamo TORCH_TRACE=t\n"
    assert [t for *_, t in await links(client, uri, text, "shellscript")] == [
        (ws / "sub" / "t").as_uri()
    ]

    async def edited(new: str, version: int) -> list[str]:
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
            )
        )
        got = await client.text_document_document_link_async(
            types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return [link.target or "" for link in got or []]

    # an edit inside TORCH_LOGS: the same facts; the cd removed: relative to the folder
    assert await edited(text.replace("+dynamo", "+guards"), 2) == [(ws / "sub" / "t").as_uri()]
    assert await edited("export TORCH_TRACE=t\nexport TORCH_TRACE=traces\n", 3) == [
        (ws / "traces").as_uri()
    ]
