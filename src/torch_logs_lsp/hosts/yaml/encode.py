"""Writing a value as the body of a YAML scalar, and which plain scalars are strings;
part of :mod:`.scalars` (which re-exports both functions)."""

from __future__ import annotations

import re

#: Code points not decoded here: those a YAML 1.1 and a YAML 1.2 loader both reject (C0
#: controls but tab/LF/CR, DEL, C1 controls, surrogates, U+FFFE/U+FFFF) and NEL, LS, PS
#: (line breaks in YAML 1.1 only).
UNSURE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def plain_is_string(value: str) -> bool:
    """Whether a plain scalar whose decoded text is ``value`` loads as a string both by
    YAML 1.1 rules and by the YAML 1.2 core schema (``False`` when either reads it as a
    null, a bool, a number, ...): Compose (compose-go) and Kubernetes (go-yaml) read
    ``1e3``, ``0o17`` or ``+1e3`` as numbers where a YAML 1.1 loader reads strings, and
    a YAML 1.1 loader reads ``yes``, ``on``, ``017``, ``1:30`` as non-strings.

    YAML 1.1: PyYAML's resolver (``yaml.resolver.Resolver``, the one ``SafeLoader`` uses):
    null (``~``, ``null``, empty), bool (``yes``/``no``/``on``/``off``/``true``/``false``
    in three casings), int (incl. ``0x``, ``0b``, octal ``017``, ``1_000``, sexagesimal
    ``1:30``), float (incl. ``.inf``, ``.nan``, ``1.``), timestamp, merge ``<<`` and value
    ``=``. YAML 1.2: :func:`core_schema_string`.
    """
    if value in _STRINGS:
        return _STRINGS[value]
    import yaml  # PyYAML: its resolver is the reference for these types (imported on first use)

    tag: str = yaml.resolver.Resolver().resolve(yaml.nodes.ScalarNode, value, (True, False))
    is_str = tag == _STR and core_schema_string(value)
    if len(_STRINGS) < 4096:
        _STRINGS[value] = is_str
    return is_str


_STR = "tag:yaml.org,2002:str"
#: Answers already given (a document's values repeat).
_STRINGS: dict[str, bool] = {}

#: The YAML 1.2.2 core schema's tag resolution (https://yaml.org/spec/1.2.2/, section
#: 10.3.2 "Tag Resolution", its table of regular expressions), written here from that
#: table: null ``null | Null | NULL | ~`` (and the empty scalar); bool ``true | True |
#: TRUE | false | False | FALSE``; int ``[-+]? [0-9]+`` (base 10), ``0o [0-7]+`` (base 8),
#: ``0x [0-9a-fA-F]+`` (base 16); float ``[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) (
#: [eE] [-+]? [0-9]+ )?`` (number), ``[-+]? ( \.inf | \.Inf | \.INF )`` (infinity),
#: ``\.nan | \.NaN | \.NAN`` (not a number). Beyond the table (a reader that parses
#: integers with Go's ``strconv.ParseInt(s, 0, 64)``, as go-yaml v3 does, also takes a
#: sign before ``0o``/``0x``): a signed octal or hexadecimal integer is a number too.
_CORE_NON_STRING = re.compile(
    r"null|Null|NULL|~"
    r"|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+"
    r"|[-+]?0o[0-7]+"
    r"|[-+]?0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?(?:\.inf|\.Inf|\.INF)"
    r"|\.nan|\.NaN|\.NAN"
)


def core_schema_string(value: str) -> bool:
    """Whether a plain scalar whose text is ``value`` resolves to a string by the YAML
    1.2 core schema (see :data:`_CORE_NON_STRING`; the empty scalar is null)."""
    return bool(value) and _CORE_NON_STRING.fullmatch(value) is None


_PLAIN_BAD_FIRST = frozenset("?:,[]{}#&*!|>'\"%@` \t")
_PLAIN_BAD = re.compile(r"[,\[\]{}\r\n\t\x85\ufeff]|: |:$| #")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` written as the body of a scalar quoted with ``quote`` (without the quotes),
    or ``None`` when that style cannot hold it.

    ``""`` (plain): only text that reads back as the same string both as a block mapping
    value and in flow context: no leading indicator (but ``-`` before a non-space: TORCH_LOGS
    values like ``-dynamo``) or space, no ``": "``, ``" #"``,
    flow indicator, line break or tab, no trailing space or ``:``, and not a null, bool,
    number or timestamp by YAML 1.1 or 1.2 rules (:func:`plain_is_string`). ``"'"``:
    quotes doubled; ``None`` for a line break.
    ``'"'``: ``\\\\``, ``\\"``, ``\\n``, ``\\t`` and ``\\xNN``/``\\uNNNN`` for
    other control characters. ``"|"``/``">"`` (a part of a line of a block scalar, e.g.
    shell code in a ``run: |`` step): the value itself, since a block scalar's line is
    literal; ``None`` for a line break or a tab (they would change the lines' shape: the
    caller re-reads every edit anyway). ``None`` too for a character YAML cannot hold (a
    lone surrogate, U+FFFE/U+FFFF unescaped).
    """
    if any(0xD800 <= ord(c) < 0xE000 for c in value):
        return None
    if quote == "":
        if (
            not value
            or value[0] in _PLAIN_BAD_FIRST
            or value[:2] in ("-", "- ")
            or value[-1] == " "
            or value.startswith(("---", "..."))
            or _PLAIN_BAD.search(value)
            or UNSURE.search(value)
            or not plain_is_string(value)
        ):
            return None
        return value
    if quote == "'":
        if UNSURE.search(value) or any(c in value for c in "\r\n\x85\ufeff"):
            return None
        return value.replace("'", "''")
    if quote == '"':
        return "".join(_dq_char(c) for c in value)
    if quote in ("|", ">"):
        if UNSURE.search(value) or any(c in value for c in "\r\n\t\x85\ufeff"):
            return None
        return value
    return None


def _dq_char(c: str) -> str:
    if c == "\\":
        return "\\\\"
    if c == '"':
        return '\\"'
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    cp = ord(c)
    if cp < 0x20 or 0x7F <= cp <= 0x9F:
        return f"\\x{cp:02x}"
    if c in "\u2028\u2029\ufeff\ufffe\uffff":
        return f"\\u{cp:04x}"
    return c
