"""A Dockerfile's ``RUN`` keeps the stderr of its commands (TL411); ``ENV`` reaches every
later command and the container's: never."""

from __future__ import annotations

from torch_logs_lsp.hosts.dockerfile import host as dockerfile


def test_run_and_env() -> None:
    text = (
        "FROM python:3.12\n"
        "ENV TORCH_LOGS=output_code\n"
        "RUN TORCH_LOGS=output_code python a.py > /tmp/run.log 2>&1\n"
        "RUN TORCH_LOGS=output_code python a.py\n"
        "RUN TORCH_LOGS=output_code python a.py \\\n    2>&1 | tee /tmp/log.txt\n"
        "RUN <<EOF\nexport TORCH_LOGS=output_code\npython a.py 2> /tmp/err.log\nEOF\n"
    )
    spans = dockerfile.extract(text)
    assert dockerfile.stderr_captured(text, spans) == [False, True, False, True, True]
