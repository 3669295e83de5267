"""``torch-logs check`` on one folder holding one input per rule across values and names
(an overwritten export, a misspelled name in a SLURM script, typographic quotes, a foreign
level syntax, a directory the script creates, misspelled names that need their
description's alias, an unpackaged release) reports exactly the right findings: each
kind's own tests are in tests/lint/test_dead_values.py, tests/lint/test_misspelled.py,
tests/hosts/test_typographic.py, tests/value/test_levels.py, tests/lint/test_created_paths.py,
tests/knowledge/test_suggest.py and tests/cli/test_torch.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CREATED = "/tmp/torch-logs-created-dir-xyz"
RELEASE = ("--torch-version", "9.9")

FILES = {
    "overwrite.sh": '#!/bin/bash\nexport TORCH_LOGS="+recompiles"\n'
    'export TORCH_LOGS="+graph_breaks"\npython train.py\n',
    "slurm.sh": "#!/bin/bash\n#SBATCH --job-name=prof\n#SBATCH --gres=gpu:1\n"
    "export TORCH_LOG=perf_hints\nexport TORCH_LOGS_OUT=/scratch/nowhere/torch_logs.txt\n"
    "srun python train.py\n",
    "curly.sh": "#!/bin/bash\nTORCH_LOGS_FORMAT=“%(levelname)s:%(message)s” python t.py\n",
    "levels.env": 'TORCH_LOGS="spyre.inductor.passes:DEBUG"\n',
    "created.sh": f"#!/bin/bash\nmkdir -p {CREATED}/prof/dump\necho start\necho really\n"
    f"export TORCH_LOGS_OUT={CREATED}/prof/dump/torch_logs.txt\npython train.py\n",
    "names.env": "TORCH_LOGS=aot_autograd,inductor_output_code,recompile,graph_break,"
    "dynamo_guards\n",
}

EXPECTED = [
    ("curly.sh:2:19: TL109", "bash stops the script at this line"),
    ("levels.env:1:13: TL207", "write `+spyre.inductor.passes`"),
    ("names.env:1:12: TL201", "did you mean `aot`"),
    ("names.env:1:25: TL201", "did you mean `output_code`?"),
    ("names.env:1:46: TL201", "did you mean `recompiles`"),
    ("names.env:1:56: TL201", "did you mean `graph_breaks`"),
    ("names.env:1:68: TL201", "did you mean `guards`"),
    ("overwrite.sh:2:20: TL502", "set again before any command runs (line 3)"),
    ("overwrite.sh:3:20: TL301", "`+graph_breaks` still enables `graph_breaks`"),
    ("slurm.sh:4:8: TL408", "did you mean `TORCH_LOGS`?"),
]


def test_common_mistakes_in_one_folder(tmp_path: Path):
    shutil.rmtree(CREATED, ignore_errors=True)  # created by the script, not here
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", ".", "--show-hints", *RELEASE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=300,
    )
    rows = proc.stdout.splitlines()
    assert [r.split(" ", 2)[0] + " " + r.split(" ", 2)[1] for r in rows] == [
        where for where, _ in EXPECTED
    ], proc.stdout
    for row, (_, part) in zip(rows, EXPECTED, strict=True):
        assert part in row, row
    # no TL402 for the directory created three lines before, none in the SLURM script
    # (it runs elsewhere), no TL401 on the line bash cannot parse; the release is named
    assert "TL402" not in proc.stdout and "TL401" not in proc.stdout
    assert "torch-logs: note: torch 9.9 is not packaged; using 2.15" in proc.stderr
    assert proc.returncode == 1
