#!/usr/bin/env bash
# npm run fuzz: installs Schemathesis (pinned, from PyPI) into .tools/venv if
# needed, then fuzzes a freshly started stack through the gateway.
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION=4.32.5
if [ "$(.tools/venv/bin/st --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ]; then
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into .tools/venv" >&2
  python3 -m venv .tools/venv
  .tools/venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi
exec node tools/cli/dist/fuzz.js "$@"
