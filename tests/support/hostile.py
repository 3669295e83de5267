"""Hostile ``torch/_logging/_registrations.py`` files and a fake environment holding one.

Each source is the installed torch 2.13.0's real file plus one statement that breaks the
static reader in its own way; the reader must fall back to the packaged registry (of the
fake torch's release, 2.4) and say why, never raise.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

#: name -> (extra source, the reason the fallback note must name)
HOSTILE: dict[str, tuple[str, str]] = {
    # parses, but evaluating the left-deep BinOp recursed out of the reader
    "chain": ("X = " + " + ".join(['"a"'] * 1500) + "\nregister_log('x', X)\n", "RecursionError"),
    # the note on it dumped the whole expression (ast.dump recursed)
    "chain_in_call": ("register_log('x', [" + " + ".join(['"a"'] * 1500) + "])\n", "BinOp"),
    # too many parentheses for the parser (SyntaxError on 3.11: this one was always read)
    "nesting": ("register_log('x', " + "(" * 1000 + "'torch.x'" + ")" * 1000 + ")\n", "Error"),
    # nesting the parser accepts: brackets and unary minus, 650 deep (ast.dump recursed)
    "nesting_in_call": (
        "register_log('x', [" + "[" * 150 + "-" * 500 + "1" + "]" * 150 + "])\n",
        "arguments not literal",
    ),
    "null_bytes": ("register_log('x', 'torch.x')\x00\n", "Error"),
    "deep_list": ("X = " + "[" * 50_000 + "]" * 50_000 + "\n", "Error"),
}


def installed_registrations() -> str:
    """The text of the installed torch's ``_registrations.py`` (located, not imported)."""
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parent / "_logging" / "_registrations.py"
    return path.read_text(encoding="utf-8")


def fake_torch_env(root: Path) -> tuple[str, Path]:
    """A real venv (no pip) with a ``torch`` 2.4.1 package of two files; returns the
    interpreter and the ``_registrations.py`` path to write a source to."""
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True
    )
    torch = next(venv.glob("lib/python3.*/site-packages")) / "torch"
    (torch / "_logging").mkdir(parents=True)
    (torch / "__init__.py").write_text("raise SystemExit('imported torch')\n")
    (torch / "version.py").write_text("__version__ = '2.4.1'\n")
    return str(venv / "bin" / "python"), torch / "_logging" / "_registrations.py"
