"""The jsonc host's edits: a value re-encoded as a JSON string body, the removal of an
``env`` entry, and where a variable name is being typed (host interface functions of
:mod:`.jsonc`). Offsets are code points into the document."""

from __future__ import annotations

import json
import re

from torch_logs_lsp.hosts.interface import line_bounds
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.spans import ValueSpan


def encode_part(quote: str, value: str) -> str | None:
    """A JSON string body (``"`` -> ``\\"``, ``\\`` -> ``\\\\``, control characters as
    escapes); ``None`` for any quoting but ``"``."""
    return json.dumps(value, ensure_ascii=False)[1:-1] if quote == '"' else None


def _skip_blank(text: str, i: int, step: int) -> int:
    while 0 <= i < len(text) and text[i] in " \t\r\n":
        i += step
    return i


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The property, with the commas around it kept valid (and its line when it is
    alone on it)."""
    key = span.name_start - 1
    if text[key : key + 1] != '"':
        return None
    ls, le, after = line_bounds(text, key, span.raw_end)
    j = _skip_blank(text, span.raw_end, 1)
    own_line = not text[ls:key].strip()
    if j < len(text) and text[j] == ",":  # remove "K": v, (and the line if it is its own)
        rest = _skip_blank(text, j + 1, 1)
        if own_line and not text[j + 1 : le].strip():
            edit = TextEdit(ls, after, "")
        else:
            edit = TextEdit(key, rest if rest <= le else j + 1, "")
    else:
        k = _skip_blank(text, key - 1, -1)
        alone = own_line and not text[span.raw_end : le].strip()
        if k >= 0 and text[k] == ",":  # the last property: remove the comma before it
            edit = TextEdit(k, le if alone else span.raw_end, "")
        else:
            edit = TextEdit(ls, after, "") if alone else TextEdit(key, span.raw_end, "")
    return f'Remove the "{span.variable}" property', edit


_JSON_KEY = re.compile(r'(?:^|[{,])[ \t]*"([A-Za-z0-9_]*)$')
_JSON_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|[{}]', re.S)
_ENV_KEY = re.compile(r'"(?:env|containerEnv|remoteEnv)"\s*:\s*$')


def _in_env_object(text: str) -> bool:
    """Whether the end of ``text`` (a JSONC prefix) is directly inside an ``"env"``
    object (or a devcontainer's ``"containerEnv"``/``"remoteEnv"``): the innermost open
    ``{`` follows such a key."""
    stack: list[int] = []
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok == "{":
            stack.append(m.start())
        elif tok == "}" and stack:
            stack.pop()
    return bool(stack) and _ENV_KEY.search(text[: stack[-1]]) is not None


def typed_name(text: str, offset: int) -> str | None:
    """As a key of an ``env`` (or ``containerEnv``/``remoteEnv``) object."""
    line_start = text.rfind("\n", 0, offset) + 1
    m = _JSON_KEY.search(text[line_start:offset])
    if m is None or not _in_env_object(text[: line_start + m.start(1) - 1]):
        return None
    return m.group(1)
