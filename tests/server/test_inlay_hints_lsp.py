"""End to end over stdio: textDocument/inlayHint. After each item of every TORCH_LOGS value
in examples/ the hint says what ``torch-logs explain --json`` says of that item; hints
follow the request's range and UTF-16 positions; ``torchLogs.inlayHints.enabled`` turns
them off; they are answered before the document's check has run."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait, utf16_column
from torch_logs_lsp.cli.main import main as cli_main
from torch_logs_lsp.hosts import detect_host, extract, runs_on
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.value.analysis import level_of
from torch_logs_lsp.value.parser import outer_quotes, parse_value

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RELEASE = "2.15"
WHOLE = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=10**6, character=0)
)


async def hints(
    client: LanguageClient, uri: str, rng: types.Range = WHOLE
) -> list[types.InlayHint]:
    result = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=rng)
    )
    return list(result or [])


def explain(value: str) -> dict:
    """``torch-logs explain --json`` of ``value`` (the command's own output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["explain", "--json", "--torch-version", RELEASE, "--", value])
    return json.loads(out.getvalue())


def expected_label(item, explained: dict) -> str | None:
    """What the hint of ``item`` must say, from the explain document only (and the
    registry's kind and flags of the name); ``None``: no hint."""
    registry = load_registry(RELEASE)
    if explained["torch_outcome"] != "ok" or not item.valid:
        return None
    logs, name = explained["logs"], item.name
    own = {10: "DEBUG", 20: "INFO", 40: "ERROR"}[level_of(item.prefix)]

    def levels(qnames) -> str:
        final = list(dict.fromkeys(logs[q] for q in qnames if q in logs))
        return own if all(f == own for f in final) else own + " → " + "/".join(final)

    kind = registry.kind(name)
    if kind in ("component", "special"):
        return levels(registry.qnames_for(name))
    if kind == "artifact":
        assert name in explained["artifacts"]
        parts = []
        if item.prefix:
            parts.append("prefix ignored")
        if registry.artifacts[name].off_by_default:
            parts.append("off by default, named")
        return " · ".join(parts) or "artifact"
    if name in explained["modules"]:
        return "module · " + levels([name])
    return None


async def test_hints_match_explain_for_every_example_value(vscode: LanguageClient):
    vscode.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"torchLogs": {"torchVersion": RELEASE}})
    )
    checked = 0
    labels_seen: set[str] = set()
    for path in sorted(p for p in EXAMPLES.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="replace")
        host = detect_host(str(path), text)
        if host is None:
            continue
        spans = [
            s for s in extract(host, text) if s.variable == "TORCH_LOGS" and s.value is not None
        ]
        if not spans:
            continue
        uri = path.as_uri()
        await open_and_wait(vscode, uri, text)
        got = {(h.position.line, h.position.character): h.label for h in await hints(vscode, uri)}
        want: dict[tuple[int, int], str] = {}
        lines = text.splitlines(keepends=True)
        for span in spans:
            if not span.terminated:
                continue
            # a Windows process's torch strips one pair of outer quotes (2.9+): explain
            # the value it reads
            stripped = runs_on(host) == "windows" and outer_quotes(span.value)
            explained = explain(span.value[1:-1] if stripped else span.value)
            for item in parse_value(span.value, strip_outer=stripped).items:
                label = expected_label(item, explained)
                if label is None:
                    continue
                at = span.document_offset(item.end)
                line = text.count("\n", 0, at)
                col = at - (text.rfind("\n", 0, at) + 1)
                want[(line, utf16_column(lines[line], col))] = label
        assert got == want, path
        checked += len(want)
        labels_seen |= set(want.values())
    assert checked >= 20
    # the four kinds of the feature's examples all occur in examples/
    assert {"DEBUG", "artifact"} <= labels_seen
    assert any("off by default" in label for label in labels_seen)


DOTENV = "TORCH_LOGS=+dynamo,recompiles,-guards,output_code,dynamo,-dynamo\n"


async def test_labels_range_and_positions(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / ".env").as_uri()
    text = "# 😀 before\n" + DOTENV + 'X=1\nTORCH_LOGS="😀x,+inductor"\n'
    await open_and_wait(vscode, uri, text)
    got = [(h.position.line, h.position.character, h.label) for h in await hints(vscode, uri)]
    line = DOTENV
    ends = [line.index(w) + len(w) for w in ("+dynamo", "recompiles", "-guards", "output_code")]
    assert got[:4] == [
        (1, ends[0], "DEBUG → ERROR"),
        (1, ends[1], "artifact"),
        (1, ends[2], "prefix ignored"),
        (1, ends[3], "off by default, named"),
    ]
    assert got[4:] == [
        (1, line.index(",dynamo,") + 7, "INFO → ERROR"),
        (1, len(line) - 1, "ERROR"),
    ]  # the invalid value on line 4 ("😀x" is not a name) has none
    # only the range's hints: line 1 from the column after "recompiles"
    rng = types.Range(
        start=types.Position(line=1, character=ends[1] + 1),
        end=types.Position(line=1, character=ends[3]),
    )
    assert [h.label for h in await hints(vscode, uri, rng)] == [
        "prefix ignored",
        "off by default, named",
    ]
    # UTF-16 after an astral character on the same line
    uri2 = (tmp_path / "b.sh").as_uri()
    line = 'X="😀"; export TORCH_LOGS=+dynamo'
    await open_and_wait(vscode, uri2, line + "\n", "shellscript")
    got2 = await hints(vscode, uri2)
    assert [(h.position.character, h.label) for h in got2] == [(len(line) + 1, "DEBUG")]


async def test_setting_turns_hints_off_and_on(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / ".env").as_uri()
    await open_and_wait(vscode, uri, DOTENV)
    assert await hints(vscode, uri)
    settings = {"torchLogs": {"inlayHints": {"enabled": False}}}
    vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    assert await hints(vscode, uri) == []
    settings = {"torchLogs": {"inlayHints": {"enabled": True}}}
    vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    assert len(await hints(vscode, uri)) == 6


async def test_hints_in_hosts_and_right_after_an_edit(vscode: LanguageClient, tmp_path: Path):
    docs = {
        "run.sh": ("export TORCH_LOGS='+dynamo,recompiles'\n", "shellscript"),
        "ci.yml": ('env:\n  TORCH_LOGS: "+dynamo,recompiles"\n', "yaml"),
        ".vscode/launch.json": (
            '{"configurations": [{"env": {"TORCH_LOGS": "+dynamo,recompiles"}}]}\n',
            "jsonc",
        ),
        "train.py": ('import os\nos.environ["TORCH_LOGS"] = "+dynamo,recompiles"\n', "python"),
        "Dockerfile": ("FROM x\nENV TORCH_LOGS=+dynamo,recompiles\n", "dockerfile"),
        "set.ps1": ("$env:TORCH_LOGS = '+dynamo,recompiles'\n", "powershell"),
        "set.bat": ('set "TORCH_LOGS=+dynamo,recompiles"\n', "bat"),
    }
    for name, (text, language) in docs.items():
        uri = (tmp_path / name).as_uri()
        await open_and_wait(vscode, uri, text, language)
        assert [h.label for h in await hints(vscode, uri)] == ["DEBUG", "artifact"], name
    # a request sent right after a change answers for the new text (no wait for its check)
    uri = (tmp_path / "run.sh").as_uri()
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text="TORCH_LOGS=-inductor x\n")
            ],
        )
    )
    got = await hints(vscode, uri)
    assert [(h.position.character, h.label) for h in got] == [(20, "ERROR")]
