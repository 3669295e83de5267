"""Reading tree-sitter-yaml's tree for the YAML host (:mod:`.yaml`): decoded keys, the
scalar inside a node, mapping look-ups, a node's key path, and each document's flavour
(Compose, GitHub Actions, GitLab CI, Kubernetes or generic YAML) read from its top-level
keys. All offsets are code points into the document; nodes are tree-sitter nodes of
``Source.data``."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.yaml.scalars import Scalar, decode_scalar

if TYPE_CHECKING:
    import tree_sitter

SCALARS = frozenset({"plain_scalar", "double_quote_scalar", "single_quote_scalar", "block_scalar"})
MAPPINGS = frozenset({"block_mapping", "flow_mapping"})
SEQUENCES = frozenset({"block_sequence", "flow_sequence"})
PAIRS = frozenset({"block_mapping_pair", "flow_pair"})

COMPOSE = "compose"
ACTIONS = "actions"
GITLAB = "gitlab"
KUBERNETES = "kubernetes"
GENERIC = "generic"


class Inner(NamedTuple):
    """What a ``block_node``/``flow_node`` holds: ``node`` (a scalar, a collection or an
    alias, ``None`` when empty), ``tagged`` (an explicit tag such as ``!!str``),
    ``alias`` (``*name``)."""

    node: tree_sitter.Node | None
    tagged: bool
    alias: bool


def inner(node: tree_sitter.Node | None) -> Inner:
    """The content of a ``block_node``/``flow_node`` (anchors skipped)."""
    if node is None:
        return Inner(None, False, False)
    if node.type not in ("block_node", "flow_node"):
        return Inner(node, False, node.type == "alias")
    tagged = False
    found = None
    for kid in node.named_children:
        if kid.type == "tag":
            tagged = True
        elif kid.type not in ("anchor", "comment"):
            found = kid
    return Inner(found, tagged, found is not None and found.type == "alias")


def column(src: Source, node: tree_sitter.Node) -> int:
    """The column (code points) where ``node`` starts."""
    start = src.cp(node.start_byte)
    return start - (src.text.rfind("\n", 0, start) + 1)


def entry_indent(src: Source, node: tree_sitter.Node) -> int:
    """The indentation of the block collection entry holding value ``node``: the column
    of a sequence item's ``-``, else of ``node`` itself (a mapping pair: its key)."""
    parent = node.parent
    if parent is not None and parent.type == "block_sequence_item":
        return column(src, parent)
    return column(src, node)


def scalar(src: Source, node: tree_sitter.Node, indent: int = -1) -> Scalar:
    """The decoded scalar of a scalar node (see :mod:`.yaml_scalars`)."""
    return decode_scalar(src.text, src.cp(node.start_byte), src.cp(node.end_byte), indent)


def string(src: Source, value: tree_sitter.Node | None) -> str | None:
    """The string a ``flow_node``/``block_node`` holds when it is an untagged scalar that
    decodes (a plain scalar as written: keys and the flavour's words), else ``None``."""
    found = inner(value)
    node = found.node
    if node is None or found.tagged or node.type not in SCALARS:
        return None
    if node.type == "plain_scalar" and node.start_point[0] == node.end_point[0]:
        return src.text[src.cp(node.start_byte) : src.cp(node.end_byte)]  # verbatim
    return scalar(src, node).value


def key_of(src: Source, pair: tree_sitter.Node) -> str | None:
    """The decoded key of a mapping pair, or ``None`` (complex, tagged or alias keys)."""
    return string(src, pair.child_by_field_name("key"))


