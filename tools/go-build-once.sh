# Sourced by tools/*/build.sh: a Go build (or test run) into .tools that is done once for the same
# sources. A job's stamp file holds the digest of its sources, the calling script and this file.
#
#   once <stamp> <binary, or '' for a job that leaves none> <what, for the error> <flag> <source>...
#
# With flag --check: exits 0 when the job is already done for these sources, 1 otherwise. Without:
# exits 0 when it is done; otherwise checks Go is there and returns, with `stamp` set to the
# stamp file and `hash` to the digest; `mark_done` writes the stamp once the job has succeeded.
tools="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"

once() {
  local out=$2 what=$3 flag=$4
  stamp=$1
  shift 4
  hash=$(cat "$@" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
  local done=1
  if [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && { [ -z "$out" ] || [ -x "$out" ]; }; then done=0; fi
  if [ "$flag" = --check ]; then exit "$done"; fi
  if [ "$done" = 0 ]; then exit 0; fi
  command -v go >/dev/null || { echo "Go is needed to build $what (https://go.dev/dl)." >&2; exit 1; }
}

mark_done() { echo "$hash" > "$stamp"; }
