"""The Python host: values of the TORCH_LOGS family written in Python source (``*.py``).

tree-sitter-python finds the structure, so half-typed code (an unclosed parenthesis, a
broken ``def``) still reads what is complete; each string literal is then decoded from the
document text by :mod:`.py_strings`, exactly as Python reads it. A document without a
family name costs one substring search per name and is never parsed.

What counts as a value (``K`` a family name written as a static ``str`` literal, ``v`` the
value expression):

- ``m[K] = v`` on any mapping (``os.environ``, ``environ``, an ``env`` dict being built);
- calls named ``setdefault(K, v)``, ``putenv(K, v)`` (``os.putenv``), ``setenv(K, v)``
  (pytest's ``monkeypatch``), also with their keywords (``setenv(name=K, value=v)``,
  ``setdefault(K, default=v)``; :data:`_PAIR_KEYWORDS`);
- keyword arguments ``K=v`` of calls named ``update`` (``os.environ.update(...)``) and
  ``dict`` (``dict(os.environ, K=v)``, ``mock.patch.dict(os.environ, K=v)``);
- ``K: v`` in any dict display: ``os.environ.update({...})``, ``patch.dict(os.environ,
  {...})`` (decorators too), ``{**os.environ, K: v}``, ``subprocess.run(..., env={...})``,
  ``os.execve(path, args, {...})``.

Reads (``os.environ[K]`` as an expression, ``os.environ.get(K)``, ``os.getenv(K)``) and
names in comments or docstrings are not values. ``v`` is static when it is a ``str``
literal or an implicit concatenation of them (parentheses allowed); anything else (an
f-string, a name, a call, ``%``, ``.format()``, ``+``, a bytes literal) gives
``value=None``: no finding. A key written with escapes (``"TORCH\\x5fLOGS"``) is not
found (family names are located by substring search).

Calls holding values are recognized in one place, :data:`_CALLS` (by the last name of the
called expression). ``torch._logging.set_logs(...)`` calls are found apart, by
:mod:`.python_set_logs` (:func:`set_logs_calls`), and checked by :mod:`..set_logs`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Parsed, Source, edit_tree
from torch_logs_lsp.hosts.incremental import DocumentCache, diff, near_escape
from torch_logs_lsp.hosts.interface import Note, Overwrite, line_before
from torch_logs_lsp.hosts.python.assign import _string_of, _value_of
from torch_logs_lsp.hosts.python.values import key_of, unterminated, unwrap, value_span
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import outside_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan, names_family

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.hosts.python.registrations import Registered
    from torch_logs_lsp.set_logs.call import SetLogsCall
    from torch_logs_lsp.set_logs.site import SetLogsSite
    from torch_logs_lsp.set_logs.source import SetLogsSource

log = logging.getLogger(__name__)
SPEC = HostSpec("python", ("*.py",), ("python",), vscode_languages=("python",))
HOST: HostKind = "python"
DESCRIPTION = "Python files"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = None  # Python refuses to run the file; nothing to add
STRIPS_TRAILING_BLANKS = False
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = "python"
LINE_COMMENTS = False
_NEEDLES = re.compile(
    rb"TORCH_LOGS(?:_OUT|_FORMAT|_TRACE_ID_FILTER)?|TORCH_TRACE|TORCH_COMPILE_DEBUG"
)


detect_name = SPEC.claims


def detect_content(name: str, head: str) -> bool:
    """Never: a Python file is known by its name."""
    return False


may_hold_values = names_family

#: CPython's limit on indentation levels (``MAXINDENT``, Parser/tokenizer.h): a module
#: nested deeper is a SyntaxError ("too many levels of indentation"), and
#: tree-sitter-python 0.25 crashes the process (SIGSEGV) on ~550 levels.
MAX_INDENT_LEVELS = 100
_LINE_INDENT = re.compile(r"^[ \t]*(?=[^\s#])", re.M)


def too_deep(text: str) -> bool:
    """See :func:`_too_deep`; the answer for the last text is remembered (each version is
    asked by the extraction and by the set_logs features)."""
    global _deep
    if _deep is None or (_deep[0] is not text and _deep[0] != text):
        _deep = (text, _too_deep(text))
    return _deep[1]


_deep: tuple[str, bool] | None = None


def _too_deep(text: str) -> bool:
    """Whether ``text`` indents more than :data:`MAX_INDENT_LEVELS` levels (counted like
    Python's tokenizer, by the leading blanks of each line that holds code; lines inside
    strings or brackets count too, which can only overcount): such a module never runs,
    and is not parsed (no values, no findings)."""
    stack = [0]
    if "\r" in text:  # a lone CR ends a line too (same length: offsets do not matter here)
        text = text.replace("\r", "\n")
    for m in _LINE_INDENT.finditer(text):
        width = m.end() - m.start()
        if width > stack[-1]:
            stack.append(width)
            if len(stack) > MAX_INDENT_LEVELS + 1:
                return True
        else:
            while width < stack[-1]:
                stack.pop()
    return False


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """Find the TORCH_LOGS-family values in Python source (see the module docstring).

    Returns one :class:`ValueSpan` per assignment, in document order, with every offset a
    code point index into ``text``; ``name_start``/``name_end`` cover the key string's body
    (or the keyword); ``quote`` is the literal's quote delimiter (``'``, ``"``, ``'\'\''``,
    ``\"\"\"``; ``None`` for an implicit concatenation). Each family name in the text is
    looked up in the tree (no walk over the whole tree). With ``cache`` (one per open
    document) an edit inside the body of a string value that changes no quote, backslash,
    brace or line break, in a module without syntax errors, is not parsed at all
    (:func:`_extract_in_value`); any other edit parses afresh and reuses the spans away
    from it. The result is the same. Never raises.
    """
    src = Source(text, lone_cr_is_lf=True)
    edit = cache.edit_for(HOST, text) if cache is not None else None
    if cache is not None and edit is not None and isinstance(cache.state, Parsed):
        moved = _extract_in_value(src, cache, cache.state)
        if moved is not None:
            return moved
    if too_deep(text):
        if cache is not None:
            cache.reset()
        return []
    tree = src.parse("python")
    root = tree.root_node
    spans: dict[int, ValueSpan] = {}
    contexts: dict[int, object] = {}  # name start -> the value node's type
    for m in _NEEDLES.finditer(src.data):
        node = root.named_descendant_for_byte_range(m.start(), m.end())
        key = _string_of(node) if node is not None else None
        if key is None:
            continue
        if key.type == "identifier":
            word = key.text.decode("utf-8", "replace") if key.text is not None else ""
            found = (word, src.cp(key.start_byte), src.cp(key.end_byte)) if word in FAMILY else None
        else:
            found = key_of(src, key)
        if found is None or found[1] in spans:
            continue
        if key.type == "string":
            typing = unterminated(src, found, key)
            if typing is not None:
                spans[found[1]] = typing
                contexts[found[1]] = "open"
                continue
        value = unwrap(_value_of(src, key))
        if value is None:
            continue
        span = None
        if cache is not None:
            start = src.cp(value.start_byte)
            span = cache.reusable(edit, found[0], found[1], start, value.type)
            if span is not None and span.raw_end != src.cp(value.end_byte):
                span = None  # an implicit concatenation grew or shrank
                cache.reused -= 1
        spans[found[1]] = span or value_span(src, found[0], (found[1], found[2]), value)
        contexts[found[1]] = value.type
    out = sorted(spans.values(), key=lambda s: s.name_start)
    if cache is not None:
        cache.computed = len(out) - cache.reused
        cache.store(text, out, Parsed(src.data, tree, settled=not root.has_error), contexts)
    _remember(text, tree, out)
    return out


#: Bytes whose insertion or removal can change where a literal ends, what an escape
#: reads, an f-string's replacement fields or a line.
_BREAKERS = re.compile(rb"[\"'\\{}\r\n]")


def _extract_in_value(src: Source, cache: DocumentCache, parsed: Parsed) -> list[ValueSpan] | None:
    """:func:`extract` for an edit strictly inside the body of one string literal of a
    span's value in a module without syntax errors (where tree-sitter recovers from an
    error, it weighs the tokens it skips, so typing in a string can change the recovery),
    changing no quote, backslash, brace or line break: the tokens, hence
    the tree's shape and every assignment, stay as they were, so the tree is only told
    about the edit, the spans after it move and the edited span is decoded again.
    ``None`` for any other edit (nothing is changed then)."""
    old_text, old_spans = cache.text, cache.spans
    if old_text is None or old_spans is None or not parsed.settled:
        return None  # tree-sitter's error recovery may read an edited text otherwise
    edit = diff(parsed.data, src.data)
    if edit is None:
        return None
    if _BREAKERS.search(parsed.data[edit.start : edit.old_end]) or _BREAKERS.search(
        src.data[edit.start : edit.new_end]
    ):
        return None
    if near_escape(src.data, edit.start):
        return None
    node = parsed.tree.root_node.descendant_for_byte_range(edit.start, edit.old_end)
    string = _string_of(node) if node is not None and node.type != "identifier" else None
    if string is None or string.type != "string" or string.has_error:
        return None
    kids = string.children
    if len(kids) < 2 or kids[0].type != "string_start" or kids[-1].type != "string_end":
        return None
    if not kids[0].end_byte <= edit.start <= edit.old_end <= kids[-1].start_byte:
        return None
    delta = len(src.text) - len(old_text)
    start, old_end = src.cp(edit.start), src.cp(edit.new_end) - delta
    owner = [s for s in old_spans if s.content_start <= start and old_end <= s.content_end]
    if len(owner) != 1 or owner[0].value is None:
        return None
    span = owner[0]
    edit_tree(parsed, src.data, edit)
    value = parsed.tree.root_node.descendant_for_byte_range(edit.start, edit.new_end)
    while value is not None and value.parent is not None:
        up = value.parent
        if src.cp(up.start_byte) < span.raw_start or src.cp(up.end_byte) > span.raw_end + delta:
            break
        value = up
    if value is None:
        return None
    new = value_span(src, span.variable, (span.name_start, span.name_end), value)
    if new.raw_start != span.raw_start or new.raw_end != span.raw_end + delta:
        return None  # cannot happen: the value's extent moved only by the edit
    spans: list[ValueSpan] = []
    contexts: dict[int, object] = {}
    for old in old_spans:
        context = cache.context_of(old.name_start)
        moved = new if old is span else old.moved(delta) if old.name_start > start else old
        contexts[moved.name_start] = context
        spans.append(moved)
    cache.reused, cache.computed = len(spans) - 1, 1
    cache.store(src.text, spans, parsed, contexts)
    _remember(src.text, parsed.tree, spans)
    return spans


def encode_part(quote: str, value: str) -> str | None:
    """``value`` as the body of a (not raw) literal with quote delimiter ``quote``:
    ``\\`` and the quote character escaped, line breaks and other characters that are
    not printable as escapes (``\\n``, ``\\x00``, ``\\u2028``); ``None`` for another
    ``quote``."""
    if quote not in ("'", '"', "'''", '"""'):
        return None
    out = []
    for c in value:
        if c == "\\" or c == quote[0]:
            out.append("\\" + c)
        elif not c.isprintable():
            out.append(repr(c)[1:-1])
        else:
            out.append(c)
    return "".join(out)


