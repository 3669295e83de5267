"""The YAML host (hosts/yaml*.py): where values live in each flavour (Compose, GitHub
Actions, GitLab CI, Kubernetes, generic YAML), each flavour's ``$`` rules, non-string
scalars, shell code in CI steps, edits, and a differential test against PyYAML."""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
from collections.abc import Callable

import pytest
import yaml as pyyaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.growth import growth
from tests.support.oracles import scratch_dir
from tests.support.paths import EXAMPLES
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import FAMILY, detect_host, extract
from torch_logs_lsp.hosts.edits import removal_edit, value_edit
from torch_logs_lsp.hosts.embedded import LAYER
from torch_logs_lsp.hosts.yaml import host as yaml
from torch_logs_lsp.model.edits import TextEdit

CONTAINERS = EXAMPLES / "containers"


def read(text: str) -> list[tuple[str, str | None, str, str]]:
    """(variable, value, name text, content text) of each span; spans checked."""
    spans = extract("yaml", text)
    check_spans(text, spans)
    return [
        (
            s.variable,
            s.value,
            text[s.name_start : s.name_end],
            text[s.content_start : s.content_end],
        )
        for s in spans
    ]


def values(text: str) -> list[tuple[str, str | None]]:
    return [(v, value) for v, value, _, _ in read(text)]


WORKFLOW = """on: push
env:
  TORCH_LOGS: "+dynamo"
  TORCH_LOGS_OUT: ${{ env.LOGS }}/x.log
  TORCH_TRACE: $HOME/trace
jobs:
  train:
    runs-on: ubuntu-latest
    env:
      TORCH_COMPILE_DEBUG: 1
    steps:
      - run: TORCH_LOGS=aot_g python train.py
        env:
          TORCH_LOGS_FORMAT: '%(message)s'
      - run: |
          echo start
          TORCH_LOGS=graph_breaks python a.py
      - run: TORCH_LOGS="${{ matrix.logs }}" python a.py
      - run: TORCH_LOGS='${{ matrix.logs }}' python a.py
      - shell: pwsh
        run: TORCH_LOGS=not_read python a.py
      - shell: bash --noprofile --norc -eo pipefail {0}
        run: TORCH_LOGS=guards python a.py
  windows:
    runs-on: windows-latest
    steps:
      - run: TORCH_LOGS=not_read python a.py
  matrix:
    runs-on: ${{ matrix.os }}
    steps:
      - run: TORCH_LOGS=not_read python a.py
  pwsh:
    runs-on: ubuntu-latest
    defaults:
      run:
        shell: pwsh
    steps:
      - run: TORCH_LOGS=not_read python a.py
"""


def test_github_actions_env_and_run_steps() -> None:
    assert values(WORKFLOW) == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS_OUT", None),  # ${{ }}: evaluated by the runner
        ("TORCH_TRACE", "$HOME/trace"),  # env: values are not expanded
        ("TORCH_COMPILE_DEBUG", "1"),  # a number becomes its string
        ("TORCH_LOGS", "aot_g"),
        ("TORCH_LOGS_FORMAT", "%(message)s"),
        ("TORCH_LOGS", "graph_breaks"),
        ("TORCH_LOGS", None),
        ("TORCH_LOGS", None),  # single-quoted for bash, but the runner substitutes first
        ("TORCH_LOGS", "guards"),
    ]
    spans = extract("yaml", WORKFLOW)
    step = spans[4]
    assert WORKFLOW[step.raw_start : step.raw_end] == "aot_g"
    assert step.quote == "" + LAYER + ""
    quoted = spans[7]
    assert WORKFLOW[quoted.raw_start : quoted.raw_end] == '"${{ matrix.logs }}"'


def test_composite_action_needs_its_shell() -> None:
    text = (
        "name: x\nruns:\n  using: composite\n  steps:\n"
        "    - run: TORCH_LOGS=+dynamo python a.py\n      shell: bash\n"
        "    - run: TORCH_LOGS=nope python a.py\n"
    )
    assert values(text) == [("TORCH_LOGS", "+dynamo")]


def test_run_outside_a_step_is_not_code() -> None:
    text = "on: push\njobs:\n  a:\n    run: TORCH_LOGS=x y\n    steps: []\n"
    assert values(text) == []


