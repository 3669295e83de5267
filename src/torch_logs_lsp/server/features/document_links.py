"""textDocument/documentLink: the file a TORCH_LOGS_OUT value names and the directory a
TORCH_TRACE value names, when they exist on this machine.

A value's path is resolved as the rules that judge it (TL402, TL403, TL406) resolve it:
the host's facts at the value (:func:`.lint.paths.places`: a document that runs on
another machine gets no link, a relative path is resolved against the directory a ``cd``
of the script certainly moved to, else the first workspace folder, and not at all without
one; :func:`.value.paths.judged_path`). An absolute path outside the workspace folders is
linked too when it exists (a link claims only that the target is there). A value that is
not static (``$HOME/x``, ``%TEMP%``) has no path; one that starts with ``~`` names a
directory called ``~`` to torch but the home directory to a reader: no link either.
Only a TORCH_LOGS_OUT that is an existing regular file, and a TORCH_TRACE that is an
existing directory, get one (``target``: its ``file:`` URI; ``range``: the value).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.lint.paths import places
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.server import requests
from torch_logs_lsp.server.documents import DocumentState
from torch_logs_lsp.server.texts import label
from torch_logs_lsp.value.paths import Where, judged_path

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

#: Variable -> (whether the path is the right kind of target, the tooltip's label key).
_TARGETS = {
    "TORCH_LOGS_OUT": (os.path.isfile, "link_out"),
    "TORCH_TRACE": (os.path.isdir, "link_trace"),
}


def _linkable(value: str | None) -> bool:
    return value is not None and value != "" and not value.startswith("~")


def _target(variable: str, value: str, where: Where) -> str | None:
    """The ``file:`` URI of the existing file or directory ``value`` names (as
    :func:`.value.paths.judged_path` resolves it, an absolute path outside the workspace
    included), or ``None``."""
    judged = judged_path(value, Where(where.base_dir, None, where.facts))
    if judged is None:
        return None
    try:
        return Path(judged[0]).as_uri() if _TARGETS[variable][0](judged[0]) else None
    except (OSError, ValueError):
        return None


def _not_a_path(span: ValueSpan) -> bool:
    return span.variable == "TORCH_LOGS"


def document_links(
    state: DocumentState,
    base_dir: str | None,
    roots: tuple[str, ...],
    locale: str,
    cache: DocumentCache | None = None,
) -> list[types.DocumentLink]:
    """The links of a document version (``base_dir``: the first workspace folder, ``None``
    without one; ``roots``: the workspace folders), in document order; ``[]`` when it has
    no TORCH_LOGS_OUT or TORCH_TRACE value. ``cache``: the document's own, whose facts
    about paths the check of the same text keeps (the same ``"places"`` entry as
    :func:`.lint.pipeline.check_document`'s, so a link and TL402 never disagree). Looks at
    the file system once per candidate value; never raises for a path it cannot stat."""
    spans = [s for s, _ in state.entries]
    wanted = [
        i
        for i, s in enumerate(spans)
        if s.variable in _TARGETS and s.terminated and _linkable(s.value)  # no quote left open
    ]
    host = state.host
    if not wanted or host is None:
        return []
    text = state.text
    if cache is not None:
        wheres = cache.remembered(
            "places",
            (host, base_dir, roots),
            text,
            spans,
            _not_a_path,
            lambda: places(host, text, spans, base_dir, roots),
        )
    else:
        wheres = places(host, text, spans, base_dir, roots)
    out: list[types.DocumentLink] = []
    targets: dict[tuple[str, str, Where], str | None] = {}  # the same path, looked at once
    for i in wanted:
        span, where = spans[i], wheres[i]
        value = span.value or ""
        key = (span.variable, value, where)
        if key not in targets:
            targets[key] = _target(span.variable, value, where)
        target = targets[key]
        if target is None:
            continue
        rng = state.mapper.range(*span.document_range(0, len(value)))
        tip = label(_TARGETS[span.variable][1], locale)
        out.append(types.DocumentLink(range=rng, target=target, tooltip=tip))
    return out


def request(
    ls: TorchLogsServer, state: DocumentState, params: types.DocumentLinkParams
) -> list[types.DocumentLink]:
    """The ``textDocument/documentLink`` adapter (for :func:`.requests.answer`): the
    document's links with the server's workspace folders and locale."""
    cache = ls.doc_caches.get(state.uri)
    return document_links(state, ls.workspace_root, ls.workspace_roots, ls.locale, cache)


async def handler(
    ls: TorchLogsServer, params: types.DocumentLinkParams
) -> list[types.DocumentLink] | None:
    """The handler: answered from the newest version's spans (it never waits for the
    check: the links depend on the spans and the file system only)."""
    return requests.answer(ls, params.text_document.uri, params, request, quick=True)
