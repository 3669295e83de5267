#!/usr/bin/env bash
# Build the .vsix for every target VS Code publishes for, plus a platform-neutral one, into
# dist/ (or $DIST):
#   torch-logs-<target>.vsix  for linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64,
#                             alpine-x64: the server and its dependencies (wheels for that
#                             target, scripts/bundle-server.sh) in bundled/libs
#   torch-logs-universal.vsix no bundle and no native code: the extension runs the
#                             torch-logs-lsp installed in the chosen interpreter's environment
# The wheels are cached (scripts/bundle-server.sh): a second run needs no network.
# linux-x64 is packaged last, so bundled/libs holds its bundle afterwards, as after
# `npm run package`.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${DIST:-dist}
TARGETS=(linux-arm64 darwin-x64 darwin-arm64 win32-x64 alpine-x64 linux-x64)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/torch-logs-package-all.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DIST"
t0=$SECONDS

npm run --silent vscode:prepublish   # type-check and bundle once for all seven
export TORCH_LOGS_PREPUBLISHED=1
vsce() {
  node_modules/.bin/vsce package --no-dependencies --no-rewrite-relative-links "$@" 2>&1 \
    | grep -v -e '^ *[├└│]' -e '^WARNING: Location' || true
}

# The server's own wheel (pure Python), built once for the six bundles; or $SERVER_WHEEL,
# built already (../scripts/release-build.sh passes the wheel it publishes).
if [ -z "${SERVER_WHEEL:-}" ]; then
  "${PYTHON:-python3}" -m pip wheel -q --no-deps --disable-pip-version-check -w "$WORK/wheel" .. 2>&1 \
    | grep -v '^WARNING: Location' || true
  SERVER_WHEEL=$(ls "$WORK"/wheel/torch_logs_lsp-*.whl)
fi
[ -f "$SERVER_WHEEL" ] || { echo "no server wheel: $SERVER_WHEEL" >&2; exit 1; }
export SERVER_WHEEL
# linux-x64 first: it writes the generated-code tables (it can run here), which the other
# targets' bundles copy.
run_bundle() {
  TARGET=$1 OUT=$WORK/$1 CODE_CACHE_FROM=$WORK/linux-x64/torch_logs_lsp/server/code-cache \
    bash scripts/bundle-server.sh 2>&1 | grep -v '^WARNING: Location'
}
# The interpreter itself, not a pyenv shim: a shim's pip runs `pyenv rehash`, which fails
# when two run at once.
PYTHON=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')
export PYTHON
run_bundle linux-x64
# The other five at once: most of their time is fetching wheels (a cold cache), each into
# its own folder.
jobs=()
for t in "${TARGETS[@]}"; do
  [ "$t" = linux-x64 ] && continue
  run_bundle "$t" > "$WORK/bundle-$t.log" 2>&1 &
  jobs+=("$!:$t")
done
failed=0
for job in "${jobs[@]}"; do
  t=${job#*:}
  wait "${job%%:*}" || { echo "the $t bundle failed:" >&2; failed=1; }
  cat "$WORK/bundle-$t.log"
done
[ $failed -eq 0 ] || exit 1

vsce --ignoreFile scripts/universal.vscodeignore --out "$DIST/torch-logs-universal.vsix"
# vsce scans every file for secrets (about 15 s of CPU for a bundle's 1,800 files). The
# universal and linux-x64 packages are scanned: between them they hold every file of ours
# and every pure-Python dependency. The other five differ from linux-x64 only in the
# platform wheels' compiled files (sha256-pinned from PyPI), so their scan is skipped.
for t in "${TARGETS[@]}"; do
  rm -rf bundled && mkdir bundled && mv "$WORK/$t" bundled/libs
  scan=()
  [ "$t" = linux-x64 ] || scan=(--allow-package-all-secrets)
  vsce --target "$t" "${scan[@]}" --out "$DIST/torch-logs-$t.vsix"
done
for f in universal "${TARGETS[@]}"; do
  [ -f "$DIST/torch-logs-$f.vsix" ] || { echo "missing $DIST/torch-logs-$f.vsix" >&2; exit 1; }
done
ls -l "$DIST"/torch-logs-*.vsix
echo "package:all: 7 .vsix in $((SECONDS - t0)) s"
