"""Where a batch file's commands send stderr (TL411, :mod:`.batch.capture`)."""

from __future__ import annotations

import pytest

from torch_logs_lsp.hosts.batch import host as batch

SET = "set TORCH_LOGS=output_code\r\n"
#: (script, kept): the flag of the file's only span.
CASES: list[tuple[str, bool]] = [
    (SET + "python a.py 2> err.txt", True),
    (SET + "python a.py 2>> err.txt", True),
    (SET + "python a.py 2>nul", True),
    (SET + "python a.py > out.txt 2>&1", True),
    (SET + "python a.py 2>&1 | findstr /v x", True),
    (SET + "@echo off\r\nrem run\r\n:: it\r\npython a.py 2>&1 | tee log.txt", True),
    ('set "TORCH_LOGS=output_code"\r\npython a.py 2> err.txt', True),
    ("set TORCH_LOGS=output_code& python a.py 2> err.txt", True),
    (SET + 'python "a&b.py" 2> err.txt', True),  # quoted: no command separator
    (SET + "python a.py 2>&1 > out.txt", False),  # stderr where stdout was
    (SET + "python a.py > out.txt", False),
    (SET + "python a.py | more", False),
    (SET + "python a.py 2>&1", False),
    (SET + "python a.py", False),
    (SET + "python a.py 2> e.txt && python b.py", False),
    (SET + "python a.py 2> e.txt\r\ngoto :eof", False),  # order not the document's
    (SET + "if exist a.py python a.py 2> e.txt", False),  # not followed
    (SET + "(\r\npython a.py 2> e.txt\r\n)", False),
    (SET, False),
    ("setx TORCH_LOGS output_code\r\npython a.py 2> e.txt", False),  # later sessions
]


@pytest.mark.parametrize(("script", "kept"), CASES, ids=[c[0] for c in CASES])
def test_stderr_of_the_reading_commands(script: str, kept: bool) -> None:
    spans = batch.extract(script)
    assert [s.variable for s in spans] == ["TORCH_LOGS"]
    assert batch.stderr_captured(script, spans) == [kept]
