"""Names a Python document registers with torch's logging itself:
``register_log("mylib", ["mylib.core"])`` and ``register_artifact("mylib_graphs", ...)``
(``torch/_logging/_internal.py``), called with a string literal as the name.

torch checks a ``TORCH_LOGS`` item against the names registered when the value is read: at
``import torch`` only torch's own, but a value the same program reads again afterwards
(``torch._logging._init_logs()``, ``set_logs``) after registering its names accepts them
(checked against torch 2.13). A value in such a document is therefore checked with them:
an unknown name is never claimed for a name the document itself registers.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: ``register_log(`` / ``register_artifact(`` with a string literal name (``setting_name=``
#: and ``log_name=`` keywords too).
_CALL = re.compile(
    r"\bregister_(artifact|log)\(\s*(?:(?:setting_name|log_name)\s*=\s*)?[rRuU]?"
    r"(['\"])([A-Za-z_][\w.]*)\2"
)
#: The end of the call's arguments (a ``)`` that ends its line), within this many code points.
_WINDOW = 600
_CALL_END = re.compile(r"\)[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|$)")
_STRING = re.compile(r"[rRuU]?(['\"])([A-Za-z_][\w.]*)\1")
_FLAG = re.compile(r"\b(off_by_default|visible)\s*=\s*True\b")


class Registered(NamedTuple):
    """The names a document registers: ``components`` (alias, its qualified logger names)
    and ``artifacts`` (name, ``off_by_default``, ``visible``), in document order."""

    components: tuple[tuple[str, tuple[str, ...]], ...]
    artifacts: tuple[tuple[str, bool, bool], ...]


def registered(text: str) -> Registered:
    """The names ``text`` registers (see the module docstring); empty for most. Never
    raises."""
    if "register_" not in text:
        return Registered((), ())
    components: list[tuple[str, tuple[str, ...]]] = []
    artifacts: list[tuple[str, bool, bool]] = []
    for m in _CALL.finditer(text):
        window = text[m.end() : m.end() + _WINDOW]
        end = _CALL_END.search(window)
        args = window[: end.start()] if end else window
        if m.group(1) == "log":
            qnames = tuple(s.group(2) for s in _STRING.finditer(args))
            components.append((m.group(3), qnames))
        else:
            flags = {f.group(1) for f in _FLAG.finditer(args)}
            artifacts.append((m.group(3), "off_by_default" in flags, "visible" in flags))
    return Registered(tuple(components), tuple(artifacts))


__all__ = ["Registered", "registered"]
