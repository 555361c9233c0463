#!/usr/bin/env bash
# Makes a fresh machine ready to run and test the stack, doing only what is
# missing: npm packages, nats-server, the embedded database server, the test
# servers for metrics and traces (Prometheus, an OTLP receiver), the
# TypeScript build. Progress goes to stderr so that stdout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "[bootstrap] $*" >&2; }

# The nats-server release everything runs (libs/devstack/src/paths.ts NATS_SERVER_VERSION; README says why):
# built from the Go module proxy into .tools/bin, since Debian's 2.9 predates the JetStream fixes the
# three-node cluster relies on. About 75 s of CPU on a 2-core machine, once.
NATS_VERSION=v2.12.15

lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.clinic-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > node_modules/.clinic-lock-hash
fi

if [ "$(.tools/bin/nats-server --version 2>/dev/null)" != "nats-server: $NATS_VERSION" ]; then
  command -v go >/dev/null || { say "Go is needed to build nats-server $NATS_VERSION (install Go 1.24 or newer)"; exit 1; }
  say "building nats-server $NATS_VERSION from the Go module proxy"
  GOBIN="$PWD/.tools/bin" go install "github.com/nats-io/nats-server/v2@$NATS_VERSION" >&2
fi

# pdftotext (Debian poppler-utils) and hb-view (libharfbuzz-bin): the receipt tests read back the PDFs the
# service prints, and compare its Sinhala and Tamil with HarfBuzz's own drawing.
if ! command -v pdftotext >/dev/null || ! command -v hb-view >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    say "installing poppler-utils and libharfbuzz-bin from Debian (pdftotext, hb-view, for the receipt tests)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils libharfbuzz-bin; } >&2 || say "apt-get failed"
  else
    say "pdftotext or hb-view is missing: apt-get install poppler-utils libharfbuzz-bin (the receipt tests need them)"
  fi
fi

bash tools/ferretdb/build.sh

# The observability tests' real servers: Prometheus (Debian) and an OTLP receiver (built like FerretDB).
have_prometheus() {
  command -v prometheus >/dev/null || [ -x /usr/bin/prometheus ] || [ -n "${PROMETHEUS_BIN:-}" ]
}
if ! have_prometheus; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    say "installing prometheus from Debian (for the metrics test)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; } >&2 || say "apt-get failed"
  fi
  have_prometheus || say "prometheus is missing: the metrics test will fail (apt-get install prometheus, or set PROMETHEUS_BIN)"
fi
bash tools/otel-collector/build.sh

npx tsc -b >&2
