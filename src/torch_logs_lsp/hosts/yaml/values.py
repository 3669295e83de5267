"""What a process gets from a YAML scalar in each flavour (for :mod:`.yaml_places`): the
``$`` rules of the tool that reads the file, and the strings it makes of numbers.

Each rule keeps the offset map: a decoded code point keeps the document range of its
source, and an escape that gives one code point (``$$`` -> ``$``) covers both sources.
A value that is not known before the tool runs is ``None`` (never diagnosed).

- Compose (https://docs.docker.com/reference/compose-file/interpolation/): ``$VAR``,
  ``${VAR}``, ``${VAR:-x}``, ... are interpolated ("Compose processes any string
  following a ``$`` sign as long as it makes it a valid variable definition - either an
  alphanumeric name (``[_a-zA-Z][_a-zA-Z0-9]*``) or a braced string starting with
  ``${``. In other circumstances, it will be preserved"); ``$$`` is a literal ``$``.
- GitHub Actions (https://docs.github.com/en/actions/reference/workflows-and-actions/
  expressions): ``${{ ... }}`` is evaluated before the step runs; a ``$X`` in ``env:``
  is passed as written (the shell of a ``run:`` step may expand it, the variable's
  value is the text).
- GitLab CI (https://docs.gitlab.com/ci/variables/ and the ``variables:expand``
  keyword): variables are expanded (``$X``, ``${X}``, ``%X%``) unless ``expand:
  false``; ``$$`` is a literal ``$`` (gitlab-org/gitlab#16442, #321997).
- Kubernetes (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/
  pod-v1/#environment-variables, EnvVar.value): "Variable references $(VAR_NAME) are
  expanded ... Double $$ are reduced to a single $, which allows for escaping the
  $(VAR_NAME) syntax"; any other ``$`` stays.
- Generic YAML: who reads it is unknown, so any ``$`` makes the value unknown.
- Kubernetes and generic YAML: ``{{ ... }}`` is a template (a Helm chart's
  ``"{{ .Values.logs }}"``, an Ansible/Jinja variable) filled in before anything reads
  the value: unknown.

Non-strings: a plain scalar that YAML resolves to a number, a boolean or null
(:func:`.yaml_scalars.plain_is_string`). Compose, GitHub Actions and GitLab turn a
number into a string (a decimal integer is kept as written; other forms are left
unknown); booleans are left unknown (old Compose rejects them, readers spell them
differently) but Compose's lowercase ``true``/``false``: the Compose file reference
(https://docs.docker.com/reference/compose-file/services/#environment) takes "string,
number, boolean" values and compose-go (v2) prints a boolean as Go does (``true``,
``false``: the text as written); null means "no value here" (Compose takes the
variable from the shell):
no span. Kubernetes rejects a non-string ``value`` (its API type is string) and a
generic file's reader is unknown: no span.
"""

from __future__ import annotations

import re

from torch_logs_lsp.hosts.yaml.tree import ACTIONS, COMPOSE, GITLAB, KUBERNETES

Mapped = tuple[str | None, tuple[int, ...], tuple[int, ...]]

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_NAME_START = re.compile(r"[_a-zA-Z{]")
_GITLAB_PERCENT = re.compile(r"%[A-Za-z_][A-Za-z0-9_]*%")


def non_string(flavour: str, text: str) -> str | bool | None:
    """For a plain scalar ``text`` that is not a YAML string: the string the process gets
    (``str``), ``None`` when that is unknown (a span without a value), or ``False`` when
    nothing is set or the file is rejected (no span)."""
    if text in _NULL or flavour not in (COMPOSE, ACTIONS, GITLAB):
        return False
    if flavour == COMPOSE and text in ("true", "false"):
        return text  # compose-go: a boolean becomes "true"/"false" (see the docstring)
    return text if _DECIMAL.fullmatch(text) else None


def _unescape_dollars(
    value: str, starts: tuple[int, ...], ends: tuple[int, ...], stop: str
) -> Mapped:
    """``$$`` -> ``$`` (one code point over both sources); a ``$`` followed by a
    character of ``stop`` (or, with ``stop == "name"``, a name start or ``{``) makes the
    value unknown; any other ``$`` stays."""
    if "$" not in value:
        return value, starts, ends
    out: list[str] = []
    out_starts: list[int] = []
    out_ends: list[int] = []
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "$" and i + 1 < n:
            nxt = value[i + 1]
            if nxt == "$":
                out.append("$")
                out_starts.append(starts[i])
                out_ends.append(ends[i + 1])
                i += 2
                continue
            if (stop == "name" and _NAME_START.match(nxt)) or (stop != "name" and nxt in stop):
                return None, (), ()
        out.append(c)
        out_starts.append(starts[i])
        out_ends.append(ends[i])
        i += 1
    return "".join(out), tuple(out_starts), tuple(out_ends)


def expand(
    flavour: str, value: str, starts: tuple[int, ...], ends: tuple[int, ...], raw: bool = False
) -> Mapped:
    """The value the process gets from a decoded string ``value`` (with its offset map)
    in an environment entry of a ``flavour`` document (see the module docstring);
    ``raw``: a GitLab variable with ``expand: false``."""
    if flavour == ACTIONS:
        return (None, (), ()) if "${{" in value else (value, starts, ends)
    if flavour not in (COMPOSE, GITLAB) and "{{" in value:
        return None, (), ()  # a template (Helm, Ansible/Jinja) fills it in first
    if flavour == KUBERNETES:
        return _unescape_dollars(value, starts, ends, "(")
    if flavour == COMPOSE:
        return _unescape_dollars(value, starts, ends, "name")
    if flavour == GITLAB:
        if raw:
            return value, starts, ends
        if _GITLAB_PERCENT.search(value):
            return None, (), ()
        mapped = _unescape_dollars(value, starts, ends, "name")
        if mapped[0] is not None and "$" in value.replace("$$", ""):
            return None, (), ()  # a lone `$`: left unknown (GitLab's rules vary by version)
        return mapped
    return (None, (), ()) if "$" in value else (value, starts, ends)
