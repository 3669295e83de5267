"""set_logs() when TORCH_LOGS is already set: torch ignores the call."""

import os

os.environ["TORCH_LOGS"] = "+dynamo"

import torch

# TORCH_LOGS is set above, so torch only logs a warning here and changes nothing; it
# does not even check the value (TL631, information).
torch._logging.set_logs(dynamo=True)
