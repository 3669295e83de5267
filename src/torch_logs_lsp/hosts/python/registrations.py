"""Names a Python document registers with torch's logging itself:
``register_log("mylib", ["mylib.core"])`` and ``register_artifact("mylib_graphs", ...)``
(``torch/_logging/_internal.py``), called with a string literal as the name.

torch checks a ``TORCH_LOGS`` item against the names registered when the value is read: at
``import torch`` only torch's own, but a value the same program reads again afterwards
(``torch._logging._init_logs()``, ``set_logs``) after registering its names accepts them
(checked against torch 2.13; a read before the registration, such as ``import torch``
itself or a child process's, rejects them). A value in a document that reads the
variables again after registering names is therefore checked with those names: an
unknown name is never claimed for a name the document itself registers before a re-read.
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
#: What reads ``TORCH_LOGS`` again in the same process, after a registration.
_REREAD = re.compile(r"\b(?:_init_logs|set_logs)\s*\(")
_STRING = re.compile(r"[rRuU]?(['\"])([A-Za-z_][\w.]*)\1")
_FLAG = re.compile(r"\b(off_by_default|visible)\s*=\s*True\b")


class Registered(NamedTuple):
    """The names a document registers: ``components`` (alias, its qualified logger names)
    and ``artifacts`` (name, ``off_by_default``, ``visible``), in document order."""

    components: tuple[tuple[str, tuple[str, ...]], ...]
    artifacts: tuple[tuple[str, bool, bool], ...]


def registered(text: str) -> Registered:
    """The names ``text`` registers before its last ``_init_logs(``/``set_logs(`` call
    (see the module docstring); empty for most. Never raises."""
    if "register_" not in text:
        return Registered((), ())
    rereads = [m.start() for m in _REREAD.finditer(text)]
    if not rereads:
        return Registered((), ())
    components: list[tuple[str, tuple[str, ...]]] = []
    artifacts: list[tuple[str, bool, bool]] = []
    for m in _CALL.finditer(text):
        if m.start() > rereads[-1]:
            break  # nothing reads the value after this registration
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
