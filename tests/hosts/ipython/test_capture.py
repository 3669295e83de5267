"""A notebook cell: ``!`` commands and ``subprocess`` children that keep stderr (TL411);
``%env`` sets the kernel's own environment: never."""

from __future__ import annotations

from torch_logs_lsp.hosts.ipython import host as ipython


def test_cell() -> None:
    text = (
        "!TORCH_LOGS=output_code python a.py 2>&1 | tee log.txt\n"
        "!TORCH_LOGS=output_code python a.py\n"
        "import os, subprocess\n"
        'subprocess.run(c, env={**os.environ, "TORCH_LOGS": "output_code"}, capture_output=True)\n'
        'subprocess.run(c, env={**os.environ, "TORCH_LOGS": "output_code"})\n'
        "%env TORCH_LOGS=output_code\n"
    )
    spans = ipython.extract(text)
    assert ipython.stderr_captured(text, spans) == [True, False, True, False, False]


def test_bash_cell() -> None:
    text = "%%bash\nexport TORCH_LOGS=output_code\npython a.py > run.log 2>&1\n"
    assert ipython.stderr_captured(text, ipython.extract(text)) == [True]
