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


def _gitlab(job: str, top: str = "") -> list[bool]:
    variables = "  variables:\n    TORCH_LOGS: output_code\n"
    text = f"stages: [test]\n{top}test:\n  stage: test\n{variables}{job}"
    return yaml.stderr_captured(text, yaml.extract(text))


def test_gitlab_job_variables() -> None:
    assert _gitlab("  script:\n    - python a.py 2>&1 | tee log.txt\n") == [True]
    assert _gitlab("  script: python a.py > run.log 2>&1\n") == [True]
    assert _gitlab("  script:\n    - python a.py | tee log.txt\n") == [False]
    # before_script and script share a shell: its exec keeps the script's stderr
    assert _gitlab("  before_script: [exec 2> err.log]\n  script: [python a.py]\n") == [True]
    # after_script runs in a shell of its own
    job = "  before_script: [exec 2> err.log]\n  script: [echo]\n  after_script: [python a.py]\n"
    assert _gitlab(job) == [False]
    # the global before_script runs in every job without its own
    assert _gitlab("  script: [python b.py 2> e]\n", "before_script: [python a.py]\n") == [False]
    assert _gitlab("  script: [echo hi]\n") == [False]  # nothing reads it
    assert _gitlab("  extends: .base\n  script: [python a.py 2> e]\n") == [False]  # not followed


def test_gitlab_global_variables_are_never_kept() -> None:
    text = "variables:\n  TORCH_LOGS: output_code\ntest:\n  script: [python a.py 2> e]\n"
    assert yaml.stderr_captured(text, yaml.extract(text)) == [False]
