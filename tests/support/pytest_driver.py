"""The driver behind :mod:`tests.support.pytest_oracle` (a script, run as its own process).

It answers cases one JSON line at a time: each case is a set of files (configuration
files, written byte for byte) in a fresh folder under the driver's working directory; the
driver writes a test file there that records what the test sees, resets ``os.environ``
to the environment it started with (plus the case's ``env``), changes into the case's
folder and calls the public ``pytest.main`` in-process with the case's arguments (and a
plugin that registers the case's ``addini`` names as string ini options). The answer:
pytest's exit code (``None`` when ``pytest.main`` raised: ``error`` names the
exception), the environment the test saw (``None`` when no test ran: pytest stopped
first), the values ``request.config.getini`` gave for the case's ``getini`` names, and the
tail of pytest's output. Its own output goes to a copy of the original stdout; whatever
pytest or a plugin writes to the file descriptors 1 and 2 goes to ``/dev/null``.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import shutil
import sys
import tempfile

import pytest

PROBE = """
import json, os

def test_probe(request):
    seen = {{"env": dict(os.environ), "ini": {{}}}}
    for name in {names!r}:
        try:
            value = request.config.getini(name)
        except Exception as e:
            value = {{"error": type(e).__name__}}
        seen["ini"][name] = value
    with open({out!r}, "w", encoding="utf-8") as f:
        json.dump(seen, f)
"""


class Options:
    """A plugin that registers ini options (type ``string``), so ``getini`` reads them."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        for name in self.names:
            parser.addini(name, help="an option of the oracle", type="string")


def main() -> None:
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    base = dict(os.environ)
    home = os.getcwd()
    for number, line in enumerate(sys.stdin):
        case = json.loads(line)
        root = tempfile.mkdtemp(prefix="case", dir=home)
        try:
            answer = run_case(case, root, base, number)
        finally:
            os.chdir(home)
            shutil.rmtree(root, ignore_errors=True)
        # pytest collects garbage twice per run (its unraisable-exception plugin): keep
        # what lives on (imported modules) out of those collections
        gc.freeze()
        channel.write(json.dumps(answer) + "\n")
        channel.flush()


def run_case(case: dict[str, object], root: str, base: dict[str, str], number: int) -> object:
    files = case["files"]
    assert isinstance(files, dict)
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    where = os.path.join(root, str(case.get("at", "")))
    os.makedirs(where, exist_ok=True)
    out = os.path.join(root, "seen.json")
    module = f"test_probe_{number}"  # a name of its own: one process imports every case's
    names = case.get("getini", [])
    with open(os.path.join(where, module + ".py"), "w", encoding="utf-8") as f:
        f.write(PROBE.format(names=names, out=out))
    os.environ.clear()
    os.environ.update(base)
    env = case.get("env", {})
    assert isinstance(env, dict)
    os.environ.update(env)
    os.chdir(where)
    args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib"]
    extra = case.get("args", [])
    assert isinstance(extra, list)
    args += [a.replace("{root}", root) for a in extra] + [module + ".py"]
    buf = io.StringIO()
    code: int | None = None
    error: str | None = None
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            code = int(pytest.main(args, plugins=[Options(list(case.get("addini", [])))]))
        except BaseException as e:  # an exception out of a plugin's hook (pytest-env < 1.8.7)
            error = f"{type(e).__name__}: {e}"
    for key, mod in list(sys.modules.items()):  # the case's test module
        if (getattr(mod, "__file__", None) or "").startswith(root):
            del sys.modules[key]
    seen = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            seen = json.load(f)
    return {
        "exit": code,
        "error": error,
        "env": seen["env"] if seen else None,
        "ini": seen["ini"] if seen else None,
        "output": buf.getvalue()[-3000:],
    }


if __name__ == "__main__":
    main()
