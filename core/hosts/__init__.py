"""Host extractors: find TORCH_LOGS-family assignments in documents of each file kind.

``detect_host(path, text)`` names the host kind of a document (from its path and content,
never from an editor's languageId alone); ``extract(host, text)`` returns its value spans.
"""
