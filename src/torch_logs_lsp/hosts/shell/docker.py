"""``docker``/``podman`` ``run``, ``create`` and ``exec`` (also ``docker container run``
...): the ``-e NAME=value`` / ``--env NAME=value`` / ``--env=NAME=value`` options give
the container's environment (``-e NAME`` alone passes the caller's value: no span).

The options are read as the CLI's flag parser (spf13/pflag, interspersed off) reads them,
up to the image (``run``/``create``) or the container (``exec``): the flag tables below
are docker/cli's ``cli/command/container/{opts,run,create,exec}.go`` (commit 28f7560,
2026-08); a flag not in them (or a global option before the subcommand) ends the walk,
so nothing after it is claimed. podman gets docker's table without ``--pull`` (whose
value podman makes optional). The command after the image is followed (``docker run img
env TORCH_LOGS=x cmd``): it runs in the container with these words.
"""

from __future__ import annotations

from torch_logs_lsp.hosts.shell.operands import operand_span
from torch_logs_lsp.hosts.shell.wrappers import Items, ShellWord

_RUN_BOOL = frozenset(
    {
        "detach", "disable-content-trust", "help", "init", "interactive", "no-healthcheck",
        "oom-kill-disable", "privileged", "publish-all", "quiet", "read-only", "rm",
        "sig-proxy", "tty", "use-api-socket",
    }
)  # fmt: skip
_RUN_VALUE = frozenset(
    {
        "add-host", "annotation", "attach", "blkio-weight", "blkio-weight-device", "cap-add",
        "cap-drop", "cgroup-parent", "cgroupns", "cidfile", "cpu-count", "cpu-percent",
        "cpu-period", "cpu-quota", "cpu-rt-period", "cpu-rt-runtime", "cpu-shares", "cpus",
        "cpuset-cpus", "cpuset-mems", "detach-keys", "device", "device-cgroup-rule",
        "device-read-bps", "device-read-iops", "device-write-bps", "device-write-iops", "dns",
        "dns-opt", "dns-option", "dns-search", "domainname", "entrypoint", "env", "env-file",
        "expose", "gpus", "group-add", "health-cmd", "health-interval", "health-retries",
        "health-start-interval", "health-start-period", "health-timeout", "hostname",
        "io-maxbandwidth",
        "io-maxiops", "ip", "ip6", "ipc", "isolation", "kernel-memory", "label", "label-file",
        "link", "link-local-ip", "log-driver", "log-opt", "mac-address", "memory",
        "memory-reservation", "memory-swap", "memory-swappiness", "mount", "name", "net",
        "net-alias", "network", "network-alias", "oom-score-adj", "pid", "pids-limit",
        "platform", "publish", "pull", "restart", "runtime", "security-opt", "shm-size",
        "stop-signal", "stop-timeout", "storage-opt", "sysctl", "tmpfs", "ulimit", "user",
        "userns", "uts", "volume", "volume-driver", "volumes-from", "workdir",
    }
)  # fmt: skip
_RUN_SHORT_BOOL = "diPqt"
_RUN_SHORT_VALUE = "acehlmpuvw"
_EXEC_BOOL = frozenset({"detach", "help", "interactive", "privileged", "tty"})
_EXEC_VALUE = frozenset({"detach-keys", "env", "env-file", "user", "workdir"})
_EXEC_SHORT_BOOL = "dit"
_EXEC_SHORT_VALUE = "euw"


def docker_items(text: str, args: list[ShellWord], i: int, base: int, items: Items) -> int | None:
    """Add the spans of ``args[i:]`` (``docker ...``) to ``items``; the index of the
    command run in the container, or ``None`` when there is none or it is not certain."""
    podman = (args[i].value or "").endswith("podman")
    k = i + 1
    if k < len(args) and args[k].value == "container":
        k += 1
    sub = args[k].value if k < len(args) else None
    if sub in ("run", "create"):
        bools, values = _RUN_BOOL, _RUN_VALUE - ({"pull"} if podman else set())
        short_bool, short_value = _RUN_SHORT_BOOL, _RUN_SHORT_VALUE
    elif sub == "exec":
        bools, values, short_bool, short_value = _EXEC_BOOL, _EXEC_VALUE, _EXEC_SHORT_BOOL, "euw"
    else:
        return None
    k += 1
    while k < len(args):
        word = args[k]
        v = word.value
        if v is None:
            return None
        if v == "--":
            k += 1
            break
        if not v.startswith("-") or v == "-":
            break
        if v.startswith("--"):
            name, eq, _ = v[2:].partition("=")
            if name in bools:
                k += 1
                continue
            if name not in values:
                return None
            if name == "env":
                at = (
                    (word, len("--env=")) if eq else (args[k + 1], 0) if k + 1 < len(args) else None
                )
                _env(text, at, base, items)
            k += 1 if eq else 2
            continue
        k += 1
        for j, c in enumerate(v[1:], 1):
            if c in short_bool:
                continue
            if c not in short_value:
                return None
            if j == len(v) - 1:  # the next word is the value
                if c == "e" and k < len(args):
                    _env(text, (args[k], 0), base, items)
                k += 1
            elif c == "e":  # -eNAME=value, -e=NAME=value
                _env(text, (word, j + 2 if v[j + 1] == "=" else j + 1), base, items)
            break
    if k > len(args):
        return None
    return k + 1 if k < len(args) else None  # after the image / the container


def _env(text: str, at: tuple[ShellWord, int] | None, base: int, items: Items) -> None:
    if at is None:
        return
    word, off = at
    if word.value is None or "=" not in word.value[off:]:
        return  # -e NAME: the caller's value
    if word.raw[:off] != (word.value or "")[:off]:
        return  # an option written with quotes: offsets into the raw word are not sure
    span = operand_span(text, word, off)
    if span is not None:
        items.spans.append(span.moved(base) if base else span)
