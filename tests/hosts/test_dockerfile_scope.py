"""What the Dockerfile host reads as shell, and where a value is in scope, as BuildKit
decides it (moby/buildkit 73ed6825, frontend/dockerfile/dockerfile2llb/convert.go and
docs/reference.md):

- ``dispatchRun``: only a ``RUN`` whose whole command is one heredoc word
  (``parser.MustParseHeredoc(args[0])``: ``^(\\d*)<<(-?)\\s*([^<]*)$`` with one word
  after it) runs the body as the script; otherwise the command line, each body and its
  terminator are joined and given to the shell, so ``RUN <<EOF python3`` runs python3
  with the body as its stdin, which is not shell code.
"""

from __future__ import annotations

import pytest

from torch_logs_lsp.core.fixer import fix_document
from torch_logs_lsp.core.hosts import extract
from torch_logs_lsp.core.registry import load_registry

from .spancheck import check_spans

REG = load_registry()

# RUN lines whose heredoc body is another program's stdin or data: no span, no fix.
V = "TORCH_LOGS='+dynamo ,guards'"
STDIN_BODIES = [
    f"RUN <<EOF python3\n{V}\nEOF\n",
    f"RUN <<EOF node\n{V}\nEOF\n",
    f"RUN <<EOF tee /x\n{V}\nEOF\n",
    f"RUN <<EOF cat > /app/x.sh\n{V} python x.py\nEOF\n",
    f"RUN <<EOF > /app/.env\n{V}\nEOF\n",
    f"RUN <<-EOF python3\n\t{V}\n\tEOF\n",
    f"RUN --mount=type=cache,target=/c <<EOF python3\n{V}\nEOF\n",
]


@pytest.mark.parametrize("body", STDIN_BODIES)
def test_heredoc_as_stdin_is_not_shell(body: str) -> None:
    text = "FROM python:3.12\n" + body + "ENV TORCH_LOGS=+dynamo\n"
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans] == [("TORCH_LOGS", "+dynamo")]
    bad = "FROM python:3.12\n" + body
    assert fix_document(bad, "dockerfile", REG) == (bad, [])


def test_heredoc_alone_is_the_script() -> None:
    text = f"FROM python:3.12\nRUN <<EOF\n{V} python x.py\nEOF\n"
    spans = extract("dockerfile", text)
    check_spans(text, spans)
    assert [s.value for s in spans] == ["+dynamo ,guards"]
    new, changes = fix_document(text, "dockerfile", REG)
    assert changes and "TORCH_LOGS='+dynamo,guards' python" in new
