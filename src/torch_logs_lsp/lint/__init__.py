"""Checking documents: the pipeline from a document to its findings, rules across values,
suppressions and the document fixer."""
