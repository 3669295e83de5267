"""The JSONC host: table-driven cases and a differential test against a JSON5 reader."""

from __future__ import annotations

import json
import random
from typing import Any

import json5
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.spancheck import check_spans
from torch_logs_lsp.hosts.jsonc import host as jsonc

LAUNCH = """{
  // A comment with "TORCH_LOGS": "no" inside
  "version": "0.2.0",
  "configurations": [
    {
      "name": "train", /* block */
      "type": "debugpy",
      "env": {
        "TORCH_LOGS": "+dynamo,guards",
        "TORCH_LOGS_OUT": "/tmp/x.log",
        "OTHER": "TORCH_LOGS",
      },
      "linux": {"env": {"TORCH_TRACE": "/tmp/trace"}},
      "args": ["TORCH_LOGS"],
    },
  ],
  "compounds": [{"name": "both", "configurations": ["train"]}],
}
"""

TASKS = """{
  "version": "2.0.0",
  "options": {"env": {"TORCH_LOGS": "dynamo"}},
  "windows": {"options": {"env": {"TORCH_LOGS": "aot"}}},
  "tasks": [
    {"label": "t", "options": {"env": {"TORCH_COMPILE_DEBUG": 1}},
     "osx": {"options": {"env": {"TORCH_LOGS": null}}}},
    {"label": "u", "env": {"TORCH_LOGS": "not read by VS Code"}}
  ]
}
"""

WORKSPACE = """{
  "folders": [{"path": "."}],
  "settings": {"env": {"TORCH_LOGS": "not a launch config"}},
  "launch": {"version": "0.2.0", "configurations": [{"env": {"TORCH_LOGS": "inductor"}}]},
  "tasks": {"version": "2.0.0", "tasks": [{"options": {"env": {"TORCH_LOGS": "-dynamo"}}}],
            "options": {"env": {"TORCH_TRACE": "/t"}}}
}
"""

Row = tuple[str, str | None, bool]
CASES: list[tuple[str, list[Row]]] = [
    (
        LAUNCH,
        [
            ("TORCH_LOGS", "+dynamo,guards", True),
            ("TORCH_LOGS_OUT", "/tmp/x.log", True),
            ("TORCH_TRACE", "/tmp/trace", True),
        ],
    ),
    (
        TASKS,
        [
            ("TORCH_LOGS", "dynamo", True),
            ("TORCH_LOGS", "aot", True),
            ("TORCH_COMPILE_DEBUG", None, True),
            ("TORCH_LOGS", None, True),
        ],
    ),
    (
        WORKSPACE,
        [
            ("TORCH_LOGS", "inductor", True),
            ("TORCH_LOGS", "-dynamo", True),
            ("TORCH_TRACE", "/t", True),
        ],
    ),
    (
        '{"configurations":[{"env":{"TORCH_LOGS":"a\\u002bb\\/c\\\\d\\"e"}}]}',
        [("TORCH_LOGS", 'a+b/c\\d"e', True)],
    ),
    (
        '{"configurations":[{"env":{"TORCH_LOGS":"\\ud83d\\ude00\\ud83d"}}]}',
        [("TORCH_LOGS", "😀\ud83d", True)],
    ),
    ('{"configurations":[{"env":{"TORCH_LOGS":"bad \\q escape"}}]}', [("TORCH_LOGS", None, True)]),
    ('{"configurations":[{"env":{"TORCH\\u005fLOGS":"x"}}]}', [("TORCH_LOGS", "x", True)]),
    ('{"configurations":[{"env":{"TORCH_LOGS":""}}]}', [("TORCH_LOGS", "", True)]),
    ('{"configurations": [{"env": {"TORCH_LOGS": "+dyn', [("TORCH_LOGS", "+dyn", False)]),
    ('{"configurations": [{"env": {"TORCH_LOGS": "+dyn\r\n}}]}', [("TORCH_LOGS", "+dyn", False)]),
    (
        '{"configurations": [{"env": {"A": "b", "TORCH_LOGS": "+d\n}}]}',
        [("TORCH_LOGS", "+d", False)],
    ),
    ('{"configurations": [{"env": {"TORCH_LOGS": ', []),
    ('{"configurations": [{"name": "x" "env": {"TORCH_LOGS": "d"}}]}', [("TORCH_LOGS", "d", True)]),
    (
        '{"configurations": [{"env": {"TORCH_LOGS": "d" "TORCH_TRACE": "/t"}}',
        [("TORCH_LOGS", "d", True), ("TORCH_TRACE", "/t", True)],
    ),
    (
        '{"configurations": [{"env": {"TORCH_LOGS": "x", "TORCH_TRACE": "/t',
        [("TORCH_LOGS", "x", True), ("TORCH_TRACE", "/t", False)],
    ),
    ('{"env": {"TORCH_LOGS": "x"}, "configurations": {"env": {"TORCH_LOGS": "x"}}}', []),
    ('{"configurations": [{"env": {"B": {"TORCH_LOGS": "x"}}}]}', []),
    ('😀́{"configurations": [{"env": {"TORCH_LOGS": "é,😀"}}]}', [("TORCH_LOGS", "é,😀", True)]),
    ("", []),
    ("\x00\ud800 TORCH_LOGS", []),
    # VS Code substitutes ${...} variables before launch: not static
    (
        '{"configurations": [{"env": {"TORCH_LOGS": "${input:logs}"}},'
        ' {"env": {"TORCH_LOGS": "${env:BASE},guards"}}, {"env": {"TORCH_LOGS": "$X,{y}"}}]}',
        [("TORCH_LOGS", None, True), ("TORCH_LOGS", None, True), ("TORCH_LOGS", "$X,{y}", True)],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases(text: str, expected: list[Row]) -> None:
    spans = jsonc.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value, s.terminated) for s in spans] == expected


