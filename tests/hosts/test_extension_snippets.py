"""The VS Code extension's snippets (vscode-extension/snippets/, contributes.snippets) write
values that pass ``torch-logs check``: every choice of every snippet, expanded as VS Code
expands it (placeholders at their defaults), in a launch.json or a .env file."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
from pathlib import Path

from torch_logs_lsp.cli.main import main as cli_main
from torch_logs_lsp.hosts import extract

EXT = Path(__file__).resolve().parents[2] / "vscode-extension"
CHOICE = re.compile(r"\$\{(\d+)\|((?:[^|\\]|\\.)*)\|\}")
DEFAULT = re.compile(r"\$\{(\d+):((?:[^}\\]|\\.)*)\}")
TABSTOP = re.compile(r"\$(\d+)|\$\{(\d+)\}")


def _unescape(text: str) -> str:
    return re.sub(r"\\([$}\\,|])", r"\1", text)


def expansions(body: str) -> list[str]:
    """Every text the snippet ``body`` gives: one per combination of its choices, the other
    placeholders at their defaults (TextMate snippet syntax, the part VS Code's snippets
    use here)."""
    choices = [
        [_unescape(c) for c in re.split(r"(?<!\\),", m.group(2))] for m in CHOICE.finditer(body)
    ]
    out = []
    for combo in itertools.product(*choices):
        picks = iter(combo)
        text = CHOICE.sub(lambda m, picks=picks: next(picks).replace("\\", "\\\\"), body)
        text = DEFAULT.sub(lambda m: m.group(2), text)
        text = TABSTOP.sub("", text)
        out.append(_unescape(text))
    return out


def check(path: Path) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["check", "--torch-version", "2.15", "--format", "json", str(path)])
    return json.loads(out.getvalue())


def snippets(language: str) -> dict:
    package = json.loads((EXT / "package.json").read_text())
    (entry,) = [s for s in package["contributes"]["snippets"] if s["language"] == language]
    return json.loads((EXT / entry["path"]).read_text())


def test_expansion_of_choices_and_defaults():
    got = expansions("A=${1|x\\,y,z|} B=${2:d\\${e\\}} $0\\${f}")
    assert got == ["A=x,y B=d${e} ${f}", "A=z B=d${e} ${f}"]


def test_launch_snippet_passes_check(tmp_path: Path):
    (snippet,) = snippets("jsonc").values()
    bodies = expansions("\n".join(snippet["body"]))
    assert len(bodies) >= 5
    for i, body in enumerate(bodies):
        path = tmp_path / str(i) / ".vscode" / "launch.json"
        path.parent.mkdir(parents=True)
        text = '{\n  "version": "0.2.0",\n  "configurations": [\n' + body + "\n  ]\n}\n"
        json.loads(text)  # the expanded configuration is JSON
        path.write_text(text)
        assert check(path) == [], body
        values = {s.variable: s.value for s in extract("jsonc", text)}
        # (TORCH_LOGS_OUT holds ${workspaceFolder}: a value known only when it runs)
        assert values["TORCH_LOGS"] and "TORCH_LOGS_OUT" in values, values


def test_dotenv_snippets_pass_check(tmp_path: Path):
    seen = set()
    for n, snippet in enumerate(snippets("dotenv").values()):
        for i, body in enumerate(expansions("\n".join(snippet["body"]))):
            path = tmp_path / f"{n}-{i}" / ".env"
            path.parent.mkdir(parents=True)
            path.write_text(body + "\n")
            assert check(path) == [], body
            seen |= {s.variable for s in extract("dotenv", body)}
    assert seen == {"TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE"}