COMPOSE = """services:
  train:
    image: x
    environment:
      - TORCH_LOGS=+dynamo
      - "TORCH_LOGS_OUT=/tmp/$$name.log"
      - TORCH_TRACE=$HOME/trace
      - TORCH_LOGS_FORMAT=${FMT:-short}
      - TORCH_COMPILE_DEBUG
      - 'TORCH_LOGS_TRACE_ID_FILTER=[0/0]'
  eval:
    environment:
      TORCH_LOGS: 'a,b'
      TORCH_LOGS_OUT: /tmp/a$
      TORCH_COMPILE_DEBUG: 1
      TORCH_TRACE:
      TORCH_LOGS_TRACE_ID_FILTER: true
      TORCH_LOGS_FORMAT: *fmt
"""


def test_compose_list_and_mapping_forms_and_interpolation() -> None:
    assert read(COMPOSE) == [
        ("TORCH_LOGS", "+dynamo", "TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS_OUT", "/tmp/$name.log", "TORCH_LOGS_OUT", "/tmp/$$name.log"),
        ("TORCH_TRACE", None, "TORCH_TRACE", "$HOME/trace"),
        ("TORCH_LOGS_FORMAT", None, "TORCH_LOGS_FORMAT", "${FMT:-short}"),
        # TORCH_COMPILE_DEBUG without `=`: taken from the shell, no span
        ("TORCH_LOGS_TRACE_ID_FILTER", "[0/0]", "TORCH_LOGS_TRACE_ID_FILTER", "[0/0]"),
        ("TORCH_LOGS", "a,b", "TORCH_LOGS", "a,b"),
        ("TORCH_LOGS_OUT", "/tmp/a$", "TORCH_LOGS_OUT", "/tmp/a$"),  # not a variable: kept
        ("TORCH_COMPILE_DEBUG", "1", "TORCH_COMPILE_DEBUG", "1"),
        # TORCH_TRACE: null -> from the shell, no span
        ("TORCH_LOGS_TRACE_ID_FILTER", "true", "TORCH_LOGS_TRACE_ID_FILTER", "true"),  # compose-go
        ("TORCH_LOGS_FORMAT", None, "TORCH_LOGS_FORMAT", "*fmt"),  # an alias
    ]
    out = extract("yaml", COMPOSE)[1]
    dollar = out.value.index("$") if out.value else -1
    # `$$` is one decoded `$` whose source is both characters
    assert COMPOSE[slice(*out.document_range(dollar, dollar + 1))] == "$$"


POD = """apiVersion: v1
kind: Pod
spec:
  containers:
    - name: train
      env:
        - name: TORCH_LOGS
          value: "+dynamo,guards"
        - name: TORCH_LOGS_OUT
          valueFrom:
            fieldRef: {fieldPath: metadata.name}
        - name: TORCH_TRACE
          value: $(HOME)/trace
        - {name: TORCH_LOGS_FORMAT, value: "$$(levelname)s $x"}
        - name: TORCH_COMPILE_DEBUG
          value: 1
        - value: guards
          name: TORCH_LOGS
---
env:
  TORCH_LOGS: $HOME
  TORCH_COMPILE_DEBUG: 1
  TORCH_TRACE: /tmp/t
"""


def test_kubernetes_items_and_a_generic_second_document() -> None:
    assert read(POD) == [
        ("TORCH_LOGS", "+dynamo,guards", "TORCH_LOGS", "+dynamo,guards"),
        ("TORCH_TRACE", None, "TORCH_TRACE", "$(HOME)/trace"),
        ("TORCH_LOGS_FORMAT", "$(levelname)s $x", "TORCH_LOGS_FORMAT", "$$(levelname)s $x"),
        # value: 1 is rejected by the API server (a string field): no span
        ("TORCH_LOGS", "guards", "TORCH_LOGS", "guards"),  # a value written before its name
        ("TORCH_LOGS", None, "TORCH_LOGS", "$HOME"),  # generic YAML: any `$` is unknown
        # generic YAML: a number is not a string for an unknown reader: no span
        ("TORCH_TRACE", "/tmp/t", "TORCH_TRACE", "/tmp/t"),
    ]