def test_escape_offsets() -> None:
    text = '{"configurations":[{"env":{"TORCH_LOGS":"+\\u0064yn\\ud83d\\ude00"}}]}'
    (span,) = jsonc.extract(text)
    assert span.value == "+dyn😀"
    assert text[span.name_start : span.name_end] == "TORCH_LOGS"
    assert text[span.raw_start : span.raw_end] == '"+\\u0064yn\\ud83d\\ude00"'
    for i, ch in enumerate(span.value):
        src = text[span.char_starts[i] : span.char_ends[i]]
        assert json.loads(f'"{src}"') == ch
    assert span.char_ends[-1] - span.char_starts[-1] == 12
    assert span.value_index(span.char_starts[1] + 3) == 1  # inside \u0064


# --- differential test: generated launch.json / tasks.json vs json5 ----------------------

_VALUE_CHARS = [*'abz+-,._:/ "\\\t\n', "é", "😀", "\u2028", "\u0301", "\x7f", "\x01"]
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _u(cp: int, upper: bool) -> str:
    return f"\\u{cp:04X}" if upper else f"\\u{cp:04x}"


class _Renderer:
    """Writes a model as JSONC with random escapes, comments, whitespace, trailing commas.

    Choices come from a seeded ``random.Random`` (cheaper than hypothesis draws per token).
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def string(self, value: str) -> str:
        out = ['"']
        for ch in value:
            cp = ord(ch)
            how = self.rng.choice(["lit", "lit", "lit", "esc", "upper"])
            if how == "lit" and ch not in '"\\' and cp >= 0x20:
                out.append("\\/" if ch == "/" and self.rng.random() < 0.5 else ch)
            elif how == "esc" and ch in _SHORT:
                out.append(_SHORT[ch])
            elif cp > 0xFFFF:
                hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
                out.append(_u(hi, how == "upper") + _u(lo, how == "upper"))
            else:
                out.append(_u(cp, how == "upper"))
        return "".join(out) + '"'

    def gap(self) -> str:
        return self.rng.choice(["", " ", "", "\n", "\r\n  ", "\t", " // c\n", "/* c */", "/**/\n"])

    def trail(self, items: list[str]) -> str:
        return "," if items and self.rng.random() < 0.5 else ""

    def render(self, node: Any) -> str:
        g = self.gap
        if isinstance(node, dict):
            items = [g() + self.string(k) + g() + ":" + self.render(v) for k, v in node.items()]
            return g() + "{" + ",".join(items) + self.trail(items) + g() + "}" + g()
        if isinstance(node, list):
            items = [self.render(v) for v in node]
            return g() + "[" + ",".join(items) + self.trail(items) + g() + "]" + g()
        if isinstance(node, str):
            return g() + self.string(node) + g()
        return g() + json.dumps(node) + g()


_var = st.sampled_from(["TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE", "OTHER", "TORCH_LOG"])
_text = st.lists(st.sampled_from(_VALUE_CHARS), max_size=10).map("".join)
_env = st.dictionaries(_var, st.one_of(_text, _text, st.none(), st.integers(-5, 5)), max_size=4)
_plat = st.sampled_from(["linux", "windows", "osx"])


@st.composite
def _document(draw: st.DrawFn) -> tuple[Any, list[tuple[str, str | None]]]:
    """A launch.json / tasks.json / workspace model and its expected env entries in order."""
    expected: list[tuple[str, str | None]] = []

    def env() -> dict[str, Any]:
        e = draw(_env)
        expected.extend((k, v if isinstance(v, str) else None) for k, v in e.items())
        return e

    kind = draw(st.sampled_from(["launch", "tasks", "workspace"]))
    if kind == "tasks":
        doc: dict[str, Any] = {"version": "2.0.0", "options": {"env": env()}}
        tasks = []
        for _ in range(draw(st.integers(0, 2))):
            task: dict[str, Any] = {"label": draw(_text), "options": {"env": env()}}
            if draw(st.booleans()):
                task[draw(_plat)] = {"options": {"env": env()}}
            tasks.append(task)
        doc["tasks"] = tasks
        return doc, expected
    configs = []
    for _ in range(draw(st.integers(0, 3))):
        config: dict[str, Any] = {"name": draw(_text), "type": "debugpy", "env": env()}
        if draw(st.booleans()):
            config[draw(_plat)] = {"env": env(), "args": ["TORCH_LOGS"]}
        configs.append(config)
    launch = {"version": "0.2.0", "configurations": configs, "compounds": [{"name": "c"}]}
    if kind == "launch":
        return launch, expected
    return {"folders": [{"path": "."}], "launch": launch}, expected


def _combine_surrogates(node: Any) -> Any:
    """json5 leaves \\uD83D\\uDE00 as two code points; JSON (and VS Code) read one."""
    if isinstance(node, dict):
        return {_combine_surrogates(k): _combine_surrogates(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_combine_surrogates(v) for v in node]
    if isinstance(node, str):
        return node.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return node


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, Any, list[tuple[str, str | None]]]:
    model, expected = draw(_document())
    return _Renderer(draw(st.integers(0, 2**32))).render(model), model, expected


@pytest.mark.oracle
@settings(max_examples=examples(200), deadline=None)
@given(_case())
def test_matches_json5(case: tuple[str, Any, list[tuple[str, str | None]]]) -> None:
    text, model, expected = case
    assert _combine_surrogates(json5.loads(text)) == model  # the oracle reads our model
    spans = jsonc.extract(text)
    check_spans(text, spans, exact_name=False)
    assert [(s.variable, s.value) for s in spans if s.variable != "OTHER"] == [
        (k, v) for k, v in expected if k in {"TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_TRACE"}
    ]
    assert all(s.terminated for s in spans)
    for span in spans:
        for i, ch in enumerate(span.value or ""):
            src = text[span.char_starts[i] : span.char_ends[i]]
            assert _combine_surrogates(json.loads(f'"{src}"')) == ch
