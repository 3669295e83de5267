"""A value that names the same unregistered name many times (a pasted or generated value):
the name is looked up once, and each occurrence has its own finding at its place."""

from __future__ import annotations

import pytest

from torch_logs_lsp.torch_env.context import fallback_finder
from torch_logs_lsp.torch_env.modules import ModuleFinder
from torch_logs_lsp.value.analysis import analyse


def test_a_name_met_again_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[str] = []
    real = ModuleFinder.find_spec

    def counting(self: ModuleFinder, name: str):  # type: ignore[no-untyped-def]
        looked.append(name)
        return real(self, name)

    monkeypatch.setattr(ModuleFinder, "find_spec", counting)
    value = ",".join(["gaurds", "+Dynamo", "my_pkg.mod"] * 300)
    analysis = analyse(value, finder=fallback_finder())
    assert sorted(set(looked)) == ["Dynamo", "gaurds", "my_pkg.mod"]
    assert len(looked) <= 2 * 3  # once per name (twice for a dotted one), not per item
    places = [(d.code, d.start, d.end) for d in analysis.diagnostics + analysis.hidden]
    gaurds = [(s, e) for code, s, e in places if code == "TL201" and value[s:e] == "gaurds"]
    assert len(gaurds) == 300
    assert gaurds[1][0] == value.index("gaurds", 1)
