"""Where a PowerShell script's commands send their error output (TL411,
:mod:`.powershell.capture`)."""

from __future__ import annotations

import pytest

from torch_logs_lsp.hosts.powershell import host as powershell
from torch_logs_lsp.hosts.powershell.capture import script_kept

SET = '$env:TORCH_LOGS = "output_code"\n'
#: (script, kept): the flag of the script's only span.
CASES: list[tuple[str, bool]] = [
    (SET + "python a.py 2>&1 | Tee-Object log.txt", True),
    (SET + "python a.py 2>&1 | Out-File log.txt", True),
    (SET + "python a.py 2> err.txt", True),
    (SET + "python a.py 2>> err.txt", True),
    (SET + "python a.py *> all.txt", True),
    (SET + "python a.py *>> all.txt", True),
    (SET + "python a.py 2>$null", True),
    (SET + "python a.py > out.txt 2>&1", True),
    (SET + "python a.py 2>&1 > out.txt", True),  # about_Redirection: merged, then to the file
    (SET + "$out = python a.py 2>&1", True),
    (SET + "& python a.py 2> err.txt", True),
    (SET + "& { python a.py } 2>&1 | Tee-Object log.txt", True),
    (SET + "Write-Host start\npython a.py 2> err.txt\nWrite-Host done", True),
    (SET + "Start-Process python -ArgumentList a.py -RedirectStandardError err.txt", True),
    (SET + "python a.py | Tee-Object log.txt", False),  # the success stream only
    (SET + "python a.py > out.txt", False),
    (SET + "$out = python a.py", False),
    (SET + "python a.py 2>&1", False),  # merged, to the console
    (SET + "python a.py", False),
    (SET + "python a.py 2> err.txt\npython b.py", False),
    (SET, False),  # dot-sourced: the session reads it later
    (SET + "Write-Host nothing runs python", False),
    (
        "foreach ($i in 1..2) { python a.py; $env:TORCH_LOGS = 'output_code'; "
        "python b.py 2> e.txt }",
        False,
    ),  # the loop's first command runs after the value too
    (
        '[Environment]::SetEnvironmentVariable("TORCH_LOGS", "output_code", "User")\n'
        "python a.py 2> err.txt",
        False,
    ),  # stored for the user's later sessions
]


@pytest.mark.parametrize(("script", "kept"), CASES, ids=[c[0] for c in CASES])
def test_stderr_of_the_reading_commands(script: str, kept: bool) -> None:
    spans = powershell.extract(script)
    assert [s.variable for s in spans] == ["TORCH_LOGS"]
    assert powershell.stderr_captured(script, spans) == [kept]


def test_script_kept() -> None:
    assert script_kept("python a.py 2>&1 | Tee-Object log.txt")
    assert not script_kept("python a.py | Tee-Object log.txt")
    assert not script_kept("Write-Host hi")


def test_spans_of_another_text_keep_nothing() -> None:
    spans = powershell.extract(SET + "python a.py 2> e.txt")
    assert powershell.stderr_captured("", spans) == [False]
