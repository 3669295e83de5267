"""A training script that configures torch's logs in Python, right and wrong."""

import logging
import os
import subprocess
import sys

import torch

# Wrong: no `loop_ordering` keyword (a TypeError; TORCH_LOGS=loop_ordering works: TL602).
torch._logging.set_logs(loop_ordering=True)
# Wrong: a component takes a level, not True (a ValueError: TL611).
torch._logging.set_logs(dynamo=True)
# Right: a level for a component, a bool for an artifact.
torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)

# Wrong: torch was imported above and read TORCH_LOGS then; this changes nothing (TL501).
os.environ["TORCH_LOGS"] = "+inductor"


def evaluate(checkpoint: str, level: str) -> None:
    # Wrong: an empty TORCH_LOGS crashes `import torch` in the child (TL001).
    subprocess.run([sys.executable, "eval.py", checkpoint], env={"TORCH_LOGS": ""})
    # Computed at run time: never flagged.
    subprocess.run([sys.executable, "eval.py", checkpoint], env={"TORCH_LOGS": f"+{level}"})


if __name__ == "__main__":
    evaluate(sys.argv[1], "dynamo")