GITLAB = """stages: [train]
variables:
  TORCH_LOGS:
    value: "+dynamo"
    description: logs
  TORCH_LOGS_OUT: {value: $CI_PROJECT_DIR/x.log, expand: false}
  TORCH_TRACE: $$HOME
  TORCH_LOGS_FORMAT: "%FMT%"
default:
  before_script:
    - export TORCH_LOGS_TRACE_ID_FILTER=[0/0]
train:
  variables:
    TORCH_COMPILE_DEBUG: $DEBUG
  script:
    - TORCH_LOGS=aot_g python a.py
    - [echo, "TORCH_LOGS=nested python b.py"]
  after_script: TORCH_LOGS=recompiles python c.py
"""


def test_gitlab_variables_and_scripts() -> None:
    assert values(GITLAB) == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS_OUT", "$CI_PROJECT_DIR/x.log"),  # expand: false
        ("TORCH_TRACE", "$HOME"),
        ("TORCH_LOGS_FORMAT", None),  # %FMT% is expanded too
        ("TORCH_LOGS_TRACE_ID_FILTER", "[0/0]"),
        ("TORCH_COMPILE_DEBUG", None),
        ("TORCH_LOGS", "aot_g"),
        ("TORCH_LOGS", "nested"),
        ("TORCH_LOGS", "recompiles"),
    ]


def test_gitlab_block_script_items() -> None:
    text = (
        "build:\n  script:\n  - |\n    echo one\n    TORCH_LOGS=+dynamo python a.py\n"
        "  - >-\n    TORCH_TRACE=/tmp/t python b.py\n"
    )
    spans = extract("yaml", text)
    check_spans(text, spans)
    assert [(s.variable, s.value) for s in spans][:1] == [("TORCH_LOGS", "+dynamo")]
    assert text[spans[0].content_start : spans[0].content_end] == "+dynamo"


def test_generic_yaml_other_keys_and_tags() -> None:
    text = (
        "containerEnv:\n  TORCH_LOGS: nope\n"
        "deep:\n  a:\n    - env:\n        TORCH_LOGS: +dynamo\n"
        "        TORCH_LOGS_OUT: !!str /tmp/x\n"
        "        TORCH_TRACE: &t /tmp/t\n"
        "        TORCH_COMPILE_DEBUG: yes\n"
        "other: {TORCH_LOGS: no}\n"
        "variables: {TORCH_LOGS_FORMAT: short}\n"
    )
    assert values(text) == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_LOGS_OUT", None),  # a tag: not read as a value
        ("TORCH_TRACE", "/tmp/t"),  # an anchor changes nothing
        ("TORCH_LOGS_FORMAT", "short"),
    ]


def test_templates_merge_keys_and_named_variables() -> None:
    text = (
        "base: &base {TORCH_LOGS_OUT: /tmp/base}\n"
        'env:\n  <<: *base\n  TORCH_LOGS: "{{ .Values.logs }}"\n'
        "  TORCH_TRACE: '{{ trace_dir }}/t'\n"
        "variables:\n  - name: TORCH_LOGS_FORMAT\n    value: short\n"
    )
    assert values(text) == [
        ("TORCH_LOGS", None),  # a Helm / Jinja template fills it in first
        ("TORCH_TRACE", None),
        ("TORCH_LOGS_FORMAT", "short"),  # Azure Pipelines' list of named variables
    ]
    compose = "services:\n  a:\n    environment:\n      TORCH_LOGS_FORMAT: '{{x}}'\n"
    assert values(compose) == [("TORCH_LOGS_FORMAT", "{{x}}")]  # Compose has no templates


def test_crlf_and_emoji_before_the_value() -> None:
    text = "# 🙂\r\nenv:\r\n  TORCH_LOGS: 🙂 +dynamo\r\n  TORCH_TRACE: '/tmp/🙂'\r\n"
    assert read(text) == [
        ("TORCH_LOGS", "🙂 +dynamo", "TORCH_LOGS", "🙂 +dynamo"),
        ("TORCH_TRACE", "/tmp/🙂", "TORCH_TRACE", "/tmp/🙂"),
    ]
    span = extract("yaml", text)[0]
    assert span.content_start == text.index("🙂 +") and span.document_offset(1) == (
        span.content_start + 1
    )


def test_broken_yaml_never_raises() -> None:
    text = COMPOSE + WORKFLOW.replace("on: push\n", "") + GITLAB + POD
    text += "x:\n  env:\n    TORCH_LOGS: \"+dyn\n    TORCH_TRACE: 'a\n  - ]\n"
    for end in range(0, len(text), 7):
        part = text[:end]
        check_spans(part, extract("yaml", part))
    for cut in ("\t", "{", "[", '"', "'", "|", ">", "*", "&", "!", "%", "@", "\\"):
        broken = COMPOSE.replace("      - TORCH_LOGS=", "      - TORCH_LOGS=" + cut)
        check_spans(broken, extract("yaml", broken))


