"""Setting the compiler's knobs from Python, before torch is imported."""

import os

os.environ["TORCH_TRACE"] = "~/traces"  # a str is never expanded: ./~/traces (TL422)
os.environ["TORCHDYNAMO_VERBOSE"] = "1"  # full stacks on errors only (TL424)
os.environ["TORCHINDUCTOR_CACHE_DIR"] = "/tmp/inductor-cache"  # right

import torch

print(torch.compile(lambda x: x + 1)(torch.ones(2)))
