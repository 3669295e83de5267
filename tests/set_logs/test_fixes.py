"""The ``set_logs`` fixes (lint/set_logs_fixes.py): each quick fix's edited text exactly,
its diagnostic gone after the edit, the cases where no fix is offered; and oracle tests
that run torch 2.13.0 in a subprocess for every torch claim the fixes rely on."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.support.set_logs_oracle import run_cases
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.pipeline import check_text, findings
from torch_logs_lsp.lint.set_logs_fixes import REFACTOR, CallFix, call_fixes, late_write_fixes

R213 = load_registry("2.13")
HEAD = "import logging\nimport torch\n"


def all_fixes(text: str) -> list[CallFix]:
    entries = check_text(text, "python", R213)
    return call_fixes("python", text, R213) + late_write_fixes("python", text, entries, R213)


def applied(text: str, fix: CallFix) -> str:
    return apply_text_edits(text, sorted(fix.edits, key=lambda e: e.start))


def codes(text: str) -> list[str]:
    return [f.diagnostic.code for f in findings(text, "python", R213)]


def fixed(text: str, title: str) -> tuple[CallFix, str]:
    """The fix titled ``title`` and the text after it; asserts its diagnostics are gone."""
    by_title = {f.title: f for f in all_fixes(text)}
    assert title in by_title, sorted(by_title)
    fix = by_title[title]
    new = applied(text, fix)
    for d in fix.diagnostics:
        assert codes(new).count(d.code) < codes(text).count(d.code)
    return fix, new


def test_unknown_keyword_spelling():
    text = HEAD + "torch._logging.set_logs(outptu_code=True)\n"
    fix, new = fixed(text, "Change to `output_code=`")
    assert new == HEAD + "torch._logging.set_logs(output_code=True)\n"
    assert fix.preferred and [d.code for d in fix.diagnostics] == ["TL601"]
    assert codes(new) == []
    # several suggestions: one action each, none preferred
    text = HEAD + "torch._logging.set_logs(graph_braeks=True)\n"
    fixes = all_fixes(text)
    assert "Change to `graph_breaks=`" in [f.title for f in fixes] and len(fixes) > 1
    assert not any(f.preferred for f in fixes)
    # a suggestion that would raise in turn (inductor takes a level) is not offered
    text = HEAD + "torch._logging.set_logs(inductr=True)\n"
    assert "Change to `inductor=`" not in [f.title for f in all_fixes(text)]


def test_keyword_of_another_release_renamed():
    text = HEAD + "torch._logging.set_logs(dist_ddp=logging.INFO)\n"
    fix, new = fixed(text, "Change to `ddp=`")
    assert [d.code for d in fix.diagnostics] == ["TL603"]
    assert new == HEAD + "torch._logging.set_logs(ddp=logging.INFO)\n"
    assert codes(new) == []


def test_torch_keyword_becomes_all_and_is_safe():
    text = HEAD + "torch._logging.set_logs(torch=logging.INFO)\n"
    fix, new = fixed(text, "Change to `all=`")
    assert fix.preferred and fix.safe
    assert new == HEAD + "torch._logging.set_logs(all=logging.INFO)\n"


def test_registered_name_moves_into_modules():
    text = HEAD + "torch._logging.set_logs(dynamo=logging.INFO, loop_ordering=True)\n"
    _, new = fixed(text, 'Move into `modules={"loop_ordering": True}`')
    assert new == HEAD + (
        'torch._logging.set_logs(dynamo=logging.INFO, modules={"loop_ordering": True})\n'
    )
    assert codes(new) == []
    # a call that already has modules= gets no such fix (it would repeat the keyword)
    text = HEAD + "torch._logging.set_logs(loop_ordering=True, modules={})\n"
    assert not [f for f in all_fixes(text) if f.title.startswith("Move")]


def test_true_on_a_component_becomes_the_module_spelling():
    text = HEAD + "torch._logging.set_logs(dynamo=True)\n"
    fix, new = fixed(text, "Change to `logging.DEBUG`")
    assert fix.preferred and new == HEAD + "torch._logging.set_logs(dynamo=logging.DEBUG)\n"
    text = "import logging as L\nfrom torch._logging import set_logs\nset_logs(dynamo=True)\n"
    _, new = fixed(text, "Change to `L.DEBUG`")
    assert new.endswith("set_logs(dynamo=L.DEBUG)\n")
    text = "from logging import DEBUG\nimport torch\ntorch._logging.set_logs(dynamo=True)\n"
    _, new = fixed(text, "Change to `DEBUG`")
    assert new.endswith("set_logs(dynamo=DEBUG)\n")


def test_import_logging_is_added_after_docstring_and_future_imports():
    text = (
        '#!/usr/bin/env python\n"""Train."""\nfrom __future__ import annotations\n'
        "import torch\ntorch._logging.set_logs(dynamo=True)\n"
    )
    _, new = fixed(text, "Change to `logging.DEBUG`")
    assert new == (
        '#!/usr/bin/env python\n"""Train."""\nfrom __future__ import annotations\n'
        "import logging\nimport torch\ntorch._logging.set_logs(dynamo=logging.DEBUG)\n"
    )
    assert codes(new) == []


def test_logging_name_used_otherwise_gets_no_level_fix():
    text = "import torch\nlogging = None\ntorch._logging.set_logs(dynamo=True)\n"
    assert not all_fixes(text)  # `logging` is a variable here: no import, no guess


def test_string_level_becomes_the_logging_name():
    text = HEAD + 'torch._logging.set_logs(aot="info", inductor="DEBUG")\n'
    _, new = fixed(text, "Change to `logging.INFO`")
    assert new == HEAD + 'torch._logging.set_logs(aot=logging.INFO, inductor="DEBUG")\n'
    _, new = fixed(text, "Change to `logging.DEBUG`")
    assert new == HEAD + 'torch._logging.set_logs(aot="info", inductor=logging.DEBUG)\n'


def test_level_on_an_artifact_becomes_true():
    text = HEAD + "torch._logging.set_logs(graph_breaks=logging.DEBUG, modules={'guards': 20})\n"
    fixes = [f for f in all_fixes(text) if f.title == "Change to `True`"]
    assert len(fixes) == 2
    assert {applied(text, f) for f in fixes} == {
        HEAD + "torch._logging.set_logs(graph_breaks=True, modules={'guards': 20})\n",
        HEAD + "torch._logging.set_logs(graph_breaks=logging.DEBUG, modules={'guards': True})\n",
    }


def test_false_on_a_component_gets_two_fixes():
    text = HEAD + "torch._logging.set_logs(dynamo=False)\n"
    titles = {f.title: f for f in all_fixes(text)}
    assert set(titles) == {"Change to `None`", "Change to `logging.ERROR`"}
    assert not any(f.preferred for f in titles.values())
    assert applied(text, titles["Change to `None`"]).endswith("set_logs(dynamo=None)\n")
    assert codes(applied(text, titles["Change to `logging.ERROR`"])) == []


def test_emoji_before_the_call_keeps_offsets_in_code_points():
    text = HEAD + 'tag = "😀"; torch._logging.set_logs(dynamo=True)\n'
    _, new = fixed(text, "Change to `logging.DEBUG`")
    assert new == HEAD + 'tag = "😀"; torch._logging.set_logs(dynamo=logging.DEBUG)\n'


def test_late_write_becomes_set_logs():
    text = 'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo,graph_breaks"\n'
    fix, new = fixed(
        text,
        "Replace with `torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)` "
        "(takes effect now; child processes no longer inherit it)",
    )
    assert [d.code for d in fix.diagnostics] == ["TL501"]
    assert new == (
        "import logging\nimport os\nimport torch\n"
        "torch._logging.set_logs(dynamo=logging.DEBUG, graph_breaks=True)\n"
    )
    assert codes(new) == []


def test_late_write_through_the_module_names_and_setdefault():
    text = (
        "import os\nfrom logging import INFO\nimport torch._logging as tl\n"
        "def main():\n    os.environ.setdefault('TORCH_LOGS', 'aot')  # late\nmain()\n"
    )
    (fix,) = all_fixes(text)
    assert applied(text, fix) == text.replace(
        "os.environ.setdefault('TORCH_LOGS', 'aot')", "tl.set_logs(aot=INFO)"
    )


def test_late_write_adds_import_torch_after_the_torch_import():
    text = 'import os\nfrom torch import nn\nos.environ.update(TORCH_LOGS="-inductor")\n'
    (fix,) = all_fixes(text)
    assert applied(text, fix) == (
        "import logging\nimport os\nfrom torch import nn\nimport torch\n"
        "torch._logging.set_logs(inductor=logging.ERROR)\n"
    )


def test_late_write_in_an_update_dict():
    text = 'import os\nimport torch\nos.environ.update({"TORCH_LOGS": "aot"})\n'
    (fix,) = all_fixes(text)
    assert applied(text, fix).endswith("\ntorch._logging.set_logs(aot=logging.INFO)\n")


def test_no_late_write_fix_when_not_exact_or_not_a_whole_statement():
    for line in (
        'os.environ.update({"TORCH_LOGS": "aot", "A": "1"})',  # the other entry stays
        'os.environ.update({"TORCH_LOGS": "aot"}, A="1")',
        'os.environ["TORCH_LOGS"] = "+dynamo,-dynamic"',  # a shared logger, two levels
        'os.environ["TORCH_LOGS"] = "help"',
        'x = 1; os.environ["TORCH_LOGS"] = "+dynamo"',
        'os.environ["TORCH_LOGS"] = os.environ["A"] = "+dynamo"',
    ):
        text = f"import os\nimport torch\n{line}\n"
        assert not [f for f in all_fixes(text) if "TL501" in [d.code for d in f.diagnostics]]


REFACTOR_TITLE = 'Rewrite as TORCH_LOGS="{}" (os.environ: child processes inherit it)'


def test_refactor_to_torch_logs():
    text = (
        HEAD + "if True:\n    torch._logging.set_logs(dynamo=logging.DEBUG, aot_graphs=True)  # x\n"
    )
    fix, new = fixed(text, REFACTOR_TITLE.format("+dynamo,aot_graphs"))
    assert fix.kind == REFACTOR and not fix.diagnostics
    assert new == "import os\n" + HEAD + (
        'if True:\n    os.environ.setdefault("TORCH_LOGS", "+dynamo,aot_graphs")\n'
        "    torch._logging._internal._init_logs()  # x\n"
    )
    assert codes(new) == []


def test_refactor_spells_init_logs_through_the_module_names():
    text = "import os\nimport torch._logging as tl\ntl.set_logs(all=logging.INFO)\nimport logging\n"
    (fix,) = [f for f in all_fixes(text) if f.kind == REFACTOR]
    assert applied(text, fix).endswith(
        'os.environ.setdefault("TORCH_LOGS", "all")\ntl._internal._init_logs()\nimport logging\n'
    )


@pytest.mark.parametrize(
    "text",
    [
        # a later call would be ignored once TORCH_LOGS is in os.environ
        HEAD + "torch._logging.set_logs(dynamo=logging.DEBUG)\ntorch._logging.set_logs()\n",
        HEAD + "def f():\n    torch._logging.set_logs(aot=logging.INFO)\n"
        "torch._logging.set_logs(dynamo=logging.DEBUG)\n",
        # module names: set_logs registers child logs that TORCH_LOGS does not
        HEAD + "torch._logging.set_logs(modules={'torch.fx': logging.DEBUG})\n",
        # not exact (a WARNING level has no TORCH_LOGS spelling), not a whole statement
        HEAD + "torch._logging.set_logs(dynamo=logging.WARNING)\n",
        HEAD + "x = torch._logging.set_logs(dynamo=logging.DEBUG)\n",
        # TORCH_LOGS already set: the call is ignored, rewriting it would change that
        'import os\nimport logging\nos.environ["TORCH_LOGS"] = "aot"\nimport torch\n'
        "torch._logging.set_logs(dynamo=logging.DEBUG)\n",
    ],
)
def test_no_refactor(text: str):
    assert not [f for f in all_fixes(text) if f.kind == REFACTOR]


def test_fixes_touch_only_the_range():
    text = HEAD + "torch._logging.set_logs(dynamo=True)\n" * 2
    second = text.rindex("dynamo")
    fixes = call_fixes("python", text, R213, first=second, last=len(text))
    assert [f.title for f in fixes if f.kind != REFACTOR] == ["Change to `logging.DEBUG`"]
    assert fixes[0].edits[0].start > second


def test_other_hosts_have_none():
    assert call_fixes("shell", "export TORCH_LOGS=+dynamo\n", R213) == []


# -- oracles: torch 2.13.0 in a subprocess ----------------------------------------------


def _call_args(text: str) -> str:
    """The keyword source of the one ``set_logs(...)`` call of ``text``."""
    start = text.index("set_logs(") + len("set_logs(")
    return text[start : text.rindex(")")]


def test_oracle_every_quick_fix_runs_under_torch():
    """The fixed calls (levels spelled logging.X) raise nothing under torch 2.13, where the
    original ones raise; a moved registered name is enabled through ``modules``."""
    bad = [
        "graph_braeks=True",
        "dist_ddp=logging.INFO",
        "torch=logging.INFO",
        "loop_ordering=True",
        "cache=logging.DEBUG",
        "dynamo=True",
        'aot="info"',
        "graph_breaks=logging.DEBUG",
        "graph_breaks=10",
    ]
    cases: list[dict[str, str]] = []
    for args in bad:
        text = HEAD + f"torch._logging.set_logs({args})\n"
        fixes = [f for f in all_fixes(text) if f.kind != REFACTOR]
        assert fixes, args
        cases.append({"kind": "call", "source": args})
        cases += [{"kind": "call", "source": _call_args(applied(text, f))} for f in fixes]
    results = run_cases(cases)
    by_source = {c["source"]: r for c, r in zip(cases, results, strict=True)}
    for args in bad:
        assert by_source[args]["outcome"] in ("TypeError", "ValueError"), args
    for case, res in zip(cases, results, strict=True):
        if case["source"] not in bad:
            assert res["outcome"] == "ok", (case, res)
    assert "loop_ordering" in by_source['modules={"loop_ordering": True}']["artifacts"]
    assert 10 in by_source['modules={"cache": logging.DEBUG}']["logs"].values()


EQUIVALENCE = r"""
import copy, json, logging, os, sys, warnings
warnings.filterwarnings("ignore")
os.environ.pop("TORCH_LOGS", None)
import torch
from torch._logging import _internal as I

