"""TL411 through the one pipeline (:func:`.pipeline.check_document`): silent where the host
says the reading process's stderr is already kept, asked lazily, and still given where
it is not."""

from __future__ import annotations

import pytest

from torch_logs_lsp.hosts.shell import host as shell_host
from torch_logs_lsp.lint.checker import stderr_captured
from torch_logs_lsp.lint.dead_values import OVERWRITTEN
from torch_logs_lsp.lint.pipeline import check_document, findings
from torch_logs_lsp.model.spans import ValueSpan


def codes(text: str, host: str) -> list[tuple[int, str]]:
    return [(f.line, f.diagnostic.code) for f in findings(text, host)]


@pytest.mark.parametrize(
    ("host", "text", "expected"),
    [
        ("shell", "TORCH_LOGS=output_code python a.py 2>&1 | tee log.txt\n", []),
        ("shell", "TORCH_LOGS=output_code python a.py | tee log.txt\n", [(0, "TL411")]),
        ("shell", "TORCH_LOGS=output_code python a.py > run.log\n", [(0, "TL411")]),
        ("makefile", "all:\n\tTORCH_LOGS=output_code python a.py > run.log 2>&1\n", []),
        ("dockerfile", "FROM x\nRUN TORCH_LOGS=output_code python a.py |& tee l\n", []),
        ("powershell", '$env:TORCH_LOGS = "output_code"\npython a.py 2> e.txt\n', []),
        ("batch", "set TORCH_LOGS=output_code\r\npython a.py 2> e.txt\r\n", []),
        ("batch", "set TORCH_LOGS=output_code\r\npython a.py\r\n", [(0, "TL411")]),
        (
            "python",
            "import os, subprocess\n"
            'subprocess.run(c, env={**os.environ, "TORCH_LOGS": "output_code"}, '
            "capture_output=True)\n",
            [],
        ),
        ("dotenv", "TORCH_LOGS=output_code\n", [(0, "TL411")]),  # no capability: as before
    ],
)
def test_hint_only_where_stderr_is_not_kept(host: str, text: str, expected: list) -> None:
    assert codes(text, host) == expected


def test_each_value_by_its_own_command() -> None:
    text = (
        "TORCH_LOGS=output_code python a.py 2> err.log\n"
        "TORCH_LOGS=output_code python b.py\n"
        "TORCH_LOGS=+dynamo,output_code python c.py &> run.log\n"
    )
    assert codes(text, "shell") == [(1, "TL411")]


def test_a_dead_value_before_a_kept_one() -> None:
    # the live value's flag is its own (the index into the live values maps back)
    text = "export TORCH_LOGS=dynamo\nexport TORCH_LOGS=output_code\npython a.py 2> e.log\n"
    assert codes(text, "shell") == [(0, OVERWRITTEN)]
    text = "export TORCH_LOGS=dynamo\nexport TORCH_LOGS=output_code\npython a.py\n"
    assert codes(text, "shell") == [(0, OVERWRITTEN), (1, "TL411")]


def test_the_host_is_asked_only_for_output_code(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = shell_host.stderr_captured

    def counting(text: str, spans: list[ValueSpan]) -> list[bool]:
        asked.append(len(spans))
        return real(text, spans)

    monkeypatch.setattr(shell_host, "stderr_captured", counting)
    check_document("TORCH_LOGS=+dynamo python a.py\nTORCH_TRACE=/tmp/t python b.py\n", "shell")
    assert asked == []
    check_document("TORCH_LOGS=output_code TORCH_LOGS_OUT=/tmp/l python a.py\n", "shell")
    assert asked == []  # TORCH_LOGS_OUT keeps it already
    text = "TORCH_LOGS=output_code python a.py\nTORCH_LOGS=output_code python b.py\n"
    assert [c for _, c in codes(text, "shell")] == ["TL411", "TL411"]
    assert asked == [2]  # once for the document


def test_a_failing_host_keeps_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, spans: list[ValueSpan]) -> list[bool]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(shell_host, "stderr_captured", broken)
    assert codes("TORCH_LOGS=output_code python a.py 2> e\n", "shell") == [(0, "TL411")]


def test_flags_of_the_wrong_length_keep_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shell_host, "stderr_captured", lambda text, spans: [True] * 3)
    captured = stderr_captured("shell", "X", [])
    assert not captured(0) and not captured(5)
