"""Long whitespace runs cost linear time in every host and in the value parser.

A regular expression such as ``\\s+#.*`` searched over a value is quadratic on a long run
of whitespace not followed by ``#`` (each start in the run scans the rest of it): the .env
host took ~20 s for 100,000 spaces and over a minute for 200,000. Each document here holds
a run of 200,000 spaces or tabs; ``torch-logs check --fix`` on it (extraction, analysis,
fix-all and its edits) runs in a subprocess that must finish within the timeout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RUN = 200_000
SP = " " * RUN
TAB = "\t" * RUN
#: Generous for 2 shared cores; each case takes about a second.
TIMEOUT = 40

# (file name, content)
CASES = [
    ("sp.env", f"TORCH_LOGS=a,{SP}b\n"),  # the finding: a run not followed by '#'
    ("tab.env", f"TORCH_LOGS=dynamo,{TAB}guards\n"),
    ("mixed.env", "TORCH_LOGS=dynamo" + " \t\x0b\x0c" * (RUN // 4) + "x # c\n"),
    ("comment.env", f"TORCH_LOGS=dynamo{SP}# c\n"),
    ("around.env", f"{SP}export{SP}TORCH_LOGS{SP}={SP}Dynamo{SP}\nX=1\n"),
    ("quoted.env", f'TORCH_LOGS="dynamo,{SP}guards"{SP}# c\n'),
    ("sp.sh", f"export TORCH_LOGS=dynamo{SP}x\n"),
    ("lead.sh", f"{SP}TORCH_LOGS=Dynamo{SP}python x.py{SP}\n"),
    ("semi.sh", f"true;{SP}export{SP}TORCH_LOGS=Dynamo{SP};{SP}\n"),
    ("dq.sh", f'TORCH_LOGS="dynamo,{SP}guards"\n'),
    ("tab.sh", f"TORCH_LOGS=Dynamo{TAB}#{TAB}\n"),
    # the pin comment's regex (hosts/comments.pin_re) is searched over the document
    ("pin.env", f"#{SP}torch-logs:{SP}torch{SP}={SP}x\n#{SP}#{TAB}\nTORCH_LOGS=dynamo\n"),
    ("launch.json", f'{{"configurations": [{{"env": {{"TORCH_LOGS": "a,{SP}b"}}}}]}}'),
    (
        "tasks.json",
        f'//{SP}torch-logs:{SP}torch{SP}\n{{{SP}"env"{SP}:{SP}{{"TORCH_LOGS"{SP}:{SP}"Dynamo"{SP}}}{SP}}}',
    ),
]


@pytest.mark.parametrize(("name", "content"), CASES, ids=[c[0] for c in CASES])
def test_a_long_whitespace_run_is_checked_and_fixed_in_bounded_time(
    tmp_path: Path, name: str, content: str
) -> None:
    if name.endswith(".json"):
        path = tmp_path / ".vscode" / name
        path.parent.mkdir()
    else:
        path = tmp_path / name
    path.write_text(content)
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(path)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "1 file(s) checked" in proc.stderr


def test_the_value_parser_is_linear_on_whitespace() -> None:
    code = (
        "from torch_logs_lsp.value.analysis import analyse\n"
        "from torch_logs_lsp.value.parser import is_torch_valid\n"
        "from torch_logs_lsp.knowledge.registry import load_registry\n"
        f"n = {RUN}\n"
        "for v in ['dynamo,' + ' ' * n + 'guards', 'dynamo,' + ' ' * n + '!',"
        " ' ' * n, 'a,' * (n // 2) + '!', 'a,' + '\\t' * n]:\n"
        "    is_torch_valid(v)\n"
        "    analyse(v, load_registry())\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=TIMEOUT)
