#!/usr/bin/env bash
# Launch lines whose TORCH_LOGS reaches the process through another command.

# a wrapper chain: env sets it for torchrun (torch has no "recompile": "recompiles")
exec env TORCH_LOGS=recompile torchrun train.py

# the container's environment: log names are case-sensitive ("dynamo")
docker run --rm -e TORCH_LOGS=Dynamo img python train.py

# correct: the script bash -c runs sets it for python
srun -N 1 bash -c 'TORCH_LOGS=+dynamo,guards python train.py'