saved = copy.deepcopy(I.log_registry)

def state():
    names = sorted(set(I.log_registry.get_log_qnames())
                   | set(I.log_registry.get_artifact_log_qnames())
                   | set(I.log_registry.get_child_log_qnames()))
    return {
        "logs": dict(I.log_state.log_qname_to_level),
        "artifacts": sorted(I.log_state.artifact_names),
        "levels": {n: logging.getLogger(n).level for n in names},
        "propagate": {n: logging.getLogger(n).propagate for n in names},
    }

def reset(outside):
    # the state after `import torch`, with TORCH_LOGS=outside given from outside (or not)
    I.log_registry = copy.deepcopy(saved)
    I._parse_log_settings.cache_clear()
    I.log_state.clear()
    os.environ.pop("TORCH_LOGS", None)
    if outside is not None:
        os.environ["TORCH_LOGS"] = outside
    I._init_logs()

out = []
for args, value, outside in json.load(sys.stdin):
    reset(outside)
    eval("torch._logging.set_logs(" + args + ")", {"torch": torch, "logging": logging})
    by_call = state()
    reset(outside)
    os.environ.setdefault("TORCH_LOGS", value)  # the refactor's statements
    torch._logging._internal._init_logs()
    by_env = state()
    torch._logging.set_logs(inductor=logging.DEBUG)  # a later call: ignored
    out.append({"call": by_call, "env": by_env, "later": state()})
