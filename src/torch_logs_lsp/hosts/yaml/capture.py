"""Whether a YAML document keeps the stderr of the processes that read a value (TL411:
torch logs to stderr), the YAML host's :meth:`~.interface.OutputHost.stderr_captured`.

- A value set in a step's or a script's shell code (``run: TORCH_LOGS=output_code python
  a.py 2>&1 | tee log``): as that code keeps it (:func:`.embedded.inner_captured`).
- A GitHub Actions step's ``env:`` (``env: {TORCH_LOGS: output_code}`` beside ``run:``):
  the step's code reads it, so it counts as kept when every command of that code that
  may run Python keeps its stderr and there is one (:func:`.shell.capture.script_kept`,
  or PowerShell's for a ``pwsh`` step). A job's or a workflow's ``env:`` (many steps,
  actions among them) never counts.
- A GitLab job's ``variables:``: its scripts read them (``before_script`` with ``script``
  in one shell, ``after_script`` in another; the job's own or the global ones), so they
  count as kept when every command of them that may run Python keeps its stderr and there
  is one (:func:`.shell.capture.scripts_kept`); not for a job that ``extends:`` or merges
  another, nor for the global ``variables:``.

Offsets are code points.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source
from torch_logs_lsp.hosts.embedded import EmbeddedSpan, embedded_captured
from torch_logs_lsp.hosts.yaml.tree import PAIRS

if TYPE_CHECKING:
    from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)


def stderr_captured(text: str, spans: list[ValueSpan]) -> list[bool]:
    """See the module docstring: one flag per span of ``spans`` (``extract(text)``). Never
    raises (a failure keeps nothing more)."""
    flags = embedded_captured(text, spans)
    rest = [i for i, s in enumerate(spans) if not flags[i] and not isinstance(s, EmbeddedSpan)]
    if not rest:
        return flags
    try:
        from torch_logs_lsp.hosts.powershell.capture import script_kept as powershell_kept
        from torch_logs_lsp.hosts.shell.capture import script_kept as shell_kept
        from torch_logs_lsp.hosts.shell.capture import scripts_kept
        from torch_logs_lsp.hosts.yaml.ci import job_scripts, step_code
        from torch_logs_lsp.hosts.yaml.tree import flavour

        src = Source(text)
        root = src.parse("yaml").root_node
        flavours = {doc.id: flavour(src, doc) for doc in root.named_children}
        for i in rest:
            at = src.byte(spans[i].name_start)
            node = root.descendant_for_byte_range(at, at)
            found = 0  # the variable's pair, then the env: pair
            while node is not None and found < 2:
                node = node.parent
                if node is not None and node.type in PAIRS:
                    found += 1
            code = step_code(src, node, flavours) if node is not None else None
            if code is not None:
                kept = shell_kept if code[1] == "shell" else powershell_kept
                flags[i] = kept(code[0])
                continue
            scripts = job_scripts(src, node, flavours) if node is not None else None
            if scripts is not None:
                flags[i] = scripts_kept(scripts)
    except Exception:  # bad input never crashes the checker
        log.exception("yaml: where stderr goes could not be read")
    return flags


__all__ = ["stderr_captured"]
