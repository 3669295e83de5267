"""Preparing for the first documents in the background, once the handshake is done.

A fresh server's first didOpen paid for everything done on first use: importing the host
modules (detection by name now imports only the host that claims the file), resolving the
user's torch (asking the interpreter, reading ``_registrations.py``, indexing the module
search path), loading the packaged tables and the tree-sitter grammars. At ``initialized``
:func:`start` does these in a daemon thread, in the order a first document needs them: the
workspace's torch context first, then the packaged tables, every module of the checking
packages (hosts, lint, value, ...) and the grammars.

Why a document checked before, during or after the warm-up gets the same diagnostics: each
step only fills a cache that the document's own code fills on first use, the same way
(``TorchResolver.context`` resolves under a lock, so a document that needs the context
while the warm-up resolves it waits for that resolution and gets the same context, never a
packaged stand-in; imports are under Python's import locks; a grammar is loaded once).
The warm-up never parses a document (tree-sitter parsers are not shared across threads).
A document never waits for the warm-up as such, only for a piece it needs that the
warm-up is making at that moment; and the warm-up pauses between its steps while the
server checks a document (:meth:`Warmup.foreground`), so it takes the interpreter from a
document at most for the rest of one step.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial

log = logging.getLogger(__name__)

#: The packages whose modules the checking of a document imports (on first use, many of
#: them inside functions): imported by the warm-up. Not ``cli`` or ``server``.
PACKAGES = (
    "torch_logs_lsp.hosts",
    "torch_logs_lsp.lint",
    "torch_logs_lsp.value",
    "torch_logs_lsp.set_logs",
    "torch_logs_lsp.knowledge",
    "torch_logs_lsp.torch_env",
    "torch_logs_lsp.launch",
    "torch_logs_lsp.notebook",
    "torch_logs_lsp.project",
)

Step = tuple[str, Callable[[], object]]

#: Seconds a thread holds the interpreter before one that waits may take it, while the
#: warm-up runs (Python's default is 0.005): a request that arrives while a step runs
#: waits up to this long for the interpreter, not 5 ms.
SWITCH_INTERVAL_S = 0.0005


def module_steps(packages: Iterable[str] = PACKAGES) -> Iterator[Step]:
    """One step per module of ``packages`` (sub-packages included, ``__main__`` not): its
    import. The host modules (``hosts/<kind>/host.py``) come first, in host order."""
    from torch_logs_lsp.hosts import HOST_KINDS

    for kind in HOST_KINDS:
        name = f"torch_logs_lsp.hosts.{kind}.host"
        yield name, partial(importlib.import_module, name)
    for package in packages:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            if not info.name.endswith(".__main__"):
                yield info.name, partial(importlib.import_module, info.name)


def grammar_steps() -> Iterator[Step]:
    """One step per tree-sitter grammar the hosts use: loading it (not a parser)."""
    from torch_logs_lsp.hosts import _ts

    for name in _ts.GRAMMARS:
        yield f"grammar {name}", partial(_ts.load_grammar, name)


class Warmup:
    """The background preparation of one server: :meth:`run` its steps in a thread,
    pausing between steps while a document is checked in the foreground."""

    def __init__(self) -> None:
        self._idle = threading.Event()
        self._idle.set()
        self._busy = 0
        self._guard = threading.Lock()
        #: Set when every step has run (or failed: logged); a test may wait for it.
        self.done = threading.Event()
        self.thread: threading.Thread | None = None

    @contextmanager
    def foreground(self) -> Iterator[None]:
        """While a document is being checked: the warm-up starts no new step."""
        with self._guard:
            self._busy += 1
            self._idle.clear()
        try:
            yield
        finally:
            with self._guard:
                self._busy -= 1
                if not self._busy:
                    self._idle.set()

    def start(self, steps: Iterable[Step]) -> None:
        """Run ``steps`` in order in a daemon thread (once; a second call does nothing)."""
        if self.thread is not None:
            return
        self.thread = threading.Thread(
            target=self.run, args=(steps,), name="torch-logs-warmup", daemon=True
        )
        self.thread.start()

    def run(self, steps: Iterable[Step]) -> None:
        """Run ``steps``, each after the foreground is idle; a step that raises is logged
        and skipped (what it prepares is then made on first use). While they run, the
        interpreter's switch interval is :data:`SWITCH_INTERVAL_S` (then restored)."""
        began = time.perf_counter()
        count = 0
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, SWITCH_INTERVAL_S))
        try:
            for name, step in steps:
                self._idle.wait()
                try:
                    step()
                except Exception:
                    log.warning("warm-up step %s failed", name, exc_info=True)
                count += 1
        except Exception:  # listing the steps failed: what is left is made on first use
            log.warning("warm-up stopped", exc_info=True)
        finally:
            sys.setswitchinterval(interval)
            self.done.set()
        log.info("warm-up: %d steps in %.0f ms", count, (time.perf_counter() - began) * 1000)


__all__ = ["PACKAGES", "Warmup", "grammar_steps", "module_steps"]
