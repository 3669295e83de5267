"""Which paths of TORCH_LOGS_OUT / TORCH_TRACE values can be judged on this machine
(TL402, TL403, TL406 of :mod:`.family`), and whether a directory the document itself
creates stands in for one that is missing.

A path is judged only when the answer holds where the value is used:

- not in a document that runs on another machine (a batch script: the host says so in
  :attr:`.hosts.interface.PathFacts.runs_elsewhere`);
- only inside the workspace (:attr:`Where.roots`): the editor's workspace folders; on the
  command line the current directory and the checked file's project directory
  (:func:`.cli_torch.project_dir`). An absolute path elsewhere (``/scratch/...``) may be
  another machine's;
- a relative path against the directory the document starts in (:attr:`Where.base_dir`:
  the first workspace folder, the CLI's current directory; not judged without one), or
  against the directory a ``cd`` of the document certainly moved to; not judged when that
  is unknown.

A missing directory is not reported when an earlier command of the document may create it
or a directory under it (:attr:`~.hosts.interface.PathFacts.created`), or creates one it
cannot name.
"""

from __future__ import annotations

from torch_logs_lsp import hosts
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan
from torch_logs_lsp.value.paths import PathFacts, Where


def places(
    host: HostKind,
    text: str,
    spans: list[ValueSpan],
    base_dir: str | None,
    roots: tuple[str, ...] | None,
) -> list[Where]:
    """Where each span's path is judged (:class:`.paths.Where`: ``base_dir``, the
    workspace ``roots``, and the host's :meth:`~.hosts.interface.Host.path_facts` of the
    span: directories the document creates, whether it runs elsewhere). A host that fails
    gives no facts for paths judged here (every path is left unjudged). Never raises."""
    module = hosts.path_facts_host(host)
    facts: list[PathFacts] = []
    if module is not None:
        try:
            facts = module.path_facts(text, spans)
        except Exception:  # a host bug must not take the check down: judge nothing
            facts = [PathFacts(runs_elsewhere="unknown")] * len(spans)
    if len(facts) != len(spans):
        facts = [PathFacts()] * len(spans)
    return [Where(base_dir, roots, f) for f in facts]


__all__ = ["places"]