#: The last document extracted, its tree and its spans (reused by :func:`notes` and
#: :func:`set_logs_calls` for the same text: the server asks for them right after).
#: The last extractions (newest first, at most :data:`_KEEP`): text, tree, spans. Two, so
#: that extracting another text in between (TL408 extracts a renamed copy) does not cost
#: the document's set_logs features a parse.
_last: list[tuple[str, tree_sitter.Tree, list[ValueSpan]]] = []
_KEEP = 2
#: The longest text (code points) whose tree is remembered.
KEPT_TREE_CHARS = 1 << 20


def _remember(text: str, tree: tree_sitter.Tree, spans: list[ValueSpan]) -> None:
    # an entry with the same tree object is dropped: the fast path edits the tree in place
    older = [e for e in _last if e[1] is not tree and e[0] != text]
    if len(text) > KEPT_TREE_CHARS:  # a tree takes many times its text: parsed again
        _last[:] = older[: _KEEP - 1]
        return
    _last[:] = [(text, tree, spans), *older[: _KEEP - 1]]


def _remembered(text: str) -> tuple[tree_sitter.Tree, list[ValueSpan]] | None:
    for seen, tree, spans in _last:
        if seen is text or seen == text:
            return tree, spans
    return None


def _tree_of(text: str) -> tree_sitter.Tree | None:
    """The tree of a remembered extraction of ``text``."""
    found = _remembered(text)
    return found[0] if found is not None else None


