"""The warm-up after the handshake (server/warmup.py): a document opened while it runs is
checked against the workspace's own torch (never a packaged stand-in), and the warm-up's
steps run in the background, each failure logged and skipped."""

from __future__ import annotations

import ast
import asyncio
import graphlib
import logging
import sys
import threading
from pathlib import Path

import pytest

import torch_logs_lsp
from tests.server.test_limits import open_doc
from tests.support.hostile import fake_torch_env
from tests.support.raw import WAIT, Client
from torch_logs_lsp.server.warmup import (
    PACKAGES,
    SWITCH_INTERVAL_S,
    Warmup,
    grammar_steps,
    module_steps,
)

#: A torch 2.4.1 that registers ``mylog``: the packaged registry of 2.4 does not (TL201).
REGISTRATIONS = """\
from torch._logging._internal import register_artifact, register_log
register_log("dynamo", ["torch._dynamo"])
register_log("mylog", "torch.mylog")
register_artifact("guards", "guards")
"""


async def test_a_document_opened_at_once_is_checked_with_the_workspace_torch(
    raw_client: Client, tmp_path: Path
) -> None:
    # the didOpen follows initialized at once, while the warm-up resolves the same torch:
    # the first publication already knows `mylog` (the packaged 2.4 registry would give
    # TL201) and still finds the misspelt `gaurds`
    _, registrations = fake_torch_env(tmp_path)
    registrations.write_text(REGISTRATIONS)
    (tmp_path / "venv").rename(tmp_path / ".venv")
    client = raw_client
    await client.initialize(tmp_path.as_uri())
    uri = (tmp_path / "train.env").as_uri()
    published = client.diagnostics(uri, 1)
    open_doc(client, uri, "TORCH_LOGS=+mylog,gaurds\n")
    diagnostics = (await asyncio.wait_for(published, WAIT))["diagnostics"]
    assert [(d["code"], d["range"]["start"]["character"]) for d in diagnostics] == [("TL201", 18)]
    other = (tmp_path / "other.env").as_uri()  # and after the warm-up: the same verdicts
    published = client.diagnostics(other, 1)
    open_doc(client, other, "TORCH_LOGS=+mylog,gaurds\n")
    again = (await asyncio.wait_for(published, WAIT))["diagnostics"]
    assert [d["code"] for d in again] == ["TL201"] and again[0]["range"] == diagnostics[0]["range"]


def test_steps_run_in_order_and_a_failing_one_is_logged(caplog: pytest.LogCaptureFixture):
    ran: list[str] = []

    def fail() -> None:
        raise RuntimeError("no grammar")

    warmup = Warmup()
    steps = [("a", lambda: ran.append("a")), ("broken", fail), ("b", lambda: ran.append("b"))]
    with caplog.at_level(logging.WARNING, logger="torch_logs_lsp.server.warmup"):
        warmup.start(steps)
        assert warmup.done.wait(WAIT)
    assert ran == ["a", "b"]
    assert "warm-up step broken failed" in caplog.text


def test_no_step_starts_while_a_document_is_checked():
    warmup = Warmup()
    entered, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def first() -> None:
        entered.set()
        assert release.wait(WAIT)

    def second() -> None:
        ran.append("second")

    with warmup.foreground():
        warmup.start([("first", first), ("second", second)])
        # the thread waits for the foreground before its first step
        assert not entered.is_set()
    assert entered.wait(WAIT)  # the foreground ended: the first step runs
    with warmup.foreground():
        release.set()  # the first step ends while a document is checked...
        assert warmup.thread is not None
        assert not warmup.done.is_set() and ran == []  # ...and the second waits for it
    assert warmup.done.wait(WAIT) and ran == ["second"]


def test_the_steps_cover_every_host_and_grammar():
    names = [name for name, _ in module_steps()]
    assert names[0] == "torch_logs_lsp.hosts.shell.host"
    assert "torch_logs_lsp.hosts.yaml.host" in names and "torch_logs_lsp.lint.pipeline" in names
    assert not any(n.endswith("__main__") for n in names)
    assert all(n.startswith(PACKAGES) for n in names)
    assert len([name for name, _ in grammar_steps()]) >= 7


def _module_level_imports(path: Path) -> set[str]:
    """The package modules ``path`` imports when it is imported (not under
    ``TYPE_CHECKING``, not inside functions)."""
    found: set[str] = set()
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for node in body:
        nodes: list[ast.stmt] = [node]
        if isinstance(node, ast.If):
            nodes = [] if "TYPE_CHECKING" in ast.unparse(node.test) else node.body
        elif isinstance(node, ast.Try):
            nodes = node.body
        for stmt in nodes:
            if isinstance(stmt, ast.ImportFrom) and stmt.module:
                found.add(stmt.module)
                found.update(f"{stmt.module}.{alias.name}" for alias in stmt.names)
            elif isinstance(stmt, ast.Import):
                found.update(alias.name for alias in stmt.names)
    return found


def test_no_two_modules_import_each_other():
    # The warm-up imports modules while a document's check may import others: Python's
    # per-module import locks keep that safe unless two modules import each other when
    # imported (then one thread could see the other's module half-initialised).
    root = Path(torch_logs_lsp.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        name = ".".join(("torch_logs_lsp", *path.relative_to(root).with_suffix("").parts))
        modules[name.removesuffix(".__init__")] = path
    graph = {
        name: {dep for dep in _module_level_imports(path) if dep in modules and dep != name}
        for name, path in modules.items()
    }
    # a package importing its own submodules is how packages are built (the package is
    # imported before any of them): not a cycle
    for name, deps in graph.items():
        deps -= {dep for dep in deps if dep.startswith(f"{name}.")}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"modules import each other: {exc.args[1]}")
    assert graph["torch_logs_lsp.server.app"]  # the reader found the imports


def test_requests_wait_less_for_the_interpreter_while_the_warm_up_runs() -> None:
    # while a step runs, a thread waiting for the interpreter (the server's loop with a
    # request) gets it after SWITCH_INTERVAL_S, not Python's 5 ms; restored afterwards
    before = sys.getswitchinterval()
    seen: list[float] = []
    Warmup().run([("look", lambda: seen.append(sys.getswitchinterval()))])
    assert seen == [min(before, SWITCH_INTERVAL_S)]
    assert SWITCH_INTERVAL_S < 0.005
    assert sys.getswitchinterval() == before
