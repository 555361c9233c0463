#!/usr/bin/env bash
# Builds .tools/bin/clinic-otelcol: the OpenTelemetry Collector with only the
# OTLP receiver and the file exporter (see main.go), from the Go module proxy.
# The tracing tests send their spans to it. Does nothing when the binary is
# already built from the same sources; with --check, exits 0 when it is and 1
# otherwise, doing nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../go-build-once.sh
. "$here/../go-build-once.sh"
out="$tools/bin/clinic-otelcol"
once "$tools/otelcol.stamp" "$out" "the test OTLP receiver" "${1:-}" "$here/main.go" "$here/go.mod" "$here/go.sum" "$0"
cd "$here"
mkdir -p "$tools/bin"
go build -trimpath -ldflags='-s -w' -o "$out" .
mark_done
