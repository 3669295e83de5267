"""The JSONC host: VS Code ``launch.json``, ``tasks.json``, ``*.code-workspace`` and dev
container configurations (``devcontainer.json``, ``.devcontainer.json``).

The document is parsed with tree-sitter-json, which accepts ``//`` and ``/* */`` comments
and recovers from trailing commas and unfinished input with ERROR nodes. Tree-sitter finds
the structure (which object a ``"TORCH_LOGS": ...`` pair lives in); each string is then
decoded from the document text by :func:`scan_string` following RFC 8259 section 7, so that
every decoded code point maps to its escape (``\\u00e9`` is six code points, a surrogate
pair written as two ``\\uXXXX`` escapes is one code point from twelve).

Reported pairs are ``env`` entries where VS Code reads them:

- ``configurations[*].env`` (launch.json, and ``launch.configurations`` in a workspace);
- ``tasks[*].options.env`` and the top-level ``options.env`` (tasks.json, and ``tasks`` in
  a workspace);
- the same inside a platform block: ``configurations[*].linux.env``,
  ``tasks[*].windows.options.env``, ``osx.options.env``, ...
- the top-level ``containerEnv`` and ``remoteEnv`` objects of a ``devcontainer.json``
  (the dev container spec, https://containers.dev/implementors/json_reference/). Their
  values may reference variables (``${localEnv:X}``, ``${containerEnv:X}``,
  ``${localWorkspaceFolder}``, the spec's "Variables in devcontainer.json") substituted
  by the tool: such a value is not static (``value=None``), like VS Code's ``${env:X}``.
  A ``remoteEnv`` value ``null`` unsets the variable (the spec's schema allows string or
  null there): no span. Their processes run in the container, so their paths are not
  judged here (:func:`path_facts`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import (
    Parsed,
    Source,
    declare_query,
    edit_tree,
    query,
    query_cursor,
)
from torch_logs_lsp.hosts.incremental import DocumentCache, diff, near_escape
from torch_logs_lsp.hosts.jsonc.candidates import _candidates, _trailing_comma
from torch_logs_lsp.hosts.jsonc.edits import encode_part as encode_part
from torch_logs_lsp.hosts.jsonc.edits import removal as removal
from torch_logs_lsp.hosts.jsonc.edits import typed_name as typed_name
from torch_logs_lsp.hosts.jsonc.overwrites import overwritten as overwritten
from torch_logs_lsp.hosts.jsonc.strings import scan_string
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import outside_findings
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, names_family
from torch_logs_lsp.value.paths import PathFacts

if TYPE_CHECKING:
    import tree_sitter

SPEC = HostSpec(
    "jsonc",
    # devcontainer.json: in .devcontainer/, .devcontainer/<name>/ or the workspace root
    ("launch.json", "tasks.json", "devcontainer.json", ".devcontainer.json", "*.code-workspace"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    vscode_by_name=True,  # opened as jsonc, or json without the Dev Containers extension
    activation=(
        "onLanguage:jsonc",
        "workspaceContains:.vscode/launch.json",
        "workspaceContains:.vscode/tasks.json",
    ),
)
HOST: HostKind = "jsonc"
DESCRIPTION = "launch.json/tasks.json/*.code-workspace/devcontainer.json files"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = None  # VS Code's lenient parser may still read such a string
STRIPS_TRAILING_BLANKS = False
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "json"
LINE_COMMENTS = False


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: known by its name."""
    return False


quote_findings = outside_findings("outside a string they make the file invalid JSON")


#: A ``"containerEnv":`` or ``"remoteEnv":`` key: the document is a dev container
#: configuration (launch.json, tasks.json and workspaces have no such key).
_BROKEN = declare_query("json", "(ERROR) @e\n(MISSING) @m")
_CONTAINER_KEY = re.compile(r'"(?:containerEnv|remoteEnv)"\s*:')
_IN_CONTAINER = "a dev container configuration (its processes run in the container)"


