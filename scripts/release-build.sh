#!/usr/bin/env bash
# Build every file a release publishes into OUTDIR — the same steps as the release workflow
# (.github/workflows/release.yml), runnable here:
#   torch_logs_lsp-X.Y.Z.tar.gz, torch_logs_lsp-X.Y.Z-py3-none-any.whl
#       `python -m build`: the sdist, then the wheel from the unpacked sdist
#   torch-logs-<target>.vsix (linux-x64, linux-arm64, alpine-x64, darwin-x64, darwin-arm64,
#   win32-x64) and torch-logs-universal.vsix
#       vscode-extension/scripts/package-all.sh; the six bundles hold the wheel above
#   SHA256SUMS
#
#   scripts/release-build.sh [--python-only] OUTDIR
#
# The build runs in a temporary copy of the files git tracks (as they are in the working
# tree), so build/, *.egg-info, node_modules and the extension's dist/ and bundled/ are
# written there, never into the checkout; untracked files are not part of a release.
# Needs git, and for the .vsix Node >= 20 with npm (`npm ci` in the copy) and pip reaching
# PyPI for the platform wheels (cached, see vscode-extension/scripts/bundle-server.sh).
# --python-only: the sdist and the wheel alone.
# BUILD_PYTHON runs `python -m build --no-isolation`: it needs `build` and setuptools >= 77
# (requirements/dev.txt pins both; ./dev test installs them into .venv). Default: the
# checkout's .venv/bin/python when there is one, else python3. The .vsix step uses
# $PYTHON or python3, as package-all.sh does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VSIX=1
if [ "${1:-}" = --python-only ]; then VSIX=0; shift; fi
[ $# -eq 1 ] || { sed -n '2,22p' "$0" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
if [ -z "${BUILD_PYTHON:-}" ]; then
  BUILD_PYTHON=python3
  [ -x "$ROOT/.venv/bin/python" ] && BUILD_PYTHON=$ROOT/.venv/bin/python
fi
(cd / && "$BUILD_PYTHON" -c 'import build, setuptools') 2>/dev/null || {  # not a build/ folder here
  echo "$BUILD_PYTHON lacks build or setuptools (pip install -r requirements/dev.txt)" >&2
  exit 1
}
t0=$SECONDS

# Every file that carries the version agrees with pyproject.toml.
"$BUILD_PYTHON" -B "$ROOT/scripts/set_version.py" --check >/dev/null
VERSION=$("$BUILD_PYTHON" -B -c 'import sys; sys.path[:0] = [sys.argv[1]]; import set_version
print(set_version.pyproject_version())' "$ROOT/scripts")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/torch-logs-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/src
mkdir "$SRC"
# The tracked files as they are now (a tracked file deleted from the working tree is left
# out; symlinks stay links).
git -C "$ROOT" ls-files -z --cached \
  | (cd "$ROOT" && while IFS= read -r -d '' f; do
       if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
     done) \
  | tar -C "$ROOT" --null -T - -cf - | tar -C "$SRC" -xf -
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=normal)" ]; then
  echo "note: the checkout has changes; the build holds the tracked files as they are now" >&2
fi

echo "=== sdist and wheel $VERSION" >&2
(cd "$SRC" && "$BUILD_PYTHON" -m build --no-isolation --outdir "$OUT" . >"$WORK/build.log" 2>&1) \
  || { tail -n 40 "$WORK/build.log" >&2; exit 1; }
SDIST=$OUT/torch_logs_lsp-$VERSION.tar.gz
WHEEL=$OUT/torch_logs_lsp-$VERSION-py3-none-any.whl
for f in "$SDIST" "$WHEEL"; do
  [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
done
FILES=("$SDIST" "$WHEEL")

if [ "$VSIX" = 1 ]; then
  echo "=== the seven .vsix" >&2
  (cd "$SRC/vscode-extension" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
  SERVER_WHEEL=$WHEEL DIST=$OUT bash "$SRC/vscode-extension/scripts/package-all.sh"
  for t in universal linux-x64 linux-arm64 alpine-x64 darwin-x64 darwin-arm64 win32-x64; do
    FILES+=("$OUT/torch-logs-$t.vsix")
  done
fi

# SHA256SUMS in sha256sum's format (`sha256sum -c SHA256SUMS` checks them)
"$BUILD_PYTHON" - "$OUT" "${FILES[@]##*/}" <<'EOF_SUMS'
import hashlib, pathlib, sys
out = pathlib.Path(sys.argv[1])
lines = [f"{hashlib.sha256((out / n).read_bytes()).hexdigest()}  {n}\n" for n in sys.argv[2:]]
(out / "SHA256SUMS").write_text("".join(lines))
EOF_SUMS
echo "=== release $VERSION in $OUT ($((SECONDS - t0)) s):" >&2
(cd "$OUT" && ls -l -- "${FILES[@]##*/}" SHA256SUMS) >&2
