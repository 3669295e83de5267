"""``torch-logs check`` over a repository with a Dockerfile, a
Compose file, a workflow, a Kubernetes pod and a shell script with wrappers reports exactly
the wrong values, with the right codes and columns, and nothing on the right ones. Each
host's own tests are in tests/hosts/dockerfile/, tests/hosts/yaml/ and tests/hosts/shell/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FILES = {
    "docker/Dockerfile": 'FROM python:3.12\nENV TORCH_LOGS=""\nRUN pip install torch\n',
    "compose.yaml": "services:\n  train:\n    image: train\n    environment:\n"
    "      - TORCH_LOGS=+dynamo\n      - TORCH_LOGS_OUT=/tmp/torch.log\n",
    ".github/workflows/train.yml": "name: train\non: [push]\njobs:\n  train:\n"
    "    runs-on: ubuntu-latest\n    env:\n      TORCH_LOGS: recompiles,graph_breaks\n"
    "    steps:\n      - run: TORCH_LOGS=aot_g python train.py\n",
    "k8s/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n"
    "  containers:\n    - name: train\n      image: train\n      env:\n"
    '        - name: TORCH_LOGS\n          value: "+dynamo ,guards"\n',
    "run.sh": "#!/bin/bash\nexec env TORCH_LOGS=recompile torchrun --nproc-per-node 2 train.py\n"
    "docker run -e TORCH_LOGS=Dynamo img\n",
}


def _col(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle) + 1


def test_container_and_ci_repository(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", ".", "--torch-version", "2.13"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=300,
    )
    rows = sorted(r.split(" ", 2)[0] + " " + r.split(" ", 2)[1] for r in proc.stdout.splitlines())
    wf, pod, sh = FILES[".github/workflows/train.yml"], FILES["k8s/pod.yaml"], FILES["run.sh"]
    empty = _col(FILES["docker/Dockerfile"], 2, '""') + 1  # between the quotes
    assert rows == sorted(
        [
            f"docker/Dockerfile:2:{empty}: TL001",
            f".github/workflows/train.yml:9:{_col(wf, 9, 'aot_g')}: TL201",
            f"k8s/pod.yaml:11:{_col(pod, 11, ' ,')}: TL102",
            f"run.sh:2:{_col(sh, 2, 'recompile ')}: TL201",
            f"run.sh:3:{_col(sh, 3, 'Dynamo')}: TL201",
        ]
    ), proc.stdout
    assert proc.returncode == 1