def pairs(mapping: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The pairs of a mapping node (``[]`` for anything else)."""
    if mapping is None or mapping.type not in MAPPINGS:
        return []
    return [kid for kid in mapping.named_children if kid.type in PAIRS]


def get(src: Source, mapping: tree_sitter.Node | None, key: str) -> tree_sitter.Node | None:
    """The value node (``block_node``/``flow_node``) of ``key`` in a mapping node (the
    last one, as most readers keep), or ``None``."""
    found = None
    for pair in pairs(mapping):
        if key_of(src, pair) == key:
            found = pair.child_by_field_name("value")
    return found


def mapping_of(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The mapping node a value node holds (untagged), or ``None``."""
    found = inner(value)
    if found.node is None or found.tagged or found.node.type not in MAPPINGS:
        return None
    return found.node


def items(sequence: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The item value nodes of a sequence node (``block_node``/``flow_node`` each)."""
    out: list[tree_sitter.Node] = []
    for kid in sequence.named_children:
        if kid.type == "block_sequence_item":
            out.extend(k for k in kid.named_children if k.type in ("block_node", "flow_node"))
        elif kid.type == "flow_node":
            out.append(kid)
    return out


def flavour_at(flavours: dict[int, str], node: tree_sitter.Node) -> str:
    """The flavour of the document holding ``node`` (``flavours``: by document node id)."""
    if len(flavours) == 1:
        for only in flavours.values():
            return only
    return flavours.get(document_of(node).id, GENERIC)


def document_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """The child of the stream that holds ``node`` (a document, or an ERROR node)."""
    while node.parent is not None and node.parent.type != "stream":
        node = node.parent
    return node


def path(src: Source, node: tree_sitter.Node) -> list[str]:
    """The keys from the document's top to ``node`` (outermost first): a pair adds its
    decoded key (``""`` when it has none), a sequence item ``"*"``."""
    out: list[str] = []
    parent = node.parent
    child = node
    while parent is not None and parent.type != "stream":
        if parent.type in PAIRS and parent.child_by_field_name("value") == child:
            out.append(key_of(src, parent) or "")
        elif parent.type == "block_sequence_item" or parent.type == "flow_sequence":
            out.append("*")
        child, parent = parent, parent.parent
    out.reverse()
    return out


def top_mapping(document: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The top-level pairs of a document (or of an ERROR node the parser left at the
    top: its direct pairs)."""
    if document.type == "ERROR":
        found = [kid for kid in document.named_children if kid.type in PAIRS]
        for kid in document.named_children:
            found.extend(pairs(mapping_of(kid)) if kid.type in ("block_node", "flow_node") else [])
        return found
    for kid in document.named_children:
        if kid.type in ("block_node", "flow_node"):
            return pairs(mapping_of(kid))
    return []


#: Top-level keys GitLab CI gives a meaning of its own (not jobs).
GITLAB_GLOBAL = frozenset(
    {"default", "include", "stages", "variables", "workflow", "image", "services", "cache"}
    | {"before_script", "after_script", "types", "pages", "spec"}
)
_SCRIPTS = ("script", "before_script", "after_script")


def _has_run_steps(src: Source, jobs: tree_sitter.Node) -> bool:
    """Whether the ``jobs:`` pair holds a job whose ``steps:`` list has a ``run:`` item."""
    for job in pairs(mapping_of(jobs.child_by_field_name("value"))):
        steps = inner(get(src, mapping_of(job.child_by_field_name("value")), "steps"))
        if steps.node is None or steps.node.type not in SEQUENCES:
            continue
        if any(get(src, mapping_of(step), "run") is not None for step in items(steps.node)):
            return True
    return False


def flavour(src: Source, document: tree_sitter.Node) -> str:
    """The flavour of a document from its top-level keys: ``services`` -> Compose;
    ``jobs`` with ``on`` or with a job's ``steps:`` holding a ``run:`` (or ``runs``
    holding ``steps``: a composite action) -> GitHub Actions;
    ``apiVersion`` with ``kind`` -> Kubernetes; ``stages`` or a top-level job
    with a ``script`` -> GitLab CI (before Compose: GitLab has a global ``services``);
    else generic YAML."""
    top = {key_of(src, pair): pair for pair in top_mapping(document)}
    if "apiVersion" in top and "kind" in top:
        return KUBERNETES
    if "jobs" in top and ("on" in top or _has_run_steps(src, top["jobs"])):
        return ACTIONS
    runs = top.get("runs")
    if runs is not None and get(src, mapping_of(runs.child_by_field_name("value")), "steps"):
        return ACTIONS
    if "stages" in top:
        return GITLAB
    for key, pair in top.items():
        if key is None or key in GITLAB_GLOBAL:
            continue
        job = mapping_of(pair.child_by_field_name("value"))
        if any(get(src, job, name) is not None for name in _SCRIPTS):
            return GITLAB
    return COMPOSE if "services" in top else GENERIC
