"""The torch-logs command: check, explain, registry, codes; the output formats and code
selection."""
