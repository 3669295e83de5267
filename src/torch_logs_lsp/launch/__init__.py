"""VS Code launch configurations that run a Python file with TORCH_LOGS set."""