@pytest.mark.parametrize(
    ("text", "value", "quote"),
    [
        ('env:\n  A: 1\n  TORCH_LOGS: "+dyn\n  B: 2\n', "+dyn", '"'),
        ('env:\n  TORCH_LOGS: "+dyn', "+dyn", '"'),  # the whole document is an ERROR
        ("on: push\nenv:\n  TORCH_LOGS: '+dynamo,\r\n", "+dynamo,", "'"),
        ('services:\n  a:\n    environment:\n    - "TORCH_LOGS=+dyn\n    - B=1\n', "+dyn", '"'),
    ],
)
def test_a_quote_left_open_while_typing(text: str, value: str, quote: str) -> None:
    spans = extract("yaml", text)
    check_spans(text, spans)
    assert [(s.variable, s.value, s.quote, s.terminated) for s in spans] == [
        ("TORCH_LOGS", value, quote, False)
    ]
    assert text[spans[0].content_start : spans[0].content_end] == value


def test_an_open_quote_elsewhere_is_not_a_value() -> None:
    for text in ('other:\n  TORCH_LOGS: "+dyn\n', 'env:\n  - TORCH_LOGS: "x\n  B: [\n'):
        assert extract("yaml", text) == [], text


def test_mutated_documents_keep_the_span_invariants(caplog: pytest.LogCaptureFixture) -> None:
    """Seeded random edits of the documents above: spans stay valid and no place is
    skipped for an exception (each would be logged)."""
    rnd = random.Random(14)
    pieces = [*" \t\n\r-:#'\"|>{}[],&*!%@`$\\=🙂é", "TORCH_LOGS", "\n  ", "${{", "}}", "$$"]
    caplog.set_level(logging.ERROR, logger="torch_logs_lsp")
    for _ in range(400):
        text = rnd.choice([WORKFLOW, COMPOSE, POD, GITLAB])
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randrange(len(text) + 1)
            if rnd.random() < 0.5:
                text = text[:i] + rnd.choice(pieces) + text[i:]
            else:
                text = text[:i] + text[i + rnd.randint(1, 5) :]
        check_spans(text, extract("yaml", text), exact_name=False)
    assert not caplog.records


def test_no_family_name_is_not_parsed() -> None:
    assert not yaml.may_hold_values("env:\n  A: 1\n")
    assert extract("yaml", "env: [") == []


def test_detection_and_host_facts() -> None:
    assert detect_host("/p/compose.YAML", "") == "yaml"
    assert detect_host("/p/.github/workflows/ci.yml", "") == "yaml"
    assert detect_host("/p/.env.yaml", "") == "yaml"  # not a .env file
    assert detect_host("/p/x.yamlx", "") is None
    spans = extract("yaml", "env:\n  TORCH_LOGS_OUT: /tmp/x\n")
    facts = yaml.path_facts("", spans)
    assert facts[0].runs_elsewhere is not None
    assert yaml.STRIPS_TRAILING_BLANKS and yaml.COMMENT == "#"


def test_encode_part_goes_through_the_shell_layer() -> None:
    assert yaml.encode_part("'", "it's") == "it''s"
    assert yaml.encode_part('"', 'a"b') == 'a\\"b'
    # a double-quoted bash word inside a single-quoted YAML scalar
    assert yaml.encode_part('"' + LAYER + "'", "a'$b") == "a''\\$b"
    assert yaml.encode_part("|", "+dynamo") == "+dynamo"


def test_value_fix_in_a_run_step_is_verified() -> None:
    span = extract("yaml", WORKFLOW)[4]
    edits = value_edit("yaml", WORKFLOW, span, "aot_graphs")
    assert edits is not None
    fixed = WORKFLOW[: edits[0].start] + edits[0].new_text + WORKFLOW[edits[0].end :]
    assert "- run: TORCH_LOGS=aot_graphs python train.py\n" in fixed
    block = extract("yaml", WORKFLOW)[6]
    edits = value_edit("yaml", WORKFLOW, block, "+graph_breaks")
    assert edits is not None


