"""End to end: the set_logs quick fixes, the TL501 fix and the "Rewrite as TORCH_LOGS"
refactor through the real server (UTF-16 ranges after an emoji), applied and re-checked."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import actions, apply, change

PIN = "# torch-logs: torch=2.13\n"


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def test_level_fix_after_an_emoji(vscode: LanguageClient):
    uri = "file:///work/py/fix_level.py"
    line = 'tag = "😀"; torch._logging.set_logs(dynamo=True, graph_breaks=logging.DEBUG)'
    text = PIN + "import logging\nimport torch\n" + line + "\n"
    diags = await open_and_wait(vscode, uri, text, "python")
    assert sorted(str(d.code) for d in diags) == ["TL611", "TL612"]
    tl611 = next(d for d in diags if d.code == "TL611")
    start = utf16(line[: line.index("True")])
    assert tl611.range == types.Range(
        start=types.Position(line=3, character=start),
        end=types.Position(line=3, character=start + 4),
    )
    found = await actions(vscode, uri, tl611.range, [tl611])
    (fix,) = [a for a in found if a.title == "Change to `logging.DEBUG`"]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert list(fix.diagnostics or []) == [tl611]  # attached to the client's own diagnostic
    fixed = apply(text, uri, fix.edit)
    assert fixed == text.replace("dynamo=True", "dynamo=logging.DEBUG")
    assert await change(vscode, uri, fixed, 2) == ["TL612"]
    # the other one, on the edited document (its range moved by the first fix)
    (diag,) = await open_and_wait(vscode, uri.replace(".py", "2.py"), fixed, "python")
    found = await actions(vscode, uri.replace(".py", "2.py"), diag.range, [diag])
    (fix,) = [a for a in found if a.title == "Change to `True`"]
    assert apply(fixed, uri.replace(".py", "2.py"), fix.edit) == fixed.replace(
        "graph_breaks=logging.DEBUG", "graph_breaks=True"
    )


async def test_refactor_to_torch_logs(vscode: LanguageClient):
    uri = "file:///work/py/refactor.py"
    line = "    torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)  # 😀"
    text = PIN + '"""Doc 😀."""\nimport logging\nimport torch\nif True:\n' + line + "\n"
    assert await open_and_wait(vscode, uri, text, "python") == []
    at = types.Position(line=5, character=utf16(line[: line.index("dynamo")]))
    rng = types.Range(start=at, end=at)
    assert await actions(vscode, uri, rng, [], only=[types.CodeActionKind.QuickFix]) == []
    (action,) = await actions(vscode, uri, rng, [], only=[types.CodeActionKind.Refactor])
    assert action.kind == types.CodeActionKind.RefactorRewrite
    assert "child processes inherit it" in action.title
    fixed = apply(text, uri, action.edit)
    assert fixed == PIN + '"""Doc 😀."""\nimport os\nimport logging\nimport torch\nif True:\n' + (
        '    os.environ.setdefault("TORCH_LOGS", "+dynamo,graph_breaks")\n'
        "    torch._logging._internal._init_logs()  # 😀\n"
    )
    assert await change(vscode, uri, fixed, 2) == []


async def test_late_write_fix(vscode: LanguageClient):
    uri = "file:///work/py/late_fix.py"
    line = 'os.environ["TORCH_LOGS"] = "-inductor,aot_graphs"  # 😀'
    text = PIN + "import os\nfrom logging import ERROR\nimport torch\n" + line + "\n"
    (diag,) = await open_and_wait(vscode, uri, text, "python")
    assert diag.code == "TL501"
    found = await actions(vscode, uri, diag.range, [diag])
    (fix,) = [a for a in found if a.title.startswith("Replace with")]
    assert list(fix.diagnostics or []) == [diag] and fix.is_preferred
    fixed = apply(text, uri, fix.edit)
    assert fixed == text.replace(
        line, "torch._logging.set_logs(inductor=ERROR, aot_graphs=True)  # 😀"
    )
    assert await change(vscode, uri, fixed, 2) == []


async def test_fix_all_renames_torch_to_all_only(vscode: LanguageClient):
    uri = "file:///work/py/fix_all.py"
    text = PIN + (
        "import logging\nimport subprocess\nimport torch\n"
        'subprocess.run(["x"], env={"TORCH_LOGS": "+dynamo ,guards"})  # 😀\n'
        "torch._logging.set_logs(torch=logging.INFO, dynamo=True)\n"
    )
    diags = await open_and_wait(vscode, uri, text, "python")
    # torch= is a TypeError while binding: dynamo=True is never read, so no TL611 yet
    assert sorted(str(d.code) for d in diags) == ["TL102", "TL602"]
    whole = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=6, character=0)
    )
    (action,) = await actions(vscode, uri, whole, diags, only=["source.fixAll.torch-logs"])
    fixed = apply(text, uri, action.edit)
    assert fixed == text.replace("+dynamo ,guards", "+dynamo,guards").replace(
        "torch=logging.INFO", "all=logging.INFO"
    )
    # fixed, the call binds and torch reads dynamo=True: `True` -> DEBUG is not safe
    assert await change(vscode, uri, fixed, 2) == ["TL611"]
