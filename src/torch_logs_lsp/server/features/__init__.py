"""LSP features, one module each; each turns core results into lsprotocol types."""