os.environ.pop("TORCH_LOGS", None)
json.dump(out, sys.stdout)
"""


def _equivalence(pairs: list[tuple[str, str, str | None]]) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-c", EQUIVALENCE],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    results: list[dict[str, Any]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return results


def test_oracle_refactor_gives_the_same_log_state():
    """``os.environ.setdefault("TORCH_LOGS", v); _init_logs()`` (the refactor's output)
    gives the log state, enabled artifacts, logger levels and propagation of the set_logs
    call it replaces, also when TORCH_LOGS was given from outside (then both keep that
    value's state); a later set_logs call then changes nothing. With a module name the
    propagation differs (why module names get no refactor). The TL501 fix's direction
    (TORCH_LOGS value -> set_logs keywords) is compared the same way."""
    calls = [
        "dynamo=logging.DEBUG, graph_breaks=True",
        "all=logging.INFO",
        "dynamo=logging.ERROR, aot=logging.INFO, modules={'loop_ordering': True}",
        "inductor=logging.DEBUG, output_code=True, guards=False, aot=None",
    ]
    pairs: list[tuple[str, str, str | None]] = []
    for args in calls:
        text = HEAD + f"torch._logging.set_logs({args})\n"
        (fix,) = [f for f in all_fixes(text) if f.kind == REFACTOR]
        new = applied(text, fix)
        value = new.split('os.environ.setdefault("TORCH_LOGS", "')[1].split('"')[0]
        pairs += [(args, value, None), (args, value, "+aot,guards")]
    for value in ("+dynamo,graph_breaks", "-inductor,aot_graphs", "all,+dynamo", "guards"):
        text = f'import os\nimport logging\nimport torch\nos.environ["TORCH_LOGS"] = "{value}"\n'
        (fix,) = all_fixes(text)
        pairs.append((_call_args(applied(text, fix)), value, None))
    pairs.append(("modules={'torch.fx': logging.DEBUG}", "+torch.fx", None))
    results = _equivalence(pairs)
    for (args, value, outside), res in zip(pairs[:-1], results[:-1], strict=True):
        assert res["call"] == res["env"], (args, value, outside)
        assert res["later"] == res["env"], (args, value, outside)
    outside = [res for (_, _, o), res in zip(pairs, results, strict=True) if o is not None]
    assert outside and all(r["env"]["logs"] and "guards" in r["env"]["artifacts"] for r in outside)
    module = results[-1]
    assert module["call"]["levels"] == module["env"]["levels"]
    assert module["call"]["propagate"] != module["env"]["propagate"]


def test_safe_only_is_torch_to_all():
    text = HEAD + "torch._logging.set_logs(torch=logging.INFO, dynamo=True, outptu_code=True)\n"
    (fix,) = call_fixes("python", text, R213, safe_only=True)
    assert fix.safe and applied(text, fix) == text.replace("torch=", "all=")
    # `all=` given too: the rename would repeat it, so no fix at all
    text = HEAD + "torch._logging.set_logs(torch=logging.INFO, all=logging.INFO)\n"
    assert call_fixes("python", text, R213, safe_only=True) == []


def test_cli_fix_renames_torch_to_all_and_nothing_else(tmp_path):
    from tests.cli.test_fix import run

    before = (
        "# torch-logs: torch=2.13 \U0001f642\r\nimport logging\r\nimport subprocess\r\n"
        "import torch\r\nsubprocess.run(['x'], env={'TORCH_LOGS': '+dynamo,'})\r\n"
        "torch._logging.set_logs(torch=logging.INFO, dynamo=True)\r\n"
    ).encode()
    path = tmp_path / "train.py"
    path.write_bytes(before)
    proc = run("check", "--fix", str(path))
    assert path.read_bytes() == before.replace(b"+dynamo,'", b"+dynamo'").replace(
        b"torch=logging", b"all=logging"
    )
    assert ':6: fixed set_logs: "torch" -> "all"' in proc.stdout
    assert "TL611" in proc.stdout and "TL602" not in proc.stdout  # dynamo=True: not safe


def test_crlf_documents_get_crlf_lines():
    text = "import torch\r\ntorch._logging.set_logs(dynamo=True)\r\n"
    _, new = fixed(text, "Change to `logging.DEBUG`")
    assert (
        new == "import logging\r\nimport torch\r\ntorch._logging.set_logs(dynamo=logging.DEBUG)\r\n"
    )
    text = "import logging, torch\r\ntorch._logging.set_logs(aot=logging.INFO)\r\n"
    (fix,) = [f for f in all_fixes(text) if f.kind == REFACTOR]
    assert applied(text, fix) == (
        'import os\r\nimport logging, torch\r\nos.environ.setdefault("TORCH_LOGS", "aot")\r\n'
        "torch._logging._internal._init_logs()\r\n"
    )


def test_half_typed_documents_never_raise():
    """Every prefix of a document (typing it from the start) and a few mangled copies:
    the fixes answer without raising, and each offered fix still verifies."""
    text = (
        '"""Doc."""\nimport os\nimport logging\nimport torch\nif True:\n'
        "    torch._logging.set_logs(dynamo=True, torch=logging.INFO, guards=10)\n"
        'os.environ["TORCH_LOGS"] = "+dynamo,graph_breaks"\n'
    )
    variants = [text[:n] for n in range(0, len(text) + 1, 3)]
    variants += [text.replace("(", "[", 1), text.replace('"', "'", 3), text.replace(")", "")]
    for t in variants:
        for fix in all_fixes(t):
            assert fix.edits and all(0 <= e.start <= e.end <= len(t) for e in fix.edits)


def test_no_late_write_fix_when_the_new_call_would_be_ignored():
    # TORCH_LOGS is already in os.environ (line 2): a set_logs call there only logs a
    # warning (TL631), so the fix would do nothing either
    text = (
        'import os\nos.environ["TORCH_LOGS"] = "aot"\nimport torch\n'
        'os.environ["TORCH_LOGS"] = "+dynamo"\n'
    )
    assert codes(text) == ["TL501"]
    assert all_fixes(text) == []


def test_one_request_fixes_at_most_the_first_calls_of_its_range():
    # (each fix re-checks the document: a whole-document range over 200 calls took 15 s)
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes

    text = "import logging, torch\n" + "torch._logging.set_logs(dynamo=True)\n" * 30
    fixes = call_fixes("python", text, load_registry("2.13"), limit=10)
    lines = {text.count("\n", 0, f.diagnostics[0].start) for f in fixes if f.diagnostics}
    assert lines == set(range(1, 11))


def test_a_repeated_keyword_is_capped_and_has_no_equivalent():
    from torch_logs_lsp.hosts.python import host as python
    from torch_logs_lsp.set_logs.checks import check_set_logs
    from torch_logs_lsp.set_logs.equivalent import call_equivalent
    from torch_logs_lsp.set_logs.keywords import set_logs_signature

    reg = load_registry("2.13")
    text = "import torch\ntorch._logging.set_logs(" + "dynamo=10, " * 300 + ")\n"
    (call,) = python.set_logs_calls(text)
    found = check_set_logs(call, reg)
    assert len(found) == 101 and found[-1].code == "TL901"
    assert call_equivalent(call, reg, set_logs_signature(reg)) == (
        None,
        "a keyword is given twice: Python does not compile this call",
    )


@pytest.mark.parametrize(
    "args",
    ["loop_ordering=(True)", "loop_ordering= ( True ) , dynamo=10", "loop_ordering=True, **kw"],
)
def test_no_move_into_modules_that_would_break_the_call(args: str):
    # (not `modules={"loop_ordering": True}))`, a SyntaxError; `**kw` may
    # hold a modules= of its own: TypeError, multiple values for keyword argument)
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes

    text = f"import torch\ntorch._logging.set_logs({args})\n"
    titles = [f.title for f in call_fixes("python", text, load_registry("2.13"))]
    assert not any(t.startswith("Move into") for t in titles), titles


def test_statements_with_comments_are_not_rewritten():
    # (the rewrite must not replace the whole statement and lose `# keep me`)
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes, late_write_fixes

    reg = load_registry("2.13")
    text = "import logging, torch\ntorch._logging.set_logs(dynamo=10,  # keep me\n)\n"
    assert not [f for f in call_fixes("python", text, reg) if "TORCH_LOGS" in f.title]
    text = 'import os\nimport torch\nos.environ[\n    "TORCH_LOGS"  # key\n] = "+dynamo"\n'
    entries = check_text(text, "python", reg)
    assert late_write_fixes("python", text, entries, reg) == []
    plain = 'import os\nimport torch\nos.environ["TORCH_LOGS"] = "+dynamo"  # after\n'
    assert late_write_fixes("python", plain, check_text(plain, "python", reg), reg)
