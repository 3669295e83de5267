"""torch._logging.set_logs(...) calls: checks, keywords per release, conversions to
TORCH_LOGS values and fixes."""
