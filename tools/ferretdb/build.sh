#!/usr/bin/env bash
# Builds .tools/bin/clinic-ferretdb: FerretDB v1.24.0 embedded with its SQLite
# backend (see main.go), with the patches in patches/ applied to a copy of the
# module. Does nothing when the binary is already built from the same sources.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
out="$tools/bin/clinic-ferretdb"
stamp="$tools/ferretdb.stamp"
hash=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" "$here"/patches/*.patch "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "Go is needed to build the embedded database server (https://go.dev/dl)." >&2; exit 1; }
echo "[ferretdb] building the embedded database server (first time: a minute or two)" >&2
cd "$here"
module=github.com/FerretDB/FerretDB
version=$(go list -m -f '{{.Version}}' "$module")
src=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "could not download $module@$version" >&2; exit 1; }
# A patched copy outside any git work tree (git apply resolves paths from the
# top of an enclosing repository), removed once the binary is built.
work=$(mktemp -d "${TMPDIR:-/tmp}/clinic-ferretdb.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/FerretDB"
chmod -R u+w "$work/FerretDB"
for p in "$here"/patches/*.patch; do
  if command -v patch >/dev/null; then
    patch --quiet --forward -p1 -d "$work/FerretDB" < "$p"
  else
    (cd "$work/FerretDB" && git apply --whitespace=nowarn "$p")
  fi
done
cp go.mod "$work/build.mod"
cp go.sum "$work/build.sum"
echo "replace $module => $work/FerretDB" >> "$work/build.mod"
mkdir -p "$tools/bin"
go build -modfile="$work/build.mod" -trimpath -o "$out" .
echo "$hash" > "$stamp"
echo "[ferretdb] built $out" >&2
