"""devcontainer.json in the JSONC host: detection, the ``containerEnv``/``remoteEnv``
values (json5 is the oracle for the decoded value, as in test_host), values that are not
static, ``remoteEnv`` nulls, and the paths, which are not judged here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import json5
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hosts.jsonc.test_host import _VALUE_CHARS, _combine_surrogates, _Renderer
from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts import detect_host
from torch_logs_lsp.hosts.jsonc import host as jsonc
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.value.paths import PathFacts

DEVCONTAINER = """{
  // the image's TORCH_LOGS is not ours: "TORCH_LOGS": "x"
  "name": "torch",
  "image": "mcr.microsoft.com/devcontainers/python:3.12",
  "build": {"args": {"TORCH_LOGS": "build arg, not an env"}},
  "containerEnv": {
    "TORCH_LOGS": "+dynamo,guards",
    "TORCH_TRACE": "${localWorkspaceFolder}/trace",
  },
  "remoteEnv": {
    "TORCH_LOGS_OUT": "${containerEnv:HOME}/t.log",
    "TORCH_LOGS": null,
    "TORCH_COMPILE_DEBUG": "1",
  },
  "customizations": {"vscode": {"containerEnv": {"TORCH_LOGS": "nested: not read"}}},
}
"""


@pytest.mark.parametrize(
    "path",
    [
        "/p/.devcontainer/devcontainer.json",
        "/p/.devcontainer/gpu/devcontainer.json",
        "/p/.devcontainer.json",
        "C:\\p\\.devcontainer\\DevContainer.json",
        "file:///p/.devcontainer/devcontainer.json",
    ],
)
def test_detected_by_name(path: str) -> None:
    assert detect_host(path, "") == "jsonc"


@pytest.mark.parametrize("path", ["/p/devcontainer.jsonc", "/p/my-devcontainer.json", "/p/x.json"])
def test_other_names_are_not(path: str) -> None:
    assert detect_host(path, "") is None


def test_container_env_and_remote_env() -> None:
    spans = jsonc.extract(DEVCONTAINER)
    check_spans(DEVCONTAINER, spans)
    assert [(s.variable, s.value) for s in spans] == [
        ("TORCH_LOGS", "+dynamo,guards"),
        ("TORCH_TRACE", None),  # ${localWorkspaceFolder}: substituted by the tool
        ("TORCH_LOGS_OUT", None),  # ${containerEnv:HOME}
        ("TORCH_COMPILE_DEBUG", "1"),  # (remoteEnv's null TORCH_LOGS unsets: no span)
    ]
    first = spans[0]
    assert DEVCONTAINER[first.raw_start : first.raw_end] == '"+dynamo,guards"'


@pytest.mark.parametrize(
    "value",
    [
        "${localEnv:LOGS}",
        "+dynamo,${localEnv:MORE}",
        "${containerEnv:X}",
        "${localWorkspaceFolder}",
        "${localEnv:LOGS:+dynamo}",
        "${devcontainerId}",
    ],
)
def test_variables_are_not_static(value: str) -> None:
    for obj in ("containerEnv", "remoteEnv"):
        (span,) = jsonc.extract(f'{{"{obj}": {{"TORCH_LOGS": "{value}"}}}}')
        assert span.value is None and span.char_starts == ()


def test_null_unsets_only_in_remote_env() -> None:
    assert jsonc.extract('{"remoteEnv": {"TORCH_LOGS": null}}') == []
    # containerEnv takes strings only: a null there is kept, never judged
    (span,) = jsonc.extract('{"containerEnv": {"TORCH_LOGS": null}}')
    assert span.value is None


@pytest.mark.parametrize(
    "text",
    [
        '{"settings": {"containerEnv": {"TORCH_LOGS": "x"}}}',
        '{"configurations": [{"containerEnv": {"TORCH_LOGS": "x"}}]}',
        '[{"containerEnv": {"TORCH_LOGS": "x"}}]',
        '{"containerEnv": {"inner": {"TORCH_LOGS": "x"}}}',
    ],
)
def test_only_top_level_objects(text: str) -> None:
    assert jsonc.extract(text) == []


def test_half_typed_document() -> None:
    text = '{\n  "image": "x",\n  "containerEnv": {\n    "TORCH_LOGS": "+dynamo",\n    "A": '
    assert [(s.variable, s.value) for s in jsonc.extract(text)] == [("TORCH_LOGS", "+dynamo")]


def test_path_facts() -> None:
    spans = jsonc.extract(DEVCONTAINER)
    facts = jsonc.path_facts(DEVCONTAINER, spans)
    assert len(facts) == len(spans)
    assert all(f.runs_elsewhere and "container" in f.runs_elsewhere for f in facts)
    launch = '{"configurations": [{"env": {"TORCH_LOGS_OUT": "/x/y.log"}}]}'
    assert jsonc.path_facts(launch, jsonc.extract(launch)) == [PathFacts()]


def test_paths_are_not_judged(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "t.log"
    launch = f'{{"configurations": [{{"env": {{"TORCH_LOGS_OUT": "{missing}"}}}}]}}'
    dev = f'{{"image": "x", "containerEnv": {{"TORCH_LOGS_OUT": "{missing}"}}}}'

    def codes(text: str) -> list[str]:
        got = findings(text, "jsonc", None, None, str(tmp_path), (str(tmp_path),))
        return [f.diagnostic.code for f in got]

    assert "TL402" in codes(launch)  # the control: a launch configuration runs here
    assert "TL402" not in codes(dev)


def test_typed_name_in_container_env() -> None:
    text = '{"containerEnv": {\n  "TORCH_L'
    assert jsonc.typed_name(text, len(text)) == "TORCH_L"
    text = '{"remoteEnv": {"A": "b", "TO'
    assert jsonc.typed_name(text, len(text)) == "TO"
    text = '{"image": "TO'
    assert jsonc.typed_name(text, len(text)) is None


# --- differential test: generated devcontainer.json vs json5 ------------------------------

_var = st.sampled_from(["TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE", "OTHER"])
_text = st.lists(st.sampled_from([*_VALUE_CHARS, "${localEnv:X}", "${containerEnv:P}"]), max_size=8)
_value = st.one_of(_text.map("".join), _text.map("".join), st.none(), st.integers(-3, 3))
_env = st.dictionaries(_var, _value, max_size=4)
_FAMILY = {"TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE"}


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, Any, list[tuple[str, str | None]]]:
    """A rendered devcontainer.json, its model, and the expected (variable, value) rows."""
    expected: list[tuple[str, str | None]] = []
    doc: dict[str, Any] = {"name": draw(_text.map("".join))}
    keys = draw(st.permutations(["containerEnv", "remoteEnv", "build", "customizations"]))
    for key in keys[: draw(st.integers(1, 4))]:
        env = draw(_env)
        if key in ("containerEnv", "remoteEnv"):
            doc[key] = env
            for name, value in env.items():
                if key == "remoteEnv" and value is None:
                    continue  # unset: no span
                static = isinstance(value, str) and "${" not in value
                expected.append((name, value if static else None))
        elif key == "build":
            doc[key] = {"args": env, "containerEnv": env}
        else:
            doc[key] = {"vscode": {"remoteEnv": env}}
    return _Renderer(draw(st.integers(0, 2**32))).render(doc), doc, expected


@pytest.mark.oracle
@settings(max_examples=examples(200), deadline=None)
@given(_case())
def test_matches_json5(case: tuple[str, Any, list[tuple[str, str | None]]]) -> None:
    text, model, expected = case
    assert _combine_surrogates(json5.loads(text)) == model  # the oracle reads our model
    spans = jsonc.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value) for s in spans if s.variable in _FAMILY] == [
        (k, v) for k, v in expected if k in _FAMILY
    ]
    for span in spans:
        decoded = _combine_surrogates(json5.loads(text[span.raw_start : span.raw_end]))
        if span.value is not None:
            assert span.value == decoded