def path_facts(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """Nothing for a VS Code launch or task configuration (its paths are judged here);
    for a dev container configuration (a ``containerEnv``/``remoteEnv`` key anywhere in
    ``text``: a textual test, so a file that only mentions one loses path checks, never
    gains a finding) every span runs elsewhere."""
    facts = PathFacts(runs_elsewhere=_IN_CONTAINER) if _CONTAINER_KEY.search(text) else PathFacts()
    return [facts] * len(spans)


def may_hold_values(text: str) -> bool:
    """A family name, or a ``\\u`` escape (a key may spell one: ``"TORCH\\u005fLOGS"``)."""
    return "\\u" in text or names_family(text)


_VSCODE_VARIABLE = re.compile(r"\$\{[^}]*\}")


def _span(src: Source, variable: str, key: tree_sitter.Node, value: tree_sitter.Node) -> ValueSpan:
    text = src.text
    name_start, name_end = src.cp(key.start_byte) + 1, src.cp(key.end_byte) - 1
    start = src.cp(value.start_byte)
    if value.type in ("string", '"') and text[start : start + 1] == '"':
        s = scan_string(text, start)
        # VS Code substitutes ${env:X}, ${input:x}, ${workspaceFolder}, ... in launch and
        # task env values before the process starts: not knowable here, never diagnosed.
        ok = s.valid and _VSCODE_VARIABLE.search(s.value) is None
        return ValueSpan(
            variable=variable,
            host=HOST,
            name_start=name_start,
            name_end=max(name_start, name_end),
            value=s.value if ok else None,
            char_starts=tuple(s.starts) if ok else (),
            char_ends=tuple(s.ends) if ok else (),
            content_start=start + 1,
            content_end=s.content_end,
            raw_start=start,
            raw_end=s.raw_end,
            quote='"',
            terminated=s.terminated,
        )
    end = max(start, src.cp(value.end_byte))
    return ValueSpan(
        variable=variable,
        host=HOST,
        name_start=name_start,
        name_end=max(name_start, name_end),
        value=None,
        char_starts=(),
        char_ends=(),
        content_start=start,
        content_end=end,
        raw_start=start,
        raw_end=end,
        quote="",
    )


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """Find the TORCH_LOGS-family entries of VS Code ``env`` objects in a JSONC document.

    Returns one :class:`ValueSpan` per ``"VAR": value`` pair in an ``env`` object listed in
    the module docstring, in document order; offsets are code point indexes into ``text``.
    ``name_start``/``name_end`` cover the key between its quotes. A string value is decoded
    as RFC 8259 says (what VS Code passes to the process); a string with an invalid escape
    and any non-string value (number, ``null``, object) has ``value=None``. A string cut
    off by the end of its line gives ``terminated=False``. Broken documents (missing
    braces, trailing commas, text being typed) are tolerated. With ``cache`` (one per
    open document) the previous version's tree and spans are reused: an edit inside a
    string value is not parsed at all (:func:`_extract_in_string`), any other edit
    re-parses incrementally (see :mod:`.incremental`); the result is the same. Never raises.
    """
    src = Source(text)
    edit = cache.edit_for(HOST, text) if cache is not None else None
    state = cache.state if cache is not None and edit is not None else None
    if cache is not None and isinstance(state, Parsed):
        moved = _extract_in_string(src, cache, state)
        if moved is not None:
            return moved
    if isinstance(state, Parsed):
        tree = src.parse("json", (state.data, state.tree), stale=state.stale)
        if tree.root_node.has_error:
            # tree-sitter-json's error recovery can differ between an incremental and a
            # fresh parse (found by tests/hosts/test_incremental.py): a document with an
            # error (a trailing comma counts) is parsed afresh, to read the same however
            # it was reached. Typing inside a string value never gets here.
            tree = src.parse("json")
    else:
        tree = src.parse("json")
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for variable, key, value in _candidates(src, tree.root_node):
        name_start = src.cp(key.start_byte) + 1
        if name_start in contexts:
            continue  # an ERROR region can offer one pair twice (loose tokens and a pair)
        span = None
        if cache is not None and value.type == "string":
            # Only a string's extent is fixed by its own text; that of another value (a
            # number, an ERROR) can grow with what is typed after it.
            span = cache.reusable(edit, variable, name_start, src.cp(value.start_byte), value.type)
        spans.append(span or _span(src, variable, key, value))
        contexts[name_start] = value.type
    spans.sort(key=lambda s: s.name_start)
    if cache is not None:
        cache.computed = len(spans) - cache.reused
        cache.store(text, spans, Parsed(src.data, tree, settled=_settled(tree.root_node)), contexts)
    return spans


def _settled(root: tree_sitter.Node) -> bool:
    """Whether the tree's only syntax errors are trailing commas: an ERROR holding only
    commas, or a value MISSING after a comma in an array. Elsewhere tree-sitter's error
    recovery weighs the lengths of the tokens it skips, so typing in a string can change
    the recovery chosen, and with it the tree (found by the incremental property test)."""
    if not root.has_error:
        return True
    cursor = query_cursor(query("json", _BROKEN))
    for _, captures in cursor.matches(root):
        if not all(_trailing_comma(node) for node in captures.get("e", [])):
            return False
        for node in captures.get("m", []):
            before = node.prev_sibling
            parent = node.parent
            if parent is None or parent.type != "array" or before is None or before.type != ",":
                return False
    return True


#: Bytes whose insertion or removal can change where a JSON string ends or what it is.
_STRING_BREAKERS = re.compile(rb'["\\\x00-\x1f]')


def _string_at(root: tree_sitter.Node, start: int, end: int) -> tree_sitter.Node | None:
    """The string node holding the bytes ``[start, end]``, if any."""
    node = root.descendant_for_byte_range(start, end)
    while node is not None and node.type != "string":
        node = node.parent
    return node


def _extract_in_string(src: Source, cache: DocumentCache, parsed: Parsed) -> list[ValueSpan] | None:
    """:func:`extract` for an edit strictly inside one string that is not a key, changing
    no quote, backslash or control character: the tokens, hence the tree's shape and every
    pair, stay as they were, so the tree is only told about the edit (not re-parsed), the
    spans after it move and the span holding the edit (if any) is decoded again. ``None``
    for any other edit (nothing is changed then)."""
    old_text, old_spans = cache.text, cache.spans
    if old_text is None or old_spans is None or not parsed.settled:
        return None
    edit = diff(parsed.data, src.data)
    if edit is None:
        return None
    old_bytes = parsed.data[edit.start : edit.old_end]
    new_bytes = src.data[edit.start : edit.new_end]
    if _STRING_BREAKERS.search(old_bytes) or _STRING_BREAKERS.search(new_bytes):
        return None
    if near_escape(src.data, edit.start):
        return None
    node = _string_at(parsed.tree.root_node, edit.start, edit.old_end)
    if node is None or node.has_error or parsed.data[node.end_byte - 1 : node.end_byte] != b'"':
        return None
    if not node.start_byte < edit.start <= edit.old_end < node.end_byte:
        return None
    parent = node.parent
    if parent is None or parent.type == "ERROR" or parent.child_by_field_name("key") == node:
        return None
    start = src.cp(edit.start)
    string = (src.cp(node.start_byte), src.cp(node.end_byte))  # old = new: before the edit
    for span in old_spans:
        if span.raw_start < start < span.raw_end and (span.raw_start, span.raw_end) != string:
            return None  # a value that is not this string (an ERROR region) holds the edit
    delta = len(src.text) - len(old_text)
    edit_tree(parsed, src.data, edit)
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for span in old_spans:
        context = cache.context_of(span.name_start)
        if span.raw_start < start < span.raw_end:  # the edited value: decode it again
            value = _string_at(parsed.tree.root_node, edit.start, edit.new_end)
            key = value.parent.child_by_field_name("key") if value and value.parent else None
            if value is None or key is None:
                return None  # cannot happen: the tree's shape did not change
            span = _span(src, span.variable, key, value)
        elif span.name_start >= start:
            span = span.moved(delta)
        contexts[span.name_start] = context
        spans.append(span)
    cache.reused = len(spans)
    cache.computed = 0
    cache.store(src.text, spans, parsed, contexts)
    return spans
