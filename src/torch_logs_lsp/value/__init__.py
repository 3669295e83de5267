"""The TORCH_LOGS value language and its family: the parser, the analysis with stable
codes, levels, the family's checks and fixes of a value."""
