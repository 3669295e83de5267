"""Suppression comments through the real server over stdio: a silenced finding is not
published, an unused suppression is a faded TL903 hint, and the quick fixes "Ignore TL201
on this line" and "Remove unused suppression" apply and re-check clean."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change

URI = "file:///work/project/run.sh"
TEXT = "echo 🙂\n  TORCH_LOGS=gaurds python x.py  # 🙂\n"


async def test_ignore_fix_silences_and_unused_fix_removes(vscode: LanguageClient):
    diags = await open_and_wait(vscode, URI, TEXT)
    (typo,) = diags
    assert typo.code == "TL201"
    found = {a.title: a for a in await actions(vscode, URI, typo.range, [typo])}
    ignore = found["Ignore TL201 on this line"]
    assert ignore.kind == types.CodeActionKind.QuickFix
    assert list(ignore.diagnostics or []) == [typo]
    text = apply(TEXT, URI, ignore.edit)
    assert text == "echo 🙂\n  # torch-logs: ignore[TL201]\n  TORCH_LOGS=gaurds python x.py  # 🙂\n"
    assert await change(vscode, URI, text, 2) == []

    unused = text.replace("gaurds", "guards")
    assert await change(vscode, URI, unused, 3) == ["TL903"]
    hints = await open_and_wait(vscode, "file:///work/project/b.sh", unused)
    (hint,) = hints
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert list(hint.tags or []) == [types.DiagnosticTag.Unnecessary]
    assert (hint.range.start.line, hint.range.start.character) == (1, 4)
    removal = {a.title: a for a in await actions(vscode, URI, hint.range, [hint])}
    cleaned = apply(unused, URI, removal["Remove unused suppression"].edit)
    assert cleaned == "echo 🙂\n  TORCH_LOGS=guards python x.py  # 🙂\n"
    assert await change(vscode, URI, cleaned, 4) == []


async def test_trailing_suppression_after_an_emoji_in_utf16(vscode: LanguageClient):
    text = 'A="🙂🙂" TORCH_LOGS=gaurds,+guards python x  # torch-logs: ignore[TL201, TL4]\n'
    diags = await open_and_wait(vscode, "file:///work/project/c.sh", text)
    assert sorted(str(d.code) for d in diags) == ["TL301", "TL903"]
    hint = next(d for d in diags if d.code == "TL903")
    before = text[: text.index("torch-logs: ignore")]
    assert hint.range.start.character == len(before.encode("utf-16-le")) // 2
    assert "`TL4`" in hint.message
    removal = {
        a.title: a for a in await actions(vscode, "file:///work/project/c.sh", hint.range, [hint])
    }
    new = apply(text, "file:///work/project/c.sh", removal["Remove unused suppression"].edit)
    assert new == text.replace("ignore[TL201, TL4]", "ignore[TL201]")  # TL201 still silenced


async def test_no_ignore_fix_that_would_write_into_a_string(vscode: LanguageClient):
    # the finding's line is the last line of a here-string: a comment line above it would
    # be inside the string; a TOML multi-line string likewise
    for uri, text in (
        ("file:///work/project/run.ps1", '$s = @"\nx\n"@; $env:TORCH_LOGS = "Dynamo"\n'),
        (
            "file:///work/project/pyproject.toml",
            '[tool.pytest.ini_options]\nenv = ["""X=1\n""", "TORCH_LOGS=Dynamo"]\n',
        ),
    ):
        (typo,) = [d for d in await open_and_wait(vscode, uri, text) if d.code == "TL201"]
        titles = [a.title for a in await actions(vscode, uri, typo.range, [typo])]
        assert "Ignore TL201 on this line" not in titles, (uri, titles)
        assert titles  # the value's own fixes are still offered


async def test_a_suppression_like_string_is_no_unused_hint(vscode: LanguageClient):
    text = '$msg = "see # torch-logs: ignore[TL201]"\n$env:TORCH_LOGS = "dynamo"\n'
    assert await open_and_wait(vscode, "file:///work/project/msg.ps1", text) == []
