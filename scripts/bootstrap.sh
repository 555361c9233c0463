#!/usr/bin/env bash
# Makes a fresh machine ready to run and test the stack, doing only what is
# missing: npm packages, nats-server, the embedded database server, the test
# servers for metrics and traces (Prometheus, an OTLP receiver), the
# TypeScript build. Progress goes to stderr so that stdout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "[bootstrap] $*" >&2; }

NATS_VERSION=v2.10.24

lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.clinic-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > node_modules/.clinic-lock-hash
fi

have_nats() {
  command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || [ -x .tools/bin/nats-server ]
}
if ! have_nats; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    say "installing nats-server from Debian"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; } >&2 || say "apt-get failed"
  fi
fi
if ! have_nats; then
  command -v go >/dev/null || { say "nats-server is missing and Go is not installed to build it"; exit 1; }
  say "building nats-server $NATS_VERSION from the Go module proxy"
  GOBIN="$PWD/.tools/bin" go install "github.com/nats-io/nats-server/v2@$NATS_VERSION" >&2
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
