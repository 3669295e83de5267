#!/usr/bin/env bash
# Debugging a compile: knobs that torch silently ignores or reads differently than meant.
set -euo pipefail

# Right: an unquoted ~ is expanded by bash before torch sees it.
export TORCH_TRACE=~/traces/run1
export TORCHINDUCTOR_FORCE_DISABLE_CACHES=1

# Quoted, the ~ reaches torch as is: it writes into ./~/traces/run2 (TL422).
TORCH_TRACE="~/traces/run2" python train.py

# One letter short: no torch release reads it (TL421, with a rename to ..._CACHES).
TORCHINDUCTOR_FORCE_DISABLE_CACHE=1 python train.py

# Copied between scripts, read by no release (TL421).
TORCH_LOGS_RANKS=0 TORCHINDUCTOR_DUMP_IR=1 python train.py

# TORCH_DTRACE (read from torch 2.7) replaces TORCH_TRACE's directory and adds slow
# detailed events (TL423 on TORCH_TRACE).
TORCH_TRACE=/tmp/trace TORCH_DTRACE=/tmp/dtrace python train.py
