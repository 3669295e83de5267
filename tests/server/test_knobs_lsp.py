"""TL421-TL424 through the real server: an unread name of torch's prefixes is reported on
the name with a rename quick fix when a read name is close; the other findings arrive as
diagnostics of the documents that set them."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change

NAME = "TORCHINDUCTOR_FORCE_DISABLE_CACHE"

DOCS = {
    "shell": ("file:///work/p/knobs.sh", f"#!/bin/bash\n# 🙂\nexport {NAME}=1\n"),
    "dotenv": ("file:///work/p/.env", f"# 🙂\r\n{NAME}=1\r\n"),
    "jsonc": (
        "file:///work/p/.vscode/launch.json",
        f'{{"configurations": [{{"name": "🙂", "env": {{"{NAME}": "1"}}}}]}}\n',
    ),
    "python": ("file:///work/p/knobs.py", f'import os  # 🙂\nos.environ["{NAME}"] = "1"\n'),
}


@pytest.mark.parametrize("host", list(DOCS))
async def test_unread_name_and_its_rename(vscode: LanguageClient, host: str):
    uri, text = DOCS[host]
    diags = await open_and_wait(vscode, uri, text)
    (target,) = [d for d in diags if d.code == "TL421"]
    assert target.severity == types.DiagnosticSeverity.Warning
    assert target.message.endswith(f"did you mean `{NAME}S`?")
    row = text.splitlines()[target.range.start.line]
    col = row.index(NAME) + (1 if "🙂" in row else 0)  # 🙂 is two UTF-16 units
    assert (target.range.start.character, target.range.end.character) == (col, col + len(NAME))
    found = await actions(vscode, uri, target.range, [target])
    assert [a.title for a in found] == [f"Rename to `{NAME}S`", "Ignore TL421 on this line"]
    assert found[0].is_preferred
    new = apply(text, uri, found[0].edit)
    assert f"{NAME}S" in new
    assert "TL421" not in await change(vscode, uri, new, 2)


async def test_tilde_dtrace_and_verbose(vscode: LanguageClient):
    uri = "file:///work/p/trace.sh"
    text = (
        'TORCH_TRACE="~/t" python a.py\n'
        "TORCH_TRACE=/tmp/t TORCH_DTRACE=/tmp/d python b.py\n"
        "export TORCHDYNAMO_VERBOSE=1 TORCHINDUCTOR_DUMP_IR=1\n"
    )
    diags = await open_and_wait(vscode, uri, text)
    got = sorted((d.code, d.range.start.line, d.range.start.character) for d in diags)
    assert got == [
        ("TL421", 2, 29),
        ("TL422", 0, 13),
        ("TL423", 1, 12),
        ("TL424", 2, 7),
    ]
    (unread,) = [d for d in diags if d.code == "TL421"]
    found = await actions(vscode, uri, unread.range, [unread])
    assert [a.title for a in found] == ["Ignore TL421 on this line"]  # nothing close to rename to
