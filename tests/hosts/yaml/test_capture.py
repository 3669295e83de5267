"""CI YAML: a step's or a script's shell code keeps the stderr of its commands (TL411),
and a GitHub Actions step's ``env:`` counts as kept when its ``run:`` keeps every
command's."""

from __future__ import annotations

from torch_logs_lsp.hosts.yaml import host as yaml

WORKFLOW = """\
on: push
env:
  TORCH_LOGS: output_code
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      TORCH_LOGS: output_code
    steps:
      - uses: actions/checkout@v4
      - env:
          TORCH_LOGS: output_code
        run: python a.py 2>&1 | tee log.txt
      - env:
          TORCH_LOGS: output_code
        run: python a.py | tee log.txt
      - env: {TORCH_LOGS: output_code}
        run: |
          echo start
          python a.py > run.log 2>&1
      - run: TORCH_LOGS=output_code python a.py &> run.log
      - run: TORCH_LOGS=output_code python a.py > run.log
      - shell: pwsh
        env:
          TORCH_LOGS: output_code
        run: python a.py 2>&1 | Tee-Object log.txt
      - shell: pwsh
        run: |
          $env:TORCH_LOGS = "output_code"
          python a.py
"""


def test_workflow() -> None:
    spans = yaml.extract(WORKFLOW)
    flags = yaml.stderr_captured(WORKFLOW, spans)
    lines = [WORKFLOW.count("\n", 0, s.name_start) + 1 for s in spans]
    assert dict(zip(lines, flags, strict=True)) == {
        3: False,  # the workflow's: every step, actions too
        8: False,  # the job's
        12: True,
        15: False,  # a pipe of stdout only
        17: True,
        21: True,
        22: False,
        25: True,
        29: False,
    }


def test_gitlab_script() -> None:
    text = (
        "stages: [test]\ntest:\n  stage: test\n  script:\n"
        "    - TORCH_LOGS=output_code python a.py 2>&1 | tee log.txt\n"
        "    - TORCH_LOGS=output_code python a.py\n"
    )
    spans = yaml.extract(text)
    assert yaml.stderr_captured(text, spans) == [True, False]


def test_compose_environment_is_never_kept() -> None:
    text = "services:\n  app:\n    image: x\n    environment:\n      TORCH_LOGS: output_code\n"
    assert yaml.stderr_captured(text, yaml.extract(text)) == [False]
