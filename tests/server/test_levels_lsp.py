"""End-to-end through the real server: foreign level syntax
gets TL207/TL208 with a quick fix that torch then accepts, and completion ranks the names
people use most first (``+dyn`` -> ``dynamo`` before ``dynamic``)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_wait
from tests.server.test_code_actions import URIS, actions, apply, change, document
from tests.server.test_server import ENV_URI, SH_URI, complete
from tests.support.oracles import BASH, read_torch_logs

# (value, code, quick fix title, value after it)
CASES = [
    ("spyre.inductor.passes:DEBUG", "TL207", "Change to `+spyre.inductor.passes`", None),
    ("dynamo=debug", "TL207", "Change to `+dynamo`", "+dynamo"),
    ("guards:INFO,inductor:ERROR", "TL207", "Change to `guards`", "guards,inductor:ERROR"),
    ("dynamo,DEBUG", "TL208", "Change to `+dynamo`", "+dynamo"),
    ("DEBUG", "TL208", "Change to `+all`", "+all"),
]


@pytest.mark.oracle
@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("host", ["shell", "dotenv", "jsonc"])
async def test_level_syntax_quick_fix(vscode: LanguageClient, host: str):
    for n, (value, code, title, fixed) in enumerate(CASES):
        case = (host, value)
        uri = URIS[host].replace("/project/", f"/project/level{n}/")
        text = document(host, value)
        diags = await open_and_wait(vscode, uri, text)
        target = next(d for d in diags if d.code == code)
        assert "prefix" in target.message, case
        found = {a.title: a for a in await actions(vscode, uri, target.range, [target])}
        assert title in found, (case, list(found))
        new = apply(text, uri, found[title].edit)
        after = await change(vscode, uri, new, 2)
        assert code not in after or value.count(":") > 1, (case, after)
        want = fixed if fixed is not None else title.split("`")[1]
        assert read_torch_logs(host, new) == want, (case, new)


def _ranked(result: types.CompletionList | list[types.CompletionItem] | None, typed: str):
    assert isinstance(result, types.CompletionList)
    items = [i for i in result.items if i.label.startswith(typed)]
    return [i.label for i in sorted(items, key=lambda i: i.sort_text or "")]


async def test_most_used_names_come_first(vscode: LanguageClient):
    await open_and_wait(vscode, ENV_URI, "TORCH_LOGS=+dyn\n")
    result = await complete(vscode, ENV_URI, 0, 15)
    assert _ranked(result, "dyn")[:2] == ["dynamo", "dynamic"]
    everything = _ranked(result, "")
    assert everything[:5] == ["dynamo", "recompiles", "graph_breaks", "inductor", "output_code"]
    # a popular artifact before a rarely used component, and before a rare artifact
    assert everything.index("guards") < everything.index("async_compile")
    assert everything.index("perf_hints") < everything.index("trace_call")


async def test_popularity_keeps_used_names_last(vscode: LanguageClient):
    await open_and_wait(vscode, SH_URI, "export TORCH_LOGS='recompiles,graph'\n")
    result = await complete(vscode, SH_URI, 0, 35)
    ranked = _ranked(result, "")
    assert ranked[0] == "dynamo" and ranked[-1] == "recompiles"  # used: last
    assert _ranked(result, "graph")[:2] == ["graph_breaks", "graph"]
