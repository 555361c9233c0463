// npm run gen:nats-config — writes deploy/nats/nats.conf (used by docker compose) and the
// "who may do what on NATS" table of docs/nats.md, both from the contracts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeNatsConfig, REPO_ROOT, withPermissionsTable } from '@clinic/devstack';

const config = join(REPO_ROOT, 'deploy', 'nats', 'nats.conf');
writeFileSync(config, composeNatsConfig());
process.stdout.write(`wrote ${config}\n`);
const doc = join(REPO_ROOT, 'docs', 'nats.md');
writeFileSync(doc, withPermissionsTable(readFileSync(doc, 'utf8')));
process.stdout.write(`wrote the NATS permissions table in ${doc}\n`);
