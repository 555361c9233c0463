#!/bin/sh
# copy-secrets.sh USER COMMAND...: the entrypoint of compose's containers whose process runs as a user of the image's.
# Compose mounts each secret (a 0600 file of `npm run certs`) under /run/secrets as it is on the host: its owner's and
# root's alone. Started as root, this copies them into /run/clinic (a tmpfs), owned by USER and readable by USER
# alone, then runs COMMAND, which drops to USER itself (setpriv, or the image's own entrypoint).
set -eu
user=$1
shift
from=${SECRETS_FROM:-/run/secrets}
to=${SECRETS_TO:-/run/clinic}
group=$(id -gn "$user")
mkdir -p "$to"
chown "$user:$group" "$to"
chmod 0700 "$to"
for secret in "$from"/*; do
  [ -f "$secret" ] || continue
  copy="$to/$(basename "$secret")"
  cp "$secret" "$copy"
  chown "$user:$group" "$copy"
  chmod 0400 "$copy"
done
exec "$@"
