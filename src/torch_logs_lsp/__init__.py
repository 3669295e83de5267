"""torch-logs-lsp: completion, hover docs, diagnostics and quick fixes for PyTorch's
``TORCH_LOGS`` environment variable and its family.

``torch_logs_lsp.core`` is the checker (no LSP); ``torch_logs_lsp.server`` is the language
server on top of it.
"""
