#!/usr/bin/env bash
# End-to-end test in a real VS Code (code-server, headless chromium via playwright-core):
# installs its tools once (scripts/e2e-setup.sh), builds the .vsix (npm ci + npm run package),
# installs it into a fresh profile, opens a copy of ../examples and checks completion, hover,
# squiggles, the Problems panel and the status bar in the DOM (scripts/e2e.js).
# Adapted from the verified recipe shared/recipes/vscode-e2e/run-e2e.sh.
#   scripts/e2e.sh              build, then test
#   E2E_SKIP_BUILD=1 scripts/e2e.sh   reuse dist/torch-logs-linux-x64.vsix
#   E2E_VSIX_DIR=<dir> scripts/e2e.sh  use the .vsix files in <dir> (scripts/release-build.sh's
#       output), build nothing
#   E2E_SCENARIO=no-python E2E_PYTHON=/nonexistent scripts/e2e.sh   the error path
#   E2E_SCENARIO=untrusted scripts/e2e.sh   restricted mode: a workspace that names its own
#                                          interpreters, which must never run
#   E2E_SCENARIO=floor scripts/e2e.sh   the same open -> squiggle measurement with a server
#       that answers at once (scripts/floor-server.py): the editor's and machine's share
#   E2E_SCENARIO=neutral scripts/e2e.sh   the platform-neutral .vsix (no bundled server) with a
#       Python that lacks torch-logs-lsp: the error saying so and how to install it
#   E2E_SCENARIO=neutral-env E2E_PYTHON=<python with torch-logs-lsp> scripts/e2e.sh   the
#       platform-neutral .vsix running the server installed in that environment
#   E2E_SCENARIO=python-extension scripts/e2e.sh   interpreters from the Python extension's API
#       (a stub of it, scripts/stub-python-extension/: the real one cannot be downloaded here)
# Artifacts (screenshots, logs, result.json): e2e-artifacts/ (the last run; a scenario's in
# e2e-artifacts-<scenario>/), or under $E2E_ARTIFACTS when set.
set -euo pipefail
cd "$(dirname "$0")/.."
EXT_DIR=$PWD
T_START=$(date +%s.%N)
CACHE=$(scripts/e2e-setup.sh | tail -1)
# shellcheck disable=SC1091
. "$CACHE/env.sh"
T_SETUP=$(date +%s.%N)

# the extension's tools (vsce packages the .vsix and the Python extension's stub)
LOCK_SUM=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.e2e-lock-sha256 2>/dev/null)" != "$LOCK_SUM" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$LOCK_SUM" > node_modules/.e2e-lock-sha256
fi
VSIX_DIR=${E2E_VSIX_DIR:-$EXT_DIR/dist}
[ -z "${E2E_VSIX_DIR:-}" ] || E2E_SKIP_BUILD=1
VSIX=$VSIX_DIR/torch-logs-linux-x64.vsix
case "${E2E_SCENARIO:-}" in
  neutral|neutral-env)
    # the platform-neutral .vsix (scripts/package-all.sh makes the same with its other six)
    VSIX=$VSIX_DIR/torch-logs-universal.vsix
    if [ -z "${E2E_SKIP_BUILD:-}" ] || [ ! -f "$VSIX" ]; then
      node_modules/.bin/vsce package --no-dependencies --no-rewrite-relative-links \
        --ignoreFile scripts/universal.vscodeignore --out "$VSIX" 2>&1 | grep -v -e '^ *[├└│]' || true
      [ -f "$VSIX" ] || { echo "build failed: no $VSIX" >&2; exit 1; }
    fi
    E2E_SKIP_BUILD=1 ;;
esac
if [ -z "${E2E_SKIP_BUILD:-}" ] || [ ! -f "$VSIX" ]; then
  npm run --silent package 2>&1 | grep -v -e '^WARNING: Location' -e '^ *[├└│]' || true
  [ -f "$VSIX" ] || { echo "build failed: no $VSIX" >&2; exit 1; }
fi
T_BUILD=$(date +%s.%N)

