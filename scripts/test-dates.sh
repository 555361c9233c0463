#!/usr/bin/env bash
# `npm run test:dates`: the sessions, billing, and leave-and-holidays end-to-end suites with the
# Node processes' clock set to each date below (libfaketime). Jest, the
# services and the gateway all run on the fake clock; nats-server and FerretDB
# are Go programs, which read the real clock whatever LD_PRELOAD says, and the
# suites must not care. TEST_DATES (one date per line) replaces the list.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
if ! command -v faketime >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "[test:dates] installing faketime from Debian" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime; } >&2
  else
    echo "[test:dates] faketime (libfaketime) is needed: apt-get install faketime" >&2
    exit 1
  fi
fi
npx tsc -p tsconfig.tests.json

# The calendar's edges ahead of today, whatever year it is: this year's last half hour, next year's
# 28 February and mid-June, the next leap day and the last minute of its year.
year=$(date -u +%Y)
leap=$((year + 1))
until [ $((leap % 4)) -eq 0 ] && { [ $((leap % 100)) -ne 0 ] || [ $((leap % 400)) -eq 0 ]; }; do leap=$((leap + 1)); done
default_dates="$year-12-31 23:30
$((year + 1))-02-28 12:00
$((year + 1))-06-15 08:00
$leap-02-29 12:00
$leap-12-31 23:59"
# The suites whose rules read today: the sessions' and the bills' files (billing-replicas apart), leave and holidays.
suites=(tests/e2e/sessions-*.test.ts tests/e2e/leave-and-holidays.test.ts)
for file in tests/e2e/billing-*.test.ts; do [ "$file" = tests/e2e/billing-replicas.test.ts ] || suites+=("$file"); done
failed=()
while IFS= read -r date; do
  [ -n "$date" ] || continue
  echo "[test:dates] Node's clock at $date (TZ=${TZ:-UTC})" >&2
  # One clock for every process (by default each child process would start again at $date): services check
  # that a token's `iat`, signed by the test process, is not ahead of their own clock.
  if ! FAKETIME_DONT_RESET=1 TZ="${TZ:-UTC}" faketime "$date" npx jest --selectProjects e2e -- "${suites[@]}"; then
    failed+=("$date")
  fi
done <<< "${TEST_DATES:-$default_dates}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "[test:dates] failed at: ${failed[*]}" >&2
  exit 1
fi
echo "[test:dates] passed at every date" >&2
