#!/usr/bin/env bash
# Launch training with compile logs.
set -euo pipefail

LOGS=${LOGS:-+dynamo}

# A space before the comma: import torch rejects the value.
export TORCH_LOGS="+dynamo ,guards"

# The prefix on an artifact does nothing: output_code is still enabled.
TORCH_LOGS=-output_code python train.py --epochs 1

# Computed at run time: not checked.
TORCH_LOGS="$LOGS" python train.py

TORCH_LOGS='+dynamo,'"guards" \
  python train.py --compile
