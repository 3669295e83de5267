"""The benchmark's generated inputs (``scripts/bench.py``): one document per name in
:data:`INPUTS`, with the path it is written to (the path decides the host)."""

from __future__ import annotations

from typing import Any

from bench_values import VALUES


def gen_shell(lines: int) -> str:
    out = ["#!/usr/bin/env bash", "set -euo pipefail"]
    for i in range(lines - 2):
        if i % 50 == 0:
            out.append(f'export TORCH_LOGS="+dynamo,guards,aot_g{i % 3}"')
        elif i % 7 == 0:
            out.append(f"TORCH_LOGS=+inductor,output_code python train.py --seed {i}")
        else:
            out.append(f'echo "step {i}" && run_job --name job{i} --retries 3')
    return "\n".join(out) + "\n"


def gen_launch(configs: int) -> str:
    parts = ['{\n  // generated\n  "version": "0.2.0",\n  "configurations": [']
    for i in range(configs):
        value = "+dynamo,guards" if i % 2 else "aot_g,\\u002bdynamo"
        parts.append(
            "    {\n"
            f'      "name": "run {i}", /* c */\n'
            '      "type": "debugpy",\n      "request": "launch",\n'
            f'      "env": {{ "TORCH_LOGS": "{value}", "OTHER": "x" }},\n'
            "    },"
        )
    parts.append("  ],\n}\n")
    return "\n".join(parts)


def gen_env(lines: int) -> str:
    out = []
    for i in range(lines):
        if i % 25 == 0:
            out.append(f"TORCH_LOGS=+dynamo,guards{',aot_g' if i % 2 else ''}")
        else:
            out.append(f'KEY_{i}="value {i}" # comment')
    return "\n".join(out) + "\n"


