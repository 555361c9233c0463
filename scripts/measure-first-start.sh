#!/usr/bin/env bash
# The first `npm start` of a fresh clone, from empty npm and Go caches: the seconds from the command to
# the first 200 of GET /health, with the machine's load average before and after (CPU-heavy: on a
# shared machine the figure is an upper bound).
#
#   bash scripts/measure-first-start.sh      # measures this repository's HEAD commit (commit first)
#
# Clones HEAD into a temporary directory and runs `npm start` there with a throwaway HOME, GOMODCACHE,
# GOCACHE and npm cache, on free ports; then stops it and removes everything (KEEP=1 keeps the folder).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$repo" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/clinic-first-start.XXXXXX")
npm_pid=
cleanup() {
  if [ -n "$npm_pid" ] && kill -0 "$npm_pid" 2>/dev/null; then
    kill -TERM "$npm_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$npm_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$npm_pid" 2>/dev/null || true
  fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT
git clone --quiet "$repo" "$work/clinic"
git -C "$work/clinic" checkout --quiet "$commit"
mkdir -p "$work/home" "$work/gomodcache" "$work/gocache" "$work/npm-cache"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "[measure] commit $commit, empty caches under $work; load average before: $load_before" >&2
started=$(date +%s%3N)
# setsid: npm start and everything it starts form one process group, removed together at the end.
(
  cd "$work/clinic"
  exec setsid env HOME="$work/home" GOPATH="$work/home/go" GOMODCACHE="$work/gomodcache" GOCACHE="$work/gocache" \
    npm_config_cache="$work/npm-cache" PORT="$port" NATS_PORT=0 DB_PORT=0 npm start
) >"$work/npm-start.out" 2>&1 &
npm_pid=$!
tail -n +1 -f "$work/npm-start.out" --pid "$npm_pid" | grep --line-buffered '^\[bootstrap\]' >&2 &
while ! curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/health"; do
  if ! kill -0 "$npm_pid" 2>/dev/null; then
    echo "[measure] npm start exited before it was healthy:" >&2
    tail -n 40 "$work/npm-start.out" >&2
    exit 1
  fi
  if [ $(($(date +%s%3N) - started)) -gt 900000 ]; then
    echo "[measure] not healthy after 15 minutes" >&2
    exit 1
  fi
  sleep 0.5
done
elapsed_ms=$(($(date +%s%3N) - started))
echo "first npm start from empty caches: healthy (GET /health 200) after $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s;" \
  "load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; commit ${commit:0:7}"
