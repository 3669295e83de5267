"""The installed distribution's version and repository address (package metadata)."""

from __future__ import annotations

from functools import cache
from importlib import metadata

DISTRIBUTION = "torch-logs-lsp"
#: ``[project.urls]`` labels tried for the repository, in order.
REPOSITORY_LABELS = ("repository", "source", "source code", "homepage")


@cache
def version() -> str:
    """The installed version (``"0.1.0"``); ``"unknown"`` when the package is not
    installed (run from a source tree)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def repository_url() -> str | None:
    """The repository's address from ``[project.urls]`` (``Repository``, else
    ``Source``, else ``Homepage``), without a trailing ``/``; ``None`` when the
    metadata names none."""
    try:
        urls = metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    found: dict[str, str] = {}
    for entry in urls:
        label, _, url = entry.partition(",")
        found.setdefault(label.strip().lower(), url.strip().rstrip("/"))
    for label in REPOSITORY_LABELS:
        if found.get(label):
            return found[label]
    return None


def codes_doc_url(code: str | None = None, base: str | None = None) -> str | None:
    """The address of ``docs/codes.md`` in the repository (``base``, default
    :func:`repository_url`), at the code's anchor (``#tl201``) when given; ``None``
    without a repository. A GitHub/GitLab repository gets ``/blob/main/docs/codes.md``."""
    base = repository_url() if base is None else base.rstrip("/")
    if not base:
        return None
    url = f"{base}/blob/main/docs/codes.md"
    return f"{url}#{code.lower()}" if code else url


__all__ = ["DISTRIBUTION", "codes_doc_url", "repository_url", "version"]
