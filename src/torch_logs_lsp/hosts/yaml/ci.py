"""Shell code in CI YAML (for :mod:`.yaml`): GitHub Actions ``run:`` steps and GitLab CI
``script:`` / ``before_script:`` / ``after_script:``, read by the shell host through
:func:`.embedded.shell_spans` with every offset mapped back into the document.

GitHub Actions (https://docs.github.com/en/actions/reference/workflows-and-actions/
workflow-syntax#jobsjob_idstepsshell): a step runs its ``run:`` with its ``shell:``, else
the job's then the workflow's ``defaults.run.shell``, else bash on a Linux or macOS runner
(pwsh on Windows). ``bash`` and ``sh`` shells are read (custom ``bash -e {0}``
too), and ``pwsh`` / ``powershell`` ones named by a ``shell:`` (the step's or a
``defaults.run.shell``) by the PowerShell host (its quote layer marked, see
:mod:`.embedded`; a name in another case than upper is not seen in YAML); a
``runs-on`` that is an expression or names Windows leaves the default unknown and the
step unread. A job without ``runs-on`` (a workflow being written, or one without
``on:``: a document whose ``jobs`` have ``steps`` with ``run:``) is taken as bash unless
its text says ``win``, ``pwsh``, ``powershell``, ``cmd`` or ``${{``.
``${{ ... }}`` is replaced by the runner before the shell runs: in the code given to the
shell host it becomes ``${__gha_expr}`` (an expansion, so a value
holding it is not static; each of its code points maps to the whole expression), and a
value holding an expression inside single quotes is made non-static too.

GitLab CI (https://docs.gitlab.com/ci/yaml/#script): each item of a job's ``script``
(a string or a list of strings, nested lists too) is a shell line; the runner's shell
(bash or sh on Linux runners) expands the variables, not GitLab.

All offsets are code points into the document.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, declare_query, query, query_cursor
from torch_logs_lsp.hosts.embedded import EmbeddedCode, shell_spans
from torch_logs_lsp.hosts.yaml.tree import (
    ACTIONS,
    GITLAB,
    GITLAB_GLOBAL,
    MAPPINGS,
    SCALARS,
    SEQUENCES,
    column,
    entry_indent,
    flavour_at,
    get,
    inner,
    items,
    key_of,
    mapping_of,
    pairs,
    path,
    scalar,
    string,
)
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, names_family

if TYPE_CHECKING:
    import tree_sitter

log = logging.getLogger(__name__)

HOST: HostKind = "yaml"
_KEY = "(flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @k)"
_IS_CODE = '#match? @k "^[\\"\']?(run|script|before_script|after_script)[\\"\']?$"'
_CODE_QUERY = declare_query(
    "yaml",
    f"((block_mapping_pair key: {_KEY} value: (_) @v) @p ({_IS_CODE}))\n"
    f"((flow_pair key: {_KEY} value: (_) @v) @p ({_IS_CODE}))",
)
PLACEHOLDER = "${__gha_expr}"
_EXPRESSION = re.compile(r"\$\{\{.*?(?:\}\}|$)", re.S)


def _shell_kind(shell: str | None) -> str | None:
    """The host that reads a ``shell:`` value's code: ``"shell"`` for bash or sh
    (``bash --noprofile -eo pipefail {0}``), ``"powershell"`` for pwsh or powershell
    (``pwsh -command ". '{0}'"``), else ``None``."""
    if not shell or "${{" in shell:
        return None
    first = shell.split()[0].rsplit("/", 1)[-1].lower()
    if first in ("bash", "sh"):
        return "shell"
    if first in ("pwsh", "powershell", "pwsh.exe", "powershell.exe"):
        return "powershell"
    return None


def _runner_is_posix(src: Source, runs_on: tree_sitter.Node | None) -> bool:
    """Whether a job's ``runs-on`` names runners whose default shell is bash: plain
    labels (a string or a list of strings) none of which is an expression or Windows."""
    found = inner(runs_on)
    if found.node is None or found.tagged or found.alias:
        return False
    labels: list[str | None] = []
    if found.node.type in SEQUENCES:
        labels = [string(src, item) for item in items(found.node)]
    else:
        labels = [string(src, runs_on)]
    return bool(labels) and all(
        label is not None and "${{" not in label and "windows" not in label.lower()
        for label in labels
    )


def _defaults_shell(src: Source, mapping: tree_sitter.Node | None) -> str | None:
    defaults = mapping_of(get(src, mapping, "defaults"))
    return string(src, get(src, mapping_of(get(src, defaults, "run")), "shell"))


def _mappings_around(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The mapping nodes holding ``node``, innermost first."""
    out = []
    parent = node.parent
    while parent is not None:
        if parent.type in MAPPINGS:
            out.append(parent)
        parent = parent.parent
    return out


