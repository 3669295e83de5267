"""Writing a new assignment of a family variable into a document, in its host's syntax.

:func:`assignment_edit` writes ``VARIABLE=value`` at a line of the document: it rewrites
the value of an assignment of that variable on the line (:func:`.edits.value_edit`),
else fills the line when it is blank, else adds a line next to it with the line's
indentation. The line is one of the host's forms (:data:`FORMS`: ``export VAR=...`` in a
shell script, ``ENV`` in a Dockerfile, ``"VAR": "..."`` in JSONC, ``os.environ[...]`` in
Python, ``$env:`` in PowerShell, ``set`` in a batch file, ...), the value quoted and
escaped by the host's own encoder (:func:`.edits.encode_value`). Like every edit of
:mod:`.edits`, a candidate is kept only when re-reading the edited document finds the new
assignment reading exactly ``value`` and every other assignment as before; ``None`` when
no form verifies. Offsets are code points into the document text.
"""

from __future__ import annotations

from collections import Counter

from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.edits import (
    apply_text_edits,
    encode_value,
    keeps_line_ends,
    value_edit,
)
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind

#: Per host, the forms of a new assignment line, tried in order: ``{var}`` the variable,
#: ``{raw}`` the value as the host writes it (quotes included), ``{pair}`` the string
#: ``VAR=value`` so written (pytest-env and compose lists, ``set "VAR=value"``).
FORMS: dict[HostKind, tuple[str, ...]] = {
    "dotenv": ("{var}={raw}",),
    "shell": ("export {var}={raw}",),
    "dockerfile": ("ENV {var}={raw}",),
    "yaml": ("{var}: {raw}", "- {pair}"),
    "jsonc": ('"{var}": {raw},', '"{var}": {raw}'),
    "python": ('os.environ["{var}"] = {raw}',),
    "ipython": ('os.environ["{var}"] = {raw}', "%env {var}={raw}"),
    "toml": ("{pair},", "{var} = {raw}"),
    "ini": ("{var}={raw}", "{pair}"),
    "makefile": ("export {var} := {raw}", "export {var}={raw}"),
    "powershell": ("$env:{var} = {raw}",),
    "batch": ("set {pair}", "set {var}={raw}"),
}

#: Hosts whose new values are written in double quotes when they can be (the usual
#: spelling there: Python and TOML strings, ``set "VAR=value"`` in a batch file).
DOUBLE: frozenset[HostKind] = frozenset({"python", "ipython", "toml", "batch"})

#: Hosts where a new line goes before a non-blank line: a list or object item followed by
#: a comma stays valid before another item, not after the last one.
BEFORE: frozenset[HostKind] = frozenset({"jsonc", "toml"})


def _line(text: str, offset: int) -> tuple[int, int]:
    """``[start, end)`` of the line holding ``offset``, its line end excluded."""
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    ends = [i for i in (text.find("\n", offset), text.find("\r", offset)) if i >= 0]
    return start, min(ends) if ends else len(text)


def _eol(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def _readings(host: HostKind, text: str) -> Counter[tuple[str, str | None, bool]]:
    return Counter((s.variable, s.value, s.terminated) for s in extract(host, text))


def _lines(host: HostKind, variable: str, value: str) -> list[str]:
    out: list[str] = []
    quote = '"' if host in DOUBLE else None
    raws = encode_value(host, value, quote)
    pairs = encode_value(host, f"{variable}={value}", quote)
    for form in FORMS.get(host, ()):
        if "{pair}" in form:
            out += [form.format(pair=p) for p in pairs]
        else:
            out += [form.format(var=variable, raw=r) for r in raws]
    return list(dict.fromkeys(out))


def assignment_edit(
    host: HostKind, text: str, offset: int, variable: str, value: str
) -> tuple[TextEdit, int] | None:
    """A verified edit that makes the line at document ``offset`` (or a new line next to
    it; or the one other line that assigns ``variable``) assign ``value`` to
    ``variable``, and the offset of the line's start in the edited text (where the next
    assignment may follow); ``None`` when no form verifies or two other lines assign
    ``variable``."""
    start, end = _line(text, offset)
    spans = [s for s in extract(host, text) if s.variable == variable]
    on_line = [s for s in spans if s.name_start <= end and s.raw_end >= start]
    # the cursor's line assigns it, or the one other line that does (a second
    # assignment would leave one of them dead): that value is rewritten
    for span in on_line or (spans if len(spans) == 1 else []):
        if span.value is None:
            break
        if span.value == value:
            return TextEdit(start, start, ""), start
        edits = value_edit(host, text, span, value)
        if edits is not None:
            return _one_edit(text, apply_text_edits(text, edits)), start
        break
    if len(spans) > 1 and not on_line:
        return None  # which of them to change is the user's choice
    line = text[start:end]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    before = _readings(host, text)
    eol = _eol(text)
    for new in _lines(host, variable, value):
        if not line.strip():
            edit, at = TextEdit(start, end, indent + new), start
        elif host in BEFORE:  # the next one goes after this one, before the line
            edit, at = TextEdit(start, start, indent + new + eol), start + len(indent + new + eol)
        else:
            edit, at = TextEdit(end, end, eol + indent + new), end + len(eol)
        if not keeps_line_ends(text, [edit]):
            continue
        after = _readings(host, apply_text_edits(text, [edit]))
        if after - before == Counter({(variable, value, True): 1}) and not before - after:
            return edit, at
    return None


def assignments_edit(
    host: HostKind, text: str, offset: int, pairs: list[tuple[str, str]]
) -> TextEdit | None:
    """One edit writing every ``(variable, value)`` of ``pairs`` in order from the line at
    ``offset`` (:func:`assignment_edit`, each after the one before); ``None`` when one of
    them cannot be written (nothing is written then)."""
    new = text
    at = offset
    for variable, value in pairs:
        found = assignment_edit(host, new, at, variable, value)
        if found is None:
            return None
        edit, at = found
        new = apply_text_edits(new, [edit])
    return None if new == text else _one_edit(text, new)


def _one_edit(text: str, new: str) -> TextEdit:
    """The one edit turning ``text`` into ``new`` (their common start and end kept)."""
    head = 0
    limit = min(len(text), len(new))
    while head < limit and text[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and text[-1 - tail] == new[-1 - tail]:
        tail += 1
    return TextEdit(head, len(text) - tail, new[head : len(new) - tail])