def _spans_of(text: str) -> list[ValueSpan]:
    """The spans of ``text``: remembered, else extracted."""
    found = _remembered(text)
    return found[1] if found is not None else extract(text)


#: Outside a str literal a typographic quote is a SyntaxError (``ast.parse``).
quote_findings = outside_findings(
    "outside a str literal Python raises SyntaxError (invalid character): the file never runs"
)


def notes(text: str, spans: list[ValueSpan]) -> list[Note]:
    """TL501 for a value set in this process after ``import torch`` (see
    :mod:`.python_order`)."""
    from torch_logs_lsp.hosts.python.order import late_writes

    return late_writes(text, spans, _tree_of(text))


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """Values replaced before anything reads them (see :mod:`.python_overwrites`)."""
    from torch_logs_lsp.hosts.python.overwrites import dead_writes

    return dead_writes(text, spans, _tree_of(text))


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """Values given to child processes that capture stderr (see :mod:`.python.capture`)."""
    from torch_logs_lsp.hosts.python.capture import stderr_captured as captured

    return captured(text, spans, _tree_of(text))


def set_logs_calls(text: str) -> list[SetLogsCall]:
    """The calls of torch's ``set_logs`` (see :mod:`.python_set_logs`), reusing the tree
    of the last extraction of the same text."""
    from torch_logs_lsp.hosts.python.call_site import tree_for
    from torch_logs_lsp.hosts.python.order import torch_logs_set_before
    from torch_logs_lsp.hosts.python.set_logs import set_logs_calls as calls

    if "set_logs" not in text or too_deep(text):  # the substring test first: ~free
        return []

    found = calls(text, tree_for(text, _tree_of(text)))
    if not found or "TORCH_LOGS" not in text:
        return found
    spans = _spans_of(text)
    set_at = torch_logs_set_before(text, spans, _tree_of(text), [c.start for c in found])
    return [
        replace(c, torch_logs_set=f"line {set_at[c.start]}") if c.start in set_at else c
        for c in found
    ]


