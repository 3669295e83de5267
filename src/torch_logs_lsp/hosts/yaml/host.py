"""The YAML host: environment values in Compose files, GitHub Actions workflows, GitLab
CI files, Kubernetes manifests and any other YAML, and the shell code of CI steps.

tree-sitter-yaml finds the structure (it recovers from half-typed YAML with ERROR
nodes); each scalar is decoded from the document text (:mod:`.yaml_scalars`) with a map
from every decoded code point to its source. A document's flavour comes from its
top-level keys (:func:`.yaml_tree.flavour`: the file name is not known to ``extract``)
and decides the ``$`` rules and what a number means (:mod:`.yaml_values`). Where values
live: :mod:`.yaml_places` (``env``/``environment``/``variables`` entries) and
:mod:`.yaml_ci` (``run:`` steps and GitLab scripts, read by the shell host); a quote
left open while typing: :mod:`.yaml_open`; a file longer than tree-sitter-yaml reads
(32,767 rows): :mod:`.yaml_chunks`.
A document is parsed afresh on every call (measured: see ``tests/hosts/yaml/test_host.py``).
All offsets are code points into the document.
"""

from __future__ import annotations

import logging

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.interface import (
    runs_elsewhere,
)
from torch_logs_lsp.hosts.powershell.host import embedded_notes
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.hosts.yaml.chunks import too_long
from torch_logs_lsp.hosts.yaml.edits import encode_part as encode_part
from torch_logs_lsp.hosts.yaml.edits import removal as removal
from torch_logs_lsp.hosts.yaml.edits import typed_name as typed_name
from torch_logs_lsp.hosts.yaml.open import empty_value_at as empty_value_at
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, in_document_order, names_family

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "yaml",
    ("*.yml", "*.yaml"),
    ("yaml", "dockercompose", "github-actions-workflow"),
    vscode_languages=("yaml", "dockercompose", "github-actions-workflow"),
    # any YAML file (a Kubernetes manifest) must not start the server
    activation=("onLanguage:dockercompose", "onLanguage:github-actions-workflow"),
)
HOST: HostKind = "yaml"
DESCRIPTION = "YAML files (Compose, CI workflows, Kubernetes)"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = None  # what a reader does with a broken file varies
STRIPS_TRAILING_BLANKS = True  # a plain scalar ends before its trailing blanks
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "yaml"
LINE_COMMENTS = True


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: known by its name."""
    return False


may_hold_values = names_family
# an empty value in a `shell: pwsh` step: what it does depends on the PowerShell version
notes = embedded_notes
# A typographic quote is an ordinary character of a YAML scalar: the value keeps it (the
# fix removes it; straight quotes around part of a scalar would be kept as characters).
quote_findings = kept_findings(False)
path_facts = runs_elsewhere("a CI or container YAML file (runs on another machine)")


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured`: see :mod:`.yaml.capture`."""
    from torch_logs_lsp.hosts.yaml.capture import stderr_captured as captured

    return captured(text, spans)


def shared(text: str, spans: list[ValueSpan]) -> list[str | None]:
    """:meth:`~.interface.SharedValuesHost.shared`: see :mod:`.yaml.anchors`."""
    from torch_logs_lsp.hosts.yaml.anchors import shared as anchored

    return anchored(text, spans)


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of a YAML document in document order: environment entries
    (:mod:`.yaml_places`) and assignments in CI shell code (:mod:`.yaml_ci`). Offsets
    are code points into ``text``. ``cache`` keeps only the spans of the last text (a new
    text is parsed afresh). Never raises: a document the parser or a decoder fails on gives
    ``[]`` (logged)."""
    if cache is not None:
        cache.reset()
    if not names_family(text):
        return []
    try:
        spans = _extract(text)
    except Exception:  # bad input never crashes the server
        log.exception("yaml: extraction failed")
        return []
    if cache is not None:
        cache.host = HOST
        cache.store(text, spans, None, {})
    return spans


def _extract(text: str) -> list[ValueSpan]:
    from torch_logs_lsp.hosts.yaml.ci import code_spans
    from torch_logs_lsp.hosts.yaml.places import env_spans
    from torch_logs_lsp.hosts.yaml.tree import flavour

    src = Source(text)
    root = src.parse("yaml").root_node
    flavours = {doc.id: flavour(src, doc) for doc in root.named_children}
    spans = env_spans(src, root, flavours) + code_spans(src, root, flavours)
    if root.has_error and too_long(text):  # tree-sitter-yaml reads 32,767 rows
        from torch_logs_lsp.hosts.yaml.chunks import chunked_spans

        spans = chunked_spans(text)
    if root.has_error:  # a quote left open while typing: found in the text
        from torch_logs_lsp.hosts.yaml.open import open_spans

        first = next(iter(flavours.values()), "generic")
        spans += open_spans(text, first, {s.name_start for s in spans})
    return in_document_order(spans)
