"""Other names people write for registered TORCH_LOGS names, for "did you mean"
(:mod:`.suggest`): from the names' descriptions and a short list of known aliases.

A key is a name normalised by :func:`key`: lower case, without ``_``, ``-``, ``.`` and a
leading ``torch`` (``aot_autograd``, ``AOTAutograd`` -> ``aotautograd``; ``TorchDynamo``
-> ``dynamo``). :func:`alias_index` maps keys to registered names, built per registry:

- each name's own key (``cuda_graphs`` -> ``cudagraphs``);
- from a component's description (``data/descriptions.json``, ``en``): the term it
  opens with (``AOTAutograd, the torch.compile stage ...`` -> ``aot``; ``Dynamic shapes:
  ...`` -> ``dynamic``) and the last part of each module path in it
  (``(torch._functorch.aot_autograd)`` -> ``aot``);
- :data:`KNOWN_ALIASES`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch_logs_lsp.knowledge.registry import Registry

#: Words people use for a registered name that neither spelling nor the descriptions
#: give; each from torch's own wording (torch 2.13.0 docs and log messages).
KNOWN_ALIASES: dict[str, str] = {
    # "Recompiling function ... triggered by the following guard failure" / the
    # torch.compile troubleshooting page calls them "recompilations"
    "recompilation": "recompiles",
    "recompilations": "recompiles",
    # "Output code written to: ..." is what output_code prints; people call it the
    # generated (Triton) code
    "generatedcode": "output_code",
    "tritoncode": "output_code",
    "code": "output_code",
    # `graph` prints the FX graph Dynamo traced
    "fxgraph": "graph",
    "fxgraphs": "graph",
    "guard": "guards",
}

_LEAD = re.compile(r"([A-Za-z][\w ]*?)\s*[,:(]")
_PATH = re.compile(r"\btorch(?:\.\w+)+")


def key(text: str) -> str:
    """``text`` normalised for alias lookup (see the module docstring)."""
    low = re.sub(r"[_\-.\s]", "", text.lower())
    return low[5:] if low.startswith("torch") and len(low) > 5 else low


def alias_index(registry: Registry) -> dict[str, tuple[str, ...]]:
    """Keys -> registered names of ``registry`` (components first), see the module
    docstring. Never raises."""
    out: dict[str, dict[str, None]] = {}

    def add(k: str, name: str) -> None:
        if k:
            out.setdefault(k, {})[name] = None

    for name in registry.known_tuple:
        add(key(name), name)
    for name in sorted(registry.components):
        text = registry.description(name, "en")
        lead = _LEAD.match(text)
        if lead is not None and len(lead.group(1).split()) <= 2:
            add(key(lead.group(1)), name)
        for path in _PATH.findall(text):
            last = path.rsplit(".", 1)[-1]
            if last != "compile":  # "the torch.compile stage" names no component
                add(key(last), name)
    for alias, name in KNOWN_ALIASES.items():
        if name in registry.known_set:
            add(key(alias), name)
    return {k: tuple(v) for k, v in out.items()}


__all__ = ["KNOWN_ALIASES", "alias_index", "key"]
