// npm run gen:nats-config — writes deploy/nats/nats.conf and its entrypoint.sh (used by docker compose) and the
// "who may do what on NATS" table of docs/nats.md, all from the contracts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeNatsConfig, composeNatsEntrypoint, REPO_ROOT, withPermissionsTable } from '@clinic/devstack';

for (const [file, text] of [
  ['nats.conf', composeNatsConfig()],
  ['entrypoint.sh', composeNatsEntrypoint()],
] as const) {
  const path = join(REPO_ROOT, 'deploy', 'nats', file);
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}
const doc = join(REPO_ROOT, 'docs', 'nats.md');
writeFileSync(doc, withPermissionsTable(readFileSync(doc, 'utf8')));
process.stdout.write(`wrote the NATS permissions table in ${doc}\n`);
