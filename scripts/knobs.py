"""Regenerate ``knowledge/data/knobs-by-version.json``: torch's compile knobs
(``TORCHINDUCTOR_*``, ``TORCHDYNAMO_*``, ``TORCH_COMPILE_*`` ...) of each release, with
torch's documentation, default and value form
(:func:`torch_logs_lsp.knowledge.knob_sources.release_knobs`, ``ast`` only; nothing imported
or installed).

Each argument is ``RELEASE=PATH``: ``PATH`` a torch wheel (read with ``zipfile``; any
platform, e.g. macOS arm64: ``PIP_CONFIG_FILE=/dev/null pip download --no-deps
--only-binary=:all: --platform macosx_14_0_arm64 torch==2.12.0 -d /tmp/wheels``,
``macosx_11_0_arm64`` before 2.12) or an installed ``torch`` directory. Releases not named
keep their entry.

Run: ``.venv/bin/python scripts/knobs.py 2.13=.venv/lib/python3.11/site-packages/torch
2.12=/tmp/wheels/torch-2.12.0-cp311-cp311-macosx_14_0_arm64.whl``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from torch_logs_lsp.knowledge.knob_sources import ReleaseKnobs, release_knobs
from torch_logs_lsp.knowledge.knobs import compact, expand

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "torch_logs_lsp"
DATA = PACKAGE / "knowledge" / "data" / "knobs-by-version.json"
SOURCE = (
    "Read with Python's ast from each torch release's Python sources (macOS arm64 wheels; "
    "2.13 from the installed torch 2.13.0+cpu) by scripts/knobs.py: the environment "
    "variables named TORCH*/INDUCTOR_* read in torch/_inductor/config.py, "
    "torch/_dynamo/config.py, torch/compiler/config.py, torch/_functorch/config.py, "
    "torch/_logging/_internal.py and torch/_inductor/runtime/*.py; doc is torch's comment "
    "and docstring text of the newest release that reads the name, verbatim but for joined "
    "lines; forms are every read of the name in torch's Python code."
)


def records(found: ReleaseKnobs) -> dict[str, dict[str, object]]:
    """One release's knobs as the uncompacted records :func:`compact` takes."""
    out: dict[str, dict[str, object]] = {}
    for name, knob in sorted(found.knobs.items()):
        forms: list[dict[str, object]] = []
        for form in found.forms[name]:
            if (data := form.as_json()) not in forms:
                forms.append(data)
        out[name] = {
            "file": knob.file,
            "entry": knob.entry,
            "doc": knob.doc,
            "default": knob.default,
            "forms": forms,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="+", metavar="RELEASE=PATH")
    args = parser.parse_args()
    per_release = expand(json.loads(DATA.read_text())) if DATA.exists() else {}
    for item in args.releases:
        release, _, path = item.partition("=")
        per_release[release] = records(release_knobs(Path(path)))
        print(f"{release}: {len(per_release[release])} knobs", file=sys.stderr)
    data = compact(per_release, SOURCE)
    DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
