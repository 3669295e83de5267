"""End-to-end: go to definition and find references from a name to torch's own source, in
every kind of host, with the installed torch 2.13 (``torchLogs.python``: this
interpreter's) and with no torch (the packaged registry's read-only document)."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import unquote

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, utf16_column

try:  # the oracle: the torch installed for the tests (read, not imported)
    from importlib.util import find_spec

    _SPEC = find_spec("torch")
    TORCH = Path(_SPEC.origin).parent if _SPEC and _SPEC.origin else None
except (ImportError, ValueError):  # pragma: no cover
    TORCH = None

needs_torch = pytest.mark.skipif(TORCH is None, reason="needs the installed torch")

#: (file name, text, the line and the text before the cursor's name) per host; the cursor
#: is put one character into the name ``guards``.
HOSTS = [
    (".env", "# é🙂\nTORCH_LOGS=+dynamo,guards\n", 1, "TORCH_LOGS=+dynamo,"),
    (
        "run.sh",
        '#!/bin/sh\necho "é🙂"; TORCH_LOGS="+dynamo,guards" python x.py\n',
        1,
        'echo "é🙂"; TORCH_LOGS="+dynamo,',
    ),
    (
        "train.py",
        'import os\nos.environ["TORCH_LOGS"] = "+dynamo,guards"  # é🙂\n',
        1,
        'os.environ["TORCH_LOGS"] = "+dynamo,',
    ),
    (
        "set_logs.py",
        "import torch\n# é🙂\ntorch._logging.set_logs(dynamo=10, guards=True)\n",
        2,
        "torch._logging.set_logs(dynamo=10, ",
    ),
    (
        ".vscode/launch.json",
        '{"configurations": [{"name": "é🙂", "type": "debugpy", "request": "launch",\n'
        ' "program": "x.py", "env": {"TORCH_LOGS": "+dynamo,guards"}}]}\n',
        1,
        ' "program": "x.py", "env": {"TORCH_LOGS": "+dynamo,',
    ),
    (
        "compose.yaml",
        "services:\n  app:\n    image: x  # é🙂\n    environment:\n"
        "      TORCH_LOGS: +dynamo,guards\n",
        4,
        "      TORCH_LOGS: +dynamo,",
    ),
]


def _configure(client: LanguageClient, settings: dict[str, object]) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": settings})
    )


def _python_without_torch(tmp_path: Path) -> str:
    """A venv-looking interpreter path with no torch (never run: pyvenv.cfg is read)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.0\n")
    python = venv / "bin" / "python"
    python.write_text("")
    return str(python)


