"""The server's side of ``TL632`` (:mod:`torch_logs_lsp.launch.links`): a Python
document's ``set_logs(...)`` calls get a hint when a workspace folder's
``.vscode/launch.json`` certainly runs the file with ``TORCH_LOGS`` set.

The workspace folders are the client's (``initialize``'s ``workspaceFolders``, kept up to
date by pygls on ``didChangeWorkspaceFolders``; else the root URI). Files are read from
the open documents first (what the user is typing in launch.json wins over the disk),
else from disk through :func:`torch_logs_lsp.launch.links.read_file`. When
another document changes (opened, edited, closed) or the client reports changed files
(``workspace/didChangeWatchedFiles``, registered at ``initialized`` when the client
allows it), the hints of the open Python documents are computed again and a document
whose hints changed is published again.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from torch_logs_lsp.launch.links import LINKED_CALL, LaunchLink, call_hints, read_file
from torch_logs_lsp.lint.pipeline import Links
from torch_logs_lsp.model.diagnostic import Diagnostic
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.server.documents import uri_path
from torch_logs_lsp.server.positions import PositionMapper
from torch_logs_lsp.server.pygls_fixes.workspace import open_uris

if TYPE_CHECKING:
    from torch_logs_lsp.server.app import TorchLogsServer

log = logging.getLogger(__name__)

#: The id of the file-watcher registration (``client/registerCapability``).
WATCHERS_ID = "torch-logs-launch-links"
#: What the client is asked to watch: launch configurations, settings and env files
#: (an ``envFile`` may be named anything; those outside these patterns are re-read when
#: a document changes in the editor).
WATCHED = ("**/.vscode/launch.json", "**/.vscode/settings.json", "**/.env", "**/*.env")


@dataclass(frozen=True)
class LinkedDiagnostic(Diagnostic):
    """A ``TL632`` with its LSP ``relatedInformation`` already written as JSON (an array:
    where each linked configuration sets ``TORCH_LOGS``), for ``features/diagnostics``."""

    related_json: str = ""


def folders(ls: TorchLogsServer) -> tuple[list[str], dict[str, str]]:
    """The workspace folders (absolute paths, in the client's order) and their names;
    the root URI's folder for a client that names no folders."""
    roots: list[str] = []
    names: dict[str, str] = {}
    for folder in ls.workspace.folders.values():
        if not folder.uri.startswith("file:"):
            continue
        path = os.path.normpath(uri_path(folder.uri))
        roots.append(path)
        names.setdefault(folder.name, path)
    if not roots and ls.workspace_root and not ls.folders_given:  # a client without folders
        root = os.path.normpath(ls.workspace_root)
        roots.append(root)
        names[os.path.basename(root)] = root
    return roots, names


def _reader(ls: TorchLogsServer) -> dict[str, str]:
    """Open ``file:`` documents by normalised path -> URI."""
    out: dict[str, str] = {}
    for uri in open_uris(ls.workspace):
        if uri.startswith("file:"):
            out[os.path.normpath(uri_path(uri))] = uri
    return out


def hints(ls: TorchLogsServer, uri: str, host: HostKind | None, text: str) -> list[Diagnostic]:
    """The ``TL632`` diagnostics of the document ``uri`` (its ``text``, read as ``host``;
    ``[]`` unless it is a file on disk whose host finds ``set_logs`` calls: a Python
    file). Never raises."""
    if host is None or "set_logs" not in text:
        return []
    if not uri.startswith("file:"):
        return []
    roots, names = folders(ls)
    if not roots:
        return []
    opened = _reader(ls)

    def read(path: str) -> str | None:
        uri = opened.get(os.path.normpath(path))
        if uri is not None:
            try:
                return str(ls.workspace.get_text_document(uri).source)
            except Exception:
                log.exception("cannot read the open document %s", uri)
        return read_file(path)

    try:
        found, links = call_hints(uri_path(uri), text, roots, read, names, host=host)
    except Exception:
        log.exception("launch configuration hints for %s failed", uri)
        return []
    caps = ls.client_capabilities.text_document
    publish = caps.publish_diagnostics if caps is not None else None
    if not found or publish is None or not publish.related_information:
        return found
    related = json.dumps(_related(ls, links, read, opened))
    return [
        LinkedDiagnostic(d.code, d.severity, d.message, d.start, d.end, d.suggestions, related)
        for d in found
    ]


def _related(
    ls: TorchLogsServer,
    links: list[LaunchLink],
    read: Callable[[str], str | None],
    opened: dict[str, str],
) -> list[dict[str, object]]:
    """LSP ``DiagnosticRelatedInformation`` objects: each link's ``TORCH_LOGS`` key (in
    the negotiated position encoding; under the URI of the open document when it is)."""
    out: list[dict[str, object]] = []
    for link in links:
        text = read(link.source_path)
        if text is None:
            continue
        mapper = PositionMapper(text, ls.encoding)
        (sl, sc), (el, ec) = mapper.line_character(link.start), mapper.line_character(link.end)
        uri = opened.get(os.path.normpath(link.source_path)) or Path(link.source_path).as_uri()
        out.append(
            {
                "location": {
                    "uri": uri,
                    "range": {
                        "start": {"line": sl, "character": sc},
                        "end": {"line": el, "character": ec},
                    },
                },
                "message": f'launch configuration "{link.config}" sets TORCH_LOGS here',
            }
        )
    return out


def links_of(ls: TorchLogsServer, uri: str) -> Links:
    """The pipeline's ``links`` parameter for the document ``uri``
    (:func:`torch_logs_lsp.lint.pipeline.check_document`): :func:`hints`."""
    return lambda host, text: hints(ls, uri, host, text)


#: Documents that can be neither a launch configuration nor an env file (a refresh per
#: keystroke in them re-read every workspace folder's launch.json for nothing).
_NEVER_LINKING = (".py", ".pyi", ".sh", ".bash", ".zsh", ".ksh")


def refresh(ls: TorchLogsServer, changed: str | None = None) -> None:
    """Compute the hints of the open Python documents again (not when the document
    ``changed`` is a Python file, whose own publication covers it, or a shell script) and
    publish those whose hints changed."""
    if changed is not None and uri_path(changed).endswith(_NEVER_LINKING):
        return  # no launch configuration or env file: typing there changes no hint
    log.debug("launch configurations read again")
    for uri, state in list(ls.states.items()):
        if uri == changed or state.host != "python" or "set_logs" not in state.text:
            continue
        old = [d for d in state.calls if d.code == LINKED_CALL]
        new = hints(ls, uri, state.host, state.text)
        if old == new:
            continue
        state.checked = state.checked.linked(new)
        ls.publish(uri)


def did_change_watched_files(
    ls: TorchLogsServer, params: types.DidChangeWatchedFilesParams
) -> None:
    """Files changed on disk: the hints may have too (computed once the burst of events
    is over)."""
    ls.later("launch configurations", lambda: refresh(ls))


def did_change_workspace_folders(
    ls: TorchLogsServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """Folders added or removed (pygls has updated ``ls.workspace.folders`` already):
    other launch.json files count now (computed once the burst of changes is over)."""
    ls.later("launch configurations", lambda: refresh(ls))


def register_watchers(ls: TorchLogsServer, more: tuple[str, ...] = ()) -> None:
    """Ask the client to report changes of :data:`WATCHED` files (and of the glob
    patterns ``more``: the workspace scan's), in one registration, when it supports
    dynamic registration of ``workspace/didChangeWatchedFiles`` and a workspace folder
    (or root) was given at ``initialize``."""
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    if not folders(ls)[0]:
        return  # no workspace folder: no launch.json to watch (a folder added later is
        # still read; only its changes on disk are not reported)
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=p) for p in (*WATCHED, *more)]
    )
    registration = types.Registration(
        id=WATCHERS_ID,
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    # not awaited: the answer only matters when the client refuses (editor changes still
    # refresh the hints then), and `initialized` stays a plain handler
    future = ls.client_register_capability(types.RegistrationParams(registrations=[registration]))
    future.add_done_callback(_refused)


def _refused(future: Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("the client did not register the file watchers: %s", future.exception())


__all__ = [
    "WATCHED",
    "WATCHERS_ID",
    "LinkedDiagnostic",
    "did_change_watched_files",
    "did_change_workspace_folders",
    "folders",
    "hints",
    "links_of",
    "refresh",
    "register_watchers",
]