def test_removals() -> None:
    spans = extract("yaml", COMPOSE)
    found = removal_edit("yaml", COMPOSE, spans[0])
    assert found is not None
    assert found[1] == TextEdit(
        COMPOSE.index("      - TORCH_LOGS="), COMPOSE.index('      - "'), ""
    )
    mapping = removal_edit("yaml", COMPOSE, spans[5])
    assert mapping is not None and COMPOSE[mapping[1].start : mapping[1].end] == (
        "      TORCH_LOGS: 'a,b'\n"
    )
    pod = removal_edit("yaml", POD, extract("yaml", POD)[0])
    assert pod is not None
    assert POD[pod[1].start : pod[1].end] == (
        '        - name: TORCH_LOGS\n          value: "+dynamo,guards"\n'
    )
    alone = "env:\n  TORCH_LOGS: x\n"
    assert removal_edit("yaml", alone, extract("yaml", alone)[0]) is None
    flow = "env: {TORCH_LOGS: x, A: b}\n"
    assert removal_edit("yaml", flow, extract("yaml", flow)[0]) is None
    step = extract("yaml", WORKFLOW)[4]
    assert removal_edit("yaml", WORKFLOW, step) is None


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("env:\n  TORCH_", "TORCH_"),
        ("jobs:\n  a:\n    env:\n      A: 1\n      ", ""),
        ("services:\n  a:\n    environment:\n      - TORCH", "TORCH"),
        ("services:\n  a:\n    environment:\n    - TO", "TO"),
        ("env:\n  - name: TORCH_L", "TORCH_L"),
        ("env:\n  - value: x\n    name: TO", "TO"),
        ("steps:\n  - run: TORCH", None),
        ("env:\n  A: TORCH", None),
        ("other:\n  TORCH", None),
        ("env:\n- TORCH", None),
    ],
)
def test_typed_name(text: str, word: str | None) -> None:
    assert yaml.typed_name(text, len(text)) == word


def _compose_lines(n: int) -> str:
    lines = ["services:"]
    while len(lines) < n:
        i = len(lines)
        lines += [
            f"  svc{i}:",
            "    image: pytorch/pytorch:latest",
            "    command: python train.py --flag value",
            "    environment:",
            "      - TORCH_LOGS=+dynamo,guards",
            f"      - OTHER_{i}=x",
            "    ports: ['8000:8000']",
        ]
    return "\n".join(lines) + "\n"


def _workflow_lines(n: int) -> str:
    lines = ["on: push", "jobs:"]
    while len(lines) < n:
        i = len(lines)
        lines += [
            f"  job{i}:",
            "    runs-on: ubuntu-latest",
            "    env: {TORCH_LOGS: recompiles}",
            "    steps:",
            "      - uses: actions/checkout@v4",
            "      - run: |",
            "          pip install -e .",
            "          TORCH_LOGS=graph_breaks python train.py",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("make", [_compose_lines, _workflow_lines])
def test_five_thousand_lines_are_read_in_linear_time(make: object) -> None:
    """5,000 lines cost about 4 times what 1,250 do (CPU time; the milliseconds are
    ./dev bench's)."""
    assert callable(make)
    extract("yaml", make(10))  # the grammar's first load
    assert len(extract("yaml", make(5000))) > 600

    def reading(n: int) -> Callable[[], object]:
        text = make(n)  # type: ignore[operator]
        return lambda: extract("yaml", text)

    assert growth(reading, 1250) < 8


# Differential: generic env mappings, as PyYAML reads them.
_ALPHABET = st.characters(
    codec="utf-8",
    categories=("L", "N", "P", "S", "Zs"),
    exclude_characters="\x85\u2028\u2029\ufeff\u00a0",
)


def _plain_ok(value: str) -> bool:
    from torch_logs_lsp.hosts.yaml.scalars import encode_part, plain_is_string

    return value == value.strip() and encode_part("", value) == value and plain_is_string(value)


@st.composite
def _entry(draw: st.DrawFn) -> tuple[str, str, str]:
    variable = draw(st.sampled_from(sorted(FAMILY)))
    value = draw(st.text(_ALPHABET, max_size=12))
    style = draw(st.sampled_from(["plain", "single", "double", "double-ascii"]))
    if style == "plain" and _plain_ok(value) and value:
        written = value
    elif style == "single":
        written = "'" + value.replace("'", "''") + "'"
    else:
        written = json.dumps(value, ensure_ascii=False)
        if style == "double-ascii":
            written = "".join(c if ord(c) < 0x10000 else f"\\U{ord(c):08x}" for c in written)
    key = draw(st.sampled_from([variable, f'"{variable}"', f"'{variable}'"]))
    return variable, key, written


@pytest.mark.oracle
@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_entry(), min_size=1, max_size=4, unique_by=lambda e: e[0]), st.booleans())
def test_decoded_values_equal_pyyaml(entries: list[tuple[str, str, str]], crlf: bool) -> None:
    nl = "\r\n" if crlf else "\n"
    text = "x: 1" + nl + "env:" + nl + "".join(f"  {k}: {w}{nl}" for _, k, w in entries)
    loaded = pyyaml.safe_load(text)["env"]
    assume(all(isinstance(v, str) for v in loaded.values()))
    spans = extract("yaml", text)
    check_spans(text, spans)
    got = {s.variable: s.value for s in spans}
    # generic YAML: a `$` or a `{{` template leaves the value unknown
    want = {k: (None if "$" in v or "{{" in v else v) for k, v in loaded.items()}
    assert got == want


