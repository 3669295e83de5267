"""Where torch registers each name (``torch_env/locations.py``): against the real torch,
whose ``_registrations.py`` is run with recording stand-ins for ``register_log`` and
``register_artifact`` (the line of each call as Python sees it), and the packaged
registry's document."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge.registry import load_registry, releases
from torch_logs_lsp.torch_env.locations import (
    installed_registrations,
    packaged_registrations,
    packaged_text,
    registrations_in,
)

_SPEC = find_spec("torch")
TORCH = Path(_SPEC.origin).parent if _SPEC and _SPEC.origin else None

#: Runs torch's own _registrations.py with recording stand-ins (the real torch imports).
_ORACLE = r"""
import json, sys
import torch._logging._internal as internal
seen = {}
def record(kind):
    def register(name, *args, **kwargs):
        seen.setdefault(name, (kind, sys._getframe(1).f_lineno))
    return register
internal.register_log = record("component")
internal.register_artifact = record("artifact")
path = sys.argv[1]
code = compile(open(path, encoding="utf-8").read(), path, "exec")
exec(code, {"__name__": "torch._logging._oracle", "__package__": "torch._logging"})
print(json.dumps(seen))
"""


@pytest.mark.skipif(TORCH is None, reason="needs the installed torch")
def test_every_registration_is_where_python_makes_the_call(tmp_path: Path) -> None:
    assert TORCH is not None
    path = TORCH / "_logging" / "_registrations.py"
    proc = subprocess.run(
        [sys.executable, "-c", _ORACLE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    seen = json.loads(proc.stdout)
    found = installed_registrations(str(TORCH))
    assert set(found) == set(seen)
    assert len(found) > 60
    lines = path.read_text(encoding="utf-8").split("\n")
    for name, (kind, lineno) in seen.items():
        reg = found[name]
        assert (reg.kind, reg.call.line + 1) == (kind, lineno), name
        row = lines[reg.name.line]
        assert row[reg.name.column : reg.name.end_column] in (f'"{name}"', f"'{name}'")


def test_columns_are_code_points_and_keywords_count() -> None:
    text = (
        '# é🙂\nregister_log("a", "x")  # é\nregister_artifact(\n'
        '    setting_name="é🙂b", description="")\nregister_log(NAME, [])\n'
    )
    found = registrations_in(text, "/p")
    assert set(found) == {"a", "é🙂b"}
    b = found["é🙂b"]
    assert (b.kind, b.call.line, b.call.end_line, b.name.line) == ("artifact", 2, 3, 3)
    assert (b.name.column, b.name.end_column) == (17, 22)
    assert b.name.line_text == '    setting_name="é🙂b", description="")'
    assert found["a"].name.line_text == 'register_log("a", "x")  # é'
    assert registrations_in("register_log(", "/p") == {}


@pytest.mark.parametrize("release", releases())
def test_the_packaged_document_registers_every_name_of_its_release(release: str) -> None:
    registry = load_registry(release)
    found = packaged_registrations(release)
    assert set(found) == set(registry.components) | set(registry.artifacts)
    rows = packaged_text(release).split("\n")
    for name, reg in found.items():
        row = rows[reg.name.line]
        assert row[reg.name.column : reg.name.end_column] == f'"{name}"'
        assert row.startswith("register_log(" if reg.kind == "component" else "register_artifact(")
    # what it says is what the registry says (parsed back as the reader reads torch's file)
    from torch_logs_lsp.torch_env.reader import read_registrations

    read = read_registrations(packaged_text(release))
    assert read.problems == []
    assert read.logs == {c.name: list(c.qnames) for c in registry.components.values()}
    assert read.artifacts == {
        a.name: {"off_by_default": a.off_by_default, "visible": a.visible}
        for a in registry.artifacts.values()
    }
