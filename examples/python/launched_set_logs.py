"""set_logs() in a script that a launch configuration runs with TORCH_LOGS set.

examples/.vscode/launch.json runs this file twice: "set_logs script" gets TORCH_LOGS
from the workspace's .env (the Python debugger's default envFile), "set_logs script
(env)" from its own env. Either way torch ignores the call below (TL632, information);
run as `python python/launched_set_logs.py` without TORCH_LOGS, it works.
"""

import logging

import torch

torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)
print(torch.__version__)