async def _open(client: LanguageClient, tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / "ws" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    await open_and_wait(client, uri, text)
    return uri


def _position(text: str, line: int, before: str) -> types.Position:
    row = text.splitlines()[line]
    assert row.startswith(before) or before in row
    return types.Position(
        line=line, character=utf16_column(row, row.index(before) + len(before) + 1)
    )


async def _definition(
    client: LanguageClient, uri: str, pos: types.Position
) -> list[types.Location]:
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    assert result is None or isinstance(result, list)
    return [r for r in result or [] if isinstance(r, types.Location)]


async def _references(
    client: LanguageClient, uri: str, pos: types.Position, declaration: bool = False
) -> list[types.Location]:
    result = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos,
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    return list(result or [])


def _path(uri: str) -> Path:
    assert uri.startswith("file://")
    return Path(unquote(uri.removeprefix("file://")))


def _text_at(path: Path, loc: types.Location) -> str:
    """The text a single-line location covers (UTF-16 columns) in ``path``."""
    assert loc.range.start.line == loc.range.end.line
    row = path.read_text(encoding="utf-8").split("\n")[loc.range.start.line]
    units = row.encode("utf-16-le")
    return units[2 * loc.range.start.character : 2 * loc.range.end.character].decode("utf-16-le")


@needs_torch
@pytest.mark.parametrize(("name", "text", "line", "before"), HOSTS, ids=[h[0] for h in HOSTS])
async def test_definition_goes_to_the_installed_registration(
    vscode: LanguageClient, tmp_path: Path, name: str, text: str, line: int, before: str
):
    assert TORCH is not None
    _configure(vscode, {"python": sys.executable})
    uri = await _open(vscode, tmp_path, name, text)
    (loc,) = await _definition(vscode, uri, _position(text, line, before))
    registrations = TORCH / "_logging" / "_registrations.py"
    assert loc.uri == registrations.as_uri()
    assert _text_at(registrations, loc) == '"guards"'
    lines = registrations.read_text(encoding="utf-8").split("\n")
    start = loc.range.start.line
    assert any("register_artifact(" in row for row in lines[max(0, start - 1) : start + 1])


@needs_torch
async def test_definition_of_a_component_and_a_module(vscode: LanguageClient, tmp_path: Path):
    assert TORCH is not None
    _configure(vscode, {"python": sys.executable})
    text = "TORCH_LOGS=+dynamo,+torch._dynamo.guards,json.decoder,+no.such.module,all\n"
    uri = await _open(vscode, tmp_path, ".env", text)
    registrations = TORCH / "_logging" / "_registrations.py"
    (loc,) = await _definition(vscode, uri, _position(text, 0, "TORCH_LOGS=+"))
    assert loc.uri == registrations.as_uri() and _text_at(registrations, loc) == '"dynamo"'
    (loc,) = await _definition(vscode, uri, _position(text, 0, "dynamo,+torch._dyn"))
    assert loc.uri == (TORCH / "_dynamo" / "guards.py").as_uri()
    assert loc.range.start == types.Position(line=0, character=0)
    (loc,) = await _definition(vscode, uri, _position(text, 0, "guards,json.de"))
    assert loc.uri.endswith("/json/decoder.py")
    assert await _definition(vscode, uri, _position(text, 0, "decoder,+no.su")) == []
    assert await _definition(vscode, uri, _position(text, 0, "module,al")) == []  # `all`
    assert await _definition(vscode, uri, types.Position(line=0, character=3)) == []
    # a key of set_logs(modules={...}): a module, or a registered name
    text = (
        "import logging, torch\n"
        'torch._logging.set_logs(modules={"torch._dynamo.guards": logging.DEBUG, "dynamo": 10})\n'
    )
    uri = await _open(vscode, tmp_path, "mods.py", text)
    (loc,) = await _definition(vscode, uri, _position(text, 1, '(modules={"torch._d'))
    assert loc.uri == (TORCH / "_dynamo" / "guards.py").as_uri()
    (loc,) = await _definition(vscode, uri, _position(text, 1, 'logging.DEBUG, "d'))
    assert loc.uri == registrations.as_uri() and _text_at(registrations, loc) == '"dynamo"'


@needs_torch
async def test_references_are_the_logging_sites(vscode: LanguageClient, tmp_path: Path):
    assert TORCH is not None
    _configure(vscode, {"python": sys.executable})
    name, text, line, before = HOSTS[0]
    uri = await _open(vscode, tmp_path, name, text)
    pos = _position(text, line, before)
    refs = await _references(vscode, uri, pos)
    guards = TORCH / "_dynamo" / "guards.py"
    where = {
        (
            _path(r.uri).relative_to(TORCH).as_posix(),
            _text_at(_path(r.uri), r),
        )
        for r in refs
    }
    # the logger's creation and its uses, each in torch's own words
    assert ("_dynamo/guards.py", '"guards"') in where
    assert ("_dynamo/guards.py", "guards_log.debug") in where
    source = guards.read_text(encoding="utf-8").split("\n")
    creation = next(
        r for r in refs if r.uri == guards.as_uri() and _text_at(guards, r) == '"guards"'
    )
    assert 'getArtifactLogger(__name__, "guards")' in source[creation.range.start.line]
    # every place is the artifact's name, or a logging call on a logger holding it
    methods = (".debug", ".info", ".warning", ".error", ".exception", ".critical", ".log")
    assert all(t == '"guards"' or t.endswith(methods) for _, t in where), where
    # with the declaration: the registration first
    with_declaration = await _references(vscode, uri, pos, declaration=True)
    registrations = TORCH / "_logging" / "_registrations.py"
    assert with_declaration[0].uri == registrations.as_uri()
    assert with_declaration[1:] == refs

    # a component: the loggers its level reaches (one server: one scan of torch)
    text = "TORCH_LOGS=+dynamo,+torch._dynamo.guards,all\n"
    uri = await _open(vscode, tmp_path, "component.env", text)
    refs = await _references(vscode, uri, _position(text, 0, "TORCH_LOGS=+"))
    files = [_path(r.uri).relative_to(TORCH).as_posix() for r in refs]
    assert "_dynamo/guards.py" in files and "_dynamo/convert_frame.py" in files
    # dynamo's other registered loggers (torch.fx.experimental.symbolic_shapes) follow
    assert files.index("_dynamo/guards.py") < files.index("fx/experimental/symbolic_shapes.py")
    for r in refs:
        assert "getLogger" in _text_at(_path(r.uri), r)
    module_refs = await _references(vscode, uri, _position(text, 0, "dynamo,+torch._dy"))
    assert [_path(r.uri).name for r in module_refs] == ["guards.py"]
    # `all` (the `torch` log) reaches every torch logger (366 places): the list stops at 200
    every = await _references(vscode, uri, _position(text, 0, "guards,a"))
    assert len(every) == 200
    assert all(_path(r.uri).is_relative_to(TORCH) for r in every)


async def test_without_torch_the_packaged_registry_document(vscode: LanguageClient, tmp_path: Path):
    _configure(vscode, {"python": _python_without_torch(tmp_path)})
    for name, text, line, before in HOSTS:
        uri = await _open(vscode, tmp_path, name, text)
        pos = _position(text, line, before)
        (loc,) = await _definition(vscode, uri, pos)
        assert loc.uri == "torch-logs:/registry/2.15/_registrations.py", name
        answer = await vscode.protocol.send_request_async("torchLogs/registry", {"uri": loc.uri})
        row = answer.text.split("\n")[loc.range.start.line]
        assert row[loc.range.start.character : loc.range.end.character] == '"guards"'
        assert row.startswith('register_artifact("guards"')
        # no installed torch: the declaration is the only place
        assert await _references(vscode, uri, pos) == []
        assert await _references(vscode, uri, pos, declaration=True) == [loc]
    for bad in ("torch-logs:/registry/9.9/_registrations.py", "file:///x.py", "torch-logs:/x"):
        assert await vscode.protocol.send_request_async("torchLogs/registry", {"uri": bad}) is None


@needs_torch
async def test_a_pinned_release_other_than_the_installed_one_uses_the_packaged_document(
    vscode: LanguageClient, tmp_path: Path
):
    _configure(vscode, {"python": sys.executable})
    text = "# torch-logs: torch=2.4\nTORCH_LOGS=+dynamo,guards\n"
    uri = await _open(vscode, tmp_path, ".env", text)
    pos = _position(text, 1, "TORCH_LOGS=+dynamo,")
    (loc,) = await _definition(vscode, uri, pos)
    assert loc.uri == "torch-logs:/registry/2.4/_registrations.py"
    assert await _references(vscode, uri, pos) == []  # 2.13's sources are not 2.4's