def _actions_step_kind(
    src: Source, pair: tree_sitter.Node, keys: list[str], jobs: dict[int, str | None]
) -> str | None:
    """The host that reads the code of the step holding the ``run:`` pair (at key path
    ``keys``): ``"shell"``, ``"powershell"`` or ``None`` (not read); ``jobs`` remembers
    the answer for a step without ``shell:`` by job node id."""
    around = _mappings_around(pair)  # step, job, jobs, workflow (or step, runs, action)
    if not around:
        return None
    shell = string(src, get(src, around[0], "shell"))
    if shell is not None:
        return _shell_kind(shell)
    if keys[:1] == ["runs"] or len(around) < 4:
        return None  # a composite action's step must name its shell
    job, workflow = around[1], around[3]
    if job.id not in jobs:
        jobs[job.id] = _job_kind(src, job, workflow)
    return jobs[job.id]


def _job_kind(src: Source, job: tree_sitter.Node, workflow: tree_sitter.Node) -> str | None:
    """The host that reads a step of ``job`` without its own ``shell:``."""
    for where in (job, workflow):
        shell = _defaults_shell(src, where)
        if shell is not None:
            return _shell_kind(shell)
    runs_on = get(src, job, "runs-on")
    if runs_on is None:  # a workflow being written: bash unless the job hints otherwise
        hint = _WINDOWS_HINT.search(src.text[src.cp(job.start_byte) : src.cp(job.end_byte)])
        return None if hint else "shell"
    return "shell" if _runner_is_posix(src, runs_on) else None


#: Words in a job without ``runs-on`` that may name a Windows runner or shell (its steps
#: are then not read).
_WINDOWS_HINT = re.compile(r"win|pwsh|powershell|cmd|\$\{\{", re.I)


def _gha_code(code: EmbeddedCode) -> tuple[EmbeddedCode, list[tuple[int, int]]]:
    """``code`` with each ``${{ ... }}`` replaced by :data:`PLACEHOLDER`, and the
    document ranges of the expressions."""
    if "${{" not in code.text:
        return code, []
    text: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    ranges: list[tuple[int, int]] = []
    last = 0
    for m in _EXPRESSION.finditer(code.text):
        a, b = m.start(), m.end()
        text.append(code.text[last:a])
        starts.extend(code.starts[last:a])
        ends.extend(code.ends[last:a])
        doc = (code.starts[a], code.ends[b - 1])
        ranges.append(doc)
        text.append(PLACEHOLDER)
        starts.extend([doc[0]] * len(PLACEHOLDER))
        ends.extend([doc[1]] * len(PLACEHOLDER))
        last = b
    text.append(code.text[last:])
    starts.extend(code.starts[last:])
    ends.extend(code.ends[last:])
    return EmbeddedCode("".join(text), starts, ends, code.end, code.quote), ranges


def _without_expressions(spans: list[ValueSpan], ranges: list[tuple[int, int]]) -> list[ValueSpan]:
    """The spans, each one whose value holds a ``${{ }}`` expression made non-static."""
    out = []
    for s in spans:
        hit = s.value is not None and any(
            a <= start < b for start in s.char_starts for a, b in ranges
        )
        if hit:
            s = ValueSpan(
                s.variable,
                s.host,
                s.name_start,
                s.name_end,
                None,
                (),
                (),
                s.content_start,
                s.content_end,
                s.raw_start,
                s.raw_end,
                s.quote,
                s.terminated,
            )
        out.append(s)
    return out


def _code_spans(
    src: Source, node: tree_sitter.Node, indent: int, actions: bool, inner: str = "shell"
) -> list[ValueSpan]:
    """The spans of one code scalar node, read by the ``inner`` host."""
    sc = scalar(src, node, indent)
    if sc.value is None or not names_family(sc.value):
        return []
    code = EmbeddedCode(sc.value, sc.starts, sc.ends, sc.content_end, sc.quote)
    ranges: list[tuple[int, int]] = []
    if actions:
        code, ranges = _gha_code(code)
    spans = shell_spans(HOST, code, inner)
    return _without_expressions(spans, ranges) if ranges else spans


def step_code(
    src: Source, env_pair: tree_sitter.Node, flavours: dict[int, str]
) -> tuple[str, str] | None:
    """For the ``env:`` pair of a GitHub Actions step: the code of the step's ``run:`` as
    its shell reads it (each ``${{ }}`` a placeholder) and the host that reads it
    (``"shell"``, ``"powershell"``); ``None`` for any other ``env:`` (a job's, a
    workflow's: more than one step reads it) or a step whose code is not read."""
    if flavour_at(flavours, env_pair) != ACTIONS or key_of(src, env_pair) != "env":
        return None
    keys = [*path(src, env_pair), "env"]
    if len(keys) != 5 or keys[0] != "jobs" or keys[2:4] != ["steps", "*"]:
        return None
    step = env_pair.parent
    run = next((p for p in pairs(step) if key_of(src, p) == "run"), None)
    found = inner(run.child_by_field_name("value")) if run is not None else None
    if run is None or found is None or found.node is None or found.tagged:
        return None
    if found.node.type not in SCALARS:
        return None
    kind = _actions_step_kind(src, run, [*path(src, run), "run"], {})
    sc = scalar(src, found.node, column(src, run))
    if kind is None or sc.value is None:
        return None
    code = EmbeddedCode(sc.value, sc.starts, sc.ends, sc.content_end, sc.quote)
    return _gha_code(code)[0].text, kind


