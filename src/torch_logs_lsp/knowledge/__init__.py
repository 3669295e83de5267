"""What torch knows about TORCH_LOGS per release: the registry of names, version-specific
facts, aliases, suggestions and the packaged data they come from."""