_EDIT_ALPHABET = st.characters(
    codec="utf-8",
    categories=("L", "N", "P", "S", "Zs"),
    exclude_characters="\x85\u2028\u2029\ufeff\u00a0${}",
)


@pytest.mark.oracle
@settings(max_examples=examples(200), deadline=None)
@given(
    st.text(_EDIT_ALPHABET, min_size=1, max_size=10),
    st.text(_EDIT_ALPHABET, max_size=10),
    st.sampled_from(["plain", "'", '"']),
)
def test_value_edits_read_back_with_pyyaml(old: str, new: str, style: str) -> None:
    """A value fix (:func:`value_edit`) written into a YAML scalar reads, with PyYAML,
    exactly the new value, and the entry after it is unchanged."""
    if style == "plain" and _plain_ok(old):
        written = old
    elif style == "'":
        written = "'" + old.replace("'", "''") + "'"
    else:
        written = json.dumps(old, ensure_ascii=False)
    text = f"env:\n  TORCH_LOGS: {written}\n  B: keep\n"
    loaded = pyyaml.safe_load(text)["env"]
    assume(loaded["TORCH_LOGS"] == old)
    (span,) = extract("yaml", text)
    assume(span.value == old and new != old)
    edits = value_edit("yaml", text, span, new)
    assert edits is not None, (text, new)
    fixed = text
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        fixed = fixed[: edit.start] + edit.new_text + fixed[edit.end :]
    assert pyyaml.safe_load(fixed)["env"] == {"TORCH_LOGS": new, "B": "keep"}, fixed


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("path", "accepted"),
    [
        ("compose.yaml", True),
        (".github/workflows/train.yml", True),  # the env: value (the run: step is wrong)
        ("k8s/pod.yaml", False),
    ],
)
def test_example_values_as_torch_reads_them(path: str, accepted: bool) -> None:
    """torch 2.13 imported with the example's first TORCH_LOGS value: `+dynamo ,guards`
    (a blank before the comma) raises ValueError (Invalid log settings)."""
    text = (CONTAINERS / path).read_text()
    value = next(s.value for s in extract("yaml", text) if s.variable == "TORCH_LOGS")
    assert value is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH")}
    env["TORCH_LOGS"] = value
    done = subprocess.run(
        [sys.executable, "-c", "import torch"],
        env=env,
        capture_output=True,
        timeout=600,
        cwd=scratch_dir(),
    )
    assert (done.returncode == 0) is accepted, done.stderr[-500:]
    if not accepted:
        assert b"Invalid log settings" in done.stderr


@pytest.mark.parametrize("number", ["1e3", "1E3", "+1e3", "0o17", "0x1F", ".inf"])
def test_a_fix_never_leaves_a_yaml_1_2_number_bare(number: str) -> None:
    """``TORCH_LOGS: 1e3,`` fixed to ``1e3``: a string for PyYAML (YAML 1.1) but a float for
    go-yaml (Compose, Kubernetes: YAML 1.2 core schema), so the fix quotes it; the single
    fix and fix-all write the same."""
    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.lint.fixer import fix_document, span_fixes
    from torch_logs_lsp.lint.pipeline import check_text

    reg = load_registry()
    text = f"services:\n  a:\n    environment:\n      TORCH_LOGS: {number},\n"
    want = f"services:\n  a:\n    environment:\n      TORCH_LOGS: '{number}'\n"
    assert fix_document(text, "yaml", reg)[0] == want
    ((span, analysis),) = check_text(text, "yaml", reg)
    assert analysis is not None
    (fix,) = [f for f in span_fixes("yaml", text, span, analysis, reg) if f.safe]
    assert len(fix.edits) == 1
    assert text[: fix.edits[0].start] + fix.edits[0].new_text + text[fix.edits[0].end :] == want
    assert values(f"services:\n  a:\n    environment:\n      TORCH_LOGS: {number}\n") == [
        ("TORCH_LOGS", None)  # a number compose-go reads as a float: not known here
    ]


