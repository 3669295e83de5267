"""The JSON form of ``RUN``/``CMD``/``ENTRYPOINT`` (``["env", "TORCH_LOGS=x", "python"]``):
its strings decoded as code with document offsets, and the family ``NAME=value`` operands
of ``env``. Offsets are **code points into the document**."""

from __future__ import annotations

from torch_logs_lsp.hosts.dockerfile import words
from torch_logs_lsp.hosts.embedded import EmbeddedCode
from torch_logs_lsp.hosts.jsonc.strings import scan_string
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import FAMILY, ValueSpan

HOST: HostKind = "dockerfile"
#: ``env`` as the first JSON string, its flags, and its flags that take an argument.
ENV_NAMES = frozenset({"env", "/usr/bin/env", "/bin/env"})
ENV_FLAGS = frozenset({"-i", "-0", "-", "--ignore-environment", "--null"})
ENV_WITH_ARG = frozenset({"-u", "--unset"})


def json_strings(line: EmbeddedCode, start: int) -> list[tuple[EmbeddedCode, int]]:
    """The strings of the JSON array at ``line.text[start:]``, decoded, as code (document
    offsets, quote :data:`~.dockerfile_words.JSON`) with the index of each opening quote."""
    out = []
    text = line.text
    i = start
    while i < len(text):
        if text[i] == '"':
            s = scan_string(text, i)
            starts = [line.starts[a] for a in s.starts]
            ends = [line.ends[b - 1] for b in s.ends]
            end = line.starts[s.content_end] if s.content_end < len(text) else line.end
            out.append((EmbeddedCode(s.value, starts, ends, end, words.JSON), i))
            i = s.raw_end
        else:
            i += 1
    return out


def json_env(strings: list[tuple[EmbeddedCode, int]]) -> list[ValueSpan]:
    """The family ``NAME=value`` operands of ``env`` in a JSON-form argument list."""
    out: list[ValueSpan] = []
    skip = False
    for code, _ in strings[1:]:
        word = code.text
        if skip:
            skip = False
        elif word in ENV_FLAGS or (word.startswith("--") and "=" in word):
            pass
        elif word in ENV_WITH_ARG:
            skip = True
        else:
            name, eq, value = word.partition("=")
            if not eq or not name or word.startswith("-"):
                break  # the command env runs
            n = len(name) + 1
            literal = all(code.ends[i] - code.starts[i] == 1 for i in range(n))
            if name not in FAMILY or not literal or any(0xD800 <= ord(c) < 0xE000 for c in value):
                continue
            first = code.starts[n] if value else code.end
            last = code.ends[-1] if value else code.end
            out.append(
                ValueSpan(
                    name,
                    HOST,
                    code.starts[0],
                    code.starts[0] + len(name),
                    value,
                    tuple(code.starts[n:]),
                    tuple(code.ends[n:]),
                    first,
                    last,
                    first,
                    last,
                    words.JSON,
                )
            )
    return out
