"""Write ``docs/codes.md`` from the codes table (``src/torch_logs_lsp/codes/table.py``) and
the codes' sections (``src/torch_logs_lsp/codes/sections.md``): ``./dev gen``.

    python3 scripts/gen_docs.py           # write docs/codes.md (says whether it changed)
    python3 scripts/gen_docs.py --check   # exit 1 when docs/codes.md is not the generated text

Runs the checkout's ``src/`` (the ``codes`` package needs only the standard library), so
no install is needed. ``tests/codes/test_table.py`` fails while the file is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from torch_logs_lsp.codes.markdown import COMMAND, DOCS_PATH, docs_markdown  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    path = ROOT / DOCS_PATH
    want = docs_markdown()
    have = path.read_text(encoding="utf-8") if path.exists() else None
    if args.check:
        if have != want:
            print(f"{DOCS_PATH} is stale: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if have == want:
        print(f"{DOCS_PATH} is up to date")
        return 0
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write(want)
    print(f"wrote {DOCS_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
