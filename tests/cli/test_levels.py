"""``torch-logs check`` (and ``--fix``) on a folder with foreign level syntax (TL207/TL208)
and names that need suggestions from descriptions and aliases, in a shell script, a .env
file, a launch.json and a Python file. Exactly these findings,
each with torch's prefix form or the right first suggestion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FILES = {
    "run.sh": (
        "#!/bin/bash\n"
        'export TORCH_LOGS="spyre.inductor.passes:DEBUG"\n'
        "python train.py\n"
        "TORCH_LOGS=inductor_output_code python train.py\n"
        "TORCH_LOGS=1 python train.py\n"
        "TORCH_LOGS=+dynamo.DEBUG python train.py\n"
        "TORCH_LOGS=torch._inductor.debug python train.py\n"  # a real module: no finding
    ),
    ".env": "TORCH_LOGS=dynamo=debug,recompile\n",
    ".vscode/launch.json": (
        '{\n  "configurations": [\n'
        '    {"name": "a", "env": {"TORCH_LOGS": "DEBUG"}},\n'
        '    {"name": "b", "env": {"TORCH_LOGS": "graph_break,dynamo_guards"}}\n'
        "  ]\n}\n"
    ),
    "train.py": (
        "import os\n\n"
        'os.environ.setdefault("TORCH_LOGS", "ERROR")\n'
        'os.environ["TORCH_LOGS"] = "aot_autograd:INFO"\n'
        "run()\n"  # (a call between: the first write is not overwritten before use, TL502)
        'os.environ["TORCH_LOGS"] = "aot_autograd"\n\n'
        "import torch  # noqa: E402,F401\n"
    ),
}

# path:line:column: CODE, and a part of the message
EXPECTED = [
    (".env:1:12: TL207", "write `+dynamo`"),
    (".env:1:25: TL201", "did you mean `recompiles`"),
    ("run.sh:2:20: TL207", "write `+spyre.inductor.passes`; torch rejects this value (ValueError)"),
    ("run.sh:4:12: TL201", "did you mean `output_code`?"),
    ("run.sh:5:12: TL208", "not a switch"),
    ("run.sh:6:12: TL207", "write `+dynamo`; torch raises ModuleNotFoundError at import"),
    ("train.py:3:38: TL208", "`ERROR`: TORCH_LOGS is a list of names, not a level for everything"),
    ("train.py:4:29: TL207", "not a name either (did you mean `aot`?); write `aot`"),
    ("train.py:6:29: TL201", "did you mean `aot` or"),
    (".vscode/launch.json:3:42: TL208", "`DEBUG`"),
    (".vscode/launch.json:4:42: TL201", "did you mean `graph_breaks`"),
    (".vscode/launch.json:4:54: TL201", "did you mean `guards`"),
]


def _write(root: Path) -> None:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
        timeout=300,
    )


def test_check_reports_exactly_the_level_and_suggestion_findings(tmp_path: Path):
    _write(tmp_path)
    proc = _check(tmp_path, "--python", sys.executable)
    assert proc.returncode == 1, proc.stderr
    rows = [r.replace(str(tmp_path) + "/", "") for r in proc.stdout.splitlines()]
    assert sorted(r.split(" ", 2)[0] + " " + r.split(" ", 2)[1] for r in rows) == sorted(
        where for where, _ in EXPECTED
    ), rows
    for where, part in EXPECTED:
        (row,) = [r for r in rows if r.startswith(where)]
        assert part in row, (where, row)
    assert "is not a separator" not in proc.stdout  # the old advice for `:`


def test_fix_applies_only_the_exact_level_forms(tmp_path: Path):
    _write(tmp_path)
    _check(tmp_path, "--python", sys.executable, "--fix")
    assert (tmp_path / ".env").read_text() == "TORCH_LOGS=+dynamo,recompile\n"
    run = (tmp_path / "run.sh").read_text()
    assert 'export TORCH_LOGS="+spyre.inductor.passes"\n' in run
    assert "TORCH_LOGS=1 python" in run and "TORCH_LOGS=+dynamo.DEBUG python" in run  # guesses
    assert "TORCH_LOGS=output_code python" not in run  # not an equal-up-to-case suggestion
    py = (tmp_path / "train.py").read_text()
    assert '"aot_autograd:INFO"' in py  # `aot` is a guess: offered, not applied
    assert '"ERROR"' in py  # `-all` is a guess: offered, not applied
    assert (tmp_path / ".vscode/launch.json").read_text() == FILES[".vscode/launch.json"]