def job_scripts(
    src: Source, variables_pair: tree_sitter.Node, flavours: dict[int, str]
) -> list[str] | None:
    """For the ``variables:`` pair of a GitLab job: the shell scripts its values reach, as
    the runner runs them (``before_script`` and ``script`` joined in one shell, the job's or
    else the global ones; ``after_script`` in another); ``None`` for any other
    ``variables:`` (the global one reaches every job) or a job whose scripts are not all
    plain strings here (``extends:``, ``<<:`` merges, ``!reference`` tags, aliases)."""
    if flavour_at(flavours, variables_pair) != GITLAB:
        return None
    if key_of(src, variables_pair) != "variables":
        return None
    keys = path(src, variables_pair)
    if len(keys) != 1 or keys[0] in GITLAB_GLOBAL:
        return None
    around = _mappings_around(variables_pair)  # the job's mapping, the document's
    if len(around) != 2:
        return None
    job, top = around
    if any(key_of(src, p) in ("extends", "<<", None) for p in pairs(job)):
        return None
    default = mapping_of(get(src, top, "default"))

    def code(key: str) -> list[str] | None:
        for mapping in (job, default, top):
            value = get(src, mapping, key)
            if value is not None and value.parent is not None:
                return _script_codes(src, value, column(src, value.parent))
        return []

    before, script, after = code("before_script"), code("script"), code("after_script")
    if before is None or script is None or after is None:
        return None
    return ["\n".join(before + script), "\n".join(after)]


def _script_codes(src: Source, value: tree_sitter.Node, indent: int) -> list[str] | None:
    """The lines of a GitLab script (a string, or a list of strings, nested lists too) as
    decoded code; ``None`` when one is not a plain string (an alias, a tag)."""
    out: list[str] = []
    todo = [(value, indent)]  # in document order from the end (iterative: any depth)
    while todo:
        found = inner(todo[-1][0])
        node, at = found.node, todo.pop()[1]
        if node is None or found.tagged or found.alias:
            return None
        if node.type in SCALARS:
            sc = scalar(src, node, at)
            if sc.value is None:
                return None
            out.append(sc.value)
        elif node.type in SEQUENCES:
            todo += reversed([(item, entry_indent(src, item)) for item in items(node)])
        else:
            return None
    return out


def _scripts(src: Source, value: tree_sitter.Node, indent: int) -> list[ValueSpan]:
    """A GitLab script: a string, or a list of strings (nested lists too, read without
    recursion)."""
    out: list[ValueSpan] = []
    todo = [(value, indent)]  # in document order from the end
    while todo:
        found = inner(todo[-1][0])
        node, at = found.node, todo.pop()[1]
        if node is None or found.tagged or found.alias:
            continue
        if node.type in SCALARS:
            out.extend(_code_spans(src, node, at, False))
        elif node.type in SEQUENCES:
            todo += reversed([(item, entry_indent(src, item)) for item in items(node)])
    return out


def code_spans(src: Source, root: tree_sitter.Node, flavours: dict[int, str]) -> list[ValueSpan]:
    """The spans of the shell code of every GitHub Actions step and GitLab script under
    ``root`` (see the module docstring); ``flavours``: each document's flavour by node id.
    Unordered."""
    out: list[ValueSpan] = []
    jobs: dict[int, str | None] = {}
    for _, captures in query_cursor(query("yaml", _CODE_QUERY)).matches(root):
        try:
            _code_place(src, captures["p"][0], captures["v"][0], flavours, jobs, out)
        except Exception:  # one odd place (an ERROR region) costs only its own spans
            log.exception("yaml: shell code could not be read")
    return out


def _code_place(
    src: Source,
    pair: tree_sitter.Node,
    value: tree_sitter.Node,
    flavours: dict[int, str],
    jobs: dict[int, str | None],
    out: list[ValueSpan],
) -> None:
    """Add the spans of one ``run:``/``script:`` pair's code, when it is one."""
    if not names_family(src.text[src.cp(value.start_byte) : src.cp(value.end_byte)]):
        return
    key = key_of(src, pair)
    flavour = flavour_at(flavours, pair)
    keys = [*path(src, pair), key or ""]
    if flavour == ACTIONS and key == "run":
        step = len(keys) == 5 and keys[0] == "jobs" and keys[2:4] == ["steps", "*"]
        step = step or (keys[:3] == ["runs", "steps", "*"] and len(keys) == 4)
        found = inner(value)
        if not step or found.node is None or found.tagged or found.node.type not in SCALARS:
            return
        kind = _actions_step_kind(src, pair, keys, jobs)
        if kind is not None:
            out.extend(_code_spans(src, found.node, column(src, pair), True, kind))
    elif flavour == GITLAB and key in ("script", "before_script", "after_script"):
        job = len(keys) == 2 and (keys[0] not in GITLAB_GLOBAL or keys[0] == "default")
        if job or (keys == [key] and key != "script"):  # global before/after_script
            out.extend(_scripts(src, value, column(src, pair)))
