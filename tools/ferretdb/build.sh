#!/usr/bin/env bash
# The embedded database server: FerretDB v1.24.0 embedded with its SQLite
# backend (see main.go), with the patches in patches/ applied to a copy of the
# module, those in patches/wire/ to a copy of its wire protocol module and those
# in patches/sqlite/ to a copy of its SQLite driver (modernc.org/sqlite).
#
#   build.sh [binary]   builds .tools/bin/clinic-ferretdb (what npm start needs)
#   build.sh tests      runs the unit tests (go test -short) of every package a patch touches, the
#                       patches' own TestClinic* among them: npm test's path
#   build.sh ... --check  exits 0 when that is already done for these sources, 1 otherwise; does nothing
#
# Each does nothing when it was already done for the same sources (a stamp per job in .tools).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../go-build-once.sh
. "$here/../go-build-once.sh"
job=${1:-binary}
out="$tools/bin/clinic-ferretdb"
sources=("$here"/*.go "$here/go.mod" "$here/go.sum" "$here"/patches/*.patch "$here"/patches/wire/*.patch "$here"/patches/sqlite/*.patch "$0")
case "$job" in
  binary) once "$tools/ferretdb.stamp" "$out" "the embedded database server" "${2:-}" "${sources[@]}" ;;
  tests) once "$tools/ferretdb-tests.stamp" '' "the embedded database server" "${2:-}" "${sources[@]}" ;;
  *) echo "usage: $0 [binary|tests] [--check]" >&2; exit 2 ;;
esac
cd "$here"
# Patched copies outside any git work tree (git apply resolves paths from the
# top of an enclosing repository), removed once done.
work=$(mktemp -d "${TMPDIR:-/tmp}/clinic-ferretdb.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp go.mod "$work/build.mod"
cp go.sum "$work/build.sum"
# patched_copy <module> <directory name> <patch>...: the module at the version this build uses, patched.
patched_copy() {
  local module=$1 name=$2 version src p
  shift 2
  version=$(go list -m -f '{{.Version}}' "$module")
  src=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || { echo "could not download $module@$version" >&2; exit 1; }
  cp -r "$src" "$work/$name"
  chmod -R u+w "$work/$name"
  for p in "$@"; do
    if command -v patch >/dev/null; then
      patch --quiet --forward -p1 -d "$work/$name" < "$p"
    else
      (cd "$work/$name" && git apply --whitespace=nowarn "$p")
    fi
  done
  echo "replace $module => $work/$name" >> "$work/build.mod"
}
# unit_tests <copy> <skip> <patch>...: go test -short on each package directory the patches touch, but the
# tests <skip> matches.
unit_tests() {
  local dir=$1 skip=$2 pkgs
  shift 2
  pkgs=$(sed -n 's|^+++ [^/[:space:]]*/\([^[:space:]]*\).*|\1|p' "$@" | xargs -n1 dirname | sort -u | sed 's|^|./|;s|^\./\.$|.|')
  echo "go test -short in $dir: $(echo $pkgs)"
  # shellcheck disable=SC2086
  (cd "$dir" && go test -short -count=1 -tags ferretdb_debug -skip "$skip" $pkgs)
}

patched_copy github.com/FerretDB/FerretDB FerretDB "$here"/patches/*.patch
patched_copy github.com/FerretDB/wire wire "$here"/patches/wire/*.patch
patched_copy modernc.org/sqlite sqlite "$here"/patches/sqlite/*.patch

if [ "$job" = tests ]; then
  # FerretDB's test helpers look for the repository's .git directory, and a test binary
  # whose main module is FerretDB for its version file.
  mkdir -p "$work/FerretDB/.git"
  go list -m -f '{{.Version}}' github.com/FerretDB/FerretDB > "$work/FerretDB/build/version/version.txt"
  # -short is upstream's unit-test mode (tests that need a live PostgreSQL or server skip themselves);
  # ferretdb_debug its debug build, which its tests expect (TestCheckError checks that it is one).
  unit_tests "$work/FerretDB" '^$' "$here"/patches/*.patch
  unit_tests "$work/wire" '^$' "$here"/patches/wire/*.patch
  # modernc's TestIssue118 fails at random: it looks for live allocations under libc.NewTLS in a sampled
  # heap profile, and the package's own init makes one that stays live, caught whenever the sampler picks it.
  # TestRegisteredFunctions runs apart, without its two 200 s subtests (sqlite/0003 tests the same in 8 s).
  unit_tests "$work/sqlite" '^(TestIssue118|TestRegisteredFunctions)$' "$here"/patches/sqlite/*.patch
  (cd "$work/sqlite" && go test -short -count=1 -tags ferretdb_debug -run '^TestRegisteredFunctions$' \
    -skip '^TestRegisteredFunctions$/^(Query|Exec)Context_with_context_expiring$' .)
else
  mkdir -p "$tools/bin"
  # ferretdb_no_postgresql: the SQLite backend is the only one the stack runs; leaving the PostgreSQL
  # backend (pgx and its dependencies) out saves about a tenth of the first build's CPU.
  go build -modfile="$work/build.mod" -tags ferretdb_no_postgresql -trimpath -o "$out" .
fi
mark_done
