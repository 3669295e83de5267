"""Exact conversions between a ``set_logs(...)`` call and a ``TORCH_LOGS`` value, for a
refactor code action: ``dynamo=logging.DEBUG, graph_breaks=True`` <-> ``+dynamo,graph_breaks``.

"Exact" means: under torch, ``TORCH_LOGS=<value>`` at import and ``set_logs(<keywords>)``
give the same logger levels (``log_state.log_qname_to_level``) and the same enabled
artifacts (checked on torch 2.13.0 by the differential test in ``tests/set_logs/test_set_logs.py``).
Where that cannot be promised the answer is ``None``:

- a call with positional arguments, ``*args`` or ``**kwargs``;
- a level other than DEBUG/INFO/ERROR (``TORCH_LOGS`` has only ``+``, none, ``-``), a value
  torch rejects, a value that is not static, a keyword the release does not have;
- two entries that set a shared logger to different levels (``set_logs`` applies its
  keywords in its own fixed order, ``TORCH_LOGS`` left to right: ``dynamo`` and
  ``dynamic`` share ``torch.fx.experimental.symbolic_shapes``);
- ``all`` in torch 2.1 (there ``TORCH_LOGS=all`` set every registered log);
- nothing left to write: an empty ``TORCH_LOGS`` crashes ``import torch``.

``False`` artifacts and ``None`` values are left out: they are what omitting them does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch_logs_lsp.knowledge.registry import Registry, release_tuple
from torch_logs_lsp.set_logs.call import (
    UNKNOWN,
    DictValue,
    NotStatic,
    SetLogsCall,
    python_value,
)
from torch_logs_lsp.set_logs.keywords import SetLogsSignature, set_logs_signature
from torch_logs_lsp.value.parser import parse_value

#: ``TORCH_LOGS`` prefix -> the ``logging`` name ``set_logs`` takes, and back.
_LEVEL_OF_PREFIX = {"+": "DEBUG", "": "INFO", "-": "ERROR"}
_PREFIX_OF_LEVEL = {10: "+", 20: "", 40: "-"}
_ITEM_NAME = re.compile(r"[\w.]+")


@dataclass(frozen=True)
class _Entry:
    """One name with its level (``None``: an artifact) and the loggers it sets."""

    name: str
    level: int | None
    qnames: tuple[str, ...]
    module: bool


def _conflict(a: _Entry, b: _Entry) -> bool:
    """Whether ``a`` and ``b`` set a shared logger (a module also sets its submodules)
    to different levels."""
    if a.level is None or b.level is None or a.level == b.level:
        return False
    for qa in a.qnames:
        for qb in b.qnames:
            if qa == qb or (a.module and qb.startswith(qa + ".")):
                return True
            if b.module and qa.startswith(qb + "."):
                return True
    return False


def _consistent(entries: list[_Entry]) -> bool:
    return not any(_conflict(a, b) for i, a in enumerate(entries) for b in entries[i + 1 :])


def _entry(name: str, value: object, registry: Registry) -> _Entry | bool | None:
    """The entry for a registered name or module name set to ``value``: ``True`` when it
    is left out (``None``, a ``False`` artifact), ``None`` when not exact."""
    if value is None:
        return True
    kind = registry.kind(name)
    if kind == "artifact":
        if not isinstance(value, bool):
            return None
        return _Entry(name, None, (), False) if value else True
    if not isinstance(value, int) or isinstance(value, bool) or value not in _PREFIX_OF_LEVEL:
        return None
    if kind == "component":
        return _Entry(name, value, registry.qnames_for(name), False)
    if name in ("all", "help") or not _ITEM_NAME.fullmatch(name):
        return None
    return _Entry(name, value, (name,), True)


def set_logs_to_torch_logs(
    call: SetLogsCall, registry: Registry, signature: SetLogsSignature | None = None
) -> str | None:
    """The ``TORCH_LOGS`` value equivalent to ``call`` in ``registry``'s torch
    (``dynamo=logging.DEBUG, graph_breaks=True`` -> ``"+dynamo,graph_breaks"``; items in
    the call's order, ``modules`` entries where the keyword stands), or ``None`` when no
    value is exactly equivalent (see the module docstring). ``signature`` defaults to
    :func:`.set_logs_keywords.set_logs_signature` of ``registry``. Never raises."""
    if call.positional or call.unpacked:
        return None
    names = [kw.name for kw in call.keywords]
    if len(set(names)) != len(names):
        return None  # a keyword given twice: Python does not compile the call
    sig = signature if signature is not None else set_logs_signature(registry)
    entries: list[_Entry] = []
    for kw in call.keywords:
        if kw.name not in sig.keywords or isinstance(kw.value, NotStatic):
            return None
        if kw.name == "modules":
            if isinstance(kw.value, DictValue):
                pairs = [(e.key, python_value(e.value)) for e in kw.value.entries]
            elif python_value(kw.value) is None:
                pairs = []
            else:
                return None
            for key, value in pairs:
                if key is None or value is UNKNOWN:
                    return None
                found = _entry(key, value, registry)
                if found is None:
                    return None
                if isinstance(found, _Entry):
                    entries.append(found)
            continue
        value = python_value(kw.value)
        if value is UNKNOWN:
            return None
        if kw.name == "all":
            if release_tuple(registry.release) < (2, 2):
                return None
            found = _entry("torch", value, registry)
            if isinstance(found, _Entry):
                found = _Entry("all", found.level, found.qnames, False)
        elif registry.kind(kw.name) in ("component", "artifact"):
            found = _entry(kw.name, value, registry)
        else:  # a keyword naming no registered log (2.4's dist_ddp)
            found = True if value is None else None
        if found is None:
            return None
        if isinstance(found, _Entry):
            entries.append(found)
    if not entries or not _consistent(entries):
        return None
    items = [(_PREFIX_OF_LEVEL[e.level] if e.level is not None else "") + e.name for e in entries]
    return ",".join(dict.fromkeys(items))


def torch_logs_to_set_logs(
    value: str, registry: Registry, signature: SetLogsSignature | None = None
) -> str | None:
    """The ``set_logs`` keyword arguments (source text) equivalent to ``TORCH_LOGS=value``
    in ``registry``'s torch: ``"+dynamo,graph_breaks"`` -> ``"dynamo=logging.DEBUG,
    graph_breaks=True"``. Registered names that are no keyword of that torch, and module
    names, go into ``modules={...}`` (which takes both); ``all`` becomes ``all=``.

    ``None`` when the value is not one torch accepts as written (syntax problems, the
    empty value, ``help``), uses ``all`` in torch 2.1, or sets a shared logger to
    different levels (see the module docstring). A later item for the same name replaces
    an earlier one, as in torch. Module names are carried over as they are: whether torch
    finds them (it looks them up either way) is for TL204 / TL621 to say. Never raises."""
    if value in ("", "help", "+help") or len(value) > 100_000:
        return None
    parsed = parse_value(value)
    if not parsed.valid or parsed.problems or not parsed.items:
        return None
    sig = signature if signature is not None else set_logs_signature(registry)
    final: dict[str, _Entry] = {}
    for item in parsed.items:
        name = item.name
        level = {"+": 10, "-": 40}.get(item.prefix, 20)
        kind = registry.kind(name)
        if name == "all":
            if release_tuple(registry.release) < (2, 2):
                return None
            final.pop(name, None)
            final[name] = _Entry(name, level, ("torch",), False)
        elif kind == "artifact":
            final.setdefault(name, _Entry(name, None, (), False))
        elif kind == "component":
            final.pop(name, None)
            final[name] = _Entry(name, level, registry.qnames_for(name), False)
        elif name == "help":
            return None
        else:
            final.pop(name, None)
            final[name] = _Entry(name, level, (name,), True)
    entries = list(final.values())
    if not _consistent(entries):
        return None
    args: list[str] = []
    modules: list[str] = []
    for e in entries:
        text = (
            "True" if e.level is None else "logging." + _LEVEL_OF_PREFIX[_PREFIX_OF_LEVEL[e.level]]
        )
        if e.name == "torch" and "all" in sig.keywords and "all" not in final:
            args.append(f"all={text}")
        elif e.name in sig.keywords and not e.module and e.name != "modules":
            args.append(f"{e.name}={text}")
        else:
            modules.append(f'"{e.name}": {text}')
    if modules:
        if "modules" not in sig.keywords:
            return None
        args.append("modules={" + ", ".join(modules) + "}")
    return ", ".join(args)


__all__ = ["set_logs_to_torch_logs", "torch_logs_to_set_logs"]
