#!/usr/bin/env bash
# Makes a fresh machine ready, doing only what is missing.
#
#   bootstrap.sh start   what the running system needs (npm start, npm run fuzz): npm packages, nats-server,
#                        the embedded database server, the TypeScript build
#   bootstrap.sh [test]  that, and what only the tests and benchmarks use (npm test, CI): pdftotext and
#                        Prometheus from Debian, the OpenTelemetry Collector, the Go unit tests of every
#                        package the database patches touch (tools/ferretdb/README.md)
#   bootstrap.sh bench   the test tools without the Go unit tests (npm run bench: minutes it need not wait)
#
# Independent jobs run at once (npm's downloads beside Go's compiling); the TypeScript build waits for
# the npm packages. Progress goes to stderr, so that stdout stays clean: each job as it starts and ends,
# and every 10 s those still running, with their time so far. Each job's output is in .tools/logs/<job>.log, printed when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in start | test | bench) ;; *) echo "usage: $0 [start|test|bench]" >&2; exit 2 ;; esac
say() { echo "[bootstrap] $*" >&2; }

# The nats-server release everything runs (libs/devstack/src/paths.ts NATS_SERVER_VERSION; docs/operations.md says why):
# built from the Go module proxy into .tools/bin, since Debian's 2.9 predates the JetStream fixes the
# three-node cluster relies on.
NATS_VERSION=v2.12.15

logs=.tools/logs
mkdir -p "$logs"
started=$SECONDS
declare -A pid_of what_of since
running=()

# job <name> <what it is> <command...>: runs the command in the background, its output to its log.
job() {
  local name=$1 what=$2
  shift 2
  "$@" >"$logs/$name.log" 2>&1 &
  pid_of[$name]=$!
  what_of[$name]=$what
  since[$name]=$SECONDS
  running+=("$name")
  say "$what: started"
}

# finish [name]: waits until that job (or, without a name, every job) has ended, reporting each job as it
# ends and, every 10 s, those still running.
finish() {
  local target=${1:-} name last_report=$SECONDS report
  while :; do
    report=()
    for name in "${running[@]}"; do
      [ -n "${pid_of[$name]:-}" ] || continue
      if kill -0 "${pid_of[$name]}" 2>/dev/null; then
        report+=("${what_of[$name]} ($((SECONDS - since[$name])) s)")
      elif wait "${pid_of[$name]}"; then
        unset "pid_of[$name]"
        say "${what_of[$name]}: done in $((SECONDS - since[$name])) s"
      else
        say "${what_of[$name]}: FAILED; the end of $logs/$name.log:"
        tail -n 40 "$logs/$name.log" >&2
        exit 1
      fi
    done
    if [ ${#report[@]} -eq 0 ] || { [ -n "$target" ] && [ -z "${pid_of[$target]:-}" ]; }; then return 0; fi
    if [ $((SECONDS - last_report)) -ge 10 ]; then
      last_report=$SECONDS
      say "$((SECONDS - started)) s: still running: $(printf '%s; ' "${report[@]}" | sed 's/; $//')"
    fi
    sleep 1
  done
}

need_go() {
  command -v go >/dev/null || { say "Go 1.24 or newer is needed to build $1 (https://go.dev/dl)"; exit 1; }
}

lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.clinic-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  install_npm() {
    npm ci --no-audit --no-fund --no-update-notifier --loglevel=error && echo "$lock_hash" > node_modules/.clinic-lock-hash
  }
  job npm "npm ci" install_npm
fi

if [ "$(.tools/bin/nats-server --version 2>/dev/null)" != "nats-server: $NATS_VERSION" ]; then
  need_go "nats-server $NATS_VERSION"
  job nats-server "nats-server $NATS_VERSION" \
    env GOBIN="$PWD/.tools/bin" go install -trimpath "github.com/nats-io/nats-server/v2@$NATS_VERSION"
fi

if ! bash tools/ferretdb/build.sh binary --check; then
  need_go "the embedded database server"
  job ferretdb "FerretDB (the embedded database)" bash tools/ferretdb/build.sh binary
fi

if [ "$mode" != start ]; then
  # pdftotext (poppler-utils) and hb-view (libharfbuzz-bin): the receipt tests read back the PDFs and compare their
  # Sinhala and Tamil with HarfBuzz's own drawing; Prometheus: the metrics test's server
  # (its promtool checks compose's scrape config); HAProxy: checks compose's load balancer configuration.
  have_prometheus() { command -v prometheus >/dev/null || [ -x /usr/bin/prometheus ] || [ -n "${PROMETHEUS_BIN:-}" ]; }
  debian=()
  command -v pdftotext >/dev/null || debian+=(poppler-utils)
  command -v hb-view >/dev/null || debian+=(libharfbuzz-bin)
  # faketime (libfaketime): clinic-time.test.ts runs the stack at 23:30 UTC; npm run test:dates, every suite.
  command -v faketime >/dev/null || debian+=(faketime)
  have_prometheus || debian+=(prometheus)
  command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || debian+=(haproxy)
  if [ ${#debian[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      install_debian() {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debian[@]}"
      }
      job debian "apt-get install ${debian[*]} (tests)" install_debian
    else
      say "missing for the tests: ${debian[*]} (apt-get install ${debian[*]}; or set PROMETHEUS_BIN)"
    fi
  fi
  if ! bash tools/otel-collector/build.sh --check; then
    need_go "the OpenTelemetry Collector"
    job otelcol "OpenTelemetry Collector (tests)" bash tools/otel-collector/build.sh
  fi
  if [ "$mode" = test ] && ! bash tools/ferretdb/build.sh tests --check; then
    need_go "the database patches' tests"
    job ferretdb-tests "Go unit tests of the patched database packages" bash tools/ferretdb/build.sh tests
  fi
fi

# The TypeScript build (npm run build: the client's types from docs/openapi.json, tsc -b, the client's ES modules) needs the
# npm packages; it runs beside whatever Go is still compiling. When nothing else was to be done it is an
# incremental check of a second or two, run quietly.
if [ ${#running[@]} -eq 0 ]; then
  npm run -s build >&2
else
  finish npm
  job build "npm run build" npm run -s build
  finish
fi
if [ $((SECONDS - started)) -ge 5 ]; then say "ready in $((SECONDS - started)) s"; fi
