"""The torch-logs language server: pygls glue over the checker.

Run it with ``torch-logs-lsp`` or ``python -m torch_logs_lsp.server`` (stdio).
"""
