"""What a ``set_logs(...)`` call, or one of its keywords, is as a ``TORCH_LOGS`` value, and
why there is none when there is none (for hover).

The conversion itself is :func:`.set_logs_convert.set_logs_to_torch_logs` (exact or
nothing); this module names the first reason it gave nothing, in plain English.
"""

from __future__ import annotations

from torch_logs_lsp.knowledge.registry import Registry, release_tuple
from torch_logs_lsp.set_logs.call import (
    DictValue,
    Keyword,
    NotStatic,
    SetLogsCall,
    python_value,
)
from torch_logs_lsp.set_logs.convert import set_logs_to_torch_logs
from torch_logs_lsp.set_logs.keywords import SetLogsSignature, keyword_kind

#: The levels ``TORCH_LOGS`` can say, as its prefixes.
_LEVELS_NOTE = "TORCH_LOGS has only DEBUG (`+name`), INFO (`name`) and ERROR (`-name`)"


def _leaves_alone(kw: Keyword, registry: Registry) -> bool:
    """``None``, a ``False`` artifact, ``modules=None`` / ``{}``: what omitting it does."""
    value = python_value(kw.value)
    if value is None:
        return True
    kind = keyword_kind(kw.name, registry)
    if kind == "artifact" and value is False:
        return True
    return kind == "modules" and isinstance(kw.value, DictValue) and not kw.value.entries


def keyword_equivalent(
    kw: Keyword, registry: Registry, signature: SetLogsSignature
) -> tuple[str | None, str]:
    """``(value, note)``: the ``TORCH_LOGS`` value that does what ``kw`` does in
    ``registry``'s torch (``dynamo=logging.DEBUG`` -> ``"+dynamo"``), or ``None`` with the
    reason in ``note`` (``""`` when there is a value)."""
    if kw.name not in signature.keywords:
        return None, f"`{kw.name}` is no keyword of set_logs in torch {signature.release}"
    if isinstance(kw.value, NotStatic):
        return None, "its value is computed at run time"
    if _leaves_alone(kw, registry):
        return None, "this value leaves the log as it is (the same as not passing it)"
    found = set_logs_to_torch_logs(SetLogsCall((kw,)), registry, signature)
    if found is not None:
        return found, ""
    if kw.name == "all" and release_tuple(registry.release) < (2, 2):
        return None, "in torch 2.1 `TORCH_LOGS=all` sets every registered log, not `torch`"
    kind = keyword_kind(kw.name, registry)
    if kind == "artifact":
        return None, "an artifact takes True or False (torch raises ValueError for this value)"
    if kind == "unregistered":
        return None, f"`{kw.name}` names no registered log in torch {signature.release}"
    return None, f"no exact spelling for this value: {_LEVELS_NOTE}"


def call_equivalent(
    call: SetLogsCall, registry: Registry, signature: SetLogsSignature
) -> tuple[str | None, str]:
    """``(value, note)``: the ``TORCH_LOGS`` value exactly equivalent to ``call`` (see
    :func:`.set_logs_convert.set_logs_to_torch_logs`), or ``None`` with the first reason
    there is none in ``note`` (``""`` when there is a value). Never raises."""
    found = set_logs_to_torch_logs(call, registry, signature)
    if found is not None:
        return found, ""
    if call.positional:
        return None, "set_logs takes keywords only: a positional argument raises TypeError"
    if call.unpacked:
        return None, "`*args` / `**kwargs` hide some of its arguments"
    names = [kw.name for kw in call.keywords]
    if len(set(names)) != len(names):
        return None, "a keyword is given twice: Python does not compile this call"
    for kw in call.keywords:
        value, note = keyword_equivalent(kw, registry, signature)
        if value is None and not note.startswith("this value leaves"):
            return None, f"`{kw.name}`: {note}"
    if all(_leaves_alone(kw, registry) for kw in call.keywords):
        return None, "it sets nothing, and an empty TORCH_LOGS crashes `import torch`"
    return None, (
        "two of its keywords set a shared logger to different levels "
        "(set_logs applies them in its own order, TORCH_LOGS left to right)"
    )


__all__ = ["call_equivalent", "keyword_equivalent"]