K8S_ENV = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      env:\n"


def test_kubernetes_value_first_flow_items_and_escaped_dollars() -> None:
    text = K8S_ENV + '        - value: "++dynamo,"\n          name: TORCH_LOGS\n'
    assert read(text) == [("TORCH_LOGS", "++dynamo,", "TORCH_LOGS", "++dynamo,")]
    (span,) = extract("yaml", text)
    assert span.raw_end <= span.name_start  # the name follows its value
    assert removal_edit("yaml", text + "        - name: B\n          value: x\n", span)
    flow = K8S_ENV + '        - {name: TORCH_LOGS, value: "++dynamo,"}\n'
    assert values(flow) == [("TORCH_LOGS", "++dynamo,")]
    escaped = K8S_ENV + '        - name: TORCH_LOGS\n          value: "$$(X),dynamo"\n'
    (span,) = extract("yaml", escaped)
    assert span.value == "$(X),dynamo"
    first = escaped.index("$$")
    assert (span.char_starts[0], span.char_ends[0]) == (first, first + 2)  # `$$` is one `$`
    assert values(K8S_ENV + '        - value: "$(X)"\n          name: TORCH_LOGS\n') == [
        ("TORCH_LOGS", None)
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("jobs:\n  a:\n    steps:\n      - run: TORCH_LOGS=++dynamo python t.py\n", "++dynamo"),
        (  # `on:` but no `runs-on:` yet
            "on: push\njobs:\n  a:\n    steps:\n      - run: TORCH_LOGS=++dynamo python t.py\n",
            "++dynamo",
        ),
        (
            "runs:\n  using: composite\n  steps:\n"
            "    - run: TORCH_LOGS=++dynamo python t.py\n      shell: bash\n",
            "++dynamo",
        ),
        ("jobs:\n  a:\n    steps:\n      - run: TORCH_LOGS=x\n        shell: pwsh\n", None),
        ("jobs:\n  a:\n    executor: win/default\n    steps:\n      - run: TORCH_LOGS=x\n", None),
        ("jobs:\n  a:\n    steps:\n      - script: TORCH_LOGS=x\n", None),
    ],
)
def test_workflow_without_on_or_runs_on(text: str, value: str | None) -> None:
    assert values(text) == ([("TORCH_LOGS", value)] if value is not None else [])


@pytest.mark.parametrize(("raw", "value"), [("true", "true"), ("false", "false"), ("True", None)])
def test_compose_booleans(raw: str, value: str | None) -> None:
    text = f"services:\n  a:\n    environment:\n      TORCH_LOGS: {raw}\n"
    assert values(text) == [("TORCH_LOGS", value)]
    assert values(K8S_ENV + f"        - name: TORCH_LOGS\n          value: {raw}\n") == []


def test_values_after_row_32767_are_read_in_chunks(caplog: pytest.LogCaptureFixture) -> None:
    """tree-sitter-yaml gives one ERROR node past row 32,767: such a file is read in
    chunks cut at column-0 lines (the Compose `$$` rule of its first chunk kept), logged
    once per document."""
    filler = "".join(f"k{i}: v\n" for i in range(33000))
    text = (
        "services:\n  a:\n    environment:\n      TORCH_LOGS: $$x\n"
        + filler
        + "env:\n  TORCH_LOGS: a$$b\n---\nother:\n  env:\n    TORCH_LOGS: $$c\n"
    )
    with caplog.at_level(logging.INFO):
        spans = extract("yaml", text)
        extract("yaml", text)
    check_spans(text, spans)
    assert [s.value for s in spans] == ["$x", "a$b", None]  # the last document: generic
    assert text[spans[1].content_start : spans[1].content_end] == "a$$b"
    assert sum("read in chunks" in r.getMessage() for r in caplog.records) == 1
