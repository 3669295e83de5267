#!/usr/bin/env bash
# Install the Python language server (the project at ..) and its pinned dependencies
# (requirements.txt, sha256 hashes required) into bundled/libs (or $OUT), for one VS Code
# target:
#   TARGET=linux-x64 (default) | linux-arm64 | darwin-x64 | darwin-arm64 | win32-x64 | alpine-x64
# Every dependency comes as a wheel built for the target (pip --platform/--only-binary). The
# tree-sitter grammars are abi3 wheels (one binary for every CPython >= 3.9/3.10);
# tree-sitter itself and PyYAML are built per CPython: a wheel for each supported CPython
# (3.10-3.14) is installed, and as their extension modules have version-tagged names
# (`_binding.cpython-312-x86_64-linux-gnu.so`, `_yaml.cp312-win_amd64.pyd`) they sit side by
# side; the user's Python imports the one of its own version.
# The wheels are kept in $TORCH_LOGS_WHEEL_CACHE (default ~/.cache/torch-logs-lsp-wheels/
# <target>/<python>): a later build installs from there without the network (the hashes of
# requirements.txt are checked either way).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
TARGET=${TARGET:-linux-x64}
PYTHONS=(3.10 3.11 3.12 3.13 3.14)
# pip expands a macOS tag to the older macOS versions and a manylinux tag to the older
# glibc ones, but not musllinux: both musl tags are named.
case "$TARGET" in
  linux-x64) PLATFORMS=(manylinux2014_x86_64) ;;
  linux-arm64) PLATFORMS=(manylinux2014_aarch64) ;;
  # tree-sitter's cp314 macOS x86_64 wheel needs 10.15 (VS Code itself needs 10.15 or newer)
  darwin-x64) PLATFORMS=(macosx_10_15_x86_64) ;;
  darwin-arm64) PLATFORMS=(macosx_11_0_arm64) ;;
  win32-x64) PLATFORMS=(win_amd64) ;;
  alpine-x64) PLATFORMS=(musllinux_1_2_x86_64 musllinux_1_1_x86_64) ;;
  *) echo "unknown TARGET $TARGET" >&2; exit 2 ;;
esac
OUT=${OUT:-bundled/libs}
# Whether this machine's Python can load the target's extension modules.
NATIVE=0
if [ "$TARGET" = linux-x64 ] && [ "$(uname -m)" = x86_64 ] && [ "$(uname -s)" = Linux ] \
   && ldd --version 2>&1 | grep -qi -e glibc -e "gnu libc"; then
  NATIVE=1
fi
CACHE=${TORCH_LOGS_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-logs-lsp-wheels}
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/torch-logs-bundle.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
PIP=("$PY" -m pip --disable-pip-version-check --no-input)
export PIP_ROOT_USER_ACTION=ignore
# pip's machine-wide constraints (e.g. a cap on torch) must not apply to the bundle.
export PIP_CONSTRAINT=

rm -rf "$OUT"
mkdir -p "$OUT"
plat_args=()
for p in "${PLATFORMS[@]}"; do plat_args+=(--platform "$p"); done
for pyver in "${PYTHONS[@]}"; do
  wheels=$CACHE/$TARGET/$pyver
  mkdir -p "$wheels"
  pick=(--no-deps --require-hashes --only-binary=:all: --implementation cp
        --python-version "$pyver" "${plat_args[@]}" -r requirements.txt)
  install() {
    "${PIP[@]}" install -q --no-compile --no-index --find-links "$wheels" "${pick[@]}" \
      --target "$STAGE/$pyver" 2>"$STAGE/pip.err"
  }
  if ! install; then
    "${PIP[@]}" download -q "${pick[@]}" -d "$wheels"
    install || { cat "$STAGE/pip.err" >&2; echo "cannot install the $TARGET wheels for Python $pyver" >&2; exit 1; }
  fi
  # Pure-Python files are identical for every version; only new files (extension modules) are added.
  cp -a -n "$STAGE/$pyver/." "$OUT/"
done
# The server itself: built from the repository (pure Python), without its dependencies;
# or the wheel $SERVER_WHEEL built from it already (scripts/package-all.sh builds it once).
"${PIP[@]}" install -q --no-deps --no-compile --target "$STAGE/project" "${SERVER_WHEEL:-..}"
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
  # about half of the server's start; one short session with this Python writes it. It
  # needs the target's extension modules to load here; for another target the tables of
  # a linux-x64 bundle of the same sources are copied ($CODE_CACHE_FROM): they hold only
  # the code that the pure-Python attrs/cattrs generate, and a table that does not fit is
  # ignored by the server.
  if [ "$NATIVE" = 0 ]; then
    if [ -f "${CODE_CACHE_FROM:-/nonexistent}/code-cpython-${pyver/./}.marshal" ]; then
      mkdir -p "$OUT/torch_logs_lsp/server/code-cache"
      cp "$CODE_CACHE_FROM/code-cpython-${pyver/./}.marshal" "$OUT/torch_logs_lsp/server/code-cache/"
      warmed+=("$pyver(copied)")
    fi
  elif "$interp" scripts/warm-code-cache.py "$OUT" >/dev/null; then
    warmed+=("$pyver")
  else
    echo "generated-code table for Python $pyver not written (the first start writes one)" >&2
  fi
done
echo "bytecode included for: ${compiled[*]:-none}; generated-code tables for: ${warmed[*]:-none}"

# Smoke test with this machine's Python when it can load the target's wheels.
if [ "$NATIVE" = 1 ]; then
  PYTHONPATH="$OUT" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 "$PY" -c '
import tree_sitter, tree_sitter_bash, tree_sitter_json, tree_sitter_python, tree_sitter_yaml, pygls, lsprotocol
import torch_logs_lsp.server.app as app
app.create_server()
print("bundled server imports fine:", app.VERSION, "pygls", __import__("importlib.metadata").metadata.version("pygls"))
'
fi
echo "bundled/libs for $TARGET: $(du -sh "$OUT" | cut -f1), $(find "$OUT" -type f | wc -l) files"
