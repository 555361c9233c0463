#!/usr/bin/env bash
# The browser test's Chromium (tests/e2e/browser.test.ts drives it with puppeteer-core): Debian's package, installed
# when missing, as root with apt-get (browser downloads of puppeteer or playwright cannot work on a closed network).
# Called by npm test after bootstrap; npm start does not need it.
set -euo pipefail
say() { echo "[browser] $*" >&2; }
have_chromium() { [ -n "${CHROMIUM_BIN:-}" ] || command -v chromium >/dev/null || [ -x /usr/bin/chromium ]; }
have_chromium && exit 0
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  say "installing chromium from Debian (for the browser test)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >&2 \
    || say "apt-get failed"
fi
have_chromium || say "chromium is missing: the browser test will fail (apt-get install chromium, or set CHROMIUM_BIN)"
