"""Oracle: what completion offers inside torch's set_logs(...) is what torch 2.13 accepts:
the keywords are exactly those of its signature, and every value offered
for each of them (and for `modules={"key": ...}` entries) is accepted by a real call."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.support.set_logs_oracle import run_cases, signature_of_installed
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.server.documents import build_state
from torch_logs_lsp.server.features import set_logs_ide

R213 = load_registry("2.13")
HEAD = "import logging\nimport torch\ntorch._logging.set_logs("


def _offered(text: str) -> list[str]:
    """The inserted texts of the completion items at the end of ``text``."""
    state = build_state("file:///w/x.py", 1, text, "python", R213, "utf-16")
    result = set_logs_ide.completions(state, len(text), R213, "en", True)
    assert result is not None, text
    out = []
    for item in result.items:
        assert isinstance(item.text_edit, types.TextEdit)
        assert item.additional_text_edits is None  # `import logging` is there
        out.append(item.text_edit.new_text)
    return out


@pytest.mark.oracle
def test_offered_keywords_and_values_are_what_torch_accepts():
    keywords = [k.removesuffix("=") for k in _offered(HEAD)]
    assert sorted(keywords) == sorted(signature_of_installed())  # packaged: sorted by name
    cases = []
    for keyword in keywords:
        for value in _offered(f"{HEAD}{keyword}="):
            cases.append(f"{keyword}={value}")
    for key in ("guards", "torch._dynamo", "json", "dynamo"):
        entry = f'modules={{"{key}": '
        cases += [f"{entry}{value}}}" for value in _offered(HEAD + entry)]
    assert 'modules={"guards": True}' in cases and 'modules={"json": logging.DEBUG}' in cases
    results = run_cases([{"kind": "call", "source": source} for source in cases])
    bad = [(s, r["outcome"]) for s, r in zip(cases, results, strict=True) if r["outcome"] != "ok"]
    assert bad == []
    assert all(any(c.startswith(k + "=") for c in cases) for k in keywords)
