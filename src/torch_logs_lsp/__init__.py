"""torch-logs-lsp: completion, hover docs, diagnostics and quick fixes for PyTorch's
``TORCH_LOGS`` environment variable and its family.

One package per concern (ARCHITECTURE.md): ``model``, ``knowledge``, ``value``,
``torch_env``, ``hosts``, ``lint``, ``set_logs``, ``notebook``, ``launch``, ``project``,
``cli`` (the ``torch-logs`` command) and ``server`` (the language server, the only one that
imports pygls and lsprotocol).
"""
