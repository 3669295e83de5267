"""Where things are in the checkout, for tests at any depth under ``tests/``."""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder (the one holding ``pyproject.toml``).
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCRIPTS = ROOT / "scripts"
