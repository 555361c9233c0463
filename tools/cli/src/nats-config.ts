// npm run gen:nats-config — writes deploy/nats/nats.conf (used by docker compose) from the contracts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeNatsConfig, REPO_ROOT } from '@clinic/devstack';

const path = join(REPO_ROOT, 'deploy', 'nats', 'nats.conf');
writeFileSync(path, composeNatsConfig());
process.stdout.write(`wrote ${path}\n`);
