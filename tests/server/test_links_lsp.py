"""Links to the docs through the real server over stdio: every diagnostic's
``codeDescription.href`` is its code's section of docs/codes.md (the SARIF rules'
``helpUri``); hovering a code in a suppression comment shows its title and that link, in
every host that has comments; the hover over a name with a finding does not repeat the
finding's message."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from torch_logs_lsp.codes.table import code_table
from torch_logs_lsp.package_info import codes_doc_url

CODES = "ignore[TL201, TL9, TL999]"


async def hover_at(
    client: LanguageClient, uri: str, line: int, character: int
) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


def place(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, character) of the middle of the ``nth`` occurrence of ``needle`` (ASCII)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += len(needle) // 2
    line = text.count("\n", 0, at)
    return line, at - (text.rfind("\n", 0, at) + 1)


async def test_every_diagnostic_links_to_its_code(vscode: LanguageClient):
    text = "TORCH_LOGS=+dynamo,gaurds,+guards\nTORCH_LOGS_FORMAT=%(message)\n"
    diags = await open_and_wait(vscode, "file:///work/links/a.env", text)
    assert {str(d.code) for d in diags} >= {"TL201", "TL301", "TL401"}
    for d in diags:
        assert d.code_description is not None, d
        assert d.code_description.href == codes_doc_url(str(d.code))
        assert d.code_description.href.endswith(f"docs/codes.md#{str(d.code).lower()}")


#: (uri, language id, text): a suppression comment naming TL201, a prefix and no code, as a
#: comment in each host that has comments (a notebook cell is read by the IPython host).
HOSTS = [
    ("file:///w/run.sh", "shellscript", f"# torch-logs: {CODES}\nexport TORCH_LOGS=gaurds\n"),
    ("file:///w/.env", "dotenv", f"# torch-logs: {CODES}\nTORCH_LOGS=gaurds\n"),
    (
        "file:///w/.vscode/launch.json",
        "jsonc",
        '{"configurations": [{"env": {\n'
        f'  // torch-logs: {CODES}\n  "TORCH_LOGS": "gaurds"}}}}]}}\n',
    ),
    (
        "file:///w/t.py",
        "python",
        f'import os\n# torch-logs: {CODES}\nos.environ["TORCH_LOGS"] = "gaurds"\n',
    ),
    (
        "vscode-notebook-cell:/w/n.ipynb#W1sZmlsZQ%3D%3D",
        "python",
        f"# torch-logs: {CODES}\n%env TORCH_LOGS=gaurds\n",
    ),
    (
        "file:///w/Dockerfile",
        "dockerfile",
        f"FROM x\n# torch-logs: {CODES}\nENV TORCH_LOGS=gaurds\n",
    ),
    ("file:///w/ci.yml", "yaml", f"env:\n  # torch-logs: {CODES}\n  TORCH_LOGS: gaurds\n"),
    (
        "file:///w/pyproject.toml",
        "toml",
        f'[tool.pytest.ini_options]\n# torch-logs: {CODES}\nenv = ["TORCH_LOGS=gaurds"]\n',
    ),
    (
        "file:///w/pytest.ini",
        "ini",
        f"[pytest]\nenv =\n; torch-logs: {CODES}\n  TORCH_LOGS=gaurds\n",
    ),
    ("file:///w/Makefile", "makefile", f"# torch-logs: {CODES}\nexport TORCH_LOGS=gaurds\n"),
    ("file:///w/run.ps1", "powershell", f"# torch-logs: {CODES}\n$Env:TORCH_LOGS = 'gaurds'\n"),
    ("file:///w/run.bat", "bat", f":: torch-logs: {CODES}\nset TORCH_LOGS=gaurds\n"),
    ("file:///w/run.cmd", "bat", f"rem torch-logs: {CODES}\nset TORCH_LOGS=gaurds\n"),
]


@pytest.mark.parametrize(
    ("uri", "language", "text"), HOSTS, ids=[h[0].rsplit("/", 1)[1] for h in HOSTS]
)
async def test_hover_on_a_suppressed_code(
    vscode: LanguageClient, uri: str, language: str, text: str
):
    diags = await open_and_wait(vscode, uri, text, language)
    assert "TL201" not in {str(d.code) for d in diags}  # the comment is one for this host

    h = await hover_at(vscode, uri, *place(text, "TL201"))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    title = code_table()["TL201"].title
    assert h.contents.value.startswith(f"**TL201** · {title}")
    assert f"]({codes_doc_url('TL201')})" in h.contents.value
    line, _ = place(text, "TL201")
    start = text.splitlines()[line].index("TL201")
    assert h.range == types.Range(
        start=types.Position(line=line, character=start),
        end=types.Position(line=line, character=start + 5),
    )

    prefix = await hover_at(vscode, uri, *place(text, "TL9, "))
    assert prefix is not None and isinstance(prefix.contents, types.MarkupContent)
    assert "**TL9**" in prefix.contents.value
    assert all(c in prefix.contents.value for c in ("TL901", "TL902", "TL903"))

    unknown = await hover_at(vscode, uri, *place(text, "TL999"))
    assert unknown is not None and isinstance(unknown.contents, types.MarkupContent)
    assert unknown.contents.value == "**TL999** · not a torch-logs code"

    # on `ignore` itself: no code there
    assert await hover_at(vscode, uri, *place(text, "ignore")) is None


async def test_no_code_hover_inside_a_string(vscode: LanguageClient):
    uri = "file:///w/s.py"
    text = 'x = "# torch-logs: ignore[TL201]"\n'
    await open_and_wait(vscode, uri, text, "python")
    assert await hover_at(vscode, uri, *place(text, "TL201")) is None


async def test_code_hover_in_plain_text_and_russian(plaintext_client: LanguageClient):
    uri = "file:///w/p.env"
    text = "# torch-logs: ignore[TL201]\nTORCH_LOGS=gaurds\n"
    await open_and_wait(plaintext_client, uri, text, "dotenv")
    h = await hover_at(plaintext_client, uri, *place(text, "TL201"))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.PlainText
    assert h.contents.value == (
        f"TL201 · {code_table()['TL201'].title}\n\nTL201 в документации: {codes_doc_url('TL201')}"
    )


@pytest.mark.parametrize(
    ("text", "needle", "finding"),
    [
        ("TORCH_LOGS=+dynamo,gaurds\n", "gaurds", True),  # TL201 with a suggestion
        ("TORCH_LOGS=+dynamo,no_such_pkg_xyz.sub\n", "no_such_pkg_xyz", True),  # a module
        ("TORCH_LOGS=+dynamo,+guards\n", "+guards", True),  # TL301 on the `+` of an artifact
        ("TORCH_LOGS=+dynamo,guards\n", "guards", False),  # a known name, no finding on it
        ("TORCH_LOGS_FORMAT=%(traceid)s %(message)s\n", "traceid", True),  # TL407 on a field
    ],
)
async def test_hover_over_a_squiggle_does_not_repeat_its_message(
    vscode: LanguageClient, text: str, needle: str, finding: bool
):
    uri = f"file:///w/squiggle-{abs(hash(text))}.env"
    diags = await open_and_wait(vscode, uri, text, "dotenv")
    line, character = 0, text.index(needle)  # its first character (the `+` of `+guards`)
    h = await hover_at(vscode, uri, line, character)
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    under = [
        d
        for d in diags
        if d.range.start.line <= line <= d.range.end.line
        and d.range.start.character <= character <= d.range.end.character
    ]
    assert bool(under) == finding, diags
    # what VS Code shows: the messages of the diagnostics under the mouse, then the hover
    shown = "\n".join([d.message for d in under] + [h.contents.value])
    for d in under:
        assert shown.count(d.message) == 1, (d.message, h.contents.value)
        # nor its sentence: the message's first clause is not in the hover
        assert d.message.split(":")[0].split(";")[0] not in h.contents.value, h.contents.value
    assert h.contents.value.count("**") >= 2  # the name's docs: its title, once
