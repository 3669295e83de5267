"""The diagnostic codes' documentation."""
