#!/usr/bin/env bash
# Builds .tools/bin/clinic-ferretdb: FerretDB v1.24.0 embedded with its SQLite
# backend (see main.go), with the patches in patches/ applied to a copy of the
# module, those in patches/wire/ to a copy of its wire protocol module and those
# in patches/sqlite/ to a copy of its SQLite driver (modernc.org/sqlite). The
# patches' own Go tests (TestClinic*, TestFastUnmarshal) run before the build.
# Does nothing when the binary is already built from the same sources.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
out="$tools/bin/clinic-ferretdb"
stamp="$tools/ferretdb.stamp"
hash=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" "$here"/patches/*.patch "$here"/patches/wire/*.patch "$here"/patches/sqlite/*.patch "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "Go is needed to build the embedded database server (https://go.dev/dl)." >&2; exit 1; }
echo "[ferretdb] building the embedded database server (first time: a minute or two)" >&2
cd "$here"
# Patched copies outside any git work tree (git apply resolves paths from the
# top of an enclosing repository), removed once the binary is built.
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
patched_copy github.com/FerretDB/FerretDB FerretDB "$here"/patches/*.patch
patched_copy github.com/FerretDB/wire wire "$here"/patches/wire/*.patch
patched_copy modernc.org/sqlite sqlite "$here"/patches/sqlite/*.patch
# FerretDB's test helpers look for the repository's .git directory, and a test binary
# whose main module is FerretDB for its version file.
mkdir -p "$work/FerretDB/.git"
go list -m -f '{{.Version}}' github.com/FerretDB/FerretDB > "$work/FerretDB/build/version/version.txt"
(cd "$work/FerretDB" && go test -count=1 -run '^(TestClinic|TestFastUnmarshal)' ./internal/handler/common/ ./internal/handler/sjson/ ./internal/util/fsql/ ./internal/backends/sqlite/ >&2)
(cd "$work/wire" && go test -count=1 -run '^TestClinic' . >&2)
(cd "$work/sqlite" && go test -count=1 -run '^TestClinic' . >&2)
mkdir -p "$tools/bin"
go build -modfile="$work/build.mod" -trimpath -o "$out" .
echo "$hash" > "$stamp"
echo "[ferretdb] built $out" >&2
