"""Plain lines (``KEY=value`` or ``KEY`` up to an LF, no quote opened) are stepped over
with one match each; only the family's bindings and the other lines are read in full.
python-dotenv is the oracle of what is read."""

from __future__ import annotations

import io

import pytest
from dotenv import dotenv_values

from torch_logs_lsp.hosts.dotenv import host


@pytest.fixture
def bindings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    read: list[int] = []
    real = host._binding

    def counted(text: str, pos: int, *args: object) -> int:
        read.append(pos)
        return real(text, pos, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(host, "_binding", counted)
    return read


def test_plain_lines_are_not_read_binding_by_binding(bindings: list[int]) -> None:
    plain = "".join(f"VAR_{i}=value {i} # not a comment\na\nK{i}=\n" for i in range(3000))
    text = plain + "TORCH_LOGS=+dynamo\n" + plain + "X='a\nb'\nTORCH_LOGS_OUT=/tmp/x # c\n"
    spans = host.extract(text)
    expected = dotenv_values(stream=io.StringIO(text), interpolate=False)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", expected["TORCH_LOGS"]),
        ("TORCH_LOGS_OUT", expected["TORCH_LOGS_OUT"]),
    ]
    assert len(bindings) <= 4  # the two family lines and the quoted value


@pytest.mark.parametrize(
    "line",
    ["A='x\n", 'A="x\n', "A= 'x'\n", "A=x\r\n", " A=x\n", "A =x\n", "export A=x\n", "A=\t'x\n"],
)
def test_lines_that_are_not_plain_are_read_in_full(line: str, bindings: list[int]) -> None:
    text = line + "TORCH_LOGS='dynamo'\n"
    spans = host.extract(text)
    expected = dotenv_values(stream=io.StringIO(text), interpolate=False)
    assert [s.value for s in spans if s.terminated] == (
        [expected["TORCH_LOGS"]] if "TORCH_LOGS" in expected else []
    )
    assert bindings and bindings[0] == 0  # the first line went through _binding
