"""Regenerate ``knowledge/data/env-reads-by-version.json``: the environment variables each torch
release reads (:func:`torch_logs_lsp.knowledge.env_reads.torch_names_read`: its Python code with
``ast``, the torch-owned names in its string literals, and the names in the string tables of
its native libraries; nothing imported or installed).

Each argument is ``RELEASE=PATH``: ``PATH`` a torch wheel (read with ``zipfile``; any
platform, e.g. macOS arm64: ``PIP_CONFIG_FILE=/dev/null pip download --no-deps
--only-binary=:all: --platform macosx_14_0_arm64 torch==2.12.0 -d /tmp/wheels``,
``macosx_11_0_arm64`` before 2.12) or an installed ``torch`` directory. Releases not named
keep their entry.

Run: ``.venv/bin/python scripts/env_reads.py 2.13=.venv/lib/python3.11/site-packages/torch
2.12=/tmp/wheels/torch-2.12.0-cp311-cp311-macosx_14_0_arm64.whl``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from torch_logs_lsp.knowledge.env_reads import decode, encode, torch_names_read

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "torch_logs_lsp"
DATA = PACKAGE / "knowledge" / "data" / "env-reads-by-version.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="+", metavar="RELEASE=PATH")
    args = parser.parse_args()
    data: dict[str, frozenset[str]] = decode(json.loads(DATA.read_text())) if DATA.exists() else {}
    for item in args.releases:
        release, _, path = item.partition("=")
        data[release] = frozenset(torch_names_read(Path(path)))
        print(f"{release}: {len(data[release])} names", file=sys.stderr)
    DATA.write_text(json.dumps(encode(data), indent=0) + "\n")


if __name__ == "__main__":
    main()