def gen_python(lines: int, values: int) -> str:
    """A module of ``lines`` lines: small functions and classes, with ``values`` family
    values spread through it (``os.environ[...] =``, a child's ``env={...}``), one in
    four with a typo; none at all when ``values`` is 0 (the file is then never parsed)."""
    out = ['"""Generated."""', "import os", "import subprocess", ""]
    every = max(1, lines // 5 // values) if values else 0  # a function is 5 lines
    i = 0
    while len(out) < lines:
        i += 1
        if every and i % every == 0 and i // every <= values:
            typo = ",aot_g" if (i // every) % 4 == 0 else ""
            if (i // every) % 2:
                out.append(f'os.environ["TORCH_LOGS"] = "+dynamo,guards{typo}"')
            else:
                out.append(f'subprocess.run(["x"], env={{"TORCH_LOGS": "recompiles{typo}"}})')
            continue
        out += [
            f"def step_{i}(batch, lr={i}e-4):",
            f'    """Step {i}: scale and sum."""',
            f"    total = sum(x * lr for x in batch if x % {i % 7 + 2})",
            f'    return {{"step": {i}, "total": total, "name": f"run-{{total}}"}}',
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_python_calls(lines: int, calls: int) -> str:
    """A training module of ``lines`` lines that imports torch and calls ``set_logs``
    ``calls`` times from functions the module calls after the import (one call in four
    with a mistake: a level for an artifact, ``True`` for a component, an unknown
    keyword); one function in ten also writes ``TORCH_LOGS`` (TL501), and one writes
    ``TORCH_LOG`` (TL408: a document with a near-miss name is extracted twice)."""
    out = ['"""Generated."""', "import logging", "import os", "import torch", ""]
    every = max(1, lines // 6 // calls) if calls else 0  # a function is 6 lines
    i = 0
    called: list[str] = []
    while len(out) < lines - len(called) - 1:
        i += 1
        if every and i % every == 0 and i // every <= calls:
            n = i // every
            wrong = ("guards=logging.DEBUG", "dynamo=True", "dynamoo=logging.INFO", "")[n % 4]
            args = ", ".join(a for a in ("graph_breaks=True", wrong) if a)
            body = [f"    torch._logging.set_logs({args})"]
            if n % 10 == 0:
                body.insert(
                    0, f'    os.environ["TORCH_LOGS"] = "+dynamo,guards{",aot_g" * (n % 20 == 0)}"'
                )
            if n == 1:
                body.insert(0, '    os.environ["TORCH_LOG"] = "recompiles"')
            out += [f"def configure_{n}():", *body, "", ""]
            called.append(f"configure_{n}()")
            continue
        out += [
            f"def step_{i}(batch, lr={i}e-4):",
            f'    """Step {i}: scale and sum."""',
            f"    total = sum(x * lr for x in batch if x % {i % 7 + 2})",
            f'    return {{"step": {i}, "total": total, "name": f"run-{{total}}"}}',
            "",
            "",
        ]
    return "\n".join(out[: lines - len(called)] + called) + "\n"


def gen_compose(lines: int) -> str:
    """A Compose file of about ``lines`` lines: services with ``environment:`` in the map
    and the list form, one value in four with a typo, and unrelated keys between."""
    out = ["services:"]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        out += [f"  svc{i}:", f"    image: registry.example.com/train:{i}", "    environment:"]
        if i % 2:
            out += [f'      TORCH_LOGS: "+dynamo,guards{typo}"', f"      OTHER_{i}: x"]
        else:
            out += [f"      - TORCH_LOGS=recompiles{typo}", f"      - OTHER_{i}=x"]
        out += ["    command: python train.py", "    volumes:", f"      - ./data{i}:/data"]
    return "\n".join(out[:lines]) + "\n"


def gen_workflow(lines: int) -> str:
    """A GitHub Actions workflow of about ``lines`` lines: jobs with a job-level ``env:``
    and ``run:`` blocks that set the variable for one command (one in four a typo)."""
    out = ["name: train", "on: [push]", "env:", "  TORCH_LOGS_FORMAT: short", "jobs:"]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        out += [
            f"  job{i}:",
            "    runs-on: ubuntu-latest",
            "    env:",
            f"      TORCH_LOGS: +dynamo{typo}",
            "    steps:",
            "      - uses: actions/checkout@v4",
            "      - run: |",
            f'          echo "job {i}"',
            f"          TORCH_LOGS=recompiles{typo} python train.py --seed {i}",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_dockerfile(lines: int) -> str:
    """A Dockerfile of about ``lines`` lines: ``ENV`` and ``RUN`` lines (continuations
    too), one value in four with a typo."""
    out = ["# syntax=docker/dockerfile:1", "FROM python:3.12"]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        out += [
            f'ENV TORCH_LOGS="+dynamo{typo}" OTHER_{i}=x',
            f"RUN pip install pkg{i} && \\",
            f"    TORCH_LOGS=recompiles{typo} python -c 'print({i})'",
            f"COPY file{i} /app/",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_notebook(megabytes: int, cells: int) -> str:
    """A Jupyter notebook (nbformat 4, indented as Jupyter writes it) of about
    ``megabytes`` MB and ``cells`` cells: code cells with ``os.environ["TORCH_LOGS"]``
    assignments (one in four with a typo) and a ``import torch`` cell first, markdown
    cells, and outputs that make up the size: base64 PNG strings and stream text."""
    import base64
    import json

    per_cell = megabytes * 1_000_000 // cells
    png = base64.b64encode(bytes(range(256)) * (per_cell * 3 // 4 // 256 // 2)).decode()
    stream = [f"step {i}: loss {1 / (i + 1):.4f}\n" for i in range(per_cell // 2 // 24)]
    out = []
    for i in range(cells):
        if i % 5 == 4:
            out.append(
                {
                    "cell_type": "markdown",
                    "id": f"m{i}",
                    "metadata": {},
                    "source": [f"## Step {i}\n", "\n", "Train and log.\n"],
                }
            )
            continue
        typo = ",aot_g" if i % 4 == 0 else ""
        source = (
            ["import torch\n"]
            if i == 0
            else [
                "import os\n",
                f'os.environ["TORCH_LOGS"] = "+dynamo,guards{typo}"\n',
                f"model_{i} = torch.compile(lambda x: x * {i})\n",
                f"print(model_{i}(torch.ones(3)))",
            ]
        )
        out.append(
            {
                "cell_type": "code",
                "execution_count": i + 1,
                "id": f"c{i}",
                "metadata": {},
                "outputs": [
                    {"name": "stdout", "output_type": "stream", "text": stream},
                    {
                        "data": {"image/png": png, "text/plain": ["<Figure>"]},
                        "metadata": {},
                        "output_type": "display_data",
                    },
                ],
                "source": source,
            }
        )
    meta = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python", "version": "3.11.0"},
    }
    doc = {"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def gen_pyproject(lines: int) -> str:
    """A pyproject.toml of about ``lines`` lines: project tables and a long pytest-env
    ``env`` list (one entry every ~10 lines, one value in four with a typo), then tox
    ``set_env`` tables."""
    out = ["[project]", 'name = "big"', 'version = "1.0"', "dependencies = ["]
    i = 0
    while len(out) < lines // 2:
        i += 1
        out += [f'  "pkg{i}>=1.{i}",  # dependency {i}']
    out += ["]", "", "[tool.pytest.ini_options]", "env = ["]
    j = 0
    while len(out) < lines * 3 // 4:
        j += 1
        typo = ",aot_g" if j % 4 == 0 else ""
        out += [f'  "D:TORCH_LOGS=+dynamo{typo}",', *(f'  "OTHER_{j}_{k}=x",' for k in range(9))]
    out += ["]"]
    k = 0
    while len(out) < lines:
        k += 1
        typo = ",recompile" if k % 4 == 0 else ""
        out += [
            f"[tool.tox.env.e{k}.set_env]",
            f'TORCH_LOGS = "graph_breaks{typo}"',
            f'OTHER = "{k}"',
            *(f'X{m} = "y"' for m in range(7)),
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_tox(lines: int) -> str:
    """A ``tox.ini`` of about ``lines`` lines: a ``[pytest]`` section with pytest-env
    ``env`` entries, then ``[testenv:eN]`` sections with ``set_env`` lines (a factor
    prefix, a comment), one value in four with a typo."""
    out = ["[tox]", "env_list = py312", "", "[pytest]", "env ="]
    out += [f"    D:TORCH_LOGS_FORMAT=%(levelname)s {i}: %(message)s" for i in range(20)]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        out += [
            "",
            f"[testenv:e{i}]",
            f"deps = pkg{i}",
            "set_env =",
            f"    TORCH_LOGS = +dynamo{typo}  # env {i}",
            f"    py312: TORCH_LOGS_OUT = logs/e{i}.log",
            f"    OTHER_{i} = x",
            "commands = pytest {posargs}",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_makefile(lines: int) -> str:
    """A Makefile of about ``lines`` lines, a family value every ~10 lines: exported
    assignments (some continued), target-specific ones and recipe lines setting the
    variable (``$$`` and ``$(X)`` too), one value in four with a typo."""
    out = ["# generated", "export TORCH_LOGS = +dynamo,guards", "PY ?= python3", ""]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        out += [
            f"target{i}: export TORCH_LOGS := recompiles{typo}",
            f"target{i}: dep{i}.o $(OBJS)",
            f"	@echo building {i} $$HOME",
            f"	TORCH_LOGS=+inductor{typo} $(PY) train.py --seed {i} \\",
            f"	  --out $(BUILD)/run{i}",
            f"	-TORCH_LOGS=$$EXTRA $(PY) eval.py  # {i}",
            "",
            f"OBJS += obj{i}.o",
            f"TORCH_LOGS_OUT = /tmp/logs/run{i}.txt \\",
            "    # continued",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_powershell(lines: int) -> str:
    """A PowerShell script of about ``lines`` lines: a value every ~10 lines (``$env:``
    assignments, ``Set-Item``, ``SetEnvironmentVariable``), one in four with a typo."""
    out = ["# train", "$ErrorActionPreference = 'Stop'"]
    i = 0
    while len(out) < lines:
        i += 1
        typo = ",aot_g" if i % 4 == 0 else ""
        setter = (
            f'$env:TORCH_LOGS = "+dynamo{typo}"',
            f"Set-Item -Path Env:TORCH_LOGS -Value 'recompiles{typo}'",
            f"[Environment]::SetEnvironmentVariable('TORCH_LOGS', 'guards{typo}')",
        )[i % 3]
        out += [
            setter,
            f'Write-Host "step {i}: $($args.Count)"',
            f"foreach ($n in 1..3) {{ Invoke-Job -Name job{i} -Retry $n }}",
            f"python train.py --seed {i}",
            "if ($LASTEXITCODE -ne 0) { exit 1 }",
            f"$p{i} = @{{ Name = 'x{i}'; Value = {i} }}",
            "<# a block",
            "   comment #>",
            f"Get-ChildItem -Path . -Filter '*.log' | Remove-Item  # {i}",
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def gen_batch(lines: int) -> str:
    """A cmd script of ``lines`` CRLF lines with a family ``set`` every ~10 lines (one in
    five with a typo, some in ``if`` blocks and after ``&``)."""
    out = ["@echo off", "setlocal"]
    for i in range(lines - 2):
        if i % 10 == 0:
            typo = ",aot_g" if i % 50 == 0 else ""
            if i % 30 == 0:
                out.append(f'if "%1"=="x" (set "TORCH_LOGS=+dynamo,guards{typo}")')
            else:
                out.append(f"echo step {i} & set TORCH_LOGS=+dynamo,guards{typo}")
        elif i % 10 == 5:
            out.append(f"python train.py --seed {i} ^")
        else:
            out.append(f'  --name "job {i}" --retries 3 ^& rem {i}')
    return "\r\n".join(out) + "\r\n"


INPUTS = {
    "shell-10k": ("run.sh", lambda: gen_shell(10_000)),
    "launch-2000": (".vscode/launch.json", lambda: gen_launch(2_000)),
    "env-5000": (".env", lambda: gen_env(5_000)),
    "shell-small": ("small.sh", lambda: gen_shell(100)),
    "launch-small": ("small/.vscode/launch.json", lambda: gen_launch(10)),
    "env-small": ("small.env", lambda: gen_env(100)),
    # small files: the first open of a fresh server is mostly its fixed costs
    "shell-20": ("tiny/run.sh", lambda: gen_shell(20)),
    "py-small": ("tiny/train.py", lambda: gen_python(40, 4)),
    "yaml-small": ("tiny/compose.yaml", lambda: gen_compose(40)),
    "docker-small": ("tiny/Dockerfile", lambda: gen_dockerfile(20)),
    "py-10k": ("module.py", lambda: gen_python(10_000, 0)),
    "py-100": ("train.py", lambda: gen_python(10_000, 100)),
    "py-calls": ("configure.py", lambda: gen_python_calls(10_000, 100)),
    "compose-5000": ("compose.yaml", lambda: gen_compose(5_000)),
    "workflow-5000": (".github/workflows/train.yml", lambda: gen_workflow(5_000)),
    "docker-2000": ("Dockerfile", lambda: gen_dockerfile(2_000)),
    "pyproject-2000": ("toml/pyproject.toml", lambda: gen_pyproject(2_000)),
    "tox-2000": ("tox.ini", lambda: gen_tox(2_000)),
    "make-5000": ("Makefile", lambda: gen_makefile(5_000)),
    "ps1-5000": ("train.ps1", lambda: gen_powershell(5_000)),
    "bat-5000": ("run.bat", lambda: gen_batch(5_000)),
    # a notebook: checked by the CLI (notebook/reader.py), not opened in the server here
    "notebook-20mb": ("big.ipynb", lambda: gen_notebook(20, 200)),
    # one long value each: also measured through the core and the CLI
    **{
        name: (f"{name}.env", lambda make=make: f"TORCH_LOGS={make()}\n")
        for name, make in VALUES.items()
    },
}


def measure_notebook(name: str, rel: str, text: str, runs: int = 3) -> dict[str, float]:
    """A notebook input through the core (read: ``read_notebook``; check: every code cell
    and the cell order, ``notebook_findings``) and the CLI (``torch-logs check`` wall time,
    and a two-line ``.py`` checked the same way for the CLI's fixed cost), medians in ms."""
    import statistics
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.notebook.cells import notebook_findings
    from torch_logs_lsp.notebook.reader import read_notebook

    def ms(fn: Any) -> float:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    data = text.encode()
    registry = load_registry()
    notebook = read_notebook(data)
    cli = [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--python", sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        path, small = Path(tmp) / rel, Path(tmp) / "small.py"
        path.write_bytes(data)
        small.write_text('import os\nos.environ["TORCH_LOGS"] = "aot_g"\n')
        return {
            "bytes": len(data),
            "cells": len(notebook.cells),
            "read_ms": ms(lambda: read_notebook(data)),
            "check_cells_ms": ms(lambda: notebook_findings(notebook, registry)),
            "cli_check_ms": ms(lambda: subprocess.run([*cli, str(path)], capture_output=True)),
            "cli_check_small_py_ms": ms(
                lambda: subprocess.run([*cli, str(small)], capture_output=True)
            ),
        }
