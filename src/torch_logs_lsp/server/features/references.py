"""textDocument/references: the places in the user's torch that log a name.

- An artifact: each ``getArtifactLogger(module, "name")`` and ``is_artifact_enabled("name")``
  call, and each ``.debug(...)`` / ``.info(...)`` / ... call on a name holding that
  artifact's logger (:mod:`~torch_logs_lsp.torch_env.log_sites`).
- A component (and ``all``, the ``torch`` log): the ``getLogger(...)`` call of every
  logger its level reaches (its qualified logger names and the loggers below them), in
  the order of the names torch registers, then by module (a package before its modules),
  at most :data:`MAX_LOGGERS`.
- A module name: the same for the loggers at and below that module.

With ``includeDeclaration`` the registration (:mod:`.definition`) comes first. The sites
are found once per torch installation, in another process, and the request waits for
them without holding the message loop (:meth:`.TorchLogsServer.wait_for`); only the
installed torch of the release the names are checked against is read (none: the
declaration alone).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from torch_logs_lsp.server.features.definition import (
    registration_location,
    site_location,
    target_at,
)
from torch_logs_lsp.torch_env.locations import source_torch_dir
from torch_logs_lsp.torch_env.log_sites import LogSiteCache

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

#: Most loggers listed for a component or module. torch 2.13's components reach 1-127
#: loggers (``inductor``: 127); only ``torch`` and ``all`` (the root of every torch
#: logger: 366) reach more, where a longer list would not tell a reader more.
MAX_LOGGERS = 200

#: The log sites of each torch installation (one scan per installation and server).
SITES = LogSiteCache()


async def references(
    ls: TorchLogsServer, params: types.ReferenceParams
) -> list[types.Location] | None:
    """The ``textDocument/references`` handler."""
    uri = params.text_document.uri
    try:
        state = ls.quick_state(uri)
        if state is None:
            return None
        registry = ls.registry_of(state)
        target = target_at(state, state.mapper.offset(params.position), registry)
        if target is None:
            return None
        out: list[types.Location] = []
        if params.context.include_declaration and target.kind in ("component", "artifact"):
            found = registration_location(state.context, registry, target.name, ls.encoding)
            if found is not None:
                out.append(found)
        torch_dir = source_torch_dir(state.context) if state.context is not None else None
        if torch_dir is None:
            return out
        encoding = ls.encoding
    except Exception:
        log.exception("references failed for %s", uri)
        return None
    try:
        sites = await ls.wait_for(SITES.get(torch_dir))
    except Exception as exc:  # the scan failed (logged by the cache)
        log.warning("references of %s: no log sites (%s)", target.name, exc)
        return out
    if target.kind == "artifact":
        out += [site_location(s, encoding) for s in sites.artifacts.get(target.name, [])]
        return out
    qnames = registry.qnames_for(target.name) if target.kind != "module" else (target.name,)
    covered = sites.covered(qnames)
    if len(covered) > MAX_LOGGERS:
        log.info(
            "references of %s: %d loggers, the first %d listed",
            target.name,
            len(covered),
            MAX_LOGGERS,
        )
    out += [site_location(s, encoding) for _, s in covered[:MAX_LOGGERS]]
    return out


__all__ = ["MAX_LOGGERS", "SITES", "references"]
