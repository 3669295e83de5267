"""TL502: an overwritten value gets one hint naming the overwriting line, keeps only the
findings about its own text, and takes no part in the hints across variables or TL501
(lint/dead_values.py, shared by the CLI and the server)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.checker import LineIndex
from torch_logs_lsp.lint.dead_values import OVERWRITTEN
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.value.analysis import Severity

REG = load_registry("2.13")

SET_TWICE = {
    "run.sh": 'export TORCH_LOGS="+recompiles"\nexport TORCH_LOGS="+graph_breaks"\n',
    ".env": "TORCH_LOGS=+recompiles\nTORCH_LOGS=+graph_breaks\n",
    "launch.json": '{"configurations": [{"name": "a", "env": {\n'
    '  "TORCH_LOGS": "+recompiles",\n  "TORCH_LOGS": "+graph_breaks"}}]}\n',
    "train.py": 'import os\nos.environ["TORCH_LOGS"] = "+recompiles"\n'
    'os.environ["TORCH_LOGS"] = "+graph_breaks"\n',
}
HOST = {"run.sh": "shell", ".env": "dotenv", "launch.json": "jsonc", "train.py": "python"}


def rows(text: str, host: str) -> list[tuple[int, str, Severity, str]]:
    return [
        (f.line, f.diagnostic.code, f.diagnostic.severity, f.diagnostic.message)
        for f in findings(text, host, REG)
    ]


def test_a_value_set_twice_in_every_host() -> None:
    for name, text in SET_TWICE.items():
        found = rows(text, HOST[name])
        first_line = 1 if name in ("launch.json", "train.py") else 0
        on_dead = [r for r in found if r[0] == first_line]
        assert [(r[1], r[2]) for r in on_dead] == [(OVERWRITTEN, Severity.HINT)], (name, found)
        assert f"(line {first_line + 2})" in on_dead[0][3]
        assert "still enables" not in on_dead[0][3]
        # the live value keeps its findings
        assert [r[1] for r in found if r[0] == first_line + 1] == ["TL301"], (name, found)


def test_a_command_between_keeps_both() -> None:
    text = 'export TORCH_LOGS="+recompiles"\npython a.py\nexport TORCH_LOGS="+graph_breaks"\n'
    assert [r[1] for r in rows(text, "shell")] == ["TL301", "TL301"]


def test_dead_value_keeps_its_own_text_findings_as_warnings() -> None:
    text = "TORCH_LOGS=dynamo,,aot_g\nTORCH_LOGS=+dynamo\n"
    found = rows(text, "dotenv")
    codes = {(r[1], r[2]) for r in found if r[0] == 0}
    assert codes == {
        ("TL103", Severity.WARNING),  # an empty item: torch would reject it, were it used
        ("TL201", Severity.WARNING),  # unknown name, with its suggestion
        (OVERWRITTEN, Severity.HINT),
    }


def test_dead_value_drops_effect_claims() -> None:
    # TL001 (import crashes), TL303 (levels), TL202 (a module name torch would import)
    text = "TORCH_LOGS=\nTORCH_LOGS=+dynamo,-dynamo,json\nTORCH_LOGS=dynamo\n"
    found = rows(text, "dotenv")
    assert [r[1] for r in found if r[0] in (0, 1)] == [OVERWRITTEN, OVERWRITTEN]


def test_dead_value_gives_no_cross_hint() -> None:
    # TL411 (output_code without TORCH_LOGS_OUT) belongs to the value that is used
    text = "export TORCH_LOGS=output_code\nexport TORCH_LOGS=dynamo\n"
    assert [r[1] for r in rows(text, "shell")] == [OVERWRITTEN]
    text = "export TORCH_LOGS=dynamo\nexport TORCH_LOGS=output_code\n"
    assert [r[1] for r in rows(text, "shell")] == [OVERWRITTEN, "TL411"]


def test_python_tl501_only_on_the_live_write() -> None:
    text = (
        'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"\n'
        'os.environ["TORCH_LOGS"] = "dynamo"\n'
    )
    assert [(r[0], r[1]) for r in rows(text, "python")] == [(2, OVERWRITTEN), (3, "TL501")]


def test_line_of_counts_every_line_break() -> None:
    index = LineIndex("a\r\nb\rc\nd")  # the line the message names (1-based there)
    assert [index.position(i)[0] + 1 for i in (0, 3, 5, 7)] == [1, 2, 3, 4]


def test_cli_reports_the_hint(tmp_path: Path) -> None:
    for name, text in SET_TWICE.items():
        folder = tmp_path / ".vscode" if name == "launch.json" else tmp_path
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(text)
    args = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--torch", "2.13"]
    proc = subprocess.run(
        [*args, "--show-hints", str(tmp_path)], capture_output=True, text=True, check=False
    )
    out = proc.stdout.replace(str(tmp_path) + "/", "")
    dead = sorted(line.split(": TL502 ")[0] for line in out.splitlines() if " TL502 " in line)
    assert dead == [".env:1:12", ".vscode/launch.json:2:18", "run.sh:1:20", "train.py:2:29"]
    assert out.count(" TL301 ") == 4  # only on the live values
    assert proc.returncode == 0  # hints and warnings only
    quiet = subprocess.run([*args, str(tmp_path)], capture_output=True, text=True, check=False)
    assert " TL502 " not in quiet.stdout  # a hint, printed with --show-hints only
