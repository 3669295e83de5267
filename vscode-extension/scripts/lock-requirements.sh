#!/usr/bin/env bash
# Regenerate requirements.txt: the server's runtime dependencies (from ../pyproject.toml),
# pinned with sha256 hashes of every published file, resolved for Python 3.10 (the oldest
# Python the extension supports, so markers such as `exceptiongroup; python_version < "3.11"`
# are included), with the caps of lock-constraints.txt. Run it after changing the dependencies in pyproject.toml; commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PY310:-}" ]; then
  for c in python3.10 "$HOME"/.pyenv/versions/3.10*/bin/python; do
    if "$c" -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null; then PY310=$c; break; fi
  done
fi
[ -n "${PY310:-}" ] || { echo "need Python 3.10 (set PY310=/path/to/python3.10)" >&2; exit 2; }
VENV=${TMPDIR:-/tmp}/torch-logs-lock-venv
if [ ! -x "$VENV/bin/pip-compile" ]; then
  "$PY310" -m venv "$VENV"
  "$VENV/bin/pip" install -q "pip-tools>=7.4"
fi
"$VENV/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
  --no-emit-find-links --constraint scripts/lock-constraints.txt --output-file requirements.txt \
  ../pyproject.toml
echo "wrote $(pwd)/requirements.txt"
