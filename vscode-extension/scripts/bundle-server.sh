#!/usr/bin/env bash
# Install the Python language server (the project at ..) and its pinned dependencies
# (requirements.txt, sha256 hashes required) into bundled/libs, for one VS Code target:
#   TARGET=linux-x64 (default) | linux-arm64 | darwin-x64 | darwin-arm64 | win32-x64
# Compiled dependencies (tree-sitter) get a wheel for each supported CPython (3.10-3.14);
# their extension modules have version-tagged names, so they sit side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
TARGET=${TARGET:-linux-x64}
PYTHONS=(3.10 3.11 3.12 3.13 3.14)
case "$TARGET" in
  linux-x64) PLATFORMS=(manylinux2014_x86_64) ;;
  linux-arm64) PLATFORMS=(manylinux2014_aarch64) ;;
  darwin-x64) PLATFORMS=(macosx_10_9_x86_64 macosx_11_0_x86_64) ;;
  darwin-arm64) PLATFORMS=(macosx_11_0_arm64) ;;
  win32-x64) PLATFORMS=(win_amd64) ;;
  *) echo "unknown TARGET $TARGET" >&2; exit 2 ;;
esac
OUT=bundled/libs
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/torch-logs-bundle.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
PIP=("$PY" -m pip --disable-pip-version-check --no-input)
export PIP_ROOT_USER_ACTION=ignore
# pip's machine-wide constraints (e.g. a cap on torch) must not apply to the bundle.
export PIP_CONSTRAINT=

rm -rf "$OUT"
mkdir -p "$OUT"
for pyver in "${PYTHONS[@]}"; do
  plat_args=()
  for p in "${PLATFORMS[@]}"; do plat_args+=(--platform "$p"); done
  "${PIP[@]}" install -q --no-deps --require-hashes --only-binary=:all: --no-compile \
    --implementation cp --python-version "$pyver" "${plat_args[@]}" \
    --target "$STAGE/$pyver" -r requirements.txt
  # Pure-Python files are identical for every version; only new files (extension modules) are added.
  cp -a -n "$STAGE/$pyver/." "$OUT/"
done
# The server itself: built from the repository (pure Python), without its dependencies.
"${PIP[@]}" install -q --no-deps --no-compile --target "$STAGE/project" ..
cp -a "$STAGE/project/torch_logs_lsp" "$STAGE"/project/torch_logs_lsp*.dist-info "$OUT/"
find "$OUT" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -rf "$OUT/bin"

# Bytecode for every supported CPython found on this machine, so that the first start does
# not compile lsprotocol's 0.5 MB of types (a second or more on a slow machine). The
# files carry the source's hash and are used without checking it (unchecked-hash): the
# bundle never changes after installation, whatever the unpacked files' times are.
# A CPython that is not here simply compiles on its first start, as before.
compiled=()
warmed=()
for pyver in "${PYTHONS[@]}"; do
  interp=""
  for cand in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$pyver".*/bin/python"$pyver" \
      "$(command -v "python$pyver" || true)"; do
    if [ -x "$cand" ] && "$cand" -c 'pass' 2>/dev/null; then interp=$cand; break; fi
  done
  [ -n "$interp" ] || continue
  if "$interp" -m compileall -q --invalidation-mode unchecked-hash "$OUT" >/dev/null; then
    compiled+=("$pyver")
  else
    echo "bytecode for Python $pyver: some files did not compile (they compile on first start)" >&2
    compiled+=("$pyver(partly)")
  fi
  # The table of code that attrs and cattrs generate at start-up (server/codecache.py):
  # about half of the server's start; one short session with this Python writes it.
  if "$interp" scripts/warm-code-cache.py "$OUT" >/dev/null; then
    warmed+=("$pyver")
  else
    echo "generated-code table for Python $pyver not written (the first start writes one)" >&2
  fi
done
echo "bytecode included for: ${compiled[*]:-none}; generated-code tables for: ${warmed[*]:-none}"

# Smoke test with this machine's Python when it can load the target's wheels.
if [ "$TARGET" = linux-x64 ] && [ "$(uname -m)" = x86_64 ] && [ "$(uname -s)" = Linux ]; then
  PYTHONPATH="$OUT" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 "$PY" -c '
import tree_sitter, tree_sitter_bash, tree_sitter_json, tree_sitter_python, tree_sitter_yaml, pygls, lsprotocol
import torch_logs_lsp.server.app as app
app.create_server()
print("bundled server imports fine:", app.VERSION, "pygls", __import__("importlib.metadata").metadata.version("pygls"))
'
fi
echo "bundled/libs for $TARGET: $(du -sh "$OUT" | cut -f1), $(find "$OUT" -type f | wc -l) files"
