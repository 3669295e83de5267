"""``srun [options] command``: the options as Slurm parses them, and the variables its
``--export`` list sets for the tasks.

The option table is Slurm's own (``src/common/slurm_opt.c``, SchedMD/slurm commit
284c3b9, 2026-08: the options with a ``set_func`` or ``set_func_srun``, read with
``getopt_long`` and ``+``). A SPANK plugin can add options: one not in the table ends the
walk (no span after it).

``--export`` (the last one given counts, ``arg_set_export``) is split by srun's
``_build_user_env`` (``src/srun/launch.c``) with ``find_quote_token`` (``src/common/env.c``)
at commas outside quote characters; ``NAME=value`` tokens are set, ``NONE`` stops the
list. The spans are read only when the list holds no quote character (quotes are kept in
a value unless they wrap the whole token: not worth the risk) and no ``NONE`` comes
before. With ``ALL`` in the list srun merges the caller's whole environment *after* these
values: a ``TORCH_LOGS`` the caller exports wins over the one written here (the span is
what the task sees when the caller has none).
"""

from __future__ import annotations

from torch_logs_lsp.hosts.shell.operands import operand_span
from torch_logs_lsp.hosts.shell.wrappers import Items, Options, ShellWord, getopt

_REQUIRED = frozenset(
    """
    accel-bind account acctg-freq autocomplete bb bbf bcast-exclude begin chdir cluster
    cluster-constraint clusters comment constraint container container-id context core-spec
    cores-per-socket cpu-bind cpu-freq cpu_bind cpus-per-gpu cpus-per-task deadline delay-boot
    dependency distribution epilog error exclude export extra extra-node-info gpu-bind gpu-
    freq gpus gpus-per-node gpus-per-socket gpus-per-task gres gres-flags het-group hint
    ignore-signals input job-name jobid licenses mail-type mail-user mcs-label mem mem-bind
    mem-per-cpu mem-per-gpu mem-update mincpus mpi msg-timeout network nodefile nodelist nodes
    ntasks ntasks-per-core ntasks-per-gpu ntasks-per-node ntasks-per-socket ntasks-per-tres
    open-mode output pack-group partition prefer priority profile prolog qos relative
    reservation resources runtime segment signal slurmd-debug sockets-per-node switches task-
    epilog task-prolog tasks-per-node thread-spec threads threads-per-core time time-min tmp
    treewidth tres-bind tres-per-task wait wckey
    """.split()  # noqa: SIM905
)
_NO_ARG = frozenset(
    """
    async consolidate-segments contiguous debugger-test disable-status exact help hold
    interactive label multi-prog no-allocate overcommit oversubscribe parsable preserve-env
    quiet quit-on-interrupt reboot spread-job spread-segments stepmgr test-only unbuffered
    usage use-min-nodes verbose version wait-for-children whole
    """.split()  # noqa: SIM905
)
_OPTIONAL = frozenset(
    """
    bcast compress exclusive external-launcher immediate kill-on-bad-exit nice no-kill oom-
    kill-step overlap propagate pty resv-ports send-libs x11
    """.split()  # noqa: SIM905
)
#: Short options: with an argument; without (``-I``, ``-K``, ``-k`` take an optional one,
#: only attached: as flags they take no next word).
SRUN = Options("ABCDFGJLMNSTWbcdeimnopqrtwx", "EHOQVXZhlsuvIKk", _REQUIRED, _NO_ARG, _OPTIONAL)


def srun_items(text: str, args: list[ShellWord], i: int, base: int, items: Items) -> int | None:
    """Add the spans of the last ``--export`` of ``args[i:]`` (``srun ...``) to ``items``;
    the index of the command srun runs, or ``None`` when not certain."""
    k = getopt(args, i + 1, SRUN)
    if k is None:
        return None
    last: tuple[ShellWord, int] | None = None
    j = i + 1
    while j < k:
        v = args[j].value or ""
        name, eq, _ = v[2:].partition("=")
        if v.startswith("--") and name == "export":
            last = (args[j], len("--export=")) if eq else (args[j + 1], 0)
        if v.startswith("--"):
            j += 2 if name in _REQUIRED and not eq else 1
            continue
        j += 1
        for n, c in enumerate(v[1:], 1):  # a cluster: an argument may be the next word
            if c in SRUN.short_arg:
                j += 1 if n == len(v) - 1 else 0
                break
    if last is not None:
        _export(text, *last, base, items)
    return k


def _export(text: str, word: ShellWord, off: int, base: int, items: Items) -> None:
    v = word.value
    if v is None or word.raw[:off] != v[:off] or "'" in v or '"' in v:
        return
    at = off
    for token in v[off:].split(","):
        if token.upper() == "NONE":
            return
        if "=" in token and word.raw.startswith(v[:at]):
            span = operand_span(text, _from(word, at), 0, comma=True)
            if span is not None:
                items.spans.append(span.moved(base) if base else span)
        at += len(token) + 1


def _from(word: ShellWord, off: int) -> ShellWord:
    """The rest of ``word`` from decoded offset ``off`` (only used when the decoded and
    raw words agree up to there, see :func:`_export`)."""
    return ShellWord(
        word.start + off, word.end, word.raw[off:], None if word.value is None else word.value[off:]
    )
