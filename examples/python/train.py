"""Setting TORCH_LOGS from Python: torch reads it once, at `import torch`."""

import os
import subprocess
import sys

# Right: set before torch is imported (setdefault keeps a value given by the caller).
os.environ.setdefault("TORCH_LOGS", "+dynamo,guards")
os.environ["TORCH_LOGS_FORMAT"] = "%(levelname)s %(name)s: %(message)s"

import torch


def evaluate(checkpoint: str, level: str) -> None:
    # Wrong: an empty TORCH_LOGS crashes `import torch` in the child (TL001).
    subprocess.run([sys.executable, "eval.py", checkpoint], env={**os.environ, "TORCH_LOGS": ""})
    # Wrong: a typo, written with an escape (TL201 at `aot_g`).
    subprocess.run(
        [sys.executable, "eval.py", checkpoint],
        env=dict(os.environ, TORCH_LOGS="\x2bdynamo,aot_g"),
    )
    # Computed at run time: never flagged.
    subprocess.run([sys.executable, "eval.py"], env={"TORCH_LOGS": f"+{level}"})


if __name__ == "__main__":
    # Wrong: torch was imported above and read TORCH_LOGS then; this changes nothing (TL501).
    os.environ["TORCH_LOGS"] = "+inductor"
    print(torch.__version__)
    evaluate(sys.argv[1], "dynamo")
