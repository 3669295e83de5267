"""Shared types: value spans in a document, diagnostics with stable codes."""
