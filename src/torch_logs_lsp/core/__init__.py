"""Pure TORCH_LOGS knowledge: registry, value parser, analysis, host extractors, CLI.

Nothing in this package imports pygls or lsprotocol.
"""
