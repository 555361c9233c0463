#!/usr/bin/env bash
# npm run fuzz: installs Schemathesis (pinned, from PyPI) into .tools/venv if
# needed, then fuzzes a freshly started stack through the gateway.
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION=4.32.5
# The newest Python at hand: 3.11 before 3.11.8 fails inside Hypothesis with "AST constructor recursion depth
# mismatch" (CPython gh-106905) on deep schemas.
for PYTHON in python3.13 python3.12 "$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[23]*/bin/python3 2>/dev/null | tail -1)" python3; do
  [ -n "$PYTHON" ] && "$PYTHON" --version >/dev/null 2>&1 && break
done
if [ "$(.tools/venv/bin/st --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ] \
  || [ "$(.tools/venv/bin/python --version 2>&1)" != "$("$PYTHON" --version 2>&1)" ]; then
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into .tools/venv ($("$PYTHON" --version 2>&1))" >&2
  rm -rf .tools/venv
  "$PYTHON" -m venv .tools/venv
  .tools/venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi
exec node tools/cli/dist/fuzz.js "$@"