def set_logs_source(text: str) -> SetLogsSource | None:
    """How ``text`` spells ``logging``, ``os.environ`` and torch's ``set_logs`` for the
    ``set_logs`` fixes (see :mod:`.python_fix_source`); ``None`` for a module with neither
    ``set_logs`` nor ``TORCH_LOGS``. Never raises."""
    from torch_logs_lsp.hosts.python.fix_source import set_logs_source as source

    if ("set_logs" not in text and "TORCH_LOGS" not in text) or too_deep(text):
        return None
    global _source_of
    if _source_of is not None and (_source_of[0] is text or _source_of[0] == text):
        return _source_of[1]  # (completion asks for each value typed)
    try:
        spans = _spans_of(text)
        calls = set_logs_calls(text)
        tree = _tree_of(text)
        found = source(text, tree, calls, spans) if tree is not None else None
    except Exception:  # a bug must not cost the other features
        log.exception("reading the names of a Python module for a fix failed")
        return None
    _source_of = (text, found)
    return found


_source_of: tuple[str, SetLogsSource | None] | None = None


def registered(text: str) -> Registered:
    """The names ``text`` registers with torch (see :mod:`.registrations`)."""
    from torch_logs_lsp.hosts.python.registrations import registered as names

    return names(text)


def set_logs_site(text: str, offset: int) -> SetLogsSite | None:
    """Where ``offset`` stands in torch's ``set_logs(...)`` call, half-typed too (see
    :mod:`.python_call_site`)."""
    from torch_logs_lsp.hosts.python.call_site import set_logs_site as site
    from torch_logs_lsp.hosts.python.call_site import tree_for

    if "set_logs" not in text or too_deep(text):  # the substring test first: ~free
        return None
    return site(text, offset, tree_for(text, _tree_of(text)), set_logs_source)


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """None: removing a Python statement or a dict entry is left to the user."""
    return None


#: A key string being typed where a family value can follow: ``environ["``,
#: ``.setdefault("`` (``setenv``, ``putenv``), or a dict key after ``{`` / ``,``.
_KEY_TYPED = re.compile(
    r"""(?:\[|\b(?:setdefault|setenv|putenv)\(|[{,])[ \t]*[rRuU]?["']([A-Z][A-Z_]*)$"""
)


#: How family names and compile knobs' names start (``TORCHINDUCTOR_...``, ``INDUCTOR_...``).
_ENV_STARTS = ("TORCH", "INDUCTOR_")


def _env_like(word: str) -> bool:
    """Whether a typed key may become a family name or a knob's (see :data:`_ENV_STARTS`)."""
    return any(word[: len(p)] == p[: len(word)] for p in _ENV_STARTS)


def typed_name(text: str, offset: int) -> str | None:
    """The start of a key string being typed (``os.environ["TORCH_``, ``{"TORCH_``,
    ``setdefault("T``, ``["TORCHINDUCTOR_``): at least its first letter, upper case, of a
    family name or a compile knob's (an empty string after a quote is left alone: most
    strings are not variable names)."""
    line = line_before(text, offset)
    m = _KEY_TYPED.search(line)
    word = m.group(1) if m is not None else ""
    if m is None or not _env_like(word) or "#" in line[: m.start()]:
        return None  # (a ``#`` before it: a comment, or a string holding one; left alone)
    return m.group(1)
