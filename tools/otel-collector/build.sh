#!/usr/bin/env bash
# Builds .tools/bin/clinic-otelcol: the OpenTelemetry Collector with only the
# OTLP receiver and the file exporter (see main.go), from the Go module proxy.
# The tracing tests send their spans to it. Does nothing when the binary is
# already built from the same sources.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
out="$tools/bin/clinic-otelcol"
stamp="$tools/otelcol.stamp"
hash=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "Go is needed to build the test OTLP receiver (https://go.dev/dl)." >&2; exit 1; }
echo "[otelcol] building the OpenTelemetry Collector for the tracing tests (first time: two or three minutes)" >&2
cd "$here"
mkdir -p "$tools/bin"
started=$(date +%s)
go build -trimpath -ldflags='-s -w' -o "$out" .
echo "$hash" > "$stamp"
echo "[otelcol] built $out in $(( $(date +%s) - started )) s" >&2
