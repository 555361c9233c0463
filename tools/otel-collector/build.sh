#!/usr/bin/env bash
# Builds .tools/bin/clinic-otelcol: the OpenTelemetry Collector with only the
# OTLP receiver and the file exporter (see main.go), from the Go module proxy.
# The tracing tests send their spans to it. Does nothing when the binary is
# already built from the same sources; with --check, exits 0 when it is and 1
# otherwise, doing nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
out="$tools/bin/clinic-otelcol"
stamp="$tools/otelcol.stamp"
hash=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -d' ' -f1)
built() { [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; }
if [ "${1:-}" = --check ]; then
  built
  exit
fi
built && exit 0
command -v go >/dev/null || { echo "Go is needed to build the test OTLP receiver (https://go.dev/dl)." >&2; exit 1; }
cd "$here"
mkdir -p "$tools/bin"
go build -trimpath -ldflags='-s -w' -o "$out" .
echo "$hash" > "$stamp"
