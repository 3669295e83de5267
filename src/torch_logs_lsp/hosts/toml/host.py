"""The TOML host: test and tox configuration in ``pyproject.toml``, ``tox.toml``,
``pytest.toml`` and ``.pytest.toml``.

Values are read where pytest-env, pytest 9 and tox 4 read them (:mod:`.toml_places`:
``[tool.pytest.ini_options] env = ["TORCH_LOGS=..."]``, ``[tool.pytest_env]``, tox's
``set_env`` tables). tree-sitter-toml finds the structure (:mod:`.toml_tree`, with
ERROR nodes for a document being typed); each string is decoded from the document text
(:mod:`.toml_strings`, tomllib's rules) with a map from every decoded code point to its
source, and a pytest-env entry is then read as pytest-env 1.8.7 reads it
(:mod:`.pytest_env`; where it stops pytest: :mod:`.usage_errors`).
Only these file names are claimed (a random ``*.toml`` is not); an untitled document
with the editor's ``toml`` language is read too (the server claims no titled one by its
language: ``server/documents.py``), and only tables that name pytest, pytest-env or
tox are read, so another TOML file gets no finding.

A document is parsed afresh on every call. All offsets are code points into the document.
"""

from __future__ import annotations

import logging

from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import (
    Stopped,
)
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.toml.edits import encode_part as encode_part
from torch_logs_lsp.hosts.toml.edits import removal as removal
from torch_logs_lsp.hosts.toml.edits import typed_name as typed_name
from torch_logs_lsp.hosts.toml.overwrites import overwritten as overwritten
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, in_document_order, names_family

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "toml",
    ("pyproject.toml", "tox.toml", "pytest.toml", ".pytest.toml"),
    ("toml",),
    vscode_by_name=True,  # VS Code has no toml language of its own; no other TOML file
    activation=("workspaceContains:pyproject.toml", "workspaceContains:**/{tox.toml,pytest.toml}"),
)
HOST: HostKind = "toml"
DESCRIPTION = "pyproject.toml/tox.toml/pytest.toml files"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
# tomllib (pytest, pytest-env, tox) rejects the whole file: pytest and tox stop with an
# error before any test runs.
NEVER_SET: str | None = "tomllib cannot read the file (pytest and tox stop with an error)"
STRIPS_TRAILING_BLANKS = False  # inside a TOML string; pytest-env strips, see pytest_env
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "toml"
LINE_COMMENTS = False

detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: known by its name."""
    return False


may_hold_values = names_family
# A typographic quote is an ordinary character of a TOML string (the value keeps it);
# outside a string the file is invalid TOML (no span is found there).
quote_findings = kept_findings(False)


def stops(text: str) -> list[Stopped]:
    """Where pytest-env 1.8.7 (or pytest 9) stops pytest before any test runs, in a
    reading that names a family variable (:mod:`.usage_errors`). Never raises."""
    from torch_logs_lsp.hosts.toml.usage_errors import stops as found

    return found(text)


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of a TOML document in document order (see :mod:`.toml_places`).
    Offsets are code points into ``text``. ``cache`` is not used (every call parses
    afresh). Never raises: a document the parser or a decoder fails on gives ``[]``
    (logged)."""
    if cache is not None:
        cache.reset()
    if not names_family(text):
        return []
    try:
        return _extract(text)
    except RecursionError:  # keys or tables nested thousands deep: not read
        log.warning("toml: nested too deeply to read; no value of it is checked")
        return []
    except Exception:  # bad input never crashes the server
        log.exception("toml: extraction failed")
        return []


def _extract(text: str) -> list[ValueSpan]:
    from torch_logs_lsp.hosts.toml.places import prefix, spans
    from torch_logs_lsp.hosts.toml.tree import parsed

    src, root, tree = parsed(text)
    found = spans(src, tree)
    if root.has_error:  # a string left open while typing: read from its line
        from torch_logs_lsp.hosts.toml.open import open_spans

        found += open_spans(src, root, prefix(tree), {s.name_start for s in found})
    return in_document_order(found)