SCENARIO=${E2E_SCENARIO:-}
ART=${E2E_ARTIFACTS:-$EXT_DIR}/e2e-artifacts${SCENARIO:+-$SCENARIO}
rm -rf "$ART" && mkdir -p "$ART"
RUN=$(mktemp -d "${TMPDIR:-/tmp}/torch-logs-e2e.XXXXXX")
mkdir -p "$RUN/data/User" "$RUN/exts" "$RUN/xdg/config" "$RUN/xdg/data" "$RUN/xdg/cache" "$RUN/tmp"
cp -a ../examples "$RUN/ws"   # a copy: the test types into files
# The server's Python, set explicitly: VS Code takes PATH from the login shell, where a pyenv
# shim (slower to start) may come first. The PATH lookup order is covered by the unit tests.
SERVER_PY=${E2E_PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
if [ "$SCENARIO" = neutral ]; then
  # a Python without torch-logs-lsp (a bare venv) for the platform-neutral .vsix
  "$SERVER_PY" -m venv --without-pip "$RUN/bare"
  SERVER_PY=$RUN/bare/bin/python
fi
if [ "${E2E_SCENARIO:-}" = floor ]; then
  # the "interpreter" answers the extension's version probe, and runs the floor server
  # whatever arguments the extension passes
  REAL_PY=$SERVER_PY SERVER_PY=$RUN/floor-python
  printf '#!/bin/sh\ncase "$1" in -I) exec %s "$@";; esac\nexec %s -S %s\n' \
    "$REAL_PY" "$REAL_PY" "$EXT_DIR/scripts/floor-server.py" > "$SERVER_PY"
  chmod +x "$SERVER_PY"
fi
cat > "$RUN/data/User/settings.json" <<JSON
{
  "telemetry.telemetryLevel": "off", "update.mode": "none",
  "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false, "extensions.ignoreRecommendations": true,
  "workbench.enableExperiments": false, "workbench.startupEditor": "none", "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden", "workbench.editor.enablePreview": false,
  "security.workspace.trust.enabled": false, "chat.disableAIFeatures": true, "git.enabled": false,
  "files.autoSave": "off", "editor.wordBasedSuggestions": "off", "editor.hover.delay": 300,
  "editor.quickSuggestionsDelay": 10, "torchLogs.trace.server": "messages",
  "editor.inlayHints.enabled": "offUnlessPressed"
}
JSON
# torchLogs.serverInterpreter is machine-scoped: code-server (a remote window) takes such
# settings from the machine's settings and ignores them in the user's (it dropped them
# after some reloads when they were here).
mkdir -p "$RUN/data/Machine"
cat > "$RUN/data/Machine/settings.json" <<JSON
{ "torchLogs.serverInterpreter": "$SERVER_PY" }
JSON
TRUST_FLAG=(--disable-workspace-trust)
if [ "$SCENARIO" = untrusted ]; then
  # Workspace trust on, never asked: the folder opens in restricted mode. The workspace
  # names interpreters of its own (settings and a .venv); each leaves a mark when it runs.
  TRUST_FLAG=()
  python3 - "$RUN/data/User/settings.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p))
s.update({"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
          "security.workspace.trust.emptyWindow": False})
json.dump(s, open(p, "w"), indent=1)
PY
  mkdir -p "$RUN/ws/evil" "$RUN/ws/.venv/bin"
  for exe in "$RUN/ws/evil/python3" "$RUN/ws/.venv/bin/python"; do
    printf '#!/bin/sh\ntouch "%s.RAN"\nexec %s "$@"\n' "$exe" "$SERVER_PY" > "$exe"
    chmod +x "$exe"
  done
  printf 'home = %s\nversion = 3.11.0\n' "$(dirname "$SERVER_PY")" > "$RUN/ws/.venv/pyvenv.cfg"
  cat > "$RUN/ws/.vscode/settings.json" <<JSON
{ "torchLogs.serverInterpreter": "$RUN/ws/evil/python3", "torchLogs.python": "$RUN/ws/evil/python3" }
JSON
  # a setting of the user's own that points into the workspace must not run it either
  cat > "$RUN/data/Machine/settings.json" <<JSON
{ "torchLogs.serverInterpreter": "$SERVER_PY", "torchLogs.python": "\${workspaceFolder}/evil/python3" }
JSON
fi
if [ "$SCENARIO" = python-extension ]; then
  # No torchLogs.serverInterpreter: the server runs with the Python extension's interpreter.
  # Two environments: A has a torch 2.4 (its files only: read, never imported), B none.
  rm -f "$RUN/data/Machine/settings.json"
  # the open file's findings only: the Problems rows this scenario reads stay in view
  python3 - "$RUN/data/User/settings.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p))
s["torchLogs.diagnosticMode"] = "openFilesOnly"
json.dump(s, open(p, "w"), indent=1)
PY
  for env in A B; do python3 -m venv --without-pip "$RUN/env$env"; done
  SITE=$("$RUN/envA/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  mkdir -p "$SITE/torch/_logging"
  : > "$SITE/torch/__init__.py"
  echo "__version__ = '2.4.1+cpu'" > "$SITE/torch/version.py"
  cat > "$SITE/torch/_logging/_registrations.py" <<'PY'
from ._internal import register_artifact, register_log
register_log("dynamo", ["torch._dynamo"])
register_artifact("guards", "Prints the guards of every frame")
register_artifact("aot_graphs", "Prints the FX forward and backward graph")
PY
  export STUB_PYTHON_ENVS="$RUN/envA/bin/python:$RUN/envB/bin/python"
  cp -a scripts/stub-python-extension "$RUN/stub"
  (cd "$RUN/stub" && "$EXT_DIR/node_modules/.bin/vsce" package --allow-missing-repository --skip-license \
     --out "$RUN/stub.vsix" >/dev/null 2>&1) || { echo "could not package the Python extension stub" >&2; exit 1; }
fi
CS_PID=
cleanup() {
  # code-server runs in its own process group (setsid): stop it with its extension hosts and servers
  if [ -n "$CS_PID" ]; then
    kill -- "-$CS_PID" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 -- "-$CS_PID" 2>/dev/null || true
  fi
  cp "$RUN"/*.log "$ART/" 2>/dev/null || true
  # the extension's own output channel (server log + LSP trace), one per window
  find "$RUN/data/logs" -name '*TORCH_LOGS*' | sort | cat -- /dev/null $(cat) > "$ART/output-channel.log" 2>/dev/null || true
  find "$RUN/data/logs" > "$ART/logs-list.txt" 2>/dev/null || true
  # the extension hosts' logs (activation events and times), one per window
  find "$RUN/data/logs" -name '*exthost*.log' | sort | cat -- /dev/null $(cat) > "$ART/exthost.log" 2>/dev/null || true
  rm -rf "$RUN" 2>/dev/null || { sleep 1; rm -rf "$RUN"; }
}
trap cleanup EXIT

CS=("$CACHE/cs/node_modules/.bin/code-server" --user-data-dir "$RUN/data" --extensions-dir "$RUN/exts")
export XDG_CONFIG_HOME=$RUN/xdg/config XDG_DATA_HOME=$RUN/xdg/data XDG_CACHE_HOME=$RUN/xdg/cache
export EXTENSIONS_GALLERY='{}'   # no gallery: nothing is fetched
"${CS[@]}" --install-extension "$VSIX" > "$RUN/install.log" 2>&1 || { cat "$RUN/install.log" >&2; exit 1; }
if [ -f "$RUN/stub.vsix" ]; then
  "${CS[@]}" --install-extension "$RUN/stub.vsix" >> "$RUN/install.log" 2>&1 || { cat "$RUN/install.log" >&2; exit 1; }
fi
T_INSTALL=$(date +%s.%N)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TMPDIR=$RUN/tmp setsid "${CS[@]}" --config "$RUN/config.yaml" --bind-addr "127.0.0.1:$PORT" --auth none \
  --disable-telemetry --disable-update-check "${TRUST_FLAG[@]}" --disable-getting-started-override \
  --ignore-last-opened "$RUN/ws" > "$RUN/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.25; done
T_UP=$(date +%s.%N)

set +e
E2E_SCENARIO=$SCENARIO E2E_WS=$RUN/ws E2E_LOGS=$RUN/data/logs PLAYWRIGHT="$CACHE/tools/node_modules/playwright-core" DESCRIPTIONS="$EXT_DIR/../src/torch_logs_lsp/knowledge/data/descriptions.json" \
  node scripts/e2e.js "http://127.0.0.1:$PORT/?folder=$RUN/ws" "$ART"
RC=$?
set -e
T_END=$(date +%s.%N)
secs() { python3 -c "print(f'{$2 - $1:.1f}s')"; }
grep -h 'server running' "$ART/output-channel.log" 2>/dev/null | sed 's/^/extension log: /' || true
echo "e2e: rc=$RC setup=$(secs "$T_START" "$T_SETUP") build=$(secs "$T_SETUP" "$T_BUILD") install-vsix=$(secs "$T_BUILD" "$T_INSTALL") code-server-up=$(secs "$T_INSTALL" "$T_UP") browser-test=$(secs "$T_UP" "$T_END") total=$(secs "$T_START" "$T_END")"
if [ $RC = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $RC
